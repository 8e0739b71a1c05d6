//! Extraction gives the outermost JSON value the reply holds, repaired, or
//! an error: never a part of it. Each test is one way older versions
//! returned a nested fragment as if it were the whole answer.

use chatwire::{extract, extract_ingredients, extract_json, Error};
use serde_json::{json, Value};

fn no_json(result: chatwire::Result<Value>) -> String {
    match result {
        Err(Error::NoJson(message)) => message,
        Ok(value) => panic!("expected an error, got the fragment {value}"),
        Err(other) => panic!("expected NoJson, got {other:?}"),
    }
}

#[test]
fn a_failure_inside_an_object_does_not_yield_a_later_inner_value() {
    let message = no_json(extract_json(r#"{"a": 1/0, "b": [1, 2]}"#));
    assert!(message.contains("division by zero"), "{message}");
}

#[test]
fn a_failure_inside_an_array_does_not_yield_a_later_inner_object() {
    let message = no_json(extract_json(r#"[{"q": 1/0}, {"q": 2}]"#));
    assert!(message.contains("division by zero"), "{message}");
}

#[test]
fn a_failed_fence_does_not_yield_a_fragment_of_itself_to_the_bare_scan() {
    let text = "```json\n{\"items\": [1, 2], \"total\": 3/0, \"rest\": [4]}\n```";
    assert!(no_json(extract_json(text)).contains("division by zero"));
}

#[test]
fn nesting_too_deep_is_an_error_not_the_innermost_part() {
    let text = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    assert!(no_json(extract_json(&text)).contains("nesting deeper than 120 levels"));
}

#[test]
fn after_a_failed_value_the_search_goes_on_after_its_end() {
    let text = r#"First try: {"a": 1/0, "b": [1]}. Fixed: {"a": 0.5}"#;
    assert_eq!(
        extract_json(text).expect("the second value"),
        json!({"a": 0.5})
    );
}

#[test]
fn prose_in_braces_is_not_a_value_so_json_inside_it_is_found() {
    let text = "Note {this has no colon, but [1, 2] is data}";
    assert_eq!(extract_json(text).expect("the array"), json!([1, 2]));
}

#[test]
fn a_reply_that_is_a_quoted_json_string_is_unwrapped_once() {
    let text = r#""{\"a\": [1, 2], \"b\": \"x\"}""#;
    assert_eq!(
        extract_json(text).expect("the unwrapped object"),
        json!({"a": [1, 2], "b": "x"})
    );
}

#[test]
fn a_quoted_string_inside_a_quoted_string_is_not_unwrapped_again() {
    let text = r#""\"[1, 2]\"""#;
    let message = no_json(extract_json(text));
    assert!(message.contains("bare JSON value"), "{message}");
}

#[test]
fn a_reply_that_is_a_quoted_prose_string_yields_nothing_from_inside_it() {
    let message = no_json(extract_json(r#""The list is [1, 2].""#));
    assert!(message.contains("bare JSON value"), "{message}");
}

#[test]
fn extract_into_a_type_gets_no_fragment_either() {
    let result = extract::<Vec<u32>>(r#"{"a": 1/0, "b": [1, 2]}"#);
    assert!(matches!(result, Err(Error::NoJson(_))), "{result:?}");
}

#[test]
fn ingredients_get_no_fragment_either() {
    let text = r#"{"recipe": 1/0, "ingredients": [{"ingredient": "salt", "quantity": 1}]}"#;
    let result = extract_ingredients(text);
    assert!(matches!(result, Err(Error::NoJson(_))), "{result:?}");
}
