//! Request options: the check of a top-level request field against
//! `options.schema.json` (written by `tests/options.rs`), and typed setters.

use std::sync::OnceLock;

use serde_json::{json, Number, Value};

use crate::conversation::message::is_function_name;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::schema::{quote, Schema};

/// The rules: the official schema's definitions of the request's fields.
const RULES: &str = include_str!("options.schema.json");

/// Checks a top-level request field before it is stored.
pub(crate) fn check(name: &str, value: &Value) -> Result<()> {
    let Some(problems) = rules()?.problems_under(&["properties", name], value) else {
        return Ok(());
    };
    if let Some(problem) = problems.first() {
        return Err(Error::InvalidArgument(problem.of_named(name)));
    }
    if name == "response_format" {
        check_schema_name(value)?;
    }
    Ok(())
}

fn rules() -> Result<&'static Schema> {
    static PARSED: OnceLock<std::result::Result<Schema, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            let value = serde_json::from_str(RULES).map_err(|err| err.to_string())?;
            Schema::new(value).map_err(|err| err.to_string())
        })
        .as_ref()
        .map_err(|why| Error::Internal(format!("the rules of request options: {why}")))
}

/// The name of a JSON Schema response format: a rule the schema states only
/// in words. Runs after the schema's check, so the format is well formed.
fn check_schema_name(format: &Value) -> Result<()> {
    if format["type"] != "json_schema" {
        return Ok(());
    }
    let name = &format["json_schema"]["name"];
    match name.as_str() {
        Some(text) if is_function_name(text) => Ok(()),
        _ => Err(Error::InvalidArgument(format!(
            "response_format.json_schema.name must be 1 to 64 ASCII letters, digits, \"_\" or \"-\", not {}",
            quote(name)
        ))),
    }
}

/// The format the model must answer in: the `response_format` request field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponseFormat {
    /// Plain text, the default: `{"type": "text"}`.
    Text,
    /// JSON mode, `{"type": "json_object"}` (the messages must still ask for JSON).
    JsonObject,
    /// Structured outputs, `{"type": "json_schema", "json_schema": {...}}`:
    /// the reply follows `schema` (OpenAI guarantees it with `strict`).
    JsonSchema {
        /// 1 to 64 ASCII letters, digits, `_` or `-`.
        name: String,
        /// A JSON Schema, as an object.
        schema: Value,
        /// What the format is for, read by the model; not sent when `None`.
        description: Option<String>,
        /// Strict schema adherence (OpenAI); not sent when `None`.
        strict: Option<bool>,
    },
}

impl ResponseFormat {
    /// A JSON Schema format with neither description nor `strict`.
    pub fn json_schema(name: impl Into<String>, schema: Value) -> ResponseFormat {
        ResponseFormat::JsonSchema {
            name: name.into(),
            schema,
            description: None,
            strict: None,
        }
    }

    /// The request field's value.
    pub fn to_value(&self) -> Value {
        match self {
            ResponseFormat::Text => json!({"type": "text"}),
            ResponseFormat::JsonObject => json!({"type": "json_object"}),
            ResponseFormat::JsonSchema {
                name,
                schema,
                description,
                strict,
            } => {
                let mut format = json!({"name": name, "schema": schema});
                if let Some(description) = description {
                    format["description"] = json!(description);
                }
                if let Some(strict) = strict {
                    format["strict"] = json!(strict);
                }
                json!({"type": "json_schema", "json_schema": format})
            }
        }
    }
}

/// Each goes through [`set_option`](Conversation::set_option), checked as
/// it checks; remove a field with `set_option(name, None)`.
impl Conversation {
    /// Sets `temperature`, the sampling temperature: from 0 to 2 (lower is
    /// more deterministic).
    pub fn set_temperature(&mut self, temperature: f64) -> Result<()> {
        self.set_number("temperature", temperature)
    }

    /// Sets `top_p`, nucleus sampling: from 0 to 1.
    pub fn set_top_p(&mut self, top_p: f64) -> Result<()> {
        self.set_number("top_p", top_p)
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
        self.set_number("presence_penalty", penalty)
    }

    /// Sets `frequency_penalty`: from -2 to 2; positive values discourage repetition.
    pub fn set_frequency_penalty(&mut self, penalty: f64) -> Result<()> {
        self.set_number("frequency_penalty", penalty)
    }

    /// Sets `response_format`: plain text, JSON mode, or a JSON Schema.
    pub fn set_response_format(&mut self, format: ResponseFormat) -> Result<()> {
        self.set_option("response_format", Some(format.to_value()))
    }

    /// Sets `user`, a stable identifier of the end user.
    pub fn set_user(&mut self, user: impl Into<String>) -> Result<()> {
        self.set_option("user", Some(Value::String(user.into())))
    }

