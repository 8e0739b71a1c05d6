//! One event's payload: a chunk, `[DONE]`, or an error reported in the
//! stream. Any field may be missing or `null`; data that is not JSON, or a
//! known field of the wrong shape (`"choices": 3`), is a decode error.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::error::{ApiError, Error, Result};
pub use crate::reply::Usage;
use crate::wire::completion::ReplyContent;
use crate::wire::error::ErrorReport;
use crate::wire::message::CallText;

/// The message of a server error that came without one.
const NO_MESSAGE: &str = "the server reported an error in the stream";

/// What one event carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// A chat completion chunk.
    Chunk(Chunk),
    /// `data: [DONE]`, the end of the stream.
    Done,
    /// An error the server reported inside the stream.
    Error(ApiError),
    /// A Responses API stream's last chunk and its final response object
    /// as it came; boxed, as it comes once a stream.
    Last(Box<Last>),
}

/// A Responses API stream's end (`response.completed` or `.incomplete`).
#[derive(Debug, Clone, PartialEq)]
pub struct Last {
    /// The finish reason, the id, the model and the usage.
    pub chunk: Chunk,
    /// The response object as it came, when it lists the output: the
    /// streamed reply's JSON, as a whole reply's is its body.
    pub response: Option<String>,
}

impl Payload {
    /// Reads the data of a plain (`message`) event; `Ok(None)` when blank,
    /// [`Error::Decode`] for data that is not a chunk (an error the server
    /// reported is [`Payload::Error`]).
    pub fn from_data(data: &str) -> Result<Option<Self>> {
        let data = match data.trim() {
            "" => return Ok(None),
            "[DONE]" => return Ok(Some(Self::Done)),
            data => data,
        };
        // Nearly every chunk is plain: read in one pass. One with usage or
        // that may be an error takes the tree.
        if let Ok(plain) = serde_json::from_str::<Plain<'_>>(data) {
            // No usage (in either place) and nothing that may be an error.
            let plain_chunk = plain.usage.is_none()
                && plain.x_groq.is_none()
                && plain.error.is_none()
                && plain.object.as_deref() != Some("error");
            if plain_chunk {
                let chunk = Chunk {
                    id: plain.id,
                    model: plain.model,
                    choices: plain.choices,
                    ..Chunk::default()
                };
                return Ok(Some(Self::checked(chunk)));
            }
        }
        Self::from_tree(data)
    }

    /// Reads event data through a JSON tree: errors in any shape, usage in
    /// any place.
    fn from_tree(data: &str) -> Result<Option<Self>> {
        let value: Value = serde_json::from_str(data)
            .map_err(|err| Error::decode(format!("event data is not json: {err}"), data))?;
        if let Some(report) = ErrorReport::from_value(&value) {
            return Ok(Some(Self::Error(
                report.into_api_error(None, NO_MESSAGE, None),
            )));
        }
        let Value::Object(fields) = value else {
            return Err(Error::decode("event data is not a json object", data));
        };
        // `usage`, or Groq's `x_groq.usage` (<https://console.groq.com/docs/openai>:
        // Groq puts a stream's usage there).
        let usage_json = fields
            .get("usage")
            .filter(|usage| usage.is_object())
            .or_else(|| fields.get("x_groq")?.get("usage"))
            .filter(|usage| usage.is_object())
            .cloned();
        // The fields of its own are moved out of the tree, not copied.
        let rebuilt = |name: &String| REBUILT.contains(&name.as_str());
        let (rebuilt, extra): (Map<String, Value>, Map<String, Value>) = fields
            .into_iter()
            .filter(|(name, value)| rebuilt(name) || !value.is_null())
            .partition(|(name, _)| rebuilt(name));
        let mut chunk = Chunk::deserialize(Value::Object(rebuilt)).map_err(|err| {
            Error::decode(
                format!("event data is not a chat completion chunk: {err}"),
                data,
            )
        })?;
        if chunk.usage.is_none() {
            chunk.usage = usage_json
                .clone()
                .and_then(|usage| Usage::deserialize(usage).ok());
        }
        chunk.usage_json = usage_json;
        chunk.extra = (!extra.is_empty()).then(|| Box::new(extra));
        Ok(Some(Self::checked(chunk)))
    }

    /// The chunk, unless it is how OpenRouter ends a failed stream: a choice
    /// that finished with "error".
    fn checked(chunk: Chunk) -> Self {
        if chunk
            .choices
            .iter()
            .any(|choice| choice.finish_reason.as_deref() == Some("error"))
        {
            return Self::Error(ErrorReport::default().into_api_error(None, NO_MESSAGE, None));
        }
        Self::Chunk(chunk)
    }
}

