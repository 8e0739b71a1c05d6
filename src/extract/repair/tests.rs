use super::*;

/// Repairs the value(s) at the start of `text`; see `repair_at`.
fn repair(text: &str) -> Result<Repaired, RepairError> {
    let candidate = Candidate {
        text,
        start: 0,
        leads: true,
    };
    repair_at(candidate, &mut LineCache::default())
}

fn fixed(text: &str) -> String {
    repair(text).expect("repairable").json
}

fn failure(text: &str) -> RepairError {
    repair(text).expect_err("not repairable")
}

fn in_prose(text: &str) -> Result<Repaired, RepairError> {
    let candidate = Candidate {
        text,
        start: 0,
        leads: false,
    };
    repair_at(candidate, &mut LineCache::default())
}

#[test]
fn valid_json_passes_through() {
    assert_eq!(
        fixed(r#"{"a": [1, 2.5, "x", true, null]}"#),
        r#"{"a":[1,2.5,"x",true,null]}"#
    );
}

#[test]
fn length_stops_after_the_value() {
    let repaired = repair("[1] and more").expect("repairable");
    assert_eq!(repaired.end, 3);
}

#[test]
fn trailing_and_doubled_commas_are_dropped() {
    assert_eq!(fixed("[1,,2,]"), "[1,2]");
    assert_eq!(fixed(r#"{"a":1,}"#), r#"{"a":1}"#);
    assert_eq!(fixed("[,1]"), "[1]");
}

#[test]
fn missing_commas_are_supplied() {
    assert_eq!(fixed("[{\"a\":1}\n{\"a\":2}]"), r#"[{"a":1},{"a":2}]"#);
    assert_eq!(fixed("{\"a\":1\n\"b\":2}"), r#"{"a":1,"b":2}"#);
}

#[test]
fn top_level_sequence_becomes_an_array() {
    assert_eq!(
        fixed("{\"a\":1}\n{\"a\":2},\n{\"a\":3}"),
        r#"[{"a":1},{"a":2},{"a":3}]"#
    );
}

#[test]
fn a_bad_later_value_ends_the_sequence() {
    let repaired = repair("{\"a\":1}\n{oops}").expect("repairable");
    assert_eq!(repaired.json, r#"{"a":1}"#);
    assert_eq!(repaired.end, 7);
}

#[test]
fn apostrophes_and_inner_quotes_stay_in_the_string() {
    assert_eq!(fixed("{'a': 'Ben's pie'}"), r#"{"a":"Ben's pie"}"#);
    assert_eq!(
        fixed(r#"{"a": "the "best" one"}"#),
        r#"{"a":"the \"best\" one"}"#
    );
}

#[test]
fn two_strings_without_a_comma_are_two_strings() {
    assert_eq!(fixed(r#"["a" "b"]"#), r#"["a","b"]"#);
    assert_eq!(fixed("[\"a\"\n\"b\"]"), r#"["a","b"]"#);
    assert_eq!(fixed(r#"{"a": "x" "b": 1}"#), r#"{"a":"x","b":1}"#);
}

#[test]
fn unquoted_strings_in_objects_and_leading_arrays() {
    assert_eq!(
        fixed("{city: New York, url: https://a.b/c, q: 2 cups}"),
        r#"{"city":"New York","url":"https://a.b/c","q":"2 cups"}"#
    );
    assert_eq!(
        fixed(r#"[a, b", 1notanumber]"#),
        r#"["a","b","1notanumber"]"#
    );
    assert!(in_prose("[the docs]").is_err());
    assert_eq!(
        in_prose("{\"a\": flour}").expect("object").json,
        r#"{"a":"flour"}"#
    );
}

#[test]
fn missing_colons_sets_and_keys_in_arrays() {
    assert_eq!(fixed("{\"a\" 1,\n\"b\" \"c\"}"), r#"{"a":1,"b":"c"}"#);
    assert_eq!(fixed("{'a', 'b'}"), r#"["a","b"]"#);
    assert_eq!(fixed(r#"["a": 1]"#), r#"[{"a":1}]"#);
}

#[test]
fn keys_missing_a_quote_or_a_colon() {
    assert_eq!(fixed(r#"{a":"x",b":"y"}"#), r#"{"a":"x","b":"y"}"#);
    assert_eq!(fixed("{a 'b'}"), r#"{"a":"b"}"#);
    assert_eq!(fixed("{'a' 'b'}"), r#"{"a":"b"}"#);
    assert_eq!(fixed("{:}"), "{}");
    assert!(failure("{the 'best' one}").message.contains("'the'"));
}

#[test]
fn strings_joined_with_plus_across_lines() {
    assert_eq!(fixed("{\"a\": 'x' +\n 'y'}"), r#"{"a":"xy"}"#);
}

#[test]
fn backtick_quotes() {
    assert_eq!(fixed("{`a´: `b`}"), r#"{"a":"b"}"#);
}

#[test]
fn json_inside_a_member_string_stays_in_it() {
    assert_eq!(
        fixed(r#"{"x": "is {"k": [1]}, ok", "y": 2}"#),
        r#"{"x":"is {\"k\": [1]}, ok","y":2}"#
    );
}

#[test]
fn a_leading_tuple_is_an_array() {
    assert_eq!(fixed("((1, 2), ('a'))"), r#"[[1,2],"a"]"#);
    assert_eq!(fixed("(1)"), "[1]");
    assert!(in_prose("(1, 2)").is_err());
}

#[test]
fn groups_are_arrays_or_their_only_item() {
    assert_eq!(
        fixed("{\"t\": (1, 2),\n\"id\": ObjectId(\"7\"),\n\"s\": (\"x\")}"),
        r#"{"t":[1,2],"id":"7","s":"x"}"#
    );
}

#[test]
fn stray_closers_and_missing_object_closers() {
    assert_eq!(fixed(r#"[{"a": 1}}, 2]"#), r#"[{"a":1},2]"#);
    assert_eq!(fixed(r#"{"a": [1}, "b": 2}"#), r#"{"a":[1],"b":2}"#);
    assert_eq!(fixed(r#"{"a": 1}, "b": 2}"#), r#"{"a":1,"b":2}"#);
    assert_eq!(fixed(r#"[{"i": 1 {"i": 2}]"#), r#"[{"i":1},{"i":2}]"#);
}

#[test]
fn a_failure_after_content_resumes_after_the_value() {
    let text = r#"{"a": [1], "b": 1/0} [2]"#;
    let error = failure(text);
    assert_eq!(error.resume, text.find(" [2]").expect("the later array"));
    let error = failure("{the answer} [2]");
    assert_eq!(error.resume, error.offset);
}

#[test]
fn unquoted_keys_need_a_colon() {
    assert_eq!(
        fixed("{name: 'x', two-words: 1, 3: 4}"),
        r#"{"name":"x","two-words":1,"3":4}"#
    );
    assert!(failure("{the answer}").message.contains("the word 'the'"));
}

#[test]
fn comments_are_skipped() {
    assert_eq!(fixed("[1, // one\n 2 /* two */]"), "[1,2]");
    assert_eq!(fixed("[\"//not a comment\"]"), r#"["//not a comment"]"#);
}

#[test]
fn python_and_javascript_literals() {
    assert_eq!(
        fixed("[True, False, None, undefined, NaN, -Infinity, +inf, null]"),
        "[true,false,null,null,null,null,null,null]"
    );
    assert!(in_prose("[maybe]")
        .expect_err("a word")
        .message
        .contains("'maybe'"));
}

#[test]
fn missing_values_become_null() {
    assert_eq!(fixed(r#"{"a": , "b": }"#), r#"{"a":null,"b":null}"#);
}

#[test]
fn mismatched_closers_close_up_to_their_match() {
    assert_eq!(fixed(r#"{"a": [1, 2}"#), r#"{"a":[1,2]}"#);
    assert_eq!(fixed(r#"[{"a": 1]"#), r#"[{"a":1}]"#);
}

#[test]
fn truncated_output_is_closed() {
    assert_eq!(fixed(r#"[{"a": 1}, {"b": "tw"#), r#"[{"a":1},{"b":"tw"}]"#);
    assert_eq!(fixed(r#"[{"a": 1}, {"b": "#), r#"[{"a":1}]"#);
    assert_eq!(fixed(r#"[{"a": 1}, {"b"#), r#"[{"a":1}]"#);
    assert_eq!(fixed(r#"[{"a": 1}, {"#), r#"[{"a":1}]"#);
    assert_eq!(fixed(r#"{"a": 1, "b": ["#), r#"{"a":1}"#);
    assert_eq!(fixed(r#"{"a": 1, "b": -"#), r#"{"a":1}"#);
    assert_eq!(fixed(r#"[1, 2, -"#), "[1,2]");
    assert_eq!(fixed(r#"{"a": tru"#), r#"{"a":true}"#);
    assert_eq!(fixed("[1.5, 2."), "[1.5,2.0]");
}

#[test]
fn truncation_before_any_value_is_not_json() {
    assert!(repair("[").is_err());
    assert!(repair("{\"a\": ").is_err());
    assert!(repair("[[{").is_err());
}

#[test]
fn ellipsis_placeholders_are_dropped() {
    assert_eq!(fixed("[1, 2, ...]"), "[1,2]");
    assert_eq!(fixed("[{\"a\": 1}, …]"), r#"[{"a":1}]"#);
}

#[test]
fn fractions_in_values_but_not_in_strings() {
    assert_eq!(fixed(r#"{"q": 1/2, "n": "1/2"}"#), r#"{"q":0.5,"n":"1/2"}"#);
    assert_eq!(fixed("[1 1/2, 1½, ½, 2 ¾]"), "[1.5,1.5,0.5,2.75]");
}

#[test]
fn division_by_zero_fails_at_the_fraction() {
    let error = failure(r#"{"q": 1/0}"#);
    assert_eq!(error.offset, 6);
    assert!(error.message.contains("division by zero"));
}

#[test]
fn nesting_is_limited() {
    let deep = "[".repeat(MAX_DEPTH + 1);
    let error = failure(&deep);
    assert_eq!(error.offset, MAX_DEPTH);
    assert!(error.message.contains("nesting"));
}

#[test]
fn error_offsets_point_at_the_problem() {
    let error = failure(r#"{"a" }"#);
    assert_eq!(error.offset, 5);
    assert_eq!(error.message, "expected ':' after the key, found '}'");
}