    /// A number option; NaN and infinities have no JSON form.
    fn set_number(&mut self, name: &str, value: f64) -> Result<()> {
        let number = Number::from_f64(value).ok_or_else(|| {
            Error::InvalidArgument(format!("{name} must be a finite number, not {value}"))
        })?;
        self.set_option(name, Some(Value::Number(number)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn refusal(name: &str, value: Value) -> String {
        match check(name, &value) {
            Err(Error::InvalidArgument(message)) => message,
            other => panic!("{name} = {value} gave {other:?}"),
        }
    }

    #[test]
    fn messages_name_the_field_the_value_and_the_range() {
        assert_eq!(
            refusal("temperature", json!(5)),
            "temperature must be a number from 0 to 2, or null, not 5"
        );
        assert_eq!(
            refusal("n", json!(0)),
            "n must be an integer from 1 to 128, not 0"
        );
        assert_eq!(
            refusal("stop", json!(["a", 1])),
            "stop[1] must be a string, not 1"
        );
        assert_eq!(
            refusal(
                "response_format",
                json!({"type": "json_schema", "json_schema": {"name": "a b"}})
            ),
            r#"response_format.json_schema.name must be 1 to 64 ASCII letters, digits, "_" or "-", not "a b""#
        );
        assert_eq!(
            refusal("response_format", json!({"type": "json_schema"})),
            r#"response_format must be an object with "json_schema", not {"type":"json_schema"}"#
        );
        assert_eq!(
            refusal("service_tier", json!("turbo")),
            r#"service_tier must be one of "auto", "default", "flex", "scale", "priority", "fast", or null, not "turbo""#
        );
        assert_eq!(
            refusal("logit_bias", json!({"50256": 0.5})),
            "logit_bias.50256 must be an integer, not 0.5"
        );
        assert_eq!(
            refusal("seed", json!("1")),
            r#"seed must be an integer from -9223372036854775808 to 9223372036854776000, not "1""#
        );
    }

    #[test]
    fn a_field_defined_twice_keeps_both_rules() {
        // `top_logprobs` is "an integer or null" in one part of the schema
        // and "an integer" in another: null breaks the second.
        assert_eq!(
            refusal("top_logprobs", json!(null)),
            "top_logprobs must be an integer from 0 to 20, not null"
        );
        assert!(check("top_logprobs", &json!(20)).is_ok());
    }

    #[test]
    fn tagged_objects_are_checked_against_the_tag_they_name() {
        assert_eq!(
            refusal("tool_choice", json!({"type": "function"})),
            r#"tool_choice must be an object with "function", not {"type":"function"}"#
        );
        assert_eq!(
            refusal("tool_choice", json!({"type": "tool"})),
            r#"tool_choice.type must be one of "allowed_tools", "function", "custom", not "tool""#
        );
        assert_eq!(
            refusal("response_format", json!({})),
            r#"response_format must be an object with "type", not {}"#
        );
        assert_eq!(
            refusal(
                "audio",
                json!({"voice": {"id": "v", "x": 1}, "format": "mp3"})
            ),
            r#"audio.voice: the property "x" is not allowed"#
        );
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let message = refusal("stop", json!(vec!["x".repeat(300); 5]));
        assert!(message.len() < 200, "{message}");
        assert!(message.ends_with("..."), "{message}");
    }

    #[test]
    fn integers_follow_json_schema() {
        assert!(check("max_tokens", &json!(16.0)).is_ok());
        assert!(check("max_tokens", &json!(-1)).is_ok());
        assert!(check("max_tokens", &json!(16.5)).is_err());
        assert!(check("max_tokens", &json!("16")).is_err());
        assert!(check("seed", &json!(i64::MIN)).is_ok());
        assert!(check("seed", &json!(u64::MAX)).is_err());
        assert!(check("seed", &json!(9_223_372_036_854_776_000_u64)).is_ok());
        assert!(check("seed", &json!(1e19)).is_err());
    }

    #[test]
    fn unknown_fields_pass_untouched() {
        for (name, value) in [
            ("top_k", json!(40)),
            ("min_p", json!("anything")),
            ("n_predict", json!(-1)),
            ("$defs", json!(1)),
            ("", json!(1)),
        ] {
            assert!(check(name, &value).is_ok(), "{name}");
        }
    }

    #[test]
    fn the_rules_load_and_name_the_32_fields() {
        let rules = rules().unwrap();
        let fields = rules.value()["properties"].as_object().unwrap();
        assert_eq!(fields.len(), 32, "{:?}", fields.keys());
        for provided in ["model", "messages", "stream", "stream_options", "tools"] {
            assert!(!fields.contains_key(provided), "{provided}");
        }
    }

    #[test]
    fn response_formats_build_their_fields() {
        assert_eq!(ResponseFormat::Text.to_value(), json!({"type": "text"}));
        let format = ResponseFormat::JsonSchema {
            name: "n".into(),
            schema: json!({"type": "object"}),
            description: Some("d".into()),
            strict: Some(true),
        };
        assert_eq!(
            format.to_value(),
            json!({"type": "json_schema", "json_schema": {
                "name": "n", "schema": {"type": "object"}, "description": "d", "strict": true}})
        );
    }

    #[test]
    fn set_stop_takes_up_to_four() -> crate::Result<()> {
        let mut conversation = crate::Conversation::new("m");
        conversation.set_stop(["\n\n", "END"])?;
        assert_eq!(
            conversation.options()["stop"],
            serde_json::json!(["\n\n", "END"])
        );
        assert!(conversation.set_stop(["1", "2", "3", "4", "5"]).is_err());
        Ok(())
    }

    #[test]
    fn set_temperature_is_checked() -> crate::Result<()> {
        let mut conversation = crate::Conversation::new("m");
        conversation.set_temperature(0.2)?;
        assert!(conversation.set_temperature(5.0).is_err());
        assert_eq!(conversation.options()["temperature"], 0.2);
        Ok(())
    }

    #[test]
    fn response_formats_are_set_as_options() -> crate::Result<()> {
        use crate::{Conversation, ResponseFormat};
        use serde_json::json;

        let mut conversation = Conversation::new("gpt-4o-mini");
        conversation.set_response_format(ResponseFormat::JsonObject)?;
        let schema = json!({"type": "object", "properties": {"colour": {"type": "string"}}});
        conversation.set_response_format(ResponseFormat::json_schema("colour", schema))?;
        assert_eq!(
            conversation.options()["response_format"]["json_schema"]["name"],
            "colour"
        );
        Ok(())
    }
}
