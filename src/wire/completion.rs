//! A whole chat completion body read into a [`Reply`]: each choice's
//! message made a [`ReplyChoice`] in place, the body kept as received for
//! [`Reply::json`]. A 2xx body that is an error object (as Hugging Face TGI
//! sends) is the server's error.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::conversation::message::ToolCall;
use crate::error::{Error, Result};
use crate::reply::{Body, Reply, ReplyChoice, Usage};
use crate::wire::error::ErrorReport;
use crate::wire::message::{made_up_call_id, WireToolCall};
use crate::wire::reasoning::ReasoningFields;
use crate::wire::usage::lenient;
use crate::wire::Key;

/// The message of an error in a 2xx body that came without one.
const NO_MESSAGE: &str = "the server answered with an error";

/// A chat completion (`chat.completion`), as read from a body.
#[derive(Debug, Default, Deserialize)]
struct Completion {
    id: Option<String>,
    model: Option<String>,
    #[serde(deserialize_with = "crate::wire::choices::<_, _, false>")]
    choices: Vec<Choice>,
    /// Read straight into [`Usage`] (no tree or copy on a send).
    #[serde(default, deserialize_with = "lenient")]
    usage: Option<Usage>,
}

/// One choice of a completion.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Choice {
    index: u32,
    message: Option<AssistantMessage>,
    finish_reason: Option<String>,
}

/// The message of a choice.
#[derive(Debug, Default)]
struct AssistantMessage {
    content: Option<ReplyContent>,
    refusal: Option<String>,
    tool_calls: Vec<ToolCall>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    reasoning_details: Option<Value>,
    /// Every other field, as the server sent it.
    extra: Map<String, Value>,
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
#[derive(Debug)]
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
/// [`REPLY_ONLY_FIELDS`] and nulls; `audio` as its `id` alone (a request's
/// form). The fields left out or changed are moved to `reply_only` as they
/// came, when it is given.
pub(crate) fn request_fields(
    mut extra: Map<String, Value>,
    mut reply_only: Option<&mut Map<String, Value>>,
) -> Map<String, Value> {
    if let Some(audio) = extra.get_mut("audio") {
        let id = audio.get("id").filter(|id| id.is_string());
        let request_form = id.map_or(Value::Null, |id| serde_json::json!({"id": id}));
        let sent = std::mem::replace(audio, request_form);
        if let Some(reply_only) = reply_only.as_deref_mut() {
            reply_only.insert("audio".to_owned(), sent);
        }
    }
    for name in REPLY_ONLY_FIELDS {
        let Some(value) = extra.remove(name) else {
            continue;
        };
        if let Some(reply_only) = reply_only.as_deref_mut() {
            reply_only.insert(name.to_owned(), value);
        }
    }
    extra.retain(|_, value| !value.is_null());
    extra
}

impl AssistantMessage {
    /// The choice a caller sees: the content without a think block (a
    /// refusal stands in for missing content in [`ReplyChoice::content`]).
    /// A tool call without an id gets one.
    fn into_choice(self, index: u32, finish_reason: Option<String>) -> ReplyChoice {
        let (content, thinking) = ReplyContent::split_option(self.content);
        let fields = ReasoningFields {
            reasoning_content: self.reasoning_content,
            reasoning: self.reasoning,
            reasoning_details: self.reasoning_details,
            thinking,
        };
        let (reasoning, content) = fields.read(content);
        let mut tool_calls = self.tool_calls;
        for call in tool_calls.iter_mut().filter(|call| call.id.is_empty()) {
            call.id = made_up_call_id();
        }
        ReplyChoice {
            index,
            content: content.unwrap_or_default(),
            refusal: self.refusal.filter(|refusal| !refusal.is_empty()),
            finish_reason,
            reasoning,
            tool_calls,
            extra: request_fields(self.extra, None),
            streamed: None,
        }
    }
}

impl Completion {
    /// The reply this completion amounts to, every choice in order of
    /// `index`, with `body` as the JSON it came in.
    fn into_reply(self, body: String, request_id: Option<String>) -> Result<Reply> {
        let mut choices = self.choices;
        choices.sort_by_key(|choice| choice.index);
        if choices.is_empty() {
            return Err(Error::decode("the response has no choices", &body));
        }
        if choices[0].message.is_none() {
            return Err(Error::decode("the first choice has no message", &body));
        }
        let choices = choices
            .into_iter()
            .map(|choice| {
                let message = choice.message.unwrap_or_default();
                message.into_choice(choice.index, choice.finish_reason)
            })
            .collect();
        let mut reply = Reply::new(choices, Body::Received(body));
        reply.usage = self.usage;
        reply.id = self.id;
        reply.model = self.model;
        reply.request_id = request_id;
        Ok(reply)
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
        assert_eq!(reply.content(), "hi");
        assert_eq!(reply.usage, None);
        assert_eq!(reply.json(), body);
    }

