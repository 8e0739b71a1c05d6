//! chatwire's JSON Schema checker: a documented subset of draft 2020-12
//! (listed in [`Client::send_json`]'s docs and `types.rs`), for the
//! replies of [`Client::send_json`] and the options of
//! [`Conversation::set_option`]. Why not a validator crate:
//! `docs/structured-output.md`.
//!
//! [`Client::send_json`]: crate::Client::send_json
//! [`Conversation::set_option`]: crate::Conversation::set_option

mod check;
mod combinators;
mod describe;
mod problem;
mod refused;
#[cfg(test)]
mod tests;
mod types;

use serde_json::Value;

use crate::error::{Error, Result};
use check::{Checker, Walk};

pub(crate) use problem::{quote, Problems};

/// A checked JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Schema {
    root: Value,
}

impl Schema {
    /// Checks the schema once, before anything is sent, so that no check is
    /// skipped silently; [`Error::InvalidArgument`] says what is wrong and
    /// where (a JSON Pointer into the schema).
    pub(crate) fn new(root: Value) -> Result<Schema> {
        refused::check_schema(&root, &root, "", 0)
            .map_err(|why| Error::InvalidArgument(format!("unusable JSON Schema: {why}")))?;
        Ok(Schema { root })
    }

    pub(crate) fn value(&self) -> &Value {
        &self.root
    }

    /// What is wrong with `value` (at most 8 items), in words short enough to
    /// send back to a model; empty when it matches.
    pub(crate) fn check(&self, value: &Value) -> Vec<String> {
        self.problems_in(&self.root, value).into_texts()
    }

    /// The problems of `value` against the subschema that `keys` lead to
    /// from the root (`["properties", "n"]`), if there is one.
    pub(crate) fn problems_under(&self, keys: &[&str], value: &Value) -> Option<Problems> {
        let schema = keys
            .iter()
            .try_fold(&self.root, |schema, key| schema.get(key))?;
        Some(self.problems_in(schema, value))
    }

    fn problems_in(&self, schema: &Value, value: &Value) -> Problems {
        let mut walk = Walk::default();
        Checker::new(&self.root).schema(schema, value, &mut walk, 0);
        walk.problems
    }
}
