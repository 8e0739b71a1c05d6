//! Request options: the check every top-level request field passes before a
//! [`Conversation`](crate::Conversation) stores it; the typed setters for the
//! common fields are in `setters.rs`.
//!
//! # The check
//!
//! A field that the official `CreateChatCompletionRequest` schema defines
//! (OpenAI's OpenAPI description, validated as JSON Schema draft 2020-12) is
//! checked the way that schema checks it: its JSON type, its enum values,
//! its numeric range, its array length, and the required keys and their
//! types inside objects. A value the schema rejects is refused with
//! [`Error::InvalidArgument`] naming the field, the value and what is
//! allowed (`temperature must be a number from 0 to 2, or null, not 5`),
//! and the conversation is left as it was. A value the schema accepts is
//! stored and sent exactly as given. So a request body built from options
//! always validates against the schema.
//!
//! A field the schema does not define passes untouched: it is a server's
//! own extension, such as llama.cpp's `top_k`, `min_p`, `n_predict` and
//! `cache_prompt`, or vLLM's `min_tokens`. Keys the schema does not name
//! inside a checked object pass too, as the schema allows them.
//!
//! Details that follow from "as the schema checks it":
//! - `null` is accepted only where the schema accepts it (marked "or null"
//!   in the table). The OpenAPI `nullable` marks on `max_tokens`, `seed`,
//!   `stop` and others are not JSON Schema, and the schema rejects `null`
//!   there: remove the option instead (`None`; `NULL` from C) to get the
//!   server's default.
//! - An integer may be written `16.0`, as in JSON Schema; it is sent as written.
//! - `max_tokens` and `max_completion_tokens` take any integer: the schema
//!   sets no minimum, and llama.cpp reads `-1` as "no limit".
//! - The check is about the form of a value, not about what a model or a
//!   server supports: `top_logprobs` without `logprobs`, or `n: 2` on a
//!   server that makes one choice, pass here and the server answers.
//!
//! One rule goes beyond the schema, which states it only in words: a
//! `json_schema` response format's `name` must be 1 to 64 ASCII letters,
//! digits, `_` or `-`; OpenAI refuses any other name.
//!
//! The fields and their rules are listed in the documentation of
//! [`Conversation::set_option`](crate::Conversation::set_option), where users read them; keep that table and
//! [`RULES`] in step (a unit test checks that every field of the schema has a
//! rule, and `tests/options.rs` checks each rule against the schema).
//!
//! `model`, `messages`, `stream`, `stream_options` and `tools` are not
//! options: the conversation and the send call provide them.

use serde_json::{json, Map, Number, Value};

use crate::conversation::message::is_function_name;
use crate::error::{Error, Result};

/// Checks a top-level request field before it is stored; see the module
/// documentation. Fields without a rule (server extensions) pass as they are.
pub(crate) fn check(name: &str, value: &Value) -> Result<()> {
    match RULES.iter().find(|(field, _)| *field == name) {
        Some((_, rule)) => rule(value).map_err(|wrong| wrong.into_error(name)),
        None => Ok(()),
    }
}

/// A check of one field's value.
type Rule = fn(&Value) -> Checked;

/// The fields the schema defines and their rules, in the schema's terms.
const RULES: &[(&str, Rule)] = &[
    ("temperature", |v| or_null(v, |v| number(v, 0.0, 2.0))),
    ("top_p", |v| or_null(v, |v| number(v, 0.0, 1.0))),
    ("frequency_penalty", |v| number(v, -2.0, 2.0)),
    ("presence_penalty", |v| number(v, -2.0, 2.0)),
    ("max_tokens", |v| integer(v, None, None)),
    ("max_completion_tokens", |v| integer(v, None, None)),
    ("n", |v| integer(v, Some(1), Some(128))),
    ("seed", |v| integer(v, Some(SEED_MIN), Some(SEED_MAX))),
    ("top_logprobs", |v| integer(v, Some(0), Some(20))),
    ("stop", stop),
    ("logit_bias", |v| {
        map_of(v, "an object of integers", any_integer)
    }),
    ("logprobs", boolean),
    ("store", boolean),
    ("parallel_tool_calls", boolean),
    ("user", string),
    ("safety_identifier", |v| or_null(v, |v| short_string(v, 64))),
    ("prompt_cache_key", |v| or_null(v, string)),
    ("prompt_cache_retention", |v| {
        or_null(v, |v| one_of(v, &["in_memory", "24h"]))
    }),
    ("prompt_cache_options", prompt_cache_options),
    ("metadata", |v| {
        or_null(v, |v| map_of(v, "an object of strings", string))
    }),
    ("service_tier", |v| {
        let tiers = ["auto", "default", "flex", "scale", "priority", "fast"];
        or_null(v, |v| one_of(v, &tiers))
    }),
    ("reasoning_effort", |v| {
        let efforts = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];
        or_null(v, |v| one_of(v, &efforts))
    }),
    ("verbosity", |v| or_null(v, |v| one_of(v, &LOW_MEDIUM_HIGH))),
    ("modalities", |v| or_null(v, modalities)),
    ("response_format", response_format),
    ("tool_choice", tool_choice),
    ("audio", audio),
    ("prediction", prediction),
    ("web_search_options", web_search_options),
    ("moderation", |v| or_null(v, moderation)),
    ("function_call", function_call),
    ("functions", |v| {
        array(v, 1, 128, "an array of 1 to 128 functions", |v| {
            required(v, "name", string)?;
            optional(v, "parameters", any_object)
        })
    }),
];

