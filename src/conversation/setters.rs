//! Typed setters for the common request fields.

use serde_json::{json, Value};

use crate::conversation::options::{finite, ResponseFormat};
use crate::conversation::Conversation;
use crate::error::Result;

/// Each goes through [`set_option`](Conversation::set_option), checked as
/// it checks; remove a field with `set_option(name, None)`.
impl Conversation {
    /// Sets `temperature`, the sampling temperature: from 0 to 2 (lower is
    /// more deterministic).
    ///
    /// ```
    /// let mut conversation = chatwire::Conversation::new("m");
    /// conversation.set_temperature(0.2)?;
    /// assert!(conversation.set_temperature(5.0).is_err());
    /// assert_eq!(conversation.options()["temperature"], 0.2);
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn set_temperature(&mut self, temperature: f64) -> Result<()> {
        self.set_option("temperature", Some(finite("temperature", temperature)?))
    }

    /// Sets `top_p`, nucleus sampling: from 0 to 1.
    pub fn set_top_p(&mut self, top_p: f64) -> Result<()> {
        self.set_option("top_p", Some(finite("top_p", top_p)?))
    }

    /// Sets `max_tokens`, the most tokens the reply may have (OpenAI's
    /// reasoning models need `max_completion_tokens` instead).
    pub fn set_max_tokens(&mut self, max_tokens: u32) -> Result<()> {
        self.set_option("max_tokens", Some(json!(max_tokens)))
    }

    /// Sets `max_completion_tokens`, the most tokens the reply may have,
    /// reasoning tokens included.
    pub fn set_max_completion_tokens(&mut self, max_tokens: u32) -> Result<()> {
        self.set_option("max_completion_tokens", Some(json!(max_tokens)))
    }

    /// Sets `stop`, up to 4 sequences that end the reply, as an array; an
    /// empty list removes the field.
    ///
    /// ```
    /// let mut conversation = chatwire::Conversation::new("m");
    /// conversation.set_stop(["\n\n", "END"])?;
    /// assert_eq!(conversation.options()["stop"], serde_json::json!(["\n\n", "END"]));
    /// assert!(conversation.set_stop(["1", "2", "3", "4", "5"]).is_err());
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn set_stop(&mut self, stop: impl IntoIterator<Item = impl Into<String>>) -> Result<()> {
        let stop: Vec<String> = stop.into_iter().map(Into::into).collect();
        let value = (!stop.is_empty()).then(|| json!(stop));
        self.set_option("stop", value)
    }

    /// Sets `seed`, for sampling that repeats itself as far as the server can.
    pub fn set_seed(&mut self, seed: i64) -> Result<()> {
        self.set_option("seed", Some(json!(seed)))
    }

    /// Sets `presence_penalty`: from -2 to 2; positive values favour new topics.
    pub fn set_presence_penalty(&mut self, penalty: f64) -> Result<()> {
        let value = finite("presence_penalty", penalty)?;
        self.set_option("presence_penalty", Some(value))
    }

    /// Sets `frequency_penalty`: from -2 to 2; positive values discourage repetition.
    pub fn set_frequency_penalty(&mut self, penalty: f64) -> Result<()> {
        let value = finite("frequency_penalty", penalty)?;
        self.set_option("frequency_penalty", Some(value))
    }

    /// Sets `response_format`: plain text, JSON mode, or a JSON Schema.
    pub fn set_response_format(&mut self, format: ResponseFormat) -> Result<()> {
        self.set_option("response_format", Some(format.to_value()))
    }

    /// Sets `user`, a stable identifier of the end user.
    pub fn set_user(&mut self, user: impl Into<String>) -> Result<()> {
        self.set_option("user", Some(Value::String(user.into())))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::conversation::options::ResponseFormat;
    use crate::conversation::Conversation;

    #[test]
    fn typed_setters_refuse_what_the_check_refuses() {
        let mut conversation = Conversation::new("m");
        assert!(conversation.set_temperature(f64::NAN).is_err());
        assert!(conversation.set_top_p(1.5).is_err());
        assert!(conversation
            .set_response_format(ResponseFormat::json_schema("x", json!(true)))
            .is_err());
        assert!(conversation.options().is_empty());
        conversation.set_stop(["a"]).unwrap();
        conversation.set_stop(Vec::<String>::new()).unwrap();
        assert!(conversation.options().is_empty());
    }
}
