//! The checker's tests: values against schemas (here), schemas refused
//! before use (`refused.rs`), and what messages say (`words.rs`).

mod refused;
mod words;

use serde_json::{json, Value};

use super::problem::MAX_PROBLEMS;
use super::Schema;

fn problems(schema: Value, value: Value) -> Vec<String> {
    Schema::new(schema).expect("usable schema").check(&value)
}

#[test]
fn types_and_integers() {
    assert!(problems(json!({"type": "integer"}), json!(2.0)).is_empty());
    assert_eq!(
        problems(json!({"type": "integer"}), json!(2.5)),
        ["at the top level: expected an integer, got 2.5"]
    );
    assert_eq!(
        problems(json!({"type": ["string", "null"]}), json!(1)),
        ["at the top level: expected a string or null, got 1"]
    );
    assert!(problems(json!({"type": ["string", "null"]}), json!(null)).is_empty());
}

#[test]
fn objects_name_the_path_of_each_problem() {
    let schema = json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 1}, "n": {"type": "number", "minimum": 0}},
            "required": ["name", "n"],
            "additionalProperties": false
        }
    });
    assert_eq!(
        problems(schema, json!([{"name": "", "n": -1, "x": 1}, {"n": "two"}])),
        [
            "at /0/n: expected a number at least 0, got -1",
            "at /0/name: expected at least 1 character, got 0",
            "at /0: the property \"x\" is not allowed",
            "at /1: the property \"name\" is missing",
            "at /1/n: expected a number, got \"two\"",
        ]
    );
}

#[test]
fn enum_and_const_compare_numbers_by_value() {
    assert!(problems(json!({"enum": [1, "a"]}), json!(1.0)).is_empty());
    assert!(problems(json!({"const": {"a": [1]}}), json!({"a": [1.0]})).is_empty());
    assert_eq!(
        problems(json!({"enum": ["g", "kg"]}), json!("cup")),
        [r#"at the top level: expected one of "g", "kg", got "cup""#]
    );
}

#[test]
fn integer_bounds_are_compared_exactly() {
    // The official schema's `seed` bounds: -2^63 written as a double, and a
    // decimal just above i64::MAX that JSON holds as an unsigned integer.
    let seed = json!({"type": "integer", "minimum": -9_223_372_036_854_776_000.0, "maximum": 9_223_372_036_854_776_000_u64});
    for fits in [
        json!(i64::MIN),
        json!(i64::MAX),
        json!(9_223_372_036_854_776_000_u64),
    ] {
        assert!(problems(seed.clone(), fits.clone()).is_empty(), "{fits}");
    }
    for beyond in [
        json!(9_223_372_036_854_776_001_u64),
        json!(u64::MAX),
        json!(1e19),
    ] {
        assert_eq!(problems(seed.clone(), beyond.clone()).len(), 1, "{beyond}");
    }
}

#[test]
fn refs_combinations_and_conditions() {
    let schema = json!({
        "$defs": {"unit": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "type": "object",
        "properties": {"unit": {"$ref": "#/$defs/unit"}, "kind": {"oneOf": [{"type": "integer"}, {"type": "number"}]}},
        "if": {"required": ["a"]}, "then": {"required": ["b"]}
    });
    assert!(problems(schema.clone(), json!({"unit": null})).is_empty());
    assert_eq!(
        problems(schema, json!({"unit": 3, "kind": 1, "a": 0})),
        [
            "at /kind: matches 2 of the \"oneOf\" choices, expected exactly one",
            "at /unit: expected a string, or null, got 3",
            "at the top level: the property \"b\" is missing",
        ]
    );
}

#[test]
fn a_value_that_matches_no_choice_gets_the_problems_of_the_one_it_was_meant_for() {
    let schema = json!({"anyOf": [
        {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
        {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]},
        {"type": "string"}
    ]});
    assert_eq!(
        problems(schema.clone(), json!({"kind": "square", "side": "2"})),
        ["at /side: expected a number, got \"2\""]
    );
    assert_eq!(
        problems(schema.clone(), json!({"kind": "star"})),
        [r#"at /kind: expected one of "circle", "square", got "star""#]
    );
    assert_eq!(
        problems(schema.clone(), json!({"r": 1})),
        [r#"at the top level: the property "kind" is missing"#]
    );
    // One choice holds numbers: its problem, in the words of all choices.
    let schema = json!({"anyOf": [{"type": "number", "maximum": 2}, {"type": "null"}]});
    assert_eq!(
        problems(schema, json!(5)),
        ["at the top level: expected a number at most 2, or null, got 5"]
    );
}

#[test]
fn a_schema_that_refers_to_itself_stops() {
    let found = problems(json!({"$ref": "#"}), json!(1));
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("deeper than 256"), "{found:?}");
    // A recursive schema over finite data is fine.
    let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}});
    assert!(problems(tree, json!({"kids": [{"kids": []}]})).is_empty());
}

#[test]
fn a_reference_loop_in_choices_stops() {
    let schema = json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"});
    let started = std::time::Instant::now();
    let found = problems(schema, json!(1));
    assert!(!found.is_empty());
    // A loop that never ends hangs the test; one that ends only after
    // exponential work is told by the clock, with a bound no busy machine
    // reaches for the few milliseconds the walk takes.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn many_problems_are_capped() {
    let found = problems(json!({"items": {"type": "string"}}), json!(vec![1; 20]));
    assert_eq!(found.len(), MAX_PROBLEMS);
    assert_eq!(found[MAX_PROBLEMS - 1], "and 13 more problems");
}

#[test]
fn arrays_unique_prefix_and_contains() {
    let schema = json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "uniqueItems": true, "contains": {"const": 3}});
    assert!(problems(schema.clone(), json!(["a", 1, 3])).is_empty());
    assert_eq!(
        problems(schema, json!(["a", 1, 1])),
        [
            "at the top level: item 2 repeats an earlier item, 1",
            "at the top level: 0 items match \"contains\", expected at least 1",
        ]
    );
}

#[test]
fn subschemas_are_found_by_their_keys() {
    let schema = Schema::new(json!({"properties": {"n": {"type": "integer"}}})).unwrap();
    let found = schema
        .problems_under(&["properties", "n"], &json!("1"))
        .unwrap();
    assert_eq!(
        found.first().unwrap().of_named("n"),
        "n must be an integer, not \"1\""
    );
    assert!(schema
        .problems_under(&["properties", "m"], &json!(1))
        .is_none());
}

#[test]
fn references_decode_percent_escapes() {
    let defs = json!({"a b": {"type": "string"}, "é": {"type": "integer"}});
    let schema = |reference: &str| json!({"$defs": defs.clone(), "$ref": reference});
    assert_eq!(
        problems(schema("#/$defs/a%20b"), json!(1)),
        ["at the top level: expected a string, got 1"]
    );
    assert!(problems(schema("#/$defs/%C3%A9"), json!(1)).is_empty());
    for bad in ["#/$defs/a%2", "#/$defs/a%zzb", "#/$defs/%C3"] {
        assert!(Schema::new(schema(bad)).is_err(), "{bad}");
    }
}
