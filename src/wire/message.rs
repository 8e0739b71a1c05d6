//! Messages, tool calls and tools on the wire, also the JSON of
//! `Conversation::to_json` (so a saved conversation reads back as sent).

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::conversation::message::{
    Image, ImageDetail, Message, ReasoningField, Role, Tool, ToolCall, CUSTOM, FUNCTION,
};
use crate::wire::reasoning::{self, ReasoningFields};

mod attachment;
use attachment::{WireAudio, WireFile};
mod out;
pub(crate) use out::{tool_calls, MessageOut, Replay};

// Content is a string, or with images or files an array of parts. A message
// that only calls tools is sent with `""`, not `null` (llama-cpp-python's
// server answers a null content with HTTP 500); `null` is still read.

/// A message as read (`out.rs` writes it).
#[derive(Deserialize)]
struct WireMessage {
    role: Role,
    content: Option<WireContent>,
    #[serde(default)]
    tool_calls: Vec<WireToolCall>,
    tool_call_id: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
    reasoning_details: Option<Value>,
    /// Whatever else the message holds, kept as it came.
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// The fields [`WireMessage`] names, never written from a message's `extra`.
const MESSAGE_FIELDS: [&str; 7] = [
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "reasoning_content",
    "reasoning",
    "reasoning_details",
];

#[derive(Deserialize)]
#[serde(untagged)]
enum WireContent {
    Text(String),
    Parts(Vec<WirePart>),
}

/// A content part as read (`out.rs` writes its borrowed form, `PartOut`).
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WirePart {
    Text {
        text: String,
    },
    ImageUrl {
        image_url: WireImage,
    },
    File {
        file: WireFile,
    },
    InputAudio {
        input_audio: WireAudio,
    },
    /// Mistral's reasoning: `{"type": "thinking", "thinking": [{"type": "text", "text"}]}`.
    Thinking {
        thinking: Vec<ThinkingText>,
    },
}

/// One text of a thinking chunk (any type, or none, is read).
#[derive(Deserialize)]
#[serde(tag = "type", rename = "text")]
struct ThinkingText {
    #[serde(default)]
    text: String,
}

#[derive(Deserialize)]
struct WireImage {
    url: String,
    #[serde(default)]
    detail: Option<ImageDetail>,
}

/// A tool call: `{"id", "type": "function", "function": {"name",
/// "arguments"}}` or `{"id", "type": "custom", "custom": {"name", "input"}}`,
/// with whatever else the server put on it (Gemini's `extra_content`).
#[derive(Deserialize)]
pub(crate) struct WireToolCall {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default = "function_kind")]
    kind: String,
    function: Option<CallText<String>>,
    custom: Option<CallText<String>>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// A call's `function` (its `arguments`) or `custom` (a free-form tool's
/// `input`) object. The name is a `String` in a message (`null` refused)
/// and an `Option` in a streamed fragment (`null` is no name).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CallText<N> {
    pub(crate) name: N,
    #[serde(deserialize_with = "arguments_text")]
    pub(crate) arguments: Option<String>,
    #[serde(deserialize_with = "arguments_text")]
    pub(crate) input: Option<String>,
}

/// The fields [`WireToolCall`] names, never written from a call's `extra`.
const TOOL_CALL_FIELDS: [&str; 4] = ["id", "type", "function", "custom"];

fn function_kind() -> String {
    FUNCTION.to_owned()
}

/// Arguments are a JSON string on the wire; a few servers send the object
/// itself, read as its JSON text.
fn arguments_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(json_text(&Value::deserialize(deserializer)?))
}

/// A JSON value as text: a string as itself, `null` as nothing, anything
/// else as its JSON text.
pub(crate) fn json_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// An id for a tool call sent without one (older llama.cpp), so that its
/// result can quote it: `call_` and 24 hex digits, unique in the process (a
/// counter) and unlikely to repeat across processes (clock and process id).
pub(crate) fn made_up_call_id() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64);
    let salt = nanos ^ (u64::from(std::process::id()) << 40);
    format!("call_{salt:016x}{count:08x}")
}

impl From<WireToolCall> for ToolCall {
    fn from(wire: WireToolCall) -> ToolCall {
        let (name, arguments) = match (wire.function, wire.custom) {
            (Some(function), _) => (function.name, function.arguments.unwrap_or_default()),
            (None, Some(custom)) => (custom.name, custom.input.unwrap_or_default()),
            (None, None) => Default::default(),
        };
        ToolCall {
            id: wire.id,
            kind: wire.kind,
            name,
            arguments,
            extra: without_nulls(wire.extra),
        }
    }
}

