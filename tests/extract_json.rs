//! `extract_json` and `extract`: where they look, in what order, and what
//! their errors say. (The repairs themselves are covered case by case in
//! `extract_corpus.rs`.)

use chatwire::{extract, extract_json, Error};
use serde::Deserialize;
use serde_json::{json, Value};

fn message(result: chatwire::Result<Value>) -> String {
    match result {
        Err(Error::NoJson(message)) => message,
        Ok(value) => panic!("expected an error, got {value}"),
        Err(other) => panic!("expected NoJson, got {other:?}"),
    }
}

#[test]
fn error_display_has_the_no_json_prefix() {
    let error = extract_json("").expect_err("empty");
    assert_eq!(error.to_string(), "no JSON found: the text is empty");
}

#[test]
fn empty_and_blank_text_say_so() {
    assert_eq!(message(extract_json("")), "the text is empty");
    assert_eq!(
        message(extract_json(" \n\t")),
        "the text is only whitespace"
    );
}

#[test]
fn error_names_the_most_promising_candidate_with_line_and_column() {
    let text = "Here:\n```json\n{\"a\": 1,\n \"b\": 1/0}\n```\nand {x}";
    let message = message(extract_json(text));
    assert!(message.starts_with("tried 3 candidates;"), "{message}");
    assert!(
        message.contains("the fenced block marked json at line 3 column 1"),
        "{message}"
    );
    assert!(
        message.contains("failed at line 4 column 7: division by zero in a fraction"),
        "{message}"
    );
}

#[test]
fn error_messages_are_lower_case_without_trailing_punctuation() {
    for text in [
        "",
        " ",
        "prose",
        "42",
        "{x}",
        "{\"a\": 1/0}",
        "```json\nnope\n```",
    ] {
        let message = message(extract_json(text));
        let first = message.chars().next().expect("non-empty");
        assert!(!first.is_uppercase(), "{message}");
        assert!(!message.ends_with(['.', '!', '?']), "{message}");
    }
}

#[test]
fn fenced_json_wins_over_earlier_bare_json() {
    let text = "Example: {\"a\": 1}\n```json\n{\"b\": 2}\n```";
    assert_eq!(extract_json(text).expect("json"), json!({"b": 2}));
}

#[test]
fn broken_fence_falls_back_to_bare_json_in_prose() {
    let text = "```json\nnot json at all\n```\nBut here: [1, 2]";
    assert_eq!(extract_json(text).expect("json"), json!([1, 2]));
}

#[test]
fn bare_candidates_are_tried_in_text_order() {
    // A documented limit: valid JSON-looking brackets in prose come first.
    assert_eq!(
        extract_json("See [1]. Data: {\"a\": 1}").expect("json"),
        json!([1])
    );
}

#[test]
fn only_objects_and_arrays_count() {
    assert_eq!(
        message(extract_json("true")),
        "the text is a bare JSON value, not an object or array"
    );
    assert_eq!(
        message(extract_json("\"just a string\"")),
        "the text is a bare JSON value, not an object or array"
    );
}

#[test]
fn trailing_prose_after_a_fenced_value_is_ignored() {
    let text = "```json\n{\"a\": 1}\nThat is all.\n```";
    assert_eq!(extract_json(text).expect("json"), json!({"a": 1}));
}

#[test]
fn value_serializes_to_compact_valid_json() {
    let value = extract_json("{'a': [1/2, None, 'x\ny'],}").expect("json");
    assert_eq!(
        serde_json::to_string(&value).expect("json"),
        r#"{"a":[0.5,null,"x\ny"]}"#
    );
}

#[derive(Debug, Deserialize, PartialEq)]
struct Person {
    name: String,
    age: u32,
}

#[test]
fn extract_deserializes_into_the_requested_type() {
    let person: Person = extract("Result: {name: 'Ada', age: 36,}").expect("person");
    assert_eq!(
        person,
        Person {
            name: "Ada".to_owned(),
            age: 36
        }
    );
}

#[test]
fn extract_passes_over_json_that_does_not_fit() {
    let text = "Schema: {\"type\": \"object\"}\n```json\n{\"name\": \"Grace\", \"age\": 85}\n```";
    let person: Person = extract(text).expect("person");
    assert_eq!(person.name, "Grace");
    let text = "First {\"type\": \"object\"} then {\"name\": \"Alan\", \"age\": 41}";
    assert_eq!(extract::<Person>(text).expect("person").age, 41);
}

#[test]
fn extract_reports_serde_message_when_nothing_fits() {
    let Err(Error::NoJson(message)) = extract::<Person>("{\"name\": \"Ada\"}") else {
        panic!("age is missing");
    };
    assert_eq!(
        message,
        "the JSON found does not fit the requested type: missing field `age`"
    );
}

#[test]
fn extract_value_is_extract_json() {
    let text = "```\n[1, ½]\n```";
    assert_eq!(
        extract::<Value>(text).expect("value"),
        extract_json(text).expect("value")
    );
}

#[test]
fn extract_vec_of_fractions() {
    let numbers: Vec<f64> = extract("[1/2, 1 1/2, ¾, 2]").expect("numbers");
    assert_eq!(numbers, vec![0.5, 1.5, 0.75, 2.0]);
}

#[test]
fn json_prompt_puts_the_example_in_a_json_fence() {
    let prompt = chatwire::extract::json_prompt("  Do it.  ", "\n{\"a\": 1}\n", "  the text  ");
    assert_eq!(
        prompt,
        "Do it.\n\nReply with the JSON only, in a fenced ```json code block, in the same form as this example:\n\n\
         ```json\n{\"a\": 1}\n```\n\nText:\nthe text\n"
    );
    assert_eq!(extract_json(&prompt).expect("example"), json!({"a": 1}));
}

#[test]
fn a_reply_of_escaped_json_is_unescaped() {
    let text = r#"{\"key\": \"value\", \"n\": [1]}"#;
    assert_eq!(
        extract_json(text).expect("json"),
        json!({"key": "value", "n": [1]})
    );
}

#[test]
fn a_reply_that_is_a_tuple_is_an_array() {
    assert_eq!(
        extract_json("(\"a\", (1, 2))").expect("json"),
        json!(["a", [1, 2]])
    );
    assert!(extract_json("It is (1, 2) or so.").is_err());
}

#[test]
fn a_guessed_value_in_prose_gives_way_to_a_later_one_that_needs_no_guess() {
    let text = r#"Use the form {name: value}. Here: {"name": "x"}"#;
    assert_eq!(extract_json(text).expect("json"), json!({"name": "x"}));
    let text = "Use the form {name: value}. Here: {name: x}";
    assert_eq!(extract_json(text).expect("json"), json!({"name": "value"}));
    let text = "The answer: {city: Lyon, population: 522250}";
    assert_eq!(
        extract_json(text).expect("json"),
        json!({"city": "Lyon", "population": 522_250})
    );
}

#[test]
fn a_leading_remark_in_brackets_gives_way_to_the_json_after_it() {
    let text = "(Note: quantities are approximate) {\"a\": 1}";
    assert_eq!(extract_json(text).expect("json"), json!({"a": 1}));
    let text = "[Note] The answer is {\"a\": 1}";
    assert_eq!(extract_json(text).expect("json"), json!({"a": 1}));
    assert_eq!(extract_json("[a, b]").expect("json"), json!(["a", "b"]));
}