/// A chunk read in one pass, with the fields that tell it is not plain.
/// It knows the fields of [`REBUILT`] and no other: a chunk with a field
/// of its own (Perplexity's `citations`) takes the slow road, which keeps it.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct Plain<'a> {
    id: Option<String>,
    model: Option<String>,
    #[serde(deserialize_with = "crate::wire::choices::<_, _, true>")]
    choices: Vec<ChunkChoice>,
    usage: Option<IgnoredAny>,
    x_groq: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
    #[serde(borrow)]
    object: Option<Cow<'a, str>>,
    created: IgnoredAny,
    system_fingerprint: IgnoredAny,
    service_tier: IgnoredAny,
    obfuscation: IgnoredAny,
}

/// A chunk's top-level fields that are not kept as sent: those a streamed
/// reply's body writes itself (`id`, `object`, `model`, `choices`, `usage`)
/// and those that tell one chunk from another (`created`,
/// `system_fingerprint`, `service_tier`, and `obfuscation`, padding that
/// hides a chunk's length).
const REBUILT: [&str; 9] = [
    "id",
    "object",
    "model",
    "choices",
    "usage",
    "created",
    "system_fingerprint",
    "service_tier",
    "obfuscation",
];

/// Reads the data of an error event, in any shape servers use.
pub(crate) fn api_error_from_text(data: &str) -> ApiError {
    ErrorReport::from_text(data).into_api_error(None, NO_MESSAGE, None)
}

/// One streamed chunk (`chat.completion.chunk`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct Chunk {
    /// The completion's id, the same on every chunk.
    pub id: Option<String>,
    /// The model that answered.
    pub model: Option<String>,
    /// Per-choice deltas; empty on the usage chunk.
    #[serde(deserialize_with = "crate::wire::choices::<_, _, true>")]
    pub choices: Vec<ChunkChoice>,
    /// Token counts, on the last chunk when usage was asked for.
    pub usage: Option<Usage>,
    /// The usage as sent, details included (or Groq's `x_groq.usage`).
    #[serde(skip)]
    pub usage_json: Option<Value>,
    /// The chunk's other top-level fields, but `null`s (Perplexity's
    /// `citations` and `search_results`): kept in the streamed reply's body.
    /// Boxed: nearly every chunk has none, and a chunk is moved several times.
    #[serde(skip)]
    pub extra: Option<Box<Map<String, Value>>>,
}

/// One choice's part of a chunk.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct ChunkChoice {
    /// Which choice this is; missing counts as 0.
    #[serde(deserialize_with = "null_as_default")]
    pub index: u32,
    /// What this chunk adds to the message.
    #[serde(deserialize_with = "null_as_default")]
    pub delta: Delta,
    /// Why generation stopped, on the choice's last chunk.
    pub finish_reason: Option<String>,
    /// Log probabilities of this chunk's tokens, when asked for.
    pub logprobs: Option<Value>,
}

/// What a chunk adds to the message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Delta {
    /// The author's role, usually on the first chunk only.
    pub role: Option<String>,
    /// More reply text (the text chunks of a content list).
    pub content: Option<String>,
    /// More thinking: the `thinking` chunks of a content list (Mistral).
    pub thinking: Option<String>,
    /// More refusal text.
    pub refusal: Option<String>,
    /// More reasoning text (DeepSeek, llama.cpp, older vLLM).
    pub reasoning_content: Option<String>,
    /// More reasoning text (vLLM 0.9 and later, Ollama, OpenRouter, Groq).
    pub reasoning: Option<String>,
    /// More reasoning parts (OpenRouter); their `text` is the reasoning.
    pub reasoning_details: Vec<Value>,
    /// Fragments of tool calls.
    pub tool_calls: Vec<ToolCallDelta>,
    /// The delta's other fields, not `null` (Gemini's `extra_content`).
    pub extra: Map<String, Value>,
}

