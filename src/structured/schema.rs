//! The JSON Schema check behind structured output: a documented subset of
//! draft 2020-12, written for this one job (see [`Client::send_json`] for
//! the list and why chatwire has its own).
//!
//! [`Schema::new`] checks the schema once, before anything is sent: every
//! keyword it knows has a value of the right form, every `$ref` points
//! inside the schema, and no keyword that would need more than this subset
//! (a regular expression, `unevaluated*`) is used, so data never passes a
//! check that was silently skipped. [`Schema::check`] then lists what is
//! wrong with a value, in words short enough to send back to the model.
//!
//! [`Client::send_json`]: crate::Client::send_json

use serde_json::{Map, Value};

use crate::error::{excerpt, Error, Keep, Result};

/// The most problems one check reports: enough to correct a reply, short
/// enough for a correction turn.
pub(crate) const MAX_PROBLEMS: usize = 8;

/// How deep checking may go (subschemas entered, `$ref`s followed and
/// values descended into, together): a schema that refers to itself without
/// descending into the value stops here instead of looping.
const MAX_DEPTH: usize = 256;

/// How much of a value a problem quotes.
const QUOTE_BYTES: usize = 40;

/// Keywords whose check needs more than this subset; a schema that uses one
/// is refused, so that no check is skipped without the caller knowing.
const UNSUPPORTED: [&str; 8] = [
    "pattern",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$recursiveRef",
    "dependencies",
    "dependentSchemas",
];

/// Keywords whose value is one subschema.
const ONE_SCHEMA: [&str; 8] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];

/// Keywords whose value is an array of subschemas.
const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is an object of subschemas.
const SCHEMA_MAPS: [&str; 3] = ["properties", "$defs", "definitions"];

/// Keywords whose value is a number.
const NUMBERS: [&str; 5] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// Keywords whose value is a count.
const COUNTS: [&str; 8] = [
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
];

const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// A checked JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Schema {
    root: Value,
}

impl Schema {
    /// Checks the schema; [`Error::InvalidArgument`] says what is wrong
    /// and where (a JSON Pointer into the schema).
    pub(crate) fn new(root: Value) -> Result<Schema> {
        check_schema(&root, &root, "", 0)
            .map_err(|why| Error::InvalidArgument(format!("unusable JSON Schema: {why}")))?;
        Ok(Schema { root })
    }

    /// The schema as given.
    pub(crate) fn value(&self) -> &Value {
        &self.root
    }

    /// What is wrong with `value`, at most [`MAX_PROBLEMS`] items (the last
    /// one says how many more there were); empty when it matches.
    pub(crate) fn check(&self, value: &Value) -> Vec<String> {
        let mut problems = Problems::default();
        Checker { root: &self.root }.schema(
            &self.root,
            value,
            &mut String::new(),
            0,
            &mut problems,
        );
        problems.into_list()
    }
}

/// Problems found so far; only the first few keep their text.
#[derive(Default)]
struct Problems {
    kept: Vec<String>,
    total: usize,
}

impl Problems {
    fn add(&mut self, path: &str, what: impl FnOnce() -> String) {
        self.total += 1;
        if self.kept.len() < MAX_PROBLEMS {
            let place = if path.is_empty() {
                "the top level".to_owned()
            } else {
                path.to_owned()
            };
            self.kept.push(format!("at {place}: {}", what()));
        }
    }

    fn is_empty(&self) -> bool {
        self.total == 0
    }

    fn into_list(mut self) -> Vec<String> {
        if self.total > self.kept.len() {
            let more = self.total - self.kept.len() + 1;
            self.kept.pop();
            self.kept.push(format!("and {more} more problems"));
        }
        self.kept
    }
}

// ---- checking the schema itself ----

fn check_schema(
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
            return Err(format!(
                "at {}: a schema is an object or a boolean, not {}",
                place(at),
                quote(other)
            ))
        }
    };
    if let Some(keyword) = UNSUPPORTED
        .iter()
        .find(|keyword| object.contains_key(**keyword))
    {
        return Err(format!(
            "at {}: the keyword {keyword:?} is not supported (chatwire checks a subset of JSON Schema; see Client::send_json)",
            place(at)
        ));
    }
    check_keyword_forms(object, root, at)?;
    for (keyword, inner) in subschemas(object) {
        check_schema(inner, root, &format!("{at}/{keyword}"), depth + 1)?;
    }
    Ok(())
}

