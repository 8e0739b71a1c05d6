//! What problems say about a named value: the schema in words.

use serde_json::{json, Value};

use crate::schema::Schema;

/// The message for `value` under the name `n`, against `schema`.
fn said(schema: Value, value: Value) -> String {
    let schema = Schema::new(json!({"properties": {"n": schema}})).unwrap();
    let found = schema.problems_under(&["properties", "n"], &value).unwrap();
    found.first().expect("a problem").of_named("n")
}

#[test]
fn numbers_say_their_range() {
    let number = json!({"type": "number", "minimum": 0, "maximum": 2});
    assert_eq!(
        said(number, json!(3)),
        "n must be a number from 0 to 2, not 3"
    );
    let integer = json!({"type": "integer", "minimum": 1});
    assert_eq!(
        said(integer, json!("1")),
        "n must be an integer at least 1, not \"1\""
    );
    let double = json!({"type": "integer", "minimum": -9_223_372_036_854_776_000.0});
    assert_eq!(
        said(double, json!(1.5)),
        "n must be an integer at least -9223372036854775808, not 1.5"
    );
    let open = json!({"exclusiveMinimum": 0, "multipleOf": 5});
    assert_eq!(
        said(open, json!(3)),
        "n must be a number above 0 and a multiple of 5, not 3"
    );
}

#[test]
fn strings_arrays_and_objects_say_their_size_and_contents() {
    let short = json!({"type": "string", "maxLength": 64});
    assert!(said(short, json!(5)).ends_with("a string of at most 64 characters, not 5"));
    let stop = json!({"type": "array", "minItems": 1, "maxItems": 4, "items": {"type": "string"}});
    assert_eq!(
        said(stop.clone(), json!([])),
        "n must be an array of 1 to 4 strings, not []"
    );
    assert_eq!(said(stop, json!(["a", 1])), "n[1] must be a string, not 1");
    let map = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    assert_eq!(
        said(map.clone(), json!(5)),
        "n must be an object of integers, not 5"
    );
    assert_eq!(
        said(map, json!({"a b": 0.5})),
        "n.a b must be an integer, not 0.5"
    );
    let tagged = json!({"type": "object", "required": ["type", "x"], "properties": {"type": {"enum": ["t"]}}});
    assert_eq!(
        said(tagged.clone(), json!([])),
        r#"n must be an object with "type": "t" and "x", not []"#
    );
    assert_eq!(
        said(tagged, json!({"type": "t"})),
        r#"n must be an object with "x", not {"type":"t"}"#
    );
}

#[test]
fn choices_are_listed_once_each() {
    let voice = json!({"anyOf": [
        {"anyOf": [{"type": "string"}, {"type": "string", "enum": ["alloy", "ash"]}]},
        {"type": "object", "required": ["id"], "additionalProperties": false, "properties": {"id": {"type": "string"}}}
    ]});
    assert_eq!(
        said(voice.clone(), json!(5)),
        r#"n must be a string, or an object with "id", not 5"#
    );
    assert_eq!(
        said(voice, json!({"id": "v", "x": 1})),
        r#"n: the property "x" is not allowed"#
    );
    let tiers = json!({"anyOf": [{"type": "string", "enum": ["auto", "flex"]}, {"type": "null"}]});
    assert_eq!(
        said(tiers, json!("turbo")),
        r#"n must be one of "auto", "flex", or null, not "turbo""#
    );
}

#[test]
fn long_values_are_cut() {
    let message = said(json!({"type": "integer"}), json!(vec!["x".repeat(300); 5]));
    assert!(message.len() < 150, "{message}");
    assert!(message.ends_with("..."), "{message}");
}

#[test]
fn choices_nested_through_references_are_described_quickly() {
    let wide: Vec<Value> = (0..50).map(|_| json!({"$ref": "#/$defs/a"})).collect();
    let schema =
        json!({"$defs": {"a": {"anyOf": wide}}, "properties": {"n": {"$ref": "#/$defs/a"}}});
    let schema = Schema::new(schema).unwrap();
    let started = std::time::Instant::now();
    let found = schema
        .problems_under(&["properties", "n"], &json!(1))
        .unwrap();
    assert!(!found.is_empty());
    // A loop that never ends hangs the test; one that ends only after
    // exponential work is told by the clock, with a bound no busy machine
    // reaches for the few milliseconds the walk takes.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}
