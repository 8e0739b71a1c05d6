//! The walk that checks a value against a schema: every keyword but the
//! combinators (`combinators.rs`).

use std::cell::Cell;

use serde_json::{Map, Number, Value};

use super::describe::{article, describe_choices, noun, NUMBER_BOUNDS};
use super::problem::{quote, Problems, Step, What};
use super::types::{compare, has_type, referred, same, show_number, type_names};

/// How deep checking may go (subschemas, `$ref`s and values together): a
/// schema that refers to itself stops here instead of looping.
pub(crate) const MAX_DEPTH: usize = 256;

/// How many schemas one check may visit: nested choices multiply the work,
/// which through `$ref` could otherwise grow exponentially.
const MAX_VISITS: usize = 200_000;

/// Checks values against the schemas inside one root.
pub(super) struct Checker<'s> {
    pub(super) root: &'s Value,
    /// Schemas visited so far, against [`MAX_VISITS`].
    visits: Cell<usize>,
}

/// Where a check is in the value, and what it found so far.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) path: Vec<Step>,
    pub(super) problems: Problems,
}

impl Walk {
    /// Adds a problem with `value` here; `what` runs only when it is kept.
    pub(super) fn add(&mut self, value: &Value, what: impl FnOnce() -> What) {
        self.problems.add(&self.path, value, what);
    }

    /// Adds a problem said in a clause of its own.
    pub(super) fn other(&mut self, value: &Value, text: impl FnOnce() -> String) {
        self.add(value, || What::Other(text()));
    }

    /// Runs `check` one `step` further into the value.
    pub(super) fn within(&mut self, step: Step, check: impl FnOnce(&mut Walk)) {
        self.path.push(step);
        check(self);
        self.path.pop();
    }
}

/// One schema object met with one value, `depth` levels into the check.
pub(super) struct Here<'s, 'v> {
    pub(super) schema: &'s Value,
    pub(super) object: &'s Map<String, Value>,
    pub(super) value: &'v Value,
    pub(super) depth: usize,
}

impl<'s> Checker<'s> {
    pub(super) fn new(root: &'s Value) -> Checker<'s> {
        Checker {
            root,
            visits: Cell::new(0),
        }
    }

    /// Checks `value` against `schema`, adding what is wrong to `walk`.
    pub(super) fn schema(&self, schema: &'s Value, value: &Value, walk: &mut Walk, depth: usize) {
        self.visits.set(self.visits.get() + 1);
        if self.visits.get() > MAX_VISITS {
            return walk.other(value, || {
                format!(
                    "checking stopped: the schema needs more than {MAX_VISITS} steps for this value"
                )
            });
        }
        if depth > MAX_DEPTH {
            return walk.other(value, || {
                format!("the schema nests deeper than {MAX_DEPTH} levels here")
            });
        }
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(false) => return walk.other(value, || "no value is allowed here".into()),
            // `true`, or a form that Schema::new refuses.
            _ => return,
        };
        if let Some(target) = referred(self.root, schema) {
            self.schema(target, value, walk, depth + 1);
        }
        let here = Here {
            schema,
            object,
            value,
            depth,
        };
        if !self.kind(&here, walk) {
            // The rest would only repeat that the type is wrong.
            return;
        }
        self.constants(&here, walk);
        match value {
            Value::Number(number) => self.numbers(&here, number, walk),
            Value::String(text) => {
                let bounds = ["minLength", "maxLength"];
                self.counted(&here, text.chars().count(), bounds, "characters", walk);
            }
            Value::Array(items) => self.array(&here, items, walk),
            Value::Object(members) => self.object(&here, members, walk),
            _ => {}
        }
        self.combinations(&here, walk);
    }

    /// Whether `value` matches `schema`.
    pub(super) fn matches(&self, schema: &'s Value, value: &Value, depth: usize) -> bool {
        let mut walk = Walk {
            path: Vec::new(),
            problems: Problems::counted(),
        };
        self.schema(schema, value, &mut walk, depth + 1);
        walk.problems.is_empty()
    }

    /// The problems of `value` against `schema` alone, at the walk's place.
    pub(super) fn problems(
        &self,
        schema: &'s Value,
        value: &Value,
        walk: &mut Walk,
        depth: usize,
    ) -> Problems {
        let outer = std::mem::take(&mut walk.problems);
        self.schema(schema, value, walk, depth + 1);
        std::mem::replace(&mut walk.problems, outer)
    }

    /// Adds the complaint of a keyword that `here` breaks, with all that
    /// its schema accepts.
    fn broken(&self, here: &Here<'s, '_>, walk: &mut Walk, said: impl FnOnce() -> String) {
        walk.add(here.value, || What::Breaks {
            said: said(),
            whole: describe_choices(self.root, std::slice::from_ref(here.schema)),
        });
    }

    /// `type`; false when it does not match.
    fn kind(&self, here: &Here<'s, '_>, walk: &mut Walk) -> bool {
        let Some(kind) = here.object.get("type") else {
            return true;
        };
        let names = type_names(kind);
        let matched = names.iter().any(|name| has_type(here.value, name));
        if !matched {
            self.broken(here, walk, || {
                let expected: Vec<String> = names.iter().map(|name| article(name)).collect();
                let (expected, found) = (expected.join(" or "), quote(here.value));
                format!("expected {expected}, got {found}")
            });
        }
        matched
    }