/// The schema's bounds for `seed`: its minimum is -2^63 as a double, its
/// maximum the decimal 9223372036854776000.
const SEED_MIN: i128 = i64::MIN as i128;
const SEED_MAX: i128 = 9_223_372_036_854_776_000;

const LOW_MEDIUM_HIGH: [&str; 3] = ["low", "medium", "high"];

/// Why a value breaks its rule: where inside it, what was expected, and
/// what was there instead.
#[derive(Debug)]
struct Wrong {
    /// The path inside the field's value, such as `.json_schema.name` or `[2]`.
    at: String,
    expected: String,
    found: String,
}

type Checked = std::result::Result<(), Wrong>;

/// The longest rendering of a refused value quoted in an error.
const MAX_QUOTED: usize = 80;

fn wrong(value: &Value, expected: impl Into<String>) -> Wrong {
    let mut found = value.to_string();
    if found.len() > MAX_QUOTED {
        found = format!(
            "{}...",
            crate::error::excerpt(&found, MAX_QUOTED, crate::error::Keep::Start)
        );
    }
    Wrong {
        at: String::new(),
        expected: expected.into(),
        found,
    }
}

impl Wrong {
    fn in_key(mut self, key: &str) -> Wrong {
        self.at = format!(".{key}{}", self.at);
        self
    }

    fn in_item(mut self, index: usize) -> Wrong {
        self.at = format!("[{index}]{}", self.at);
        self
    }

    fn into_error(self, name: &str) -> Error {
        Error::InvalidArgument(format!(
            "{name}{} must be {}, not {}",
            self.at, self.expected, self.found
        ))
    }
}

/// Accepts `null`, or what `rule` accepts.
fn or_null(value: &Value, rule: impl Fn(&Value) -> Checked) -> Checked {
    if value.is_null() {
        return Ok(());
    }
    rule(value).map_err(|mut wrong| {
        if wrong.at.is_empty() {
            wrong.expected.push_str(", or null");
        }
        wrong
    })
}

fn number(value: &Value, min: f64, max: f64) -> Checked {
    match value.as_f64() {
        Some(number) if (min..=max).contains(&number) => Ok(()),
        _ => Err(wrong(value, format!("a number from {min} to {max}"))),
    }
}

/// An integer as JSON Schema sees one: any number without a fractional
/// part (`16` or `16.0`), compared exactly with the bounds.
fn integer(value: &Value, min: Option<i128>, max: Option<i128>) -> Checked {
    let within = match value.as_number() {
        Some(number) => integer_within(number, min, max),
        None => false,
    };
    if within {
        return Ok(());
    }
    let expected = match (min, max) {
        (None, None) => "an integer".to_owned(),
        (Some(min), None) => format!("an integer of at least {min}"),
        (None, Some(max)) => format!("an integer of at most {max}"),
        (Some(min), Some(max)) => format!("an integer from {min} to {max}"),
    };
    Err(wrong(value, expected))
}

fn integer_within(number: &Number, min: Option<i128>, max: Option<i128>) -> bool {
    let exact = number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from));
    if let Some(exact) = exact {
        return min.is_none_or(|min| exact >= min) && max.is_none_or(|max| exact <= max);
    }
    // A double: integral and, beyond i64, compared as a double (as the
    // schema's own bounds are doubles at that size).
    let Some(float) = number.as_f64() else {
        return false;
    };
    float.fract() == 0.0
        && min.is_none_or(|min| float >= min as f64)
        && max.is_none_or(|max| float <= max as f64)
}

fn any_integer(value: &Value) -> Checked {
    integer(value, None, None)
}

fn boolean(value: &Value) -> Checked {
    match value {
        Value::Bool(_) => Ok(()),
        _ => Err(wrong(value, "true or false")),
    }
}

