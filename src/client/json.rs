//! Structured output: JSON that matches a schema, with correction turns.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::conversation::Conversation;
use crate::error::Result;
use crate::structured::{self, Schema, SchemaDelivery};

use super::{Client, Outgoing};

impl Client {
    /// Asks for JSON that matches a JSON Schema and returns it as a `T`
    /// (which can be [`serde_json::Value`]), with up to
    /// [`json_corrections`](Self::json_corrections) correction turns; the
    /// conversation then holds the question and the compact JSON, and is
    /// unchanged on any failure. See `docs/structured-output.md`.
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
    pub fn send_json<T: DeserializeOwned>(
        &self,
        conversation: &mut Conversation,
        schema: &Value,
    ) -> Result<T> {
        let schema = Schema::new(schema.clone())?;
        // On the conversation as the budget leaves it; each request of the
        // exchange may leave out more of that (a context-length retry).
        let Outgoing { sent, trim } = Outgoing::plan(conversation)?;
        let budgets = trim.map_or(0, |trim| trim.dropped());
        let work = |work: &Conversation| self.complete(work);
        let (answer, message, left_out) =
            structured::exchange(sent, &schema, self.config.json, work)?;
        // What the request that brought the answer left out: the budget's
        // trim, then the oldest messages it left out of the working copy.
        let trim = conversation.trim_oldest(budgets + left_out.dropped());
        conversation.append_answer(message, trim, None)?;
        Ok(answer)
    }

    /// Like [`send_json`](Self::send_json), with the schema derived from `T`
    /// by `schemars` (the optional `schemars` feature).
    #[cfg(feature = "schemars")]
    pub fn send_typed<T: DeserializeOwned + schemars::JsonSchema>(
        &self,
        conversation: &mut Conversation,
    ) -> Result<T> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).map_err(|err| {
            crate::Error::Internal(format!("the derived schema could not be written: {err}"))
        })?;
        self.send_json(conversation, &schema)
    }

    /// How many correction turns [`send_json`](Self::send_json) allows.
    pub fn json_corrections(&self) -> u32 {
        self.config.json.corrections
    }

    /// How [`send_json`](Self::send_json) tells the model about the schema.
    pub fn schema_delivery(&self) -> SchemaDelivery {
        self.config.json.delivery
    }
}
