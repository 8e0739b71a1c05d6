//! A message as a request (and `Conversation::to_json`) writes it,
//! borrowed: a send copies none of its texts, and writes each attachment's
//! base64 as it was stored when the attachment was added.

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::attachment::{AudioOut, FileOut};
use super::{
    reasoning, Message, ReasoningField, ToolCall, CUSTOM, MESSAGE_FIELDS, TOOL_CALL_FIELDS,
};
use crate::conversation::message::{Attachment, ImageDetail, Role};

/// Whether a message goes out with its reasoning (see `wire::request` for
/// which messages do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replay {
    /// Without it.
    Without,
    /// With it, when it has any.
    With,
    /// With it, or an empty `reasoning_content` when it has none: Kimi
    /// refuses a tool-call message without the field.
    WithOrEmpty,
}

/// A message as written on the wire, with or without its reasoning.
pub(crate) struct MessageOut<'a> {
    pub(crate) message: &'a Message,
    pub(crate) reasoning: Replay,
}

impl Serialize for MessageOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = self.message;
        let reasoning = message
            .reasoning
            .as_ref()
            .filter(|_| self.reasoning != Replay::Without);
        let chunks = reasoning.filter(|reasoning| reasoning.field == ReasoningField::ContentChunks);
        let text = match reasoning {
            Some(reasoning) if reasoning.field == ReasoningField::ThinkTags => Cow::Owned(
                reasoning::with_think_block(&reasoning.text, &message.content),
            ),
            _ => Cow::Borrowed(message.content.as_str()),
        };
        let content = if !message.images.is_empty() || !message.files.is_empty() || chunks.is_some()
        {
            // Reasoning as Mistral sent it: one thinking chunk.
            let thinking = chunks.map(|reasoning| PartOut::Thinking {
                thinking: [ThinkingOut {
                    text: &reasoning.text,
                }],
            });
            let text = (!text.is_empty()).then_some(PartOut::Text { text });
            let images = message.images.iter().map(|image| PartOut::ImageUrl {
                image_url: ImageOut {
                    url: &image.url,
                    detail: image.detail,
                },
            });
            let files = message.files.iter().map(part_of);
            let parts = thinking.into_iter().chain(text).chain(images).chain(files);
            ContentOut::Parts(parts.collect())
        } else {
            ContentOut::Text(text)
        };
        let mut fields = reasoning.map(reasoning::wire_fields).unwrap_or_default();
        if self.reasoning == Replay::WithOrEmpty && reasoning.is_none() {
            fields.push(("reasoning_content", Value::from("")));
        }
        WireMessageOut {
            role: message.role,
            content,
            tool_calls: &message.tool_calls,
            tool_call_id: message.tool_call_id.as_deref(),
            extra: ExtraOut {
                reasoning: fields,
                extra: &message.extra,
                known: &MESSAGE_FIELDS,
            },
        }
        .serialize(serializer)
    }
}

/// A message on the wire, its texts borrowed: a send copies none of them.
#[derive(Serialize)]
struct WireMessageOut<'a> {
    role: Role,
    content: ContentOut<'a>,
    #[serde(
        skip_serializing_if = "<[ToolCall]>::is_empty",
        serialize_with = "tool_calls"
    )]
    tool_calls: &'a [ToolCall],
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(flatten)]
    extra: ExtraOut<'a>,
}

/// [`WireContent`](super::WireContent) to write, its text borrowed.
#[derive(Serialize)]
#[serde(untagged)]
enum ContentOut<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<PartOut<'a>>),
}

/// A content part to write ([`WirePart`](super::WirePart) is the form
/// read), borrowed: an image's URL or an attachment's base64 goes into the
/// body as it is stored.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum PartOut<'a> {
    Text {
        text: Cow<'a, str>,
    },
    ImageUrl {
        image_url: ImageOut<'a>,
    },
    File {
        file: FileOut<'a>,
    },
    InputAudio {
        input_audio: AudioOut<'a>,
    },
    /// Mistral's reasoning: `{"type": "thinking", "thinking": [{"type": "text", "text"}]}`.
    Thinking {
        thinking: [ThinkingOut<'a>; 1],
    },
}

/// The part a file is sent as, writing its base64 as it was stored when
/// the file was added (encoded once, there; never again on a send).
fn part_of(file: &Attachment) -> PartOut<'_> {
    match file.kind.audio_format() {
        Some(format) => PartOut::InputAudio {
            input_audio: AudioOut::of(file, format),
        },
        None => PartOut::File {
            file: FileOut::of(file),
        },
    }
}

/// An `image_url` part's object, borrowed.
#[derive(Serialize)]
pub(super) struct ImageOut<'a> {
    url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<ImageDetail>,
}

/// One text of a thinking chunk, written with `"type": "text"`.
#[derive(Serialize)]
#[serde(tag = "type", rename = "text")]
pub(super) struct ThinkingOut<'a> {
    text: &'a str,
}

/// Writes tool calls in the wire form, borrowed.
pub(crate) fn tool_calls<S: Serializer>(
    calls: &[ToolCall],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(calls.iter().map(|call| {
        let custom = call.kind == CUSTOM;
        let text = CallOut {
            name: &call.name,
            arguments: (!custom).then_some(call.arguments.as_str()),
            input: custom.then_some(call.arguments.as_str()),
        };
        ToolCallOut {
            id: &call.id,
            kind: &call.kind,
            function: (!custom).then_some(text),
            custom: custom.then_some(text),
            extra: ExtraOut {
                reasoning: Vec::new(),
                extra: &call.extra,
                known: &TOOL_CALL_FIELDS,
            },
        }
    }))
}

/// A tool call in the wire form ([`WireToolCall`]), borrowed.
#[derive(Serialize)]
struct ToolCallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<CallOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom: Option<CallOut<'a>>,
    #[serde(flatten)]
    extra: ExtraOut<'a>,
}

/// A [`CallText`](super::CallText) to write, borrowed.
#[derive(Serialize, Clone, Copy)]
struct CallOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a str>,
}

/// The reasoning fields, then the unknown fields but those the wire form
/// writes itself.
struct ExtraOut<'a> {
    reasoning: Vec<(&'static str, Value)>,
    extra: &'a Map<String, Value>,
    known: &'static [&'static str],
}

impl Serialize for ExtraOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reasoning = self.reasoning.iter().map(|(name, value)| (*name, value));
        let extra = self
            .extra
            .iter()
            .map(|(name, value)| (name.as_str(), value));
        let extra = extra.filter(|(name, _)| !self.known.contains(name));
        serializer.collect_map(reasoning.chain(extra))
    }
}