crate::wire::read_fields!(Delta, "a chat completion delta", |delta, name, map| {
    match &*name {
        "role" => delta.role = map.next_value()?,
        "content" => {
            (delta.content, delta.thinking) = ReplyContent::split_option(map.next_value()?)
        }
        "refusal" => delta.refusal = map.next_value()?,
        "reasoning_content" => delta.reasoning_content = map.next_value()?,
        "reasoning" => delta.reasoning = map.next_value()?,
        "reasoning_details" => {
            delta.reasoning_details = map.next_value::<Option<_>>()?.unwrap_or_default()
        }
        "tool_calls" => delta.tool_calls = map.next_value::<Option<_>>()?.unwrap_or_default(),
        // A null says nothing: not kept (and undoes an earlier value).
        _ => match map.next_value()? {
            Value::Null => _ = delta.extra.remove(&*name),
            value => _ = delta.extra.insert(name.into_owned(), value),
        },
    }
});

/// A fragment of a tool call.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct ToolCallDelta {
    /// Which call this fragment belongs to; some servers leave it out.
    pub index: Option<u32>,
    /// The call's id, usually on its first fragment only.
    pub id: Option<String>,
    /// The tool type, `function` (or `custom`).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The function's name and a piece of its arguments.
    #[serde(deserialize_with = "null_as_default")]
    pub function: CallText<Option<String>>,
    /// A free-form tool's name and a piece of its input.
    #[serde(deserialize_with = "null_as_default")]
    pub custom: CallText<Option<String>>,
    /// The fragment's other fields, not `null` (Gemini 3's `extra_content`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Reads `null` as the default value, as for a missing field.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(data: &str) -> Chunk {
        match Payload::from_data(data) {
            Ok(Some(Payload::Chunk(chunk))) => chunk,
            other => panic!("not a chunk: {other:?}"),
        }
    }

    #[test]
    fn nulls_and_missing_fields_read_as_defaults() {
        let chunk = chunk(
            r#"{"choices":[{"index":null,"delta":null,"finish_reason":null},
                {"delta":{"tool_calls":null,"content":null}}],"usage":null}"#,
        );
        assert_eq!(chunk.choices.len(), 2);
        assert_eq!(chunk.choices[0], ChunkChoice::default());
        assert_eq!(chunk.choices[1], ChunkChoice::default());
        assert_eq!(chunk.id, None);
        assert_eq!(chunk.usage, None);
    }

    #[test]
    fn top_level_fields_of_its_own_are_kept_and_those_of_every_chunk_are_not() {
        let plain = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",
            "system_fingerprint":"fp","service_tier":"default","obfuscation":"xyz",
            "choices":[{"index":0,"delta":{"content":"a"}}]}"#;
        assert!(chunk(plain).extra.is_none());
        let sourced = r#"{"id":"c","created":1,"model":"sonar","citations":["https://a.example"],
            "search_results":[{"title":"A"}],"gone":null,
            "choices":[{"index":0,"delta":{"content":"a"}}]}"#;
        let chunk = chunk(sourced);
        let extra = chunk.extra.expect("fields of its own");
        let names: Vec<&str> = extra.keys().map(String::as_str).collect();
        assert_eq!(names, ["citations", "search_results"]);
        assert_eq!(extra["search_results"][0]["title"], "A");
        assert_eq!(chunk.choices[0].delta.content.as_deref(), Some("a"));
    }

    #[test]
    fn usage_without_total_is_summed() {
        let chunk = chunk(r#"{"usage":{"prompt_tokens":3,"completion_tokens":4}}"#);
        let usage = chunk.usage.expect("usage");
        assert_eq!(usage.total_tokens, 7);
    }

    #[test]
    fn arguments_given_as_an_object_become_json_text() {
        let chunk =
            chunk(r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}"#);
        let arguments = &chunk.choices[0].delta.tool_calls[0].function.arguments;
        assert_eq!(arguments.as_deref(), Some(r#"{"a":1}"#));
    }

    #[test]
    fn error_code_as_number_is_kept_as_text_and_status() {
        let error = api_error_from_text(r#"{"code":500,"message":"boom","type":"server_error"}"#);
        assert_eq!(error.status, Some(500));
        assert_eq!(error.code.as_deref(), Some("500"));
        assert_eq!(error.kind.as_deref(), Some("server_error"));
        assert_eq!(error.message, "boom");
    }

    #[test]
    fn error_code_out_of_http_range_gives_no_status() {
        let error = api_error_from_text(r#"{"error":{"code":42,"message":"odd"}}"#);
        assert_eq!(error.status, None);
        assert_eq!(error.code.as_deref(), Some("42"));
    }

    #[test]
    fn error_as_plain_text_or_bare_string_is_the_message() {
        assert_eq!(api_error_from_text(" overloaded \n").message, "overloaded");
        assert_eq!(
            api_error_from_text(r#"{"error":"quota exceeded"}"#).message,
            "quota exceeded"
        );
        assert_eq!(api_error_from_text("").message, NO_MESSAGE);
    }

    #[test]
    fn vllm_bare_error_object_is_an_error() {
        let payload =
            Payload::from_data(r#"{"object":"error","message":"too long","code":400}"#).unwrap();
        match payload {
            Some(Payload::Error(error)) => {
                assert_eq!(error.message, "too long");
                assert_eq!(error.status, Some(400));
            }
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn groq_usage_under_x_groq_is_read() {
        let chunk = chunk(
            r#"{"choices":[],"x_groq":{"id":"req_1","usage":{"prompt_tokens":2,"completion_tokens":3,
                "prompt_tokens_details":{"cached_tokens":1}}}}"#,
        );
        let usage = chunk.usage.expect("usage");
        assert_eq!((usage.total_tokens, usage.cached_tokens), (5, Some(1)));
        assert!(chunk.usage_json.is_some());
    }

    #[test]
    fn openrouter_error_chunk_is_an_error() {
        // https://openrouter.ai/docs/api-reference/errors: mid-stream errors.
        for data in [
            r#"{"id":"c","object":"chat.completion.chunk","error":{"code":"server_error","message":"Provider disconnected"},
                "choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}"#,
        ] {
            assert!(
                matches!(Payload::from_data(data), Ok(Some(Payload::Error(_)))),
                "{data}"
            );
        }
    }

    #[test]
    fn the_one_pass_reading_gives_what_the_tree_gives() {
        let every_kind = [
            r#"{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi \u00e9\n"},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":1,"delta":{"reasoning_content":"think","reasoning":null,"reasoning_details":[{"type":"reasoning.text","text":"t"}]},"logprobs":{"content":[]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}"#,
            r#"{"choices":[{"index":null,"delta":null,"finish_reason":"stop"}],"system_fingerprint":"fp","unknown":{"deep":[1,2]}}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}"#,
            r#"{"choices":null,"id":null,"model":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
            r#"{"id":"c1","id":"c2","choices":[]}"#,
            r#"{"error":{"message":"overloaded","code":503}}"#,
            r#"{"object":"error","message":"bad","code":400}"#,
            r#"{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"t"}]}],"extra_content":{"google":{"thought_signature":"s"}},"n":null}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"type":"custom","custom":{"name":"sql","input":"SE"},"extra_content":{"google":{}}}]}}]}"#,
        ];
        for data in every_kind {
            assert_eq!(
                Payload::from_data(data).ok(),
                Payload::from_tree(data).ok(),
                "{data}"
            );
        }
    }

    #[test]
    fn deltas_keep_unknown_fields_and_read_content_chunks() {
        // Gemini: https://ai.google.dev/gemini-api/docs/thought-signatures;
        // Mistral: https://docs.mistral.ai/capabilities/reasoning/
        let chunk = chunk(
            r#"{"choices":[{"delta":{"role":"assistant","content":[
                {"type":"thinking","thinking":[{"type":"text","text":"Two "},{"type":"text","text":"and two"}]},
                {"type":"text","text":"4"}],"extra_content":{"google":{"thought_signature":"s"}},"gone":null,
                "tool_calls":[{"index":0,"id":"c","type":"custom","custom":{"name":"sql","input":"SELECT"},
                "extra_content":{"google":{"thought_signature":"t"}}}]}}]}"#,
        );
        let delta = &chunk.choices[0].delta;
        assert_eq!(delta.content.as_deref(), Some("4"));
        assert_eq!(delta.thinking.as_deref(), Some("Two and two"));
        let keys: Vec<&str> = delta.extra.keys().map(String::as_str).collect();
        assert_eq!(keys, ["extra_content"]);
        let call = &delta.tool_calls[0];
        assert_eq!(call.custom.input.as_deref(), Some("SELECT"));
        assert_eq!(
            call.extra["extra_content"]["google"]["thought_signature"],
            "t"
        );
        assert!(Payload::from_data(r#"{"choices":[{"delta":{"content":3}}]}"#).is_err());
    }

    #[test]
    fn wrong_shape_is_a_decode_error() {
        for data in [r#"{"choices":3}"#, "[1,2]", "42", r#""text""#] {
            assert!(Payload::from_data(data).is_err(), "{data}");
        }
    }
}
