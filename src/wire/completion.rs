//! A chat completion, read from a whole body or built from a stream (so both
//! give the same reply), and the [`Reply`] it amounts to. A 2xx body that is
//! an error object (as Hugging Face TGI sends) is the server's error.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::conversation::message::ToolCall;
use crate::error::{Error, Result};
use crate::reply::{Reply, ReplyChoice, Usage};
use crate::response_headers::ResponseHeaders;
use crate::wire::error::ErrorReport;
use crate::wire::message::{made_up_call_id, WireToolCall};
use crate::wire::reasoning::ReasoningFields;
use crate::wire::usage::lenient;
use crate::wire::Key;

/// The message of an error in a 2xx body that came without one.
const NO_MESSAGE: &str = "the server answered with an error";

/// A chat completion (`chat.completion`).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Completion {
    pub(crate) id: Option<String>,
    /// Written for a streamed reply's JSON; never needed from a body.
    #[serde(skip_deserializing)]
    pub(crate) object: Option<String>,
    pub(crate) model: Option<String>,
    #[serde(deserialize_with = "crate::wire::choices::<_, _, false>")]
    pub(crate) choices: Vec<Choice>,
    /// A body's, read straight into [`Usage`] (no tree or copy on a send).
    #[serde(default, skip_serializing, deserialize_with = "lenient")]
    pub(crate) usage: Option<Usage>,
    /// A stream's as sent, details included, for its reply's JSON.
    #[serde(rename = "usage", skip_deserializing)]
    pub(crate) usage_json: Option<Value>,
    /// A stream's top-level fields that chatwire does not know, written
    /// after the others (a body's are not read: no buffered values).
    #[serde(flatten, skip_deserializing)]
    pub(crate) extra: Map<String, Value>,
}

/// One choice of a completion.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Choice {
    pub(crate) index: u32,
    pub(crate) message: Option<AssistantMessage>,
    pub(crate) finish_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) logprobs: Option<Value>,
}

/// The message of a choice.
#[derive(Debug, Default, Serialize)]
pub(crate) struct AssistantMessage {
    /// Written for a streamed reply's JSON; a body's is checked, not kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) role: Option<String>,
    pub(crate) content: Option<ReplyContent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) refusal: Option<String>,
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "crate::wire::message::tool_calls"
    )]
    pub(crate) tool_calls: Vec<ToolCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning_details: Option<Value>,
    /// Every other field, as the server sent it.
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

crate::wire::read_fields!(
    AssistantMessage,
    "a chat completion message",
    |message, name, map| {
        match &*name {
            // Nothing reads a body's role: checked to be text, not copied.
            "role" => _ = map.next_value::<Option<Key>>()?,
            "content" => message.content = map.next_value()?,
            "refusal" => message.refusal = map.next_value()?,
            "tool_calls" => {
                let calls: Option<Vec<WireToolCall>> = map.next_value()?;
                let calls = calls.unwrap_or_default().into_iter();
                message.tool_calls = calls.map(ToolCall::from).collect();
            }
            "reasoning_content" => message.reasoning_content = map.next_value()?,
            "reasoning" => message.reasoning = map.next_value()?,
            "reasoning_details" => message.reasoning_details = map.next_value()?,
            _ => _ = message.extra.insert(name.into_owned(), map.next_value()?),
        }
    }
);

/// A reply's content: text, or (Mistral's reasoning models) a list of
/// chunks, `{"type": "thinking", "thinking": [{"type": "text", "text"}]}`
/// and `{"type": "text", "text"}`
/// (<https://docs.mistral.ai/capabilities/reasoning/>).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum ReplyContent {
    Text(String),
    Chunks(Vec<Value>),
}

