//! One message of a conversation: its role, its text, and what some roles
//! carry besides (images and files from the user, tool calls from the assistant, the
//! call a tool result answers).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// Instructions for the model; at most one, and only first.
    System,
    /// The person (or program) asking.
    User,
    /// The model's answer.
    Assistant,
    /// The result of a tool call the assistant asked for.
    Tool,
}

impl Role {
    /// The role's name on the wire: `system`, `user`, `assistant` or `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A function call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolCall {
    /// The call's id, to quote in the tool's result.
    pub id: String,
    /// The tool type, `function`.
    pub kind: String,
    /// The function's name.
    pub name: String,
    /// The arguments exactly as the model wrote them: JSON text, not checked,
    /// because models do not always write valid JSON.
    pub arguments: String,
}

impl ToolCall {
    /// A call of the function `name` with `arguments` (JSON text), of type
    /// `function`: what a model's reply holds, for building a history by hand.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> ToolCall {
        ToolCall {
            id: id.into(),
            kind: FUNCTION.to_owned(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The arguments as JSON, read leniently: valid JSON as it is, else what
    /// [`extract_json`](crate::extract_json) can repair (fences, trailing
    /// commas, fractions, ...); empty arguments are `{}`.
    pub fn arguments_json(&self) -> Result<Value> {
        let text = self.arguments.trim();
        if text.is_empty() {
            return Ok(Value::Object(Default::default()));
        }
        serde_json::from_str(text).or_else(|_| crate::extract::extract_json(text))
    }
}

/// The one tool type there is.
pub(crate) const FUNCTION: &str = "function";

/// How closely the model should look at an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ImageDetail {
    /// The server decides.
    Auto,
    /// A quick, cheap look.
    Low,
    /// A close look, for small print and fine detail.
    High,
}

/// An image attached to a user message: an `http(s)` URL or a `data:` URL.
/// [`Image::from_source`] also reads local files.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Image {
    /// Where the server finds the image.
    pub url: String,
    /// How closely to look; `None` leaves it to the server.
    pub detail: Option<ImageDetail>,
}

/// What kind of file an [`Attachment`] is, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AttachmentKind {
    /// A PDF document (`%PDF-`), sent as a `file` content part.
    Pdf,
    /// WAV audio (`RIFF....WAVE`), sent as an `input_audio` part, format `wav`.
    Wav,
    /// MP3 audio (an `ID3` tag or an MPEG layer III frame), sent as an
    /// `input_audio` part, format `mp3`.
    Mp3,
}

/// A file attached to a user message: a PDF document or a recording (WAV or
/// MP3). [`Attachment::from_file`] reads one; [`Conversation::user_file`](crate::Conversation::user_file)
/// appends a message with one.
///
/// On the wire a PDF is a `file` content part (`{"type": "file", "file":
/// {"filename", "file_data": "data:application/pdf;base64,..."}}`) and audio
/// an `input_audio` part (`{"type": "input_audio", "input_audio": {"data",
/// "format": "wav"|"mp3"}}`), as the official schema has them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Attachment {
    /// What the file is.
    pub kind: AttachmentKind,
    /// The file's name, sent with a PDF (`filename`); `None` for audio,
    /// whose part has no name.
    pub filename: Option<String>,
    /// The file's bytes in standard base64.
    pub data: String,
}

/// Where a server put a reply's reasoning, so that it goes back in the same
/// place (see [`Message::reasoning`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReasoningField {
    /// `reasoning_content` (DeepSeek, llama.cpp, older vLLM).
    ReasoningContent,
    /// `reasoning` (vLLM 0.9 and later, Ollama, OpenRouter, Groq).
    Reasoning,
    /// The text parts of `reasoning_details` (OpenRouter).
    ReasoningDetails,
    /// A leading `<think>…</think>` block in `content` (a server without a
    /// reasoning parser).
    ThinkTags,
}

impl ReasoningField {
    /// The field's name on the wire (`content` for think tags).
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningField::ReasoningContent => "reasoning_content",
            ReasoningField::Reasoning => "reasoning",
            ReasoningField::ReasoningDetails => "reasoning_details",
            ReasoningField::ThinkTags => "content",
        }
    }
}

