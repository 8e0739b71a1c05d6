//! A schema in words, for messages about a value it refuses: "a number
//! from 0 to 2, or null", "a string, or an array of 1 to 4 strings",
//! `an object with "type": "json_schema" and "json_schema"`.

use std::cmp::Ordering;
use std::mem::discriminant;

use serde_json::{Map, Value};

use super::types::{follow, has_type, is_annotation, show_number, type_names, NUMBERS};

/// A bound's keyword, when a value keeps to it, and its words.
type Bound = (&'static str, fn(Ordering) -> bool, &'static str);

/// The bounds on a number, which `check.rs` tests.
pub(super) const NUMBER_BOUNDS: [Bound; 4] = [
    ("minimum", Ordering::is_ge, "at least"),
    ("maximum", Ordering::is_le, "at most"),
    ("exclusiveMinimum", Ordering::is_gt, "above"),
    ("exclusiveMaximum", Ordering::is_lt, "below"),
];

/// How deep nested choices are read for words.
const MAX_NESTING: usize = 8;

/// The most alternatives a description lists (choices nested through
/// `$ref` could otherwise multiply without end).
const MAX_ALTERNATIVES: usize = 64;

/// What any of `choices` accepts, in words, leaving out a choice that a
/// bare type beside it already holds.
pub(super) fn describe_choices(root: &Value, choices: &[Value]) -> String {
    let mut alternatives = Vec::new();
    for choice in choices {
        flatten(root, choice, &mut alternatives, 0);
    }
    let bare: Vec<&str> = alternatives.iter().filter_map(|a| bare_type(a)).collect();
    // A choice whose every fixed value has one of the bare types is held.
    let held = |value: &Value| bare.iter().any(|name| has_type(value, name));
    let mut words: Vec<String> = Vec::new();
    for alternative in alternatives {
        let values = fixed(alternative).unwrap_or_default();
        if bare_type(alternative).is_none() && !values.is_empty() && values.iter().all(held) {
            continue;
        }
        let text = alone(root, alternative);
        if !words.contains(&text) {
            words.push(text);
        }
    }
    words.join(", or ")
}

/// Whether `schema` could hold a value of `value`'s type; nested choices
/// are looked into one level deep, so that the look stays cheap.
pub(super) fn may_hold(root: &Value, schema: &Value, value: &Value, nesting: usize) -> bool {
    let schema = follow(root, schema);
    let object = match schema {
        Value::Bool(accepts) => return *accepts,
        Value::Object(object) => object,
        _ => return true,
    };
    if let Some(kind) = object.get("type") {
        return type_names(kind).iter().any(|name| has_type(value, name));
    }
    if let Some(values) = fixed(schema) {
        return values
            .iter()
            .any(|fixed| discriminant(fixed) == discriminant(value));
    }
    match choices(object) {
        Some(choices) if nesting < 1 => choices
            .iter()
            .any(|choice| may_hold(root, choice, value, nesting + 1)),
        _ => true,
    }
}

/// `one of "a", "b"`, or the one value alone.
pub(super) fn one_of(values: &[Value]) -> String {
    match values {
        [one] => one.to_string(),
        _ => {
            let quoted: Vec<String> = values.iter().map(Value::to_string).collect();
            format!("one of {}", quoted.join(", "))
        }
    }
}

/// "a string", "an object", "null".
pub(super) fn article(name: &str) -> String {
    match name {
        "null" => "null".to_owned(),
        "array" | "object" | "integer" => format!("an {name}"),
        other => format!("a {other}"),
    }
}

/// "1 item", "2 items": `things` in the singular when `count` is 1.
pub(super) fn noun(count: u64, things: &str) -> &str {
    match (count, things) {
        (1, "properties") => "property",
        (1, _) => things.strip_suffix('s').unwrap_or(things),
        _ => things,
    }
}

fn flatten<'s>(root: &'s Value, schema: &'s Value, into: &mut Vec<&'s Value>, nesting: usize) {
    if into.len() >= MAX_ALTERNATIVES {
        return;
    }
    let schema = follow(root, schema);
    let only_choices = |object| only_check(object).and(choices(object));
    if let Some(choices) = schema.as_object().and_then(only_choices) {
        if nesting < MAX_NESTING {
            for choice in choices {
                flatten(root, choice, into, nesting + 1);
            }
            return;
        }
    }
    into.push(schema);
}

/// The one keyword of a schema that checks something, when there is one.
fn only_check(object: &Map<String, Value>) -> Option<&str> {
    let mut checks = object.keys().filter(|key| !is_annotation(key));
    match (checks.next(), checks.next()) {
        (Some(key), None) => Some(key),
        _ => None,
    }
}

fn choices(object: &Map<String, Value>) -> Option<&Vec<Value>> {
    object
        .get("anyOf")
        .or_else(|| object.get("oneOf"))
        .and_then(Value::as_array)
}

/// The values a schema fixes with `enum` or `const`, if it fixes them.
pub(super) fn fixed(schema: &Value) -> Option<&[Value]> {
    match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(values)), _) => Some(values),
        (_, Some(constant)) => Some(std::slice::from_ref(constant)),
        _ => None,
    }
}