    #[test]
    fn a_refusal_stands_in_for_missing_null_or_empty_content() {
        for content in [r#""#, r#""content":null,"#, r#""content":"","#] {
            let body =
                format!(r#"{{"choices":[{{"message":{{{content}"refusal":"I can't help"}}}}]}}"#);
            let reply = decode_completion(body.clone(), None).unwrap();
            assert_eq!(reply.content(), "I can't help", "{body}");
            assert_eq!(reply.refusal(), Some("I can't help"), "{body}");
            assert_eq!(reply.choices()[0].refusal(), reply.refusal(), "{body}");
        }
        let body = r#"{"choices":[{"message":{"content":"yes","refusal":"no"}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!((reply.content(), reply.refusal()), ("yes", Some("no")));
        let body = r#"{"choices":[{"message":{"content":"yes","refusal":""}}]}"#;
        assert_eq!(
            decode_completion(body.into(), None).unwrap().refusal(),
            None
        );
    }

    #[test]
    fn a_streamed_replys_json_reads_back_as_the_same_reply() {
        let choice = ReplyChoice {
            content: "hello".into(),
            finish_reason: Some("stop".into()),
            streamed: Some(Box::default()),
            ..ReplyChoice::default()
        };
        let mut built = Reply::new(vec![choice], Body::Streamed(Box::default()));
        built.id = Some("c1".into());
        built.model = Some("m".into());
        let json = built.json().into_owned();
        let read = decode_completion(json.clone(), None).unwrap();
        assert_eq!(read.json(), json);
        assert_eq!(read.choices()[0].content(), "hello");
        let mut read_choice = read.choices[0].clone();
        read_choice.streamed = built.choices[0].streamed.clone();
        assert_eq!(read_choice, built.choices[0]);
        assert_eq!((read.id, read.model), (built.id, built.model));
    }

    #[test]
    fn tool_calls_decode_with_empty_content() {
        let body = r#"{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content(), "");
        assert_eq!(reply.tool_calls().len(), 1);
        assert_eq!(reply.tool_calls()[0].name, "f");
        assert_eq!(reply.tool_calls()[0].arguments, r#"{"x":1}"#);
    }

    #[test]
    fn every_choice_is_kept_in_order_and_choice_0_is_the_reply() {
        let body = r#"{"choices":[{"index":1,"message":{"content":"b"},"finish_reason":"length"},
            {"index":0,"message":{"content":"a"},"finish_reason":"stop"}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content(), "a");
        let texts: Vec<_> = reply.choices.iter().map(|c| c.content.as_str()).collect();
        assert_eq!(texts, ["a", "b"]);
        assert_eq!(reply.choices[1].finish_reason.as_deref(), Some("length"));
    }

    #[test]
    fn reasoning_is_read_and_taken_out_of_the_content() {
        let body = r#"{"choices":[{"message":{"content":"<think>hmm</think>\n\n4"}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content(), "4");
        assert_eq!(reply.reasoning().unwrap().text, "hmm");
        let body = r#"{"choices":[{"message":{"content":"4","reasoning_content":"2+2"}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.reasoning().unwrap().text, "2+2");
    }

    #[test]
    fn a_tool_call_without_an_id_gets_a_unique_one() {
        let body = r#"{"choices":[{"message":{"content":null,"tool_calls":[
            {"type":"function","function":{"name":"f","arguments":"{}"}},
            {"id":"","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        let (a, b) = (&reply.tool_calls()[0].id, &reply.tool_calls()[1].id);
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
        let keys: Vec<&str> = reply.extra().keys().map(String::as_str).collect();
        assert_eq!(keys, ["audio", "extra_content"]);
        assert_eq!(reply.extra()["audio"], serde_json::json!({"id": "audio_1"}));
        assert_eq!(&reply.to_message().extra, reply.extra());
        // The body as received keeps everything.
        assert!(reply.json().contains("annotations"));
    }

    #[test]
    fn mistral_content_chunks_are_text_and_reasoning() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":[
            {"type":"thinking","thinking":[{"type":"text","text":"John has "},{"type":"text","text":"three sisters."}]},
            {"type":"text","text":"John is 22."}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content(), "John is 22.");
        let reasoning = reply.reasoning().unwrap();
        assert_eq!(reasoning.text, "John has three sisters.");
        assert_eq!(
            reasoning.field,
            crate::conversation::message::ReasoningField::ContentChunks
        );
    }
}
