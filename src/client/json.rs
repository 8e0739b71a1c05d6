//! Structured output: JSON that matches a schema, with correction turns.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::conversation::Conversation;
#[cfg(feature = "schemars")]
use crate::error::Error;
use crate::error::Result;
use crate::structured::{self, Schema, SchemaDelivery};

use super::Client;

impl Client {
    /// Asks for JSON that matches a JSON Schema and returns it as a `T`:
    /// the reply is read with the tolerant extraction ([`extract_json`]),
    /// checked against `schema`, and when it does not match, the model gets
    /// a short correction turn naming each problem, up to
    /// [`json_corrections`](Self::json_corrections) times (default
    /// [`DEFAULT_JSON_CORRECTIONS`](crate::DEFAULT_JSON_CORRECTIONS)).
    /// How the model learns the schema is the client's
    /// [`schema_delivery`](Self::schema_delivery): in the prompt (default),
    /// as `response_format`, or not at all. A reply the token limit cut
    /// (`finish_reason` `"length"`) is named as such, first among the
    /// problems.
    ///
    /// The last message must be a user message (or the last tool result).
    /// On success the conversation holds the question as asked and the
    /// valid JSON (compact) as the assistant's answer, without the
    /// correction turns. On any failure it is unchanged.
    ///
    /// `T` can be [`serde_json::Value`] to take whatever the schema allows;
    /// JSON that matches the schema but does not fit `T` counts as a problem
    /// too, and is corrected the same way.
    ///
    /// # The schema check
    ///
    /// chatwire checks a subset of JSON Schema (draft 2020-12) with its own
    /// code, the same that checks request options (why not a validator
    /// crate: `docs/structured-output.md`). Checked: `type` (one or
    /// several; `2.0` is an integer), `enum`, `const` (numbers compared by
    /// value), `properties`, `required`, `additionalProperties`,
    /// `propertyNames`, `dependentRequired`, `minProperties`/`maxProperties`,
    /// `items`, `prefixItems`, `minItems`/`maxItems`, `uniqueItems`,
    /// `contains` (with `minContains`/`maxContains`), `minLength`/`maxLength`
    /// (in characters), `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`, `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`,
    /// `if`/`then`/`else`, boolean schemas, and `$ref` to `#` or a JSON
    /// Pointer inside the schema (`#/$defs/name`, `#/definitions/name`).
    /// Annotations (`title`, `description`, `default`, `examples`,
    /// `format`, ...) are not checked, as JSON Schema itself does not check
    /// them by default. A schema that uses `pattern`, `patternProperties`,
    /// `unevaluatedProperties`, `unevaluatedItems`, `dependentSchemas`,
    /// `dependencies`, `$dynamicRef` or a `$ref` outside itself is refused
    /// with [`Error::InvalidArgument`](crate::Error::InvalidArgument) before anything is sent, so that no
    /// check is silently skipped. At most 8 problems are reported per reply.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for an unusable schema;
    /// [`Error::InvalidReply`](crate::Error::InvalidReply) with the last problems and the last reply
    /// when no reply matched; any error of [`send`](Self::send).
    ///
    /// ```no_run
    /// #[derive(serde::Deserialize)]
    /// struct City {
    ///     name: String,
    ///     population: u64,
    /// }
    ///
    /// let client = chatwire::Client::from_env()?;
    /// let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
    /// conversation.user("Which is the largest city of France?")?;
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"name": {"type": "string"}, "population": {"type": "integer", "minimum": 0}},
    ///     "required": ["name", "population"]
    /// });
    /// let city: City = client.send_json(&mut conversation, &schema)?;
    /// println!("{} ({})", city.name, city.population);
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    ///
    /// [`extract_json`]: crate::extract_json
    pub fn send_json<T: DeserializeOwned>(
        &self,
        conversation: &mut Conversation,
        schema: &Value,
    ) -> Result<T> {
        let schema = Schema::new(schema.clone())?;
        super::budget::keep_within_budget(conversation, |sent| {
            structured::exchange(sent, &schema, self.json, |work| self.complete(work))
        })
    }

    /// Like [`send_json`](Self::send_json), with the schema derived from `T`
    /// by `schemars` (the optional `schemars` feature).
    ///
    /// ```ignore
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct City { name: String, population: u64 }
    /// let city: City = client.send_typed(&mut conversation)?;
    /// ```
    #[cfg(feature = "schemars")]
    pub fn send_typed<T: DeserializeOwned + schemars::JsonSchema>(
        &self,
        conversation: &mut Conversation,
    ) -> Result<T> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).map_err(|err| {
            Error::Internal(format!("the derived schema could not be written: {err}"))
        })?;
        self.send_json(conversation, &schema)
    }

    /// How many correction turns [`send_json`](Self::send_json) allows.
    pub fn json_corrections(&self) -> u32 {
        self.json.corrections
    }

    /// How [`send_json`](Self::send_json) tells the model about the schema.
    pub fn schema_delivery(&self) -> SchemaDelivery {
        self.json.delivery
    }
}
