//! The check a schema passes before it is used: no refused keyword, every
//! keyword's value of the right form, every `$ref` inside the schema.

use serde_json::{Map, Value};

use super::check::MAX_DEPTH;
use super::problem::{escape, place, quote};
use super::types::{
    lists, resolve, COUNTS, NUMBERS, ONE_SCHEMA, REFUSED, SCHEMA_LISTS, SCHEMA_MAPS, TYPES,
};

/// Checks a schema and everything in it; the error says what and where.
pub(crate) fn check_schema(
    schema: &Value,
    root: &Value,
    at: &str,
    depth: usize,
) -> std::result::Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("at {at}: nested deeper than {MAX_DEPTH} levels"));
    }
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        other => {
            let (place, found) = (place(at), quote(other));
            return Err(format!(
                "at {place}: a schema is an object or a boolean, not {found}"
            ));
        }
    };
    if let Some(keyword) = REFUSED.split(' ').find(|k| object.contains_key(*k)) {
        return Err(format!(
            "at {}: the keyword {keyword:?} is not supported (chatwire checks a subset of JSON Schema; see Client::send_json)",
            place(at)
        ));
    }
    check_forms(object, at)?;
    if let Some(reference) = object.get("$ref") {
        let target = reference
            .as_str()
            .and_then(|reference| resolve(root, reference));
        if target.is_none() {
            return Err(format!(
                "at {at}/$ref: {} does not point inside this schema (only \"#\" and \"#/...\" references are supported)",
                quote(reference)
            ));
        }
    }
    let inner = |path: String, schema| check_schema(schema, root, &path, depth + 1);
    for keyword in ONE_SCHEMA.split(' ') {
        if let Some(schema) = object.get(keyword) {
            inner(format!("{at}/{keyword}"), schema)?;
        }
    }
    for keyword in SCHEMA_LISTS.split(' ') {
        if let Some(Value::Array(items)) = object.get(keyword) {
            for (index, schema) in items.iter().enumerate() {
                inner(format!("{at}/{keyword}/{index}"), schema)?;
            }
        }
    }
    for keyword in SCHEMA_MAPS.split(' ') {
        if let Some(Value::Object(map)) = object.get(keyword) {
            for (name, schema) in map {
                inner(format!("{at}/{keyword}/{}", escape(name)), schema)?;
            }
        }
    }
    Ok(())
}

/// Keywords whose values share a form, the test of that form, and its name.
type Family = (&'static str, fn(&Value) -> bool, &'static str);

/// Each keyword's value has the form the keyword needs.
fn check_forms(object: &Map<String, Value>, at: &str) -> std::result::Result<(), String> {
    let (types, property_names) = (
        "one of the seven type names, or an array of them",
        "an array of property names",
    );
    let families: [Family; 10] = [
        (SCHEMA_LISTS, Value::is_array, "an array of schemas"),
        (SCHEMA_MAPS, Value::is_object, "an object of schemas"),
        (NUMBERS, Value::is_number, "a number"),
        (COUNTS, |v| v.as_u64().is_some(), "an integer of 0 or more"),
        (
            "multipleOf",
            |v| v.as_f64().is_none_or(|m| m > 0.0),
            "a number above 0",
        ),
        ("type", type_form, types),
        ("enum", Value::is_array, "an array"),
        ("required", names, property_names),
        (
            "dependentRequired",
            |v| v.as_object().is_some_and(|m| m.values().all(names)),
            property_names,
        ),
        ("uniqueItems", Value::is_boolean, "true or false"),
    ];
    for (keywords, ok, expected) in families {
        let wrong = |keyword: &&str| object.get(*keyword).is_some_and(|v| !ok(v));
        if let Some(keyword) = keywords.split(' ').find(wrong) {
            return Err(format!("at {at}/{keyword}: expected {expected}"));
        }
    }
    Ok(())
}

fn type_form(kind: &Value) -> bool {
    let names = match kind {
        Value::Array(names) => names.as_slice(),
        one => std::slice::from_ref(one),
    };
    let known = |name: &Value| name.as_str().is_some_and(|name| lists(TYPES, name));
    !names.is_empty() && names.iter().all(known)
}

fn names(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|items| items.iter().all(Value::is_string))
}