impl<'de> Deserialize<'de> for ReplyContent {
    /// By hand: an untagged enum would make serde buffer every text.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Content;
        impl<'de> serde::de::Visitor<'de> for Content {
            type Value = ReplyContent;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("text, or a list of content chunks")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<ReplyContent, E> {
                Ok(ReplyContent::Text(text.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<ReplyContent, A::Error> {
                let chunks = serde::de::value::SeqAccessDeserializer::new(seq);
                Vec::deserialize(chunks).map(ReplyContent::Chunks)
            }
        }
        deserializer.deserialize_any(Content)
    }
}

impl ReplyContent {
    /// The text, and the thinking if it has a thinking chunk.
    pub(crate) fn split(self) -> (String, Option<String>) {
        let chunks = match self {
            ReplyContent::Text(text) => return (text, None),
            ReplyContent::Chunks(chunks) => chunks,
        };
        let mut text = String::new();
        let mut thinking: Option<String> = None;
        for chunk in &chunks {
            match chunk.get("type").and_then(Value::as_str) {
                Some("text") => text.push_str(chunk_text(chunk)),
                Some("thinking") => {
                    let kept = thinking.get_or_insert_with(String::new);
                    match chunk.get("thinking") {
                        Some(Value::Array(parts)) => parts
                            .iter()
                            .for_each(|part| kept.push_str(chunk_text(part))),
                        Some(Value::String(part)) => kept.push_str(part),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        (text, thinking)
    }

    /// [`split`](Self::split), for content that may be missing.
    pub(crate) fn split_option(content: Option<Self>) -> (Option<String>, Option<String>) {
        content.map_or((None, None), |content| {
            let (text, thinking) = content.split();
            (Some(text), thinking)
        })
    }

    /// Content as Mistral sends it: a thinking chunk, then a text chunk.
    pub(crate) fn with_thinking(thinking: &str, text: String) -> ReplyContent {
        let mut chunks = vec![serde_json::json!({"type": "thinking",
            "thinking": [{"type": "text", "text": thinking}]})];
        if !text.is_empty() {
            chunks.push(serde_json::json!({"type": "text", "text": text}));
        }
        ReplyContent::Chunks(chunks)
    }
}

fn chunk_text(chunk: &Value) -> &str {
    chunk
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Fields of a reply's message that a strict server refuses in a request:
/// `annotations` (the official schema has it for replies only) and Groq's
/// `executed_tools` (Groq answers 400 "property ... is unsupported").
const REPLY_ONLY_FIELDS: [&str; 2] = ["annotations", "executed_tools"];

/// The unknown fields of a reply's message that go back with it: all but
/// [`REPLY_ONLY_FIELDS`] and nulls; `audio` as its `id` alone (a request's form).
fn request_fields(mut extra: Map<String, Value>) -> Map<String, Value> {
    if let Some(audio) = extra.get_mut("audio") {
        let id = audio.get("id").filter(|id| id.is_string());
        *audio = id.map_or(Value::Null, |id| serde_json::json!({"id": id}));
    }
    extra.retain(|name, value| !value.is_null() && !REPLY_ONLY_FIELDS.contains(&name.as_str()));
    extra
}

impl AssistantMessage {
    /// The choice a caller sees: the content without a think block, or
    /// without content (missing, `null` or `""`) the refusal, so the caller
    /// sees why. A tool call without an id gets one.
    fn into_choice(self, index: u32, finish_reason: Option<String>) -> ReplyChoice {
        let (content, thinking) = ReplyContent::split_option(self.content);
        let fields = ReasoningFields {
            reasoning_content: self.reasoning_content,
            reasoning: self.reasoning,
            reasoning_details: self.reasoning_details,
            thinking,
        };
        let (reasoning, content) = fields.read(content);
        let content = content.filter(|content| !content.is_empty());
        let mut tool_calls = self.tool_calls;
        for call in tool_calls.iter_mut().filter(|call| call.id.is_empty()) {
            call.id = made_up_call_id();
        }
        let refusal = self.refusal.filter(|refusal| !refusal.is_empty());
        ReplyChoice {
            index,
            content: content.or_else(|| refusal.clone()).unwrap_or_default(),
            refusal,
            finish_reason,
            reasoning,
            tool_calls,
            extra: request_fields(self.extra),
        }
    }
}

impl Completion {
    /// The reply this completion amounts to (choice 0, with every choice
    /// listed), with `json` as the body it came in.
    pub(crate) fn into_reply(self, json: String, request_id: Option<String>) -> Result<Reply> {
        let mut choices = self.choices;
        choices.sort_by_key(|choice| choice.index);
        if choices.is_empty() {
            return Err(Error::decode("the response has no choices", &json));
        }
        if choices[0].message.is_none() {
            return Err(Error::decode("the first choice has no message", &json));
        }
        let choices: Vec<ReplyChoice> = choices
            .into_iter()
            .map(|choice| {
                let message = choice.message.unwrap_or_default();
                message.into_choice(choice.index, choice.finish_reason)
            })
            .collect();
        let first = &choices[0];
        Ok(Reply {
            content: first.content.clone(),
            refusal: first.refusal.clone(),
            finish_reason: first.finish_reason.clone(),
            usage: self.usage,
            id: self.id,
            model: self.model,
            request_id,
            tool_calls: first.tool_calls.clone(),
            reasoning: first.reasoning.clone(),
            extra: first.extra.clone(),
            headers: ResponseHeaders::default(),
            choices,
            json,
            left_out: Default::default(),
        })
    }
}

/// Decodes a 2xx body into a [`Reply`], keeping the body as received; only
/// a body that is no completion is read again, for an error object.
pub(crate) fn decode(body: String, request_id: Option<String>) -> Result<Reply> {
    match serde_json::from_str::<Completion>(&body) {
        Ok(completion) => completion.into_reply(body, request_id),
        Err(err) => Err(in_band_error(&body, request_id)
            .unwrap_or_else(|| Error::decode(format!("not a chat completion: {err}"), &body))),
    }
}

/// The error a 2xx body without choices reports, if it is an error object.
fn in_band_error(body: &str, request_id: Option<String>) -> Option<Error> {
    let value: Value = serde_json::from_str(body).ok()?;
    if value.get("choices").is_some() {
        return None;
    }
    let api = ErrorReport::from_value(&value)?.into_api_error(None, NO_MESSAGE, request_id);
    Some(crate::wire::error::in_band(api))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_completion(body: String, request_id: Option<String>) -> Result<Reply> {
        decode(body, request_id)
    }

    #[test]
    fn minimal_completion_decodes() {
        let body = r#"{"choices":[{"message":{"content":"hi"}}]}"#.to_owned();
        let reply = decode_completion(body.clone(), None).unwrap();
        assert_eq!(reply.content, "hi");
        assert_eq!(reply.usage, None);
        assert_eq!(reply.json, body);
    }

    #[test]
    fn a_refusal_stands_in_for_missing_null_or_empty_content() {
        for content in [r#""#, r#""content":null,"#, r#""content":"","#] {
            let body =
                format!(r#"{{"choices":[{{"message":{{{content}"refusal":"I can't help"}}}}]}}"#);
            let reply = decode_completion(body.clone(), None).unwrap();
            assert_eq!(reply.content, "I can't help", "{body}");
            assert_eq!(reply.refusal.as_deref(), Some("I can't help"), "{body}");
            assert_eq!(reply.choices[0].refusal, reply.refusal, "{body}");
        }
        let body = r#"{"choices":[{"message":{"content":"yes","refusal":"no"}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(
            (reply.content.as_str(), reply.refusal.as_deref()),
            ("yes", Some("no"))
        );
        let body = r#"{"choices":[{"message":{"content":"yes","refusal":""}}]}"#;
        assert_eq!(decode_completion(body.into(), None).unwrap().refusal, None);
    }

    #[test]
    fn a_built_completion_reads_back_as_the_same_reply() {
        let choice = Choice {
            index: 0,
            message: Some(AssistantMessage {
                role: Some("assistant".into()),
                content: Some(ReplyContent::Text("hello".into())),
                ..AssistantMessage::default()
            }),
            finish_reason: Some("stop".into()),
            logprobs: None,
        };
        let built = Completion {
            id: Some("c1".into()),
            object: Some("chat.completion".into()),
            model: Some("m".into()),
            choices: vec![choice],
            ..Completion::default()
        };
        let json = serde_json::to_string(&built).unwrap();
        let reply = built.into_reply(json.clone(), None).unwrap();
        assert_eq!(decode_completion(json, None).unwrap(), reply);
    }

    #[test]
    fn tool_calls_decode_with_empty_content() {
        let body = r#"{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content, "");
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].name, "f");
        assert_eq!(reply.tool_calls[0].arguments, r#"{"x":1}"#);
    }

    #[test]
    fn every_choice_is_kept_in_order_and_choice_0_is_the_reply() {
        let body = r#"{"choices":[{"index":1,"message":{"content":"b"},"finish_reason":"length"},
            {"index":0,"message":{"content":"a"},"finish_reason":"stop"}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content, "a");
        let texts: Vec<_> = reply.choices.iter().map(|c| c.content.as_str()).collect();
        assert_eq!(texts, ["a", "b"]);
        assert_eq!(reply.choices[1].finish_reason.as_deref(), Some("length"));
    }

    #[test]
    fn reasoning_is_read_and_taken_out_of_the_content() {
        let body = r#"{"choices":[{"message":{"content":"<think>hmm</think>\n\n4"}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content, "4");
        assert_eq!(reply.reasoning.unwrap().text, "hmm");
        let body = r#"{"choices":[{"message":{"content":"4","reasoning_content":"2+2"}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.reasoning.unwrap().text, "2+2");
    }

    #[test]
    fn a_tool_call_without_an_id_gets_a_unique_one() {
        let body = r#"{"choices":[{"message":{"content":null,"tool_calls":[
            {"type":"function","function":{"name":"f","arguments":"{}"}},
            {"id":"","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        let (a, b) = (&reply.tool_calls[0].id, &reply.tool_calls[1].id);
        assert!(a.starts_with("call_") && b.starts_with("call_"), "{a} {b}");
        assert_ne!(a, b);
    }

    #[test]
    fn an_error_object_in_a_2xx_body_is_the_servers_error() {
        // TGI: {"error": "...", "error_type": "..."} with status 200.
        let body = r#"{"error":"Input validation error: too long","error_type":"validation"}"#;
        let err = decode_completion(body.into(), Some("r1".into())).unwrap_err();
        let api = err.api_error().expect("an API error");
        assert_eq!(api.message, "Input validation error: too long");
        assert_eq!(api.request_id.as_deref(), Some("r1"));
        let body = r#"{"error":{"message":"busy","code":503}}"#;
        let err = decode_completion(body.into(), None).unwrap_err();
        assert_eq!(err.http_status(), Some(503));
    }

    #[test]
    fn not_a_completion_is_a_decode_error() {
        for body in [
            "",
            "<html>",
            "{}",
            r#"{"choices":[]}"#,
            r#"{"choices":[{"index":0}]}"#,
            r#"{"choices":[{"message":{"content":"cut"#,
        ] {
            let err = decode_completion(body.into(), None).unwrap_err();
            assert!(matches!(err, Error::Decode { .. }), "{body}: {err}");
        }
    }

    #[test]
    fn unknown_message_fields_are_kept_but_response_only_ones_are_not() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":"hi","refusal":null,
            "annotations":[{"type":"url_citation","url_citation":{"url":"u","title":"t","start_index":0,"end_index":1}}],
            "audio":{"id":"audio_1","data":"AAAA","transcript":"hi","expires_at":1},
            "executed_tools":[{"type":"search","arguments":"{}"}],
            "extra_content":{"google":{"thought_signature":"s"}},"nothing":null}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        let keys: Vec<&str> = reply.extra.keys().map(String::as_str).collect();
        assert_eq!(keys, ["audio", "extra_content"]);
        assert_eq!(reply.extra["audio"], serde_json::json!({"id": "audio_1"}));
        assert_eq!(reply.to_message().extra, reply.extra);
        // The body as received keeps everything.
        assert!(reply.json.contains("annotations"));
    }

    #[test]
    fn mistral_content_chunks_are_text_and_reasoning() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":[
            {"type":"thinking","thinking":[{"type":"text","text":"John has "},{"type":"text","text":"three sisters."}]},
            {"type":"text","text":"John is 22."}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content, "John is 22.");
        let reasoning = reply.reasoning.unwrap();
        assert_eq!(reasoning.text, "John has three sisters.");
        assert_eq!(
            reasoning.field,
            crate::conversation::message::ReasoningField::ContentChunks
        );
    }
}
