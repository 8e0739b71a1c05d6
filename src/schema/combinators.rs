//! The keywords that combine schemas: `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`; and which problems to report when no choice matches.
//!
//! The choice the value was meant for is found first (by the types the
//! choices hold, then by a discriminating property such as `"type":
//! "text"`); its own problems are reported, unless it only disagrees with
//! the value's form here: then the value is set against all the choices,
//! in words ("a number from 0 to 2, or null").

use serde_json::Value;

use super::check::{Checker, Here, Walk};
use super::describe::{describe_choices, fixed, may_hold, one_of};
use super::problem::{Problems, Step, What};
use super::types::{follow, type_names};

impl<'s> Checker<'s> {
    pub(super) fn combinations(&self, here: &Here<'s, '_>, walk: &mut Walk) {
        let (object, value, depth) = (here.object, here.value, here.depth);
        let list = |keyword| {
            object
                .get(keyword)
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
        };
        for schema in list("allOf") {
            self.schema(schema, value, walk, depth + 1);
        }
        for keyword in ["anyOf", "oneOf"] {
            let choices = list(keyword);
            if choices.is_empty() {
                continue;
            }
            let matching = choices
                .iter()
                .filter(|schema| self.matches(schema, value, depth))
                .count();
            if matching == 0 {
                self.no_choice(choices, value, walk, depth);
            } else if keyword == "oneOf" && matching > 1 {
                walk.other(value, || {
                    format!("matches {matching} of the \"oneOf\" choices, expected exactly one")
                });
            }
        }
        let not = object.get("not");
        if not.is_some_and(|not| self.matches(not, value, depth)) {
            walk.other(value, || "matches the schema under \"not\"".to_owned());
        }
        if let Some(condition) = object.get("if") {
            let met = self.matches(condition, value, depth);
            let branch = if met { "then" } else { "else" };
            if let Some(schema) = object.get(branch) {
                self.schema(schema, value, walk, depth + 1);
            }
        }
    }

    /// Reports a value that matches none of `choices` (see the module
    /// documentation).
    fn no_choice(&self, choices: &'s [Value], value: &Value, walk: &mut Walk, depth: usize) {
        let candidates: Vec<&'s Value> = choices
            .iter()
            .filter(|choice| may_hold(self.root, choice, value, 0))
            .collect();
        let here = walk.path.len();
        let found = match candidates[..] {
            [] => None,
            [only] => Some(self.problems(only, value, walk, depth)),
            _ => {
                if let Some(found) = self.discriminate(&candidates, value, walk, depth) {
                    walk.problems.absorb(found);
                    return;
                }
                // Meant for it only if the value went into it, past here.
                let furthest = self.furthest_along(&candidates, value, walk, depth);
                furthest.filter(|found| first_depth(found) > here)
            }
        };
        // A choice that only disagrees with the value's form here is told
        // by all the choices, in words.
        let said_by_form =
            |found: &Problems| found.first().is_some_and(|first| first.is_form_at(here));
        match found {
            Some(found) if !said_by_form(&found) => walk.problems.absorb(found),
            _ => walk.add(value, || {
                What::not(describe_choices(self.root, choices), value)
            }),
        }
    }

    /// The problems of the candidate whose first problem lies deepest: the
    /// one the value went furthest along (the first of equals).
    fn furthest_along(
        &self,
        candidates: &[&'s Value],
        value: &Value,
        walk: &mut Walk,
        depth: usize,
    ) -> Option<Problems> {
        let mut furthest: Option<Problems> = None;
        for candidate in candidates {
            let found = self.problems(candidate, value, walk, depth);
            let deeper = match &furthest {
                Some(best) => first_depth(&found) > first_depth(best),
                None => true,
            };
            if deeper {
                furthest = Some(found);
            }
        }
        furthest
    }

    /// Among object choices told apart by one property with a fixed value in
    /// each: the problems of the choice the value names, or of the property.
    fn discriminate(
        &self,
        candidates: &[&'s Value],
        value: &Value,
        walk: &mut Walk,
        depth: usize,
    ) -> Option<Problems> {
        let members = value.as_object()?;
        let (name, tags) = self.discriminator(candidates)?;
        let mut found = Problems::default();
        let Some(tag) = members.get(name) else {
            found.add(&walk.path, value, || What::Missing {
                name: name.to_owned(),
                because: None,
            });
            return Some(found);
        };
        let chosen = tags
            .iter()
            .position(|schema| self.matches(schema, tag, depth));
        match chosen {
            Some(index) => Some(self.problems(candidates[index], value, walk, depth)),
            None => {
                let values: Vec<Value> = tags
                    .iter()
                    .flat_map(|schema| fixed(schema).unwrap_or_default().to_vec())
                    .collect();
                walk.within(Step::Key(name.to_owned()), |walk| {
                    found.add(&walk.path, tag, || What::not(one_of(&values), tag))
                });
                Some(found)
            }
        }
    }

    /// The property every candidate requires with fixed values of its own,
    /// and the schema of that property in each candidate.
    fn discriminator(&self, candidates: &[&'s Value]) -> Option<(&'s str, Vec<&'s Value>)> {
        let shapes: Vec<&Value> = candidates
            .iter()
            .map(|schema| follow(self.root, schema))
            .collect();
        let first = shapes.first()?.get("required")?.as_array()?;
        for name in first.iter().filter_map(Value::as_str) {
            // Some only when every candidate has a tag under `name`.
            let tags: Option<Vec<&'s Value>> = shapes
                .iter()
                .map(|shape| self.fixed_tag(shape, name))
                .collect();
            if let Some(tags) = tags {
                return Some((name, tags));
            }
        }
        None
    }

    /// The schema of the property `name` in `shape`, if `shape` requires
    /// the property and gives it fixed values.
    fn fixed_tag(&self, shape: &'s Value, name: &str) -> Option<&'s Value> {
        let required = type_names(shape.get("required")?).contains(&name);
        let tag = follow(self.root, shape.get("properties")?.get(name)?);
        let values = fixed(tag).unwrap_or_default();
        if required && !values.is_empty() {
            Some(tag)
        } else {
            None
        }
    }
}

/// How deep in the value the first of `found` lies (0: none found).
fn first_depth(found: &Problems) -> usize {
    found.first().map_or(0, |first| first.path.len())
}