fn string(value: &Value) -> Checked {
    match value {
        Value::String(_) => Ok(()),
        _ => Err(wrong(value, "a string")),
    }
}

/// A string of at most `max` characters (JSON Schema counts code points).
fn short_string(value: &Value, max: usize) -> Checked {
    match value.as_str() {
        Some(text) if text.chars().count() <= max => Ok(()),
        _ => Err(wrong(
            value,
            format!("a string of at most {max} characters"),
        )),
    }
}

fn one_of(value: &Value, allowed: &[&str]) -> Checked {
    match value.as_str() {
        Some(text) if allowed.contains(&text) => Ok(()),
        _ => {
            let quoted: Vec<String> = allowed.iter().map(|text| format!("{text:?}")).collect();
            Err(wrong(value, format!("one of {}", quoted.join(", "))))
        }
    }
}

fn object(value: &Value) -> std::result::Result<&Map<String, Value>, Wrong> {
    value.as_object().ok_or_else(|| wrong(value, "an object"))
}

fn any_object(value: &Value) -> Checked {
    object(value).map(|_| ())
}

/// An object with `key`, whose value `rule` accepts.
fn required(value: &Value, key: &str, rule: impl Fn(&Value) -> Checked) -> Checked {
    match object(value)?.get(key) {
        Some(inner) => rule(inner).map_err(|wrong| wrong.in_key(key)),
        None => Err(wrong(value, format!("an object with {key:?}"))),
    }
}

/// An object whose `key`, when present, `rule` accepts.
fn optional(value: &Value, key: &str, rule: impl Fn(&Value) -> Checked) -> Checked {
    match object(value)?.get(key) {
        Some(inner) => rule(inner).map_err(|wrong| wrong.in_key(key)),
        None => Ok(()),
    }
}

/// An object whose every value `rule` accepts.
fn map_of(value: &Value, expected: &str, rule: impl Fn(&Value) -> Checked) -> Checked {
    let map = value.as_object().ok_or_else(|| wrong(value, expected))?;
    for (key, inner) in map {
        rule(inner).map_err(|wrong| wrong.in_key(key))?;
    }
    Ok(())
}

/// An array of `min..=max` items, each accepted by `rule`.
fn array(
    value: &Value,
    min: usize,
    max: usize,
    expected: &str,
    rule: impl Fn(&Value) -> Checked,
) -> Checked {
    let items = match value.as_array() {
        Some(items) if (min..=max).contains(&items.len()) => items,
        _ => return Err(wrong(value, expected)),
    };
    for (index, item) in items.iter().enumerate() {
        rule(item).map_err(|wrong| wrong.in_item(index))?;
    }
    Ok(())
}

fn stop(value: &Value) -> Checked {
    if value.is_string() {
        return Ok(());
    }
    let expected = "a string, or an array of 1 to 4 strings";
    array(value, 1, 4, expected, string)
}

fn modalities(value: &Value) -> Checked {
    let expected = "an array of \"text\" and \"audio\"";
    array(value, 0, usize::MAX, expected, |modality| {
        one_of(modality, &["text", "audio"])
    })
}

fn response_format(value: &Value) -> Checked {
    let types = ["text", "json_object", "json_schema"];
    required(value, "type", |kind| one_of(kind, &types))?;
    if value["type"] != "json_schema" {
        return Ok(());
    }
    required(value, "json_schema", |format| {
        required(format, "name", schema_name)?;
        optional(format, "description", string)?;
        optional(format, "schema", any_object)?;
        optional(format, "strict", |strict| or_null(strict, boolean))
    })
}

/// The name of a JSON Schema response format: the one rule that goes beyond
/// the schema, which states it only in its description.
fn schema_name(value: &Value) -> Checked {
    match value.as_str() {
        Some(name) if is_function_name(name) => Ok(()),
        _ => Err(wrong(
            value,
            "1 to 64 ASCII letters, digits, \"_\" or \"-\"",
        )),
    }
}

fn tool_choice(value: &Value) -> Checked {
    let modes = ["none", "auto", "required"];
    if !value.is_object() {
        return one_of(value, &modes).map_err(|mut wrong| {
            wrong.expected.push_str(", or an object naming a tool");
            wrong
        });
    }
    let kinds = ["function", "custom", "allowed_tools"];
    required(value, "type", |kind| one_of(kind, &kinds))?;
    let named = |tool: &Value| required(tool, "name", string);
    match value["type"].as_str() {
        Some("function") => required(value, "function", named),
        Some("custom") => required(value, "custom", named),
        _ => required(value, "allowed_tools", |allowed| {
            required(allowed, "mode", |mode| one_of(mode, &["auto", "required"]))?;
            required(allowed, "tools", |tools| {
                array(tools, 0, usize::MAX, "an array of objects", any_object)
            })
        }),
    }
}