/// Every subschema directly inside a schema object, with its path suffix.
fn subschemas(object: &Map<String, Value>) -> Vec<(String, &Value)> {
    let mut found = Vec::new();
    for keyword in ONE_SCHEMA {
        if let Some(inner) = object.get(keyword) {
            found.push((keyword.to_owned(), inner));
        }
    }
    for keyword in SCHEMA_LISTS {
        if let Some(Value::Array(items)) = object.get(keyword) {
            for (index, inner) in items.iter().enumerate() {
                found.push((format!("{keyword}/{index}"), inner));
            }
        }
    }
    for keyword in SCHEMA_MAPS {
        if let Some(Value::Object(map)) = object.get(keyword) {
            for (name, inner) in map {
                found.push((format!("{keyword}/{}", escape(name)), inner));
            }
        }
    }
    found
}

fn check_keyword_forms(
    object: &Map<String, Value>,
    root: &Value,
    at: &str,
) -> std::result::Result<(), String> {
    let wrong = |keyword: &str, expected: &str| {
        format!(
            "at {}/{keyword}: expected {expected}",
            if at.is_empty() { "" } else { at }
        )
    };
    for keyword in SCHEMA_LISTS {
        if object.get(keyword).is_some_and(|v| !v.is_array()) {
            return Err(wrong(keyword, "an array of schemas"));
        }
    }
    for keyword in SCHEMA_MAPS {
        if object.get(keyword).is_some_and(|v| !v.is_object()) {
            return Err(wrong(keyword, "an object of schemas"));
        }
    }
    for keyword in NUMBERS {
        if object.get(keyword).is_some_and(|v| !v.is_number()) {
            return Err(wrong(keyword, "a number"));
        }
    }
    if object
        .get("multipleOf")
        .and_then(Value::as_f64)
        .is_some_and(|m| m <= 0.0)
    {
        return Err(wrong("multipleOf", "a number above 0"));
    }
    for keyword in COUNTS {
        if object.get(keyword).is_some_and(|v| v.as_u64().is_none()) {
            return Err(wrong(keyword, "an integer of 0 or more"));
        }
    }
    if let Some(kind) = object.get("type") {
        let names: Vec<&Value> = match kind {
            Value::Array(names) => names.iter().collect(),
            one => vec![one],
        };
        if names.is_empty()
            || names
                .iter()
                .any(|name| !name.as_str().is_some_and(|name| TYPES.contains(&name)))
        {
            return Err(wrong(
                "type",
                "one of the seven type names, or an array of them",
            ));
        }
    }
    if object.get("enum").is_some_and(|v| !v.is_array()) {
        return Err(wrong("enum", "an array"));
    }
    for keyword in ["required", "dependentRequired"] {
        let strings = |v: &Value| {
            v.as_array()
                .is_some_and(|items| items.iter().all(Value::is_string))
        };
        let ok = match (keyword, object.get(keyword)) {
            (_, None) => true,
            ("required", Some(v)) => strings(v),
            (_, Some(v)) => v.as_object().is_some_and(|map| map.values().all(strings)),
        };
        if !ok {
            return Err(wrong(keyword, "an array of property names"));
        }
    }
    if object.get("uniqueItems").is_some_and(|v| !v.is_boolean()) {
        return Err(wrong("uniqueItems", "true or false"));
    }
    if let Some(reference) = object.get("$ref") {
        let target = reference
            .as_str()
            .and_then(|reference| resolve(root, reference));
        if target.is_none() {
            return Err(format!(
                "at {}/$ref: {} does not point inside this schema (only \"#\" and \"#/...\" references are supported)",
                at,
                quote(reference)
            ));
        }
    }
    Ok(())
}

/// The schema a local reference (`#`, `#/$defs/name`) points to.
fn resolve<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let pointer = reference.strip_prefix('#')?;
    let pointer = percent_decode(pointer)?;
    root.pointer(&pointer)
}

/// Decodes `%XX` escapes, as a URI fragment may hold them.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

// ---- checking a value ----

struct Checker<'s> {
    root: &'s Value,
}

