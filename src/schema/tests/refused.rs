use serde_json::{json, Value};

use crate::error::Error;
use crate::schema::Schema;

fn refusal(schema: Value) -> String {
    match Schema::new(schema) {
        Err(Error::InvalidArgument(message)) => message,
        other => panic!("accepted: {other:?}"),
    }
}

#[test]
fn unusable_schemas_are_refused_before_sending() {
    assert!(refusal(json!(3)).contains("an object or a boolean"));
    assert!(refusal(json!({"type": "float"})).contains("type"));
    assert!(refusal(json!({"properties": {"a": {"pattern": "x+"}}}))
        .contains("\"pattern\" is not supported"));
    assert!(refusal(json!({"$ref": "#/$defs/missing"})).contains("does not point inside"));
    assert!(
        refusal(json!({"$ref": "https://example.com/s.json"})).contains("does not point inside")
    );
    assert!(refusal(json!({"required": "a"})).contains("required"));
    assert!(refusal(json!({"minLength": -1})).contains("minLength"));
    assert!(refusal(json!({"dependentRequired": {"a": "b"}})).contains("dependentRequired"));
    assert!(refusal(json!({"multipleOf": 0})).contains("above 0"));
    assert!(Schema::new(json!(true)).is_ok());
    assert!(Schema::new(json!({"format": "email", "title": "t", "description": "d"})).is_ok());
}

#[test]
fn every_refused_keyword_is_refused_where_ever_it_sits() {
    for keyword in super::super::types::REFUSED.split(' ') {
        let schema = json!({"items": {"anyOf": [{keyword: {}}]}});
        let message = refusal(schema);
        assert!(message.contains(&format!("{keyword:?}")), "{message}");
        assert!(message.contains("/items/anyOf/0"), "{message}");
    }
}