/// Unknown fields without those that are `null`: a null says nothing, and
/// sending it back would only risk a strict server's refusal.
pub(crate) fn without_nulls(mut extra: Map<String, Value>) -> Map<String, Value> {
    extra.retain(|_, value| !value.is_null());
    extra
}

/// Tool calls from JSON text in the API's form (a non-empty array), for
/// rebuilding a history by hand.
pub(crate) fn tool_calls_from_json(text: &str) -> crate::error::Result<Vec<ToolCall>> {
    let calls: Vec<WireToolCall> = serde_json::from_str(text).map_err(|err| {
        crate::error::Error::InvalidArgument(format!(
            "the tool calls are not a JSON array of {{\"id\", \"type\", \"function\": {{\"name\", \"arguments\"}}}}: {err}"
        ))
    })?;
    if calls.is_empty() {
        return Err(crate::error::Error::InvalidArgument(
            "the tool calls are an empty array".into(),
        ));
    }
    Ok(calls.into_iter().map(ToolCall::from).collect())
}

impl Serialize for Message {
    /// The message with its reasoning, as `Conversation::to_json` keeps it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        MessageOut {
            message: self,
            reasoning: Replay::With,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Message, D::Error> {
        let wire = WireMessage::deserialize(deserializer)?;
        let mut message = Message::new(wire.role, "");
        let mut thinking: Option<String> = None;
        match wire.content {
            // As appending refuses text that is missing: only an assistant
            // message that calls tools may come without content.
            None if wire.role != Role::Assistant || wire.tool_calls.is_empty() => {
                return Err(serde::de::Error::custom(format!(
                    "a {} message needs \"content\" (text, or an array of parts)",
                    wire.role.as_str()
                )));
            }
            None => {}
            Some(WireContent::Text(text)) => message.content = text,
            Some(WireContent::Parts(parts)) => {
                for part in parts {
                    match part {
                        WirePart::Text { text } => message.content.push_str(&text),
                        WirePart::ImageUrl { image_url } => message.images.push(Image {
                            url: image_url.url,
                            detail: image_url.detail,
                        }),
                        WirePart::File { file } => message
                            .files
                            .push(file.into_attachment().map_err(serde::de::Error::custom)?),
                        WirePart::InputAudio { input_audio } => message.files.push(
                            input_audio
                                .into_attachment()
                                .map_err(serde::de::Error::custom)?,
                        ),
                        WirePart::Thinking { thinking: texts } => {
                            let kept = thinking.get_or_insert_with(String::new);
                            texts.iter().for_each(|part| kept.push_str(&part.text));
                        }
                    }
                }
            }
        }
        message.tool_calls = wire.tool_calls.into_iter().map(ToolCall::from).collect();
        message.tool_call_id = wire.tool_call_id;
        message.extra = without_nulls(wire.extra);
        // Reasoning is read as from a reply: only an assistant writes it.
        if message.role == Role::Assistant {
            let fields = ReasoningFields {
                reasoning_content: wire.reasoning_content,
                reasoning: wire.reasoning,
                reasoning_details: wire.reasoning_details,
                thinking,
            };
            let (reasoning, content) = fields.read(Some(std::mem::take(&mut message.content)));
            message.content = content.unwrap_or_default();
            message.reasoning = reasoning;
        }
        Ok(message)
    }
}

/// A tool as read: `{"type", "function": {...}}` or `{"type", "custom": {...}}`.
#[derive(Deserialize)]
struct WireTool {
    #[serde(rename = "type")]
    kind: String,
    function: Option<Definition<'static>>,
    custom: Option<Definition<'static>>,
}

/// A function's definition (`parameters`) or a free-form tool's (`format`),
/// borrowed when written.
#[derive(Serialize, Deserialize)]
struct Definition<'a> {
    name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<Cow<'a, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Cow<'a, Value>>,
}