impl<'s> Checker<'s> {
    /// Checks `value` against `schema`, adding what is wrong to `problems`;
    /// `path` is the value's JSON Pointer.
    fn schema(
        &self,
        schema: &'s Value,
        value: &Value,
        path: &mut String,
        depth: usize,
        problems: &mut Problems,
    ) {
        if depth > MAX_DEPTH {
            problems.add(path, || {
                format!("the schema nests deeper than {MAX_DEPTH} levels here")
            });
            return;
        }
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                return problems.add(path, || "no value is allowed here".to_owned())
            }
            Value::Object(object) => object,
            // Refused by Schema::new.
            _ => return,
        };
        if let Some(target) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(self.root, r))
        {
            self.schema(target, value, path, depth + 1, problems);
        }
        if !self.kind(object, value, path, problems) {
            // The rest would only repeat that the type is wrong.
            return;
        }
        self.constants(object, value, path, problems);
        match value {
            Value::Number(_) => numbers(object, value, path, problems),
            Value::String(text) => strings(object, text, path, problems),
            Value::Array(items) => self.array(object, items, path, depth, problems),
            Value::Object(members) => self.object(object, members, path, depth, problems),
            _ => {}
        }
        self.combinations(object, value, path, depth, problems);
    }

    /// `type`; false when it does not match.
    fn kind(
        &self,
        object: &Map<String, Value>,
        value: &Value,
        path: &str,
        problems: &mut Problems,
    ) -> bool {
        let Some(kind) = object.get("type") else {
            return true;
        };
        let names: Vec<&str> = match kind {
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            one => one.as_str().into_iter().collect(),
        };
        if names.iter().any(|name| has_type(value, name)) {
            return true;
        }
        problems.add(path, || {
            let expected: Vec<String> = names.iter().map(|name| article(name)).collect();
            format!("expected {}, got {}", expected.join(" or "), quote(value))
        });
        false
    }

    /// `enum` and `const`.
    fn constants(
        &self,
        object: &Map<String, Value>,
        value: &Value,
        path: &str,
        problems: &mut Problems,
    ) {
        if let Some(Value::Array(allowed)) = object.get("enum") {
            if !allowed.iter().any(|option| same(option, value)) {
                problems.add(path, || {
                    let options: Vec<String> = allowed.iter().map(Value::to_string).collect();
                    format!(
                        "expected one of {}, got {}",
                        options.join(", "),
                        quote(value)
                    )
                });
            }
        }
        if let Some(constant) = object.get("const") {
            if !same(constant, value) {
                problems.add(path, || {
                    format!("expected {}, got {}", constant, quote(value))
                });
            }
        }
    }

    fn array(
        &self,
        object: &Map<String, Value>,
        items: &[Value],
        path: &mut String,
        depth: usize,
        problems: &mut Problems,
    ) {
        counted(
            object,
            items.len(),
            "minItems",
            "maxItems",
            "items",
            path,
            problems,
        );
        let prefix = object
            .get("prefixItems")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (index, item) in items.iter().enumerate() {
            let schema = prefix.get(index).or_else(|| object.get("items"));
            if let Some(schema) = schema {
                self.within(path, &index.to_string(), |path| {
                    self.schema(schema, item, path, depth + 1, problems)
                });
            }
        }
        if object.get("uniqueItems") == Some(&Value::Bool(true)) {
            let repeated = items
                .iter()
                .enumerate()
                .find(|(index, item)| items[..*index].iter().any(|earlier| same(earlier, item)));
            if let Some((index, item)) = repeated {
                problems.add(path, || {
                    format!("item {index} repeats an earlier item, {}", quote(item))
                });
            }
        }
        if let Some(contains) = object.get("contains") {
            let matches = items
                .iter()
                .filter(|item| self.matches(contains, item, depth))
                .count();
            let min = object
                .get("minContains")
                .and_then(Value::as_u64)
                .unwrap_or(1);
            let max = object.get("maxContains").and_then(Value::as_u64);
            let count = matches as u64;
            if count < min || max.is_some_and(|max| count > max) {
                problems.add(path, || {
                    format!(
                        "{count} items match \"contains\", expected at least {min}{}",
                        max.map(|max| format!(" and at most {max}"))
                            .unwrap_or_default()
                    )
                });
            }
        }
    }

    fn object(
        &self,
        object: &Map<String, Value>,
        members: &Map<String, Value>,
        path: &mut String,
        depth: usize,
        problems: &mut Problems,
    ) {
        counted(
            object,
            members.len(),
            "minProperties",
            "maxProperties",
            "properties",
            path,
            problems,
        );
        if let Some(Value::Array(required)) = object.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !members.contains_key(name) {
                    problems.add(path, || format!("the property {name:?} is missing"));
                }
            }
        }
        if let Some(Value::Object(dependent)) = object.get("dependentRequired") {
            for (name, needs) in dependent
                .iter()
                .filter(|(name, _)| members.contains_key(*name))
            {
                for needed in needs
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !members.contains_key(needed) {
                        problems.add(path, || {
                            format!("the property {needed:?} is missing (required with {name:?})")
                        });
                    }
                }
            }
        }
        let properties = object.get("properties").and_then(Value::as_object);
        for (name, member) in members {
            if let Some(names) = object.get("propertyNames") {
                if !self.matches(names, &Value::String(name.clone()), depth) {
                    problems.add(path, || {
                        format!("the property name {name:?} is not allowed")
                    });
                }
            }
            match (
                properties.and_then(|map| map.get(name)),
                object.get("additionalProperties"),
            ) {
                (Some(schema), _) => self.within(path, name, |path| {
                    self.schema(schema, member, path, depth + 1, problems)
                }),
                (None, Some(Value::Bool(false))) => {
                    problems.add(path, || format!("the property {name:?} is not allowed"))
                }
                (None, Some(schema)) => self.within(path, name, |path| {
                    self.schema(schema, member, path, depth + 1, problems)
                }),
                (None, None) => {}
            }
        }
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`.
    fn combinations(
        &self,
        object: &Map<String, Value>,
        value: &Value,
        path: &mut String,
        depth: usize,
        problems: &mut Problems,
    ) {
        let list = |keyword| {
            object
                .get(keyword)
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
        };
        for schema in list("allOf") {
            self.schema(schema, value, path, depth + 1, problems);
        }
        let any_of = list("anyOf");
        if !any_of.is_empty()
            && !any_of
                .iter()
                .any(|schema| self.matches(schema, value, depth))
        {
            let first = self.first_problem(&any_of[0], value, depth);
            problems.add(path, || {
                format!(
                    "matches none of the {} \"anyOf\" choices (the first says: {first})",
                    any_of.len()
                )
            });
        }
        let one_of = list("oneOf");
        if !one_of.is_empty() {
            let matching = one_of
                .iter()
                .filter(|schema| self.matches(schema, value, depth))
                .count();
            if matching != 1 {
                let first = self.first_problem(&one_of[0], value, depth);
                problems.add(path, || match matching {
                    0 => format!(
                        "matches none of the {} \"oneOf\" choices (the first says: {first})",
                        one_of.len()
                    ),
                    _ => {
                        format!("matches {matching} of the \"oneOf\" choices, expected exactly one")
                    }
                });
            }
        }
        if let Some(not) = object.get("not") {
            if self.matches(not, value, depth) {
                problems.add(path, || "matches the schema under \"not\"".to_owned());
            }
        }
        if let Some(condition) = object.get("if") {
            let branch = if self.matches(condition, value, depth) {
                "then"
            } else {
                "else"
            };
            if let Some(schema) = object.get(branch) {
                self.schema(schema, value, path, depth + 1, problems);
            }
        }
    }

    fn matches(&self, schema: &'s Value, value: &Value, depth: usize) -> bool {
        let mut problems = Problems::default();
        self.schema(schema, value, &mut String::new(), depth + 1, &mut problems);
        problems.is_empty()
    }

    fn first_problem(&self, schema: &'s Value, value: &Value, depth: usize) -> String {
        let mut problems = Problems::default();
        self.schema(schema, value, &mut String::new(), depth + 1, &mut problems);
        problems.kept.into_iter().next().unwrap_or_default()
    }

    /// Runs `check` with `path` extended by one step.
    fn within(&self, path: &mut String, step: &str, check: impl FnOnce(&mut String)) {
        let len = path.len();
        path.push('/');
        path.push_str(&escape(step));
        check(path);
        path.truncate(len);
    }
}

/// Whether a number keeps to a bound.
type Bound = fn(f64, f64) -> bool;

/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`.
fn numbers(object: &Map<String, Value>, value: &Value, path: &str, problems: &mut Problems) {
    let Some(number) = value.as_f64() else {
        return;
    };
    let bound = |keyword| object.get(keyword).and_then(Value::as_f64);
    let checks: [(&str, Bound, &str); 4] = [
        ("minimum", |n, b| n >= b, "at least"),
        ("maximum", |n, b| n <= b, "at most"),
        ("exclusiveMinimum", |n, b| n > b, "above"),
        ("exclusiveMaximum", |n, b| n < b, "below"),
    ];
    for (keyword, holds, words) in checks {
        if let Some(limit) = bound(keyword) {
            if !holds(number, limit) {
                problems.add(path, || {
                    format!("expected a number {words} {limit}, got {value}")
                });
            }
        }
    }
    if let Some(step) = bound("multipleOf") {
        let ratio = number / step;
        if step > 0.0 && (ratio - ratio.round()).abs() > 1e-9 {
            problems.add(path, || {
                format!("expected a multiple of {step}, got {value}")
            });
        }
    }
}