/// The thinking a reasoning model wrote before its answer, and where its
/// server put it.
///
/// Never part of [`Message::content`]: a `<think>` block a server left in the
/// content is taken out of it. It is kept on the assistant message and sent
/// back only on the assistant messages of the current tool loop (after the
/// last user message), in the field it came in, as DeepSeek's thinking mode
/// requires; earlier turns go without it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reasoning {
    /// The reasoning text.
    pub text: String,
    /// Where the server put it.
    pub field: ReasoningField,
    /// `reasoning_details` exactly as the server sent them, when it did
    /// (OpenRouter asks for them back unmodified), as JSON text.
    pub details: Option<String>,
}

impl Reasoning {
    /// Reasoning `text` that came in `field`.
    pub fn new(text: impl Into<String>, field: ReasoningField) -> Reasoning {
        Reasoning {
            text: text.into(),
            field,
            details: None,
        }
    }
}

/// One message, as sent on the wire.
///
/// `content` is the text. A user message may also carry `images` and `files`, an
/// assistant message `tool_calls` (its text is then often empty), and a tool
/// message the `tool_call_id` of the call it answers. Build messages with
/// [`Message::new`] or the [`Conversation`](crate::Conversation) methods.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says.
    pub content: String,
    /// Images sent with a user message.
    pub images: Vec<Image>,
    /// Files (PDF, WAV, MP3) sent with a user message, after its images.
    pub files: Vec<Attachment>,
    /// The calls an assistant message asks for.
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the id of the call it answers.
    pub tool_call_id: Option<String>,
    /// For an assistant message: the model's reasoning, when its server sent
    /// any (see [`Reasoning`] for when it is sent back).
    pub reasoning: Option<Reasoning>,
}

impl Message {
    /// A message with the given role and text.
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
            images: Vec::new(),
            files: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: None,
        }
    }

    /// A tool's result for the call with the given id.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message {
            tool_call_id: Some(tool_call_id.into()),
            ..Message::new(Role::Tool, content)
        }
    }
}

/// A function the model may call, offered with every request of a conversation.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Tool {
    /// The function's name: letters, digits, `_` and `-`, at most 64.
    pub name: String,
    /// What the function does, for the model to decide when to call it.
    pub description: Option<String>,
    /// A JSON Schema object describing the arguments.
    pub parameters: Value,
}

impl Tool {
    /// A tool, checked: a valid name and parameters that are a JSON object
    /// (`None` gives a function without arguments).
    pub fn new(name: &str, description: Option<&str>, parameters: Option<Value>) -> Result<Tool> {
        if !is_function_name(name) {
            return Err(Error::InvalidArgument(format!(
                "tool name {name:?} must be 1 to 64 letters, digits, '_' or '-'"
            )));
        }
        let parameters =
            parameters.unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        if !parameters.is_object() {
            return Err(Error::InvalidArgument(format!(
                "the parameters of tool {name:?} must be a JSON Schema object, not {parameters}"
            )));
        }
        Ok(Tool {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            parameters,
        })
    }

    /// Like [`Tool::new`], with the parameters' JSON Schema as text.
    pub fn from_schema_text(
        name: &str,
        description: Option<&str>,
        parameters: Option<&str>,
    ) -> Result<Tool> {
        let parameters = parameters
            .map(serde_json::from_str)
            .transpose()
            .map_err(|err| {
                Error::InvalidArgument(format!(
                    "the parameters of tool {name:?} are not JSON: {err}"
                ))
            })?;
        Tool::new(name, description, parameters)
    }
}

/// The rule OpenAI sets for the names of functions and of JSON Schema
/// response formats: 1 to 64 ASCII letters, digits, `_` or `-`.
pub(crate) fn is_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_read_leniently() {
        let call = |arguments: &str| ToolCall {
            arguments: arguments.into(),
            ..ToolCall::default()
        };
        assert_eq!(
            call(r#"{"a":1}"#).arguments_json().unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            call("{'a': 1/2,}").arguments_json().unwrap(),
            json!({"a": 0.5})
        );
        assert_eq!(call("").arguments_json().unwrap(), json!({}));
        assert!(call("no json").arguments_json().is_err());
    }

    #[test]
    fn tools_are_checked() {
        assert!(Tool::new("bad name", None, None).is_err());
        assert!(Tool::new("f", None, Some(json!([1]))).is_err());
        let tool = Tool::new("get_weather", Some("Weather by city"), None).unwrap();
        assert_eq!(tool.parameters["type"], "object");
    }
}