fn function_call(value: &Value) -> Checked {
    if value.is_object() {
        return required(value, "name", string);
    }
    one_of(value, &["none", "auto"]).map_err(|mut wrong| {
        wrong.expected.push_str(", or {\"name\": ...}");
        wrong
    })
}

fn audio(value: &Value) -> Checked {
    required(value, "voice", |voice| {
        if voice.is_string() {
            return Ok(());
        }
        // A custom voice: {"id": ...} and nothing else.
        let custom = voice
            .as_object()
            .is_some_and(|voice| voice.len() == 1 && voice.get("id").is_some_and(Value::is_string));
        if custom {
            Ok(())
        } else {
            Err(wrong(voice, "a string, or {\"id\": a string}"))
        }
    })?;
    let formats = ["wav", "aac", "mp3", "flac", "opus", "pcm16"];
    required(value, "format", |format| one_of(format, &formats))
}

fn prediction(value: &Value) -> Checked {
    required(value, "type", |kind| one_of(kind, &["content"]))?;
    required(value, "content", |content| {
        if content.is_string() {
            return Ok(());
        }
        let expected = "a string, or an array of 1 or more text parts";
        array(content, 1, usize::MAX, expected, |part| {
            required(part, "type", |kind| one_of(kind, &["text"]))?;
            required(part, "text", string)?;
            optional(part, "prompt_cache_breakpoint", |breakpoint| {
                required(breakpoint, "mode", |mode| one_of(mode, &["explicit"]))
            })
        })
    })
}

fn web_search_options(value: &Value) -> Checked {
    optional(value, "user_location", |location| {
        required(location, "type", |kind| one_of(kind, &["approximate"]))?;
        required(location, "approximate", |place| {
            for key in ["country", "region", "city", "timezone"] {
                optional(place, key, string)?;
            }
            Ok(())
        })
    })?;
    optional(value, "search_context_size", |size| {
        one_of(size, &LOW_MEDIUM_HIGH)
    })
}

fn moderation(value: &Value) -> Checked {
    required(value, "model", string)?;
    optional(value, "policy", |policy| {
        or_null(policy, |policy| {
            for key in ["input", "output"] {
                optional(policy, key, |config| {
                    or_null(config, |config| {
                        required(config, "mode", |mode| one_of(mode, &["score", "block"]))
                    })
                })?;
            }
            Ok(())
        })
    })
}

fn prompt_cache_options(value: &Value) -> Checked {
    optional(value, "ttl", |ttl| one_of(ttl, &["30m"]))?;
    optional(value, "mode", |mode| {
        one_of(mode, &["implicit", "explicit"])
    })
}

/// The format the model must answer in: the `response_format` request field.
///
/// ```
/// use chatwire::{Conversation, ResponseFormat};
/// use serde_json::json;
///
/// let mut conversation = Conversation::new("gpt-4o-mini");
/// conversation.set_response_format(ResponseFormat::JsonObject)?;
/// let schema = json!({"type": "object", "properties": {"colour": {"type": "string"}}});
/// conversation.set_response_format(ResponseFormat::json_schema("colour", schema))?;
/// assert_eq!(conversation.options()["response_format"]["json_schema"]["name"], "colour");
/// # Ok::<(), chatwire::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponseFormat {
    /// Plain text, the default: `{"type": "text"}`.
    Text,
    /// JSON mode, `{"type": "json_object"}`: the reply is a JSON object. The
    /// messages must still ask for JSON.
    JsonObject,
    /// Structured outputs, `{"type": "json_schema", "json_schema": {...}}`:
    /// the reply follows `schema`. llama.cpp's server turns the schema into
    /// a grammar; OpenAI needs `strict: Some(true)` to guarantee it.
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

/// A finite number as JSON; NaN and infinities have no JSON form.
pub(crate) fn finite(name: &str, value: f64) -> Result<Value> {
    Number::from_f64(value).map(Value::Number).ok_or_else(|| {
        Error::InvalidArgument(format!("{name} must be a finite number, not {value}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        ] {
            assert!(check(name, &value).is_ok(), "{name}");
        }
    }

    #[test]
    fn each_rule_is_listed_once() {
        for (index, (name, _)) in RULES.iter().enumerate() {
            assert!(
                RULES[index + 1..].iter().all(|(other, _)| other != name),
                "{name} twice"
            );
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
}
