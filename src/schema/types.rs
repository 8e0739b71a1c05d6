//! The words the checker shares: which keywords check something, by the
//! form of their value (each list one string of names split at spaces), and
//! which are refused; JSON values as JSON Schema sees them (types, equality,
//! the order of numbers); `$ref` resolution inside the schema (`#` and a
//! JSON Pointer after it, `%XX` decoded).

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

/// Keywords whose check needs more than this subset; a schema that uses one
/// is refused, so that no check is skipped without the caller knowing.
pub(crate) const REFUSED: &str = "pattern patternProperties unevaluatedProperties \
    unevaluatedItems $dynamicRef $recursiveRef dependencies dependentSchemas";

/// Keywords whose value is one subschema.
pub(super) const ONE_SCHEMA: &str =
    "items additionalProperties not if then else contains propertyNames";
/// Keywords whose value is an array of subschemas.
pub(super) const SCHEMA_LISTS: &str = "allOf anyOf oneOf prefixItems";
/// Keywords whose value is an object of subschemas.
pub(super) const SCHEMA_MAPS: &str = "properties $defs definitions";
/// Keywords whose value is a number.
pub(super) const NUMBERS: &str = "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf";
/// Keywords whose value is a count.
pub(super) const COUNTS: &str = "minLength maxLength minItems maxItems minProperties \
    maxProperties minContains maxContains";
/// The other keywords that check something.
const OTHERS: &str = "type enum const required dependentRequired uniqueItems $ref";
/// The seven type names.
pub(super) const TYPES: &str = "null boolean object array number string integer";

/// Whether `list` names `keyword`.
pub(super) fn lists(list: &str, keyword: &str) -> bool {
    list.split(' ').any(|name| name == keyword)
}

/// Whether a keyword checks nothing (`title`, `format`, `$defs`, `x-...`).
pub(crate) fn is_annotation(keyword: &str) -> bool {
    let checked = [ONE_SCHEMA, SCHEMA_LISTS, NUMBERS, COUNTS, OTHERS, REFUSED];
    let checks = keyword == "properties" || checked.iter().any(|list| lists(list, keyword));
    !checks
}

/// The names in a keyword's value: one string, or an array of them (the
/// type names of `type`, the property names of `required`).
pub(super) fn type_names(kind: &Value) -> Vec<&str> {
    match kind {
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        one => one.as_str().into_iter().collect(),
    }
}

/// Whether `value` is of the JSON Schema type `name`.
pub(super) fn has_type(value: &Value, name: &str) -> bool {
    match (name, value) {
        ("null", Value::Null) | ("boolean", Value::Bool(_)) | ("object", Value::Object(_)) => true,
        ("array", Value::Array(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_)) => true,
        // As in JSON Schema: 2.0 is an integer.
        ("integer", Value::Number(number)) => {
            number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON Schema's equality: numbers by value (`1` equals `1.0`), objects
/// without regard to key order.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
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

/// Orders two numbers: exactly when both are integers JSON holds exactly
/// (so that a bound near 2^63 is kept to the unit), as doubles otherwise.
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (a.as_i128(), b.as_i128()) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// A number for a message: an integral double in full (`-9223372036854775808`,
/// not `-9.223372036854776e18`).
pub(super) fn show_number(number: &Number) -> String {
    match number.as_f64() {
        Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 1e21 => {
            format!("{float:.0}")
        }
        _ => number.to_string(),
    }
}

/// How many `$ref`s [`follow`] goes through before giving up (a loop).
const MAX_HOPS: usize = 32;

/// The schema a local reference points to, if any.
pub(crate) fn resolve<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    root.pointer(&percent_decode(reference.strip_prefix('#')?)?)
}

/// The schema that `schema`'s `$ref` points to, if any.
pub(super) fn referred<'s>(root: &'s Value, schema: &Value) -> Option<&'s Value> {
    resolve(root, schema.get("$ref")?.as_str()?)
}

/// The schema that `schema` stands for when it is only a `$ref` (plus
/// annotations), followed through: for messages, never to skip a check.
pub(crate) fn follow<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    // Only a schema that checks nothing beside its `$ref` is followed.
    let only_a_reference =
        |object: &Map<String, Value>| object.keys().all(|key| key == "$ref" || is_annotation(key));
    for _ in 0..MAX_HOPS {
        match referred(root, schema) {
            Some(target) if schema.as_object().is_some_and(only_a_reference) => schema = target,
            _ => break,
        }
    }
    schema
}

/// Decodes `%XX` escapes, as a URI fragment may hold them.
fn percent_decode(text: &str) -> Option<String> {
    let mut pieces = text.split('%');
    let mut out = pieces.next()?.as_bytes().to_vec();
    for piece in pieces {
        out.push(u8::from_str_radix(piece.get(..2)?, 16).ok()?);
        out.extend_from_slice(&piece.as_bytes()[2..]);
    }
    String::from_utf8(out).ok()
}