impl Serialize for Tool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let kind = if self.custom { CUSTOM } else { FUNCTION };
        let definition = Definition {
            name: Cow::Borrowed(&self.name),
            description: self.description.as_deref().map(Cow::Borrowed),
            parameters: (!self.custom).then_some(Cow::Borrowed(&self.parameters)),
            format: self
                .format
                .as_ref()
                .filter(|_| self.custom)
                .map(Cow::Borrowed),
        };
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", kind)?;
        map.serialize_entry(kind, &definition)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tool, D::Error> {
        let wire = WireTool::deserialize(deserializer)?;
        let tool = match (wire.kind.as_str(), wire.function, wire.custom) {
            (CUSTOM, _, Some(custom)) => Tool::custom(
                &custom.name,
                custom.description.as_deref(),
                custom.format.map(Cow::into_owned),
            ),
            (_, Some(function), _) => Tool::new(
                &function.name,
                function.description.as_deref(),
                function.parameters.map(Cow::into_owned),
            ),
            (kind, ..) => {
                return Err(serde::de::Error::custom(format!(
                    "a tool of type {kind:?} needs its \"{kind}\" object"
                )))
            }
        };
        tool.map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::message::*;
    use serde_json::json;

    #[test]
    fn plain_message_is_role_and_content() {
        let message = Message::new(Role::User, "hi");
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            json!({"role": "user", "content": "hi"})
        );
    }

    #[test]
    fn message_with_images_uses_content_parts_and_round_trips() {
        let mut message = Message::new(Role::User, "what is this?");
        message.images.push(Image {
            url: "https://example.com/cat.png".into(),
            detail: Some(ImageDetail::Low),
        });
        let wire = serde_json::to_value(&message).unwrap();
        assert_eq!(
            wire,
            json!({"role": "user", "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low"}}
            ]})
        );
        assert_eq!(serde_json::from_value::<Message>(wire).unwrap(), message);
    }

    #[test]
    fn files_are_file_and_input_audio_parts_and_round_trip() {
        let mut message = Message::new(Role::User, "summarize");
        message.files = vec![
            Attachment::from_bytes("invoice.pdf", b"%PDF-1.4").unwrap(),
            Attachment::from_bytes("talk.wav", b"RIFF\0\0\0\0WAVE").unwrap(),
            Attachment::from_bytes("talk.mp3", b"ID3\x04").unwrap(),
        ];
        let wire = serde_json::to_value(&message).unwrap();
        assert_eq!(
            wire,
            json!({"role": "user", "content": [
                {"type": "text", "text": "summarize"},
                {"type": "file", "file": {"filename": "invoice.pdf",
                                          "file_data": "data:application/pdf;base64,JVBERi0xLjQ="}},
                {"type": "input_audio", "input_audio": {"data": "UklGRgAAAABXQVZF", "format": "wav"}},
                {"type": "input_audio", "input_audio": {"data": "SUQzBA==", "format": "mp3"}}
            ]})
        );
        assert_eq!(serde_json::from_value::<Message>(wire).unwrap(), message);
        // Bare base64 is read as a PDF's data too.
        let bare = json!({"role": "user", "content": [
            {"type": "file", "file": {"filename": "a.pdf", "file_data": "JVBERi0xLjQ="}}]});
        let read = serde_json::from_value::<Message>(bare).unwrap();
        assert_eq!(read.files[0].data, "JVBERi0xLjQ=");
    }

    #[test]
    fn files_chatwire_cannot_send_are_refused_when_read() {
        for (part, words) in [
            (
                json!({"type": "file", "file": {"file_id": "file-abc"}}),
                "file_id",
            ),
            (
                json!({"type": "file", "file": {"filename": "a"}}),
                "needs file_data",
            ),
            (
                json!({"type": "file", "file": {"file_data": "data:text/plain;base64,aGk="}}),
                "must be a PDF",
            ),
            (
                json!({"type": "input_audio", "input_audio": {"data": "aGk=", "format": "ogg"}}),
                "not wav or mp3",
            ),
        ] {
            let wire = json!({"role": "user", "content": [part]});
            let err = serde_json::from_value::<Message>(wire).unwrap_err();
            assert!(err.to_string().contains(words), "{err}");
        }
    }

    #[test]
    fn assistant_tool_calls_and_tool_results_round_trip() {
        let mut call = Message::new(Role::Assistant, "");
        call.tool_calls.push(ToolCall::new(
            "call_1",
            "get_weather",
            r#"{"city":"Paris"}"#,
        ));
        let mut wire = serde_json::to_value(&call).unwrap();
        // "", which every server accepts; null is read too.
        assert_eq!(wire["content"], "");
        assert_eq!(wire["tool_calls"][0]["function"]["name"], "get_weather");
        assert_eq!(
            serde_json::from_value::<Message>(wire.clone()).unwrap(),
            call
        );
        wire["content"] = Value::Null;
        assert_eq!(serde_json::from_value::<Message>(wire).unwrap(), call);

        let result = Message::tool_result("call_1", "18 C");
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(
            wire,
            json!({"role": "tool", "content": "18 C", "tool_call_id": "call_1"})
        );
        assert_eq!(serde_json::from_value::<Message>(wire).unwrap(), result);
    }

    #[test]
    fn reasoning_round_trips_in_the_field_it_came_in() {
        for (field, wire_name) in [
            (ReasoningField::ReasoningContent, "reasoning_content"),
            (ReasoningField::Reasoning, "reasoning"),
        ] {
            let mut message = Message::new(Role::Assistant, "4");
            message.reasoning = Some(Reasoning::new("2+2", field));
            let wire = serde_json::to_value(&message).unwrap();
            assert_eq!(wire[wire_name], "2+2", "{wire}");
            assert_eq!(wire["content"], "4");
            assert_eq!(serde_json::from_value::<Message>(wire).unwrap(), message);
        }
        let mut tags = Message::new(Role::Assistant, "4");
        tags.reasoning = Some(Reasoning::new("2+2", ReasoningField::ThinkTags));
        let wire = serde_json::to_value(&tags).unwrap();
        assert_eq!(wire["content"], "<think>\n2+2\n</think>\n\n4");
        assert_eq!(serde_json::from_value::<Message>(wire).unwrap(), tags);
        let without = MessageOut {
            message: &tags,
            reasoning: Replay::Without,
        };
        assert_eq!(
            serde_json::to_value(&without).unwrap(),
            json!({"role": "assistant", "content": "4"})
        );
    }

    #[test]
    fn tools_are_checked_and_serialize_as_functions() {
        assert!(Tool::new("bad name", None, None).is_err());
        assert!(Tool::new("f", None, Some(json!([1]))).is_err());
        let tool = Tool::new("get_weather", Some("Weather by city"), None).unwrap();
        let wire = serde_json::to_value(&tool).unwrap();
        assert_eq!(wire["type"], "function");
        assert_eq!(wire["function"]["parameters"]["type"], "object");
        assert_eq!(serde_json::from_value::<Tool>(wire).unwrap(), tool);
    }

    #[test]
    fn unknown_fields_of_a_message_and_its_calls_round_trip_and_go_out() {
        // Gemini 3 through its OpenAI-compatible endpoint:
        // https://ai.google.dev/gemini-api/docs/thought-signatures
        let wire = json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"},
             "extra_content": {"google": {"thought_signature": "sig=="}}}],
            "provider_state": {"k": [1, 2]}, "dropped": null});
        let message: Message = serde_json::from_value(wire).unwrap();
        assert_eq!(message.extra["provider_state"], json!({"k": [1, 2]}));
        assert!(!message.extra.contains_key("dropped"));
        let call = &message.tool_calls[0];
        assert_eq!(
            call.extra["extra_content"]["google"]["thought_signature"],
            "sig=="
        );
        let out = serde_json::to_value(&message).unwrap();
        assert_eq!(
            out["tool_calls"][0]["extra_content"]["google"]["thought_signature"],
            "sig=="
        );
        assert_eq!(out["provider_state"]["k"], json!([1, 2]));
        assert_eq!(serde_json::from_value::<Message>(out).unwrap(), message);
        // A known name in `extra` never writes its field twice.
        let mut odd = Message::new(Role::User, "hi");
        odd.extra.insert("content".into(), json!("other"));
        let text = serde_json::to_string(&odd).unwrap();
        assert_eq!(text.matches("\"content\"").count(), 1, "{text}");
    }

    #[test]
    fn custom_calls_and_tools_use_their_own_shape() {
        let mut message = Message::new(Role::Assistant, "");
        message
            .tool_calls
            .push(ToolCall::custom("c1", "sql", "SELECT 1"));
        let wire = serde_json::to_value(&message).unwrap();
        assert_eq!(
            wire["tool_calls"][0],
            json!({"id": "c1", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}})
        );
        let back: Message = serde_json::from_value(wire).unwrap();
        assert!(back.tool_calls[0].is_custom());
        assert_eq!(back, message);
        let format =
            json!({"type": "grammar", "grammar": {"syntax": "lark", "definition": "start: \"x\""}});
        let tool = Tool::custom("sql", Some("Runs SQL"), Some(format.clone())).unwrap();
        let wire = serde_json::to_value(&tool).unwrap();
        assert_eq!(
            wire,
            json!({"type": "custom", "custom": {"name": "sql", "description": "Runs SQL", "format": format}})
        );
        assert_eq!(serde_json::from_value::<Tool>(wire).unwrap(), tool);
        let free = serde_json::to_value(Tool::custom("note", None, None).unwrap()).unwrap();
        assert_eq!(free, json!({"type": "custom", "custom": {"name": "note"}}));
    }

    #[test]
    fn mistral_thinking_chunks_round_trip_as_chunks() {
        let wire = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": [{"type": "text", "text": "2+2"}]},
            {"type": "text", "text": "4"}]});
        let message: Message = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(message.content, "4");
        let reasoning = message.reasoning.clone().unwrap();
        assert_eq!(
            (reasoning.text.as_str(), reasoning.field),
            ("2+2", ReasoningField::ContentChunks)
        );
        assert_eq!(serde_json::to_value(&message).unwrap(), wire);
        let without = MessageOut {
            message: &message,
            reasoning: Replay::Without,
        };
        assert_eq!(
            serde_json::to_value(&without).unwrap(),
            json!({"role": "assistant", "content": "4"})
        );
    }
}