    /// `enum` and `const`.
    fn constants(&self, here: &Here<'s, '_>, walk: &mut Walk) {
        let value = here.value;
        if let Some(Value::Array(allowed)) = here.object.get("enum") {
            if !allowed.iter().any(|option| same(option, value)) {
                self.broken(here, walk, || {
                    let options: Vec<String> = allowed.iter().map(Value::to_string).collect();
                    let (options, found) = (options.join(", "), quote(value));
                    format!("expected one of {options}, got {found}")
                });
            }
        }
        if let Some(constant) = here.object.get("const") {
            if !same(constant, value) {
                self.broken(here, walk, || {
                    format!("expected {constant}, got {}", quote(value))
                });
            }
        }
    }

    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
    /// `multipleOf`.
    fn numbers(&self, here: &Here<'s, '_>, number: &Number, walk: &mut Walk) {
        for (keyword, holds, words) in NUMBER_BOUNDS {
            let Some(Value::Number(limit)) = here.object.get(keyword) else {
                continue;
            };
            if !compare(number, limit).is_some_and(holds) {
                self.broken(here, walk, || {
                    let limit = show_number(limit);
                    format!("expected a number {words} {limit}, got {number}")
                });
            }
        }
        let step = here.object.get("multipleOf").and_then(Value::as_f64);
        if let (Some(step), Some(float)) = (step, number.as_f64()) {
            let ratio = float / step;
            if step > 0.0 && (ratio - ratio.round()).abs() > 1e-9 {
                self.broken(here, walk, || {
                    format!("expected a multiple of {step}, got {number}")
                });
            }
        }
    }

    /// A `min*`/`max*` pair on a count of things (`things` in the plural).
    fn counted(
        &self,
        here: &Here<'s, '_>,
        count: usize,
        [min, max]: [&'static str; 2],
        things: &str,
        walk: &mut Walk,
    ) {
        let count = count as u64;
        // The tests and words of `minimum` and `maximum`.
        for ((_, holds, words), keyword) in NUMBER_BOUNDS.into_iter().zip([min, max]) {
            let bound = here.object.get(keyword).and_then(Value::as_u64);
            if let Some(bound) = bound.filter(|bound| !holds(count.cmp(bound))) {
                let things = noun(bound, things);
                self.broken(here, walk, || {
                    format!("expected {words} {bound} {things}, got {count}")
                });
            }
        }
    }

    /// `minProperties`/`maxProperties`, `required`, `dependentRequired`,
    /// `properties`, `additionalProperties`, `propertyNames`.
    fn object(&self, here: &Here<'s, '_>, members: &Map<String, Value>, walk: &mut Walk) {
        let (object, value) = (here.object, here.value);
        let bounds = ["minProperties", "maxProperties"];
        self.counted(here, members.len(), bounds, "properties", walk);
        let mut missing = |name: &str, because: Option<&str>| {
            if !members.contains_key(name) {
                walk.add(value, || What::Missing {
                    name: name.to_owned(),
                    because: because.map(str::to_owned),
                });
            }
        };
        for name in object.get("required").map_or(Vec::new(), type_names) {
            missing(name, None);
        }
        // `dependentRequired`: the names a present property requires.
        if let Some(Value::Object(dependent)) = object.get("dependentRequired") {
            let present = dependent
                .iter()
                .filter(|(name, _)| members.contains_key(*name));
            for (name, needs) in present {
                for needed in type_names(needs) {
                    missing(needed, Some(name));
                }
            }
        }
        for (name, member) in members {
            if let Some(names) = object.get("propertyNames") {
                if !self.matches(names, &Value::String(name.clone()), here.depth) {
                    walk.other(value, || {
                        format!("the property name {name:?} is not allowed")
                    });
                }
            }
            let declared = object.get("properties").and_then(|p| p.get(name));
            match declared.or_else(|| object.get("additionalProperties")) {
                Some(Value::Bool(false)) if declared.is_none() => {
                    walk.other(value, || format!("the property {name:?} is not allowed"))
                }
                Some(schema) => walk.within(Step::Key(name.clone()), |walk| {
                    self.schema(schema, member, walk, here.depth + 1)
                }),
                None => {}
            }
        }
    }

    /// `minItems`/`maxItems`, `prefixItems`, `items`, `uniqueItems`,
    /// `contains` (with `minContains`/`maxContains`).
    fn array(&self, here: &Here<'s, '_>, items: &[Value], walk: &mut Walk) {
        let object = here.object;
        self.counted(here, items.len(), ["minItems", "maxItems"], "items", walk);
        let prefix = object.get("prefixItems");
        for (index, item) in items.iter().enumerate() {
            let schema = prefix.and_then(|prefix| prefix.get(index));
            if let Some(schema) = schema.or_else(|| object.get("items")) {
                walk.within(Step::Index(index), |walk| {
                    self.schema(schema, item, walk, here.depth + 1)
                });
            }
        }
        // `uniqueItems`: the first item that repeats an earlier one.
        let unique = object.get("uniqueItems") == Some(&Value::Bool(true));
        let repeats = |(index, item): &(usize, &Value)| {
            unique && items[..*index].iter().any(|earlier| same(earlier, item))
        };
        if let Some((index, item)) = items.iter().enumerate().find(repeats) {
            walk.other(here.value, || {
                format!("item {index} repeats an earlier item, {}", quote(item))
            });
        }
        if let Some(contains) = object.get("contains") {
            let count = items
                .iter()
                .filter(|item| self.matches(contains, item, here.depth))
                .count() as u64;
            let bound = |keyword| object.get(keyword).and_then(Value::as_u64);
            let (min, max) = (bound("minContains").unwrap_or(1), bound("maxContains"));
            if count < min || max.is_some_and(|max| count > max) {
                let most = max.map_or(String::new(), |max| format!(" and at most {max}"));
                walk.other(here.value, || {
                    format!("{count} items match \"contains\", expected at least {min}{most}")
                });
            }
        }
    }
}