/// `minLength`, `maxLength`: counted in characters, as JSON Schema counts.
fn strings(object: &Map<String, Value>, text: &str, path: &str, problems: &mut Problems) {
    counted(
        object,
        text.chars().count(),
        "minLength",
        "maxLength",
        "characters",
        path,
        problems,
    );
}

/// A `min*`/`max*` pair on a count of things.
fn counted(
    object: &Map<String, Value>,
    count: usize,
    min: &str,
    max: &str,
    things: &str,
    path: &str,
    problems: &mut Problems,
) {
    let count = count as u64;
    if let Some(min) = object
        .get(min)
        .and_then(Value::as_u64)
        .filter(|min| count < *min)
    {
        problems.add(path, || {
            format!("expected at least {min} {}, got {count}", noun(min, things))
        });
    }
    if let Some(max) = object
        .get(max)
        .and_then(Value::as_u64)
        .filter(|max| count > *max)
    {
        problems.add(path, || {
            format!("expected at most {max} {}, got {count}", noun(max, things))
        });
    }
}

/// "1 item", "2 items".
fn noun(count: u64, things: &str) -> &str {
    match count {
        1 => things.strip_suffix("ies").map_or_else(
            || things.strip_suffix('s').unwrap_or(things),
            |_| "property",
        ),
        _ => things,
    }
}

