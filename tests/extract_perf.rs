//! Pathological inputs must not make extraction quadratic (or overflow the
//! stack). No tight timing: each case only has to finish, and a generous
//! bound catches a quadratic blow-up (which would take minutes at 1 MB).

use std::time::{Duration, Instant};

const SIZE: usize = 1 << 20;

/// Far above the linear time even of a debug build on a slow machine.
const GENEROUS: Duration = Duration::from_secs(20);

fn timed(name: &str, text: &str) -> chatwire::Result<serde_json::Value> {
    let start = Instant::now();
    let result = chatwire::extract_json(text);
    let elapsed = start.elapsed();
    assert!(
        elapsed < GENEROUS,
        "{name}: {elapsed:?} for {} bytes",
        text.len()
    );
    result
}

fn repeat_to_size(unit: &str) -> String {
    unit.repeat(SIZE / unit.len())
}

#[test]
fn a_megabyte_of_open_braces_fails_quickly() {
    assert!(timed("braces", &"{".repeat(SIZE)).is_err());
}

#[test]
fn a_megabyte_of_open_brackets_fails_on_depth_not_stack() {
    assert!(timed("brackets", &"[".repeat(SIZE)).is_err());
}

#[test]
fn balanced_deep_nesting_returns_the_innermost_part_within_the_limit() {
    let depth = SIZE / 2;
    let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let value = timed("balanced", &text).expect("some nested array");
    assert!(value.is_array());
}

#[test]
fn alternating_openers_and_quotes() {
    let _ = timed("quotes", &repeat_to_size("{\"a\":\"["));
    let _ = timed("quote lines", &repeat_to_size("[\"a\" b \"c\" d\n"));
}

#[test]
fn a_line_full_of_quotes_inside_one_string() {
    let text = format!("[\"{}\"]", "x\"y".repeat(SIZE / 3));
    assert!(timed("quote line", &text).is_ok());
}

#[test]
fn many_fences_with_unbalanced_quotes() {
    let _ = timed("fences", &repeat_to_size("```json\n\"\n```\n"));
    let _ = timed(
        "fence quote",
        &format!("```json\n\"\n{}", repeat_to_size("```\n")),
    );
}

#[test]
fn many_small_objects_one_per_line() {
    let value = timed(
        "lines",
        &repeat_to_size("{\"ingredient\": \"salt\", \"quantity\": 1/2}\n"),
    )
    .expect("array");
    assert!(value.as_array().is_some_and(|items| items.len() > 10_000));
}

#[test]
fn many_failing_candidates_in_prose() {
    assert!(timed(
        "placeholders",
        &repeat_to_size("fill {name} in [the form] ")
    )
    .is_err());
    assert!(timed("fractions", &repeat_to_size("1/2 ")).is_err());
}

#[test]
fn long_truncated_string() {
    let text = format!("{{\"a\": \"{}", "x".repeat(SIZE));
    assert!(timed("string", &text).is_ok());
}

#[test]
fn many_comments_and_long_comment() {
    let _ = timed("comments", &format!("[1, /*{}", "*".repeat(SIZE)));
    let _ = timed("line comments", &format!("[{}1]", repeat_to_size("// c\n")));
}

#[test]
fn many_fractions_and_numbers() {
    let value = timed("numbers", &format!("[{}1]", repeat_to_size("1 1/2, ½, "))).expect("array");
    assert!(value.as_array().is_some_and(|items| items.len() > 100_000));
}