/// The type of a schema that says nothing but its one type.
fn bare_type(schema: &Value) -> Option<&str> {
    let object = schema.as_object()?;
    only_check(object).filter(|key| *key == "type")?;
    object["type"].as_str()
}

/// One alternative in words.
fn alone(root: &Value, schema: &Value) -> String {
    let object = match schema {
        Value::Bool(false) => return "nothing".to_owned(),
        Value::Object(object) => object,
        _ => return "any value".to_owned(),
    };
    if let Some(values) = fixed(schema) {
        return one_of(values);
    }
    let names = object
        .get("type")
        .map_or_else(|| implied_types(object), type_names);
    if names.is_empty() {
        // Choices nested deeper than the description reads.
        return match choices(object) {
            Some(choices) => format!("a value that matches one of {} choices", choices.len()),
            None => "any value".to_owned(),
        };
    }
    let words: Vec<String> = names.iter().map(|name| typed(root, object, name)).collect();
    words.join(" or ")
}

/// The types that a schema without `type` speaks of, by its keywords.
fn implied_types(object: &Map<String, Value>) -> Vec<&'static str> {
    let families = [
        ("number", NUMBERS),
        ("string", "minLength maxLength"),
        ("array", "items prefixItems minItems maxItems uniqueItems contains"),
        ("object", "properties required additionalProperties minProperties maxProperties propertyNames dependentRequired"),
    ];
    families
        .into_iter()
        .filter(|(_, keywords)| keywords.split(' ').any(|k| object.contains_key(k)))
        .map(|(name, _)| name)
        .collect()
}

/// A value of one type, with what the schema says of that type.
fn typed(root: &Value, object: &Map<String, Value>, name: &str) -> String {
    let noun = article(name);
    match name {
        "number" | "integer" => noun + &range(object),
        "string" => noun + &sized(object, ["minLength", "maxLength"], "characters"),
        "array" => array(root, object),
        "object" => noun + &shape(root, object),
        _ => noun,
    }
}

/// " from 0 to 2", " at least 1 and a multiple of 5".
fn range(object: &Map<String, Value>) -> String {
    let bound = |keyword| Some(show_number(object.get(keyword)?.as_number()?));
    let mut clauses: Vec<String> = NUMBER_BOUNDS
        .map(|(keyword, _, words)| (keyword, words))
        .into_iter()
        .chain([("multipleOf", "a multiple of")])
        .filter_map(|(keyword, words)| Some(format!("{words} {}", bound(keyword)?)))
        .collect();
    if let (Some(min), Some(max)) = (bound("minimum"), bound("maximum")) {
        clauses.splice(..2, [format!("from {min} to {max}")]);
    }
    if clauses.is_empty() {
        return String::new();
    }
    format!(" {}", clauses.join(" and "))
}

/// " of 1 to 4 characters", " of at most 64 characters", or nothing.
fn sized(object: &Map<String, Value>, [min, max]: [&str; 2], things: &str) -> String {
    let bound = |keyword| object.get(keyword).and_then(Value::as_u64);
    let (min, max) = (bound(min), bound(max));
    let count = match (min, max) {
        (Some(min), Some(max)) if min == max => format!("{min}"),
        (Some(min), Some(max)) => format!("{min} to {max}"),
        (Some(min), None) => format!("at least {min}"),
        (None, Some(max)) => format!("at most {max}"),
        (None, None) => return String::new(),
    };
    let last = max.or(min).unwrap_or(0);
    format!(" of {count} {}", noun(last, things))
}

/// "an array of 1 to 4 strings", "an array of objects", "an array".
fn array(root: &Value, object: &Map<String, Value>) -> String {
    let things = object.get("items").and_then(|items| plural(root, items));
    let plural = things.as_deref().unwrap_or("items");
    let sized = sized(object, ["minItems", "maxItems"], plural);
    match (sized.is_empty(), things) {
        (false, _) => format!("an array{sized}"),
        (true, Some(things)) => format!("an array of {things}"),
        (true, None) => "an array".to_owned(),
    }
}

/// Values of `schema` in the plural: "strings", `"text" and "audio"`.
fn plural(root: &Value, schema: &Value) -> Option<String> {
    let schema = follow(root, schema);
    if let Some(values) = fixed(schema) {
        let quoted: Vec<String> = values.iter().map(Value::to_string).collect();
        return Some(listed(&quoted));
    }
    Some(format!("{}s", schema.get("type")?.as_str()?))
}

/// ` with "type": "text" and "json_schema"`, ` of strings`, or nothing.
fn shape(root: &Value, object: &Map<String, Value>) -> String {
    let required = object.get("required").map_or(Vec::new(), type_names);
    let properties = object.get("properties").and_then(Value::as_object);
    if !required.is_empty() {
        let named: Vec<String> = required
            .iter()
            .map(|name| {
                let tag = properties.and_then(|properties| properties.get(*name));
                match tag.and_then(|schema| fixed(follow(root, schema))) {
                    Some([one]) => format!("{name:?}: {one}"),
                    _ => format!("{name:?}"),
                }
            })
            .collect();
        return format!(" with {}", listed(&named));
    }
    match object.get("additionalProperties") {
        Some(values @ Value::Object(_)) if properties.is_none() => plural(root, values)
            .map(|things| format!(" of {things}"))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// "a", "a and b", "a, b and c".
fn listed(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