fn has_type(value: &Value, name: &str) -> bool {
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
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
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

/// "a string", "an object", "null".
fn article(name: &str) -> String {
    match name {
        "null" => "null".to_owned(),
        "array" | "object" | "integer" => format!("an {name}"),
        other => format!("a {other}"),
    }
}

/// A value for a message: its JSON, cut short.
fn quote(value: &Value) -> String {
    let text = value.to_string();
    let cut = excerpt(&text, QUOTE_BYTES, Keep::Start);
    if cut.len() < text.len() {
        format!("{cut}...")
    } else {
        text
    }
}

fn place(at: &str) -> &str {
    if at.is_empty() {
        "the top level"
    } else {
        at
    }
}

/// A JSON Pointer step: `~` and `/` escaped.
fn escape(step: &str) -> String {
    step.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(schema: Value, value: Value) -> Vec<String> {
        Schema::new(schema).expect("usable schema").check(&value)
    }

    fn refusal(schema: Value) -> String {
        match Schema::new(schema) {
            Err(Error::InvalidArgument(message)) => message,
            other => panic!("accepted: {other:?}"),
        }
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
                "at /unit: matches none of the 2 \"anyOf\" choices (the first says: at the top level: expected a string, got 3)",
                "at the top level: the property \"b\" is missing",
            ]
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
    fn many_problems_are_capped() {
        let found = problems(json!({"items": {"type": "string"}}), json!(vec![1; 20]));
        assert_eq!(found.len(), MAX_PROBLEMS);
        assert_eq!(found[MAX_PROBLEMS - 1], "and 13 more problems");
    }

    #[test]
    fn unusable_schemas_are_refused_before_sending() {
        assert!(refusal(json!(3)).contains("an object or a boolean"));
        assert!(refusal(json!({"type": "float"})).contains("type"));
        assert!(refusal(json!({"properties": {"a": {"pattern": "x+"}}}))
            .contains("\"pattern\" is not supported"));
        assert!(refusal(json!({"$ref": "#/$defs/missing"})).contains("does not point inside"));
        assert!(refusal(json!({"$ref": "https://example.com/s.json"}))
            .contains("does not point inside"));
        assert!(refusal(json!({"required": "a"})).contains("required"));
        assert!(refusal(json!({"minLength": -1})).contains("minLength"));
        assert!(Schema::new(json!(true)).is_ok());
        assert!(Schema::new(json!({"format": "email", "title": "t", "description": "d"})).is_ok());
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
}
