//! Agreement with the test suites of two other JSON repair libraries.
//!
//! `tests/data/extraction-peer/corpus.jsonl` holds the cases of json_repair
//! (Python) and jsonrepair (JavaScript) with what they expect (see the README
//! there). A case counts when neither peer's suite finds it ambiguous, it
//! expects a value, and that value is an object or array (chatwire refuses
//! bare scalars by design). Every case chatwire answers differently must be
//! listed, with its reason, in `chatwire_choices.tsv` beside the corpus, so
//! that a new difference fails this test, and so does a listed one that has
//! gone away.
//!
//! The report: `cargo test --test extract_peer -- --nocapture`; with
//! `PEER_DETAIL=1` in the environment it also shows each differing case's
//! input, the peers' expectation and chatwire's answer.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The share of counted cases that must agree.
const REQUIRED_AGREEMENT: f64 = 0.90;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join("extraction-peer")
}

/// One line of the corpus, reduced to what this test reads.
struct Case {
    id: String,
    input: String,
    expected: Option<Value>,
    counted: bool,
}

fn field<'a>(row: &'a Value, name: &str, line: usize) -> &'a Value {
    row.get(name)
        .unwrap_or_else(|| panic!("corpus line {line} has no '{name}'"))
}

fn case(row: &Value, line: usize) -> Case {
    let text = |name: &str| field(row, name, line).as_str().unwrap_or("").to_owned();
    let expects_value = text("expect") == "value";
    let counted = expects_value
        && text("scope") == "in"
        && field(row, "ambiguous", line) == &Value::Bool(false);
    Case {
        id: text("id"),
        input: text("input"),
        expected: expects_value.then(|| field(row, "expected", line).clone()),
        counted,
    }
}

fn corpus() -> Vec<Case> {
    let text = fs::read_to_string(data_dir().join("corpus.jsonl")).expect("the peer corpus");
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let row: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("corpus line {} is not JSON: {e}", i + 1));
            case(&row, i + 1)
        })
        .collect()
}

/// The documented choices: id → kind. Lines are `id<TAB>kind<TAB>why`;
/// blank lines and lines starting with `#` are comments.
fn choices() -> BTreeMap<String, String> {
    let text = fs::read_to_string(data_dir().join("chatwire_choices.tsv")).expect("choices file");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut parts = line.splitn(3, '\t');
            let id = parts.next().unwrap_or("").trim().to_owned();
            let kind = parts.next().unwrap_or("").trim().to_owned();
            let why = parts.next().unwrap_or("").trim();
            assert!(
                !kind.is_empty() && !why.is_empty(),
                "choice {id} needs a kind and a reason"
            );
            (id, kind)
        })
        .collect()
}

fn agrees(case: &Case) -> bool {
    match (&case.expected, chatwire::extract_json(&case.input)) {
        (Some(expected), Ok(actual)) => same(expected, &actual),
        (None, Err(_)) => true,
        _ => false,
    }
}

fn detail(case: &Case) {
    let expected = case
        .expected
        .as_ref()
        .map_or_else(|| "an error".to_owned(), Value::to_string);
    let actual = match chatwire::extract_json(&case.input) {
        Ok(value) => value.to_string(),
        Err(error) => format!("error: {error}"),
    };
    let input = format!("{:?}", case.input);
    println!(
        "--- {}\ninput:    {}\nexpected: {}\nchatwire: {}",
        case.id,
        clip(&input),
        clip(&expected),
        clip(&actual)
    );
}

/// At most 300 chars of `text`, for the report.
fn clip(text: &str) -> String {
    let mut short: String = text.chars().take(300).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

/// Equal as JSON data: numbers by value, so `2.0` (Python's way of writing
/// a float) is `2` (JavaScript's).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| same(value, other)))
        }
        _ => a == b,
    }
}

#[test]
fn agreement_with_the_peer_suites() {
    let cases = corpus();
    let counted: Vec<&Case> = cases.iter().filter(|case| case.counted).collect();
    let differing: Vec<&str> = counted
        .iter()
        .filter(|case| !agrees(case))
        .map(|case| case.id.as_str())
        .collect();
    let agreed = counted.len() - differing.len();
    let share = agreed as f64 / counted.len().max(1) as f64;
    println!(
        "peer agreement: {agreed} / {} unambiguous cases ({:.1}%)",
        counted.len(),
        share * 100.0
    );
    let choices = choices();
    for id in &differing {
        let kind = choices.get(*id).map_or("NOT DOCUMENTED", String::as_str);
        println!("  differs: {id} ({kind})");
    }
    if std::env::var_os("PEER_DETAIL").is_some() {
        counted
            .iter()
            .filter(|case| differing.contains(&case.id.as_str()))
            .for_each(|case| detail(case));
    }
    let undocumented: Vec<&&str> = differing
        .iter()
        .filter(|id| !choices.contains_key(**id))
        .collect();
    let stale: Vec<&String> = choices
        .keys()
        .filter(|id| !differing.contains(&id.as_str()))
        .collect();
    assert!(
        share >= REQUIRED_AGREEMENT,
        "agreement {:.1}% is below {:.0}%",
        share * 100.0,
        REQUIRED_AGREEMENT * 100.0
    );
    assert!(
        undocumented.is_empty(),
        "differences not in chatwire_choices.tsv: {undocumented:?}"
    );
    assert!(
        stale.is_empty(),
        "listed in chatwire_choices.tsv but agreeing now (remove them): {stale:?}"
    );
}
