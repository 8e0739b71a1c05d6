//! One message of a conversation, and what it carries.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// A call of a tool the model asked for: a function (`function`) or a
/// free-form tool (`custom`, see [`Tool::custom`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolCall {
    /// The call's id, to quote in the tool's result.
    pub id: String,
    /// The tool type: `function`, or `custom` for a free-form tool.
    pub kind: String,
    /// The function's (or custom tool's) name.
    pub name: String,
    /// The arguments exactly as the model wrote them (JSON text, not
    /// checked), or a `custom` call's free-text `input`.
    pub arguments: String,
    /// Fields of the call that chatwire does not know (Gemini 3's
    /// `extra_content`), sent back with it unchanged.
    pub extra: Map<String, Value>,
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
            extra: Map::new(),
        }
    }

    /// A call of the free-form tool `name` with its `input` (type
    /// `custom`): for building a history by hand.
    pub fn custom(
        id: impl Into<String>,
        name: impl Into<String>,
        input: impl Into<String>,
    ) -> ToolCall {
        ToolCall {
            kind: CUSTOM.to_owned(),
            ..ToolCall::new(id, name, input)
        }
    }

    /// Whether this is a call of a free-form tool (type `custom`), whose
    /// [`arguments`](Self::arguments) are its free-text input.
    pub fn is_custom(&self) -> bool {
        self.kind == CUSTOM
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

pub(crate) const FUNCTION: &str = "function";
pub(crate) const CUSTOM: &str = "custom";

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

/// A file attached to a user message: a PDF document (sent as a `file`
/// content part) or a WAV or MP3 recording (an `input_audio` part).
/// [`Attachment::from_file`] reads one.
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
    /// `thinking` chunks in a `content` that is a list of chunks (Mistral's
    /// reasoning models).
    ContentChunks,
}

impl ReasoningField {
    /// The field's name on the wire (`content` for think tags).
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningField::ReasoningContent => "reasoning_content",
            ReasoningField::Reasoning => "reasoning",
            ReasoningField::ReasoningDetails => "reasoning_details",
            ReasoningField::ThinkTags | ReasoningField::ContentChunks => "content",
        }
    }
}

/// The thinking a reasoning model wrote before its answer (never part of
/// [`Message::content`]), and where its server put it: it is sent back in
/// the same field and shape, on the messages [`ReasoningReplay`] names.
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

/// Which assistant messages of a history carry their reasoning back to the
/// server, on which providers disagree (see `docs/providers.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReasoningReplay {
    /// [`ToolCallTurns`](Self::ToolCallTurns) for a model whose name holds
    /// `kimi` (any case: `kimi-k2.5`, `moonshotai/Kimi-K2-Thinking`), else
    /// [`CurrentLoop`](Self::CurrentLoop). The default.
    #[default]
    Auto,
    /// Only the assistant messages after the last user message (what
    /// DeepSeek requires, and every reasoning server accepts).
    CurrentLoop,
    /// Those, and every earlier assistant message that called tools, with
    /// an empty `reasoning_content` where it has none (what Kimi requires).
    ToolCallTurns,
}

impl ReasoningReplay {
    /// The rule for `model`: `Auto` resolved, the others as they are.
    pub fn resolved(self, model: &str) -> ReasoningReplay {
        match self {
            // Without lowering a copy of the name on every send.
            ReasoningReplay::Auto
                if model
                    .as_bytes()
                    .windows(4)
                    .any(|window| window.eq_ignore_ascii_case(b"kimi")) =>
            {
                ReasoningReplay::ToolCallTurns
            }
            ReasoningReplay::Auto => ReasoningReplay::CurrentLoop,
            other => other,
        }
    }
}

/// One message, as sent on the wire. Build messages with [`Message::new`]
/// or the [`Conversation`](crate::Conversation) methods.
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
    /// Fields of the message that chatwire does not know (Gemini's
    /// `extra_content`), sent back unchanged; see `docs/providers.md`.
    pub extra: Map<String, Value>,
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
            extra: Map::new(),
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

/// A tool the model may call, offered with every request of a conversation:
/// a function ([`Tool::new`]), or a free-form tool ([`Tool::custom`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Tool {
    /// The tool's name: letters, digits, `_` and `-`, at most 64.
    pub name: String,
    /// What the tool does, for the model to decide when to call it.
    pub description: Option<String>,
    /// A JSON Schema object describing a function's arguments (unused for a
    /// free-form tool).
    pub parameters: Value,
    /// A free-form tool's input format (see [`Tool::custom`]); always
    /// `None` for a function.
    pub format: Option<Value>,
    /// Whether this is a free-form tool (`{"type": "custom"}`), whose calls
    /// come as [`ToolCall`]s of type `custom` with free text for arguments.
    pub custom: bool,
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
            format: None,
            custom: false,
        })
    }

    /// A free-form tool (`{"type": "custom"}`), called with free text
    /// instead of JSON arguments; `format` is `None` for unconstrained text,
    /// or a `text` or `grammar` format as the official schema has them.
    pub fn custom(name: &str, description: Option<&str>, format: Option<Value>) -> Result<Tool> {
        let function = Tool::new(name, description, None)?;
        if let Some(format) = &format {
            check_custom_format(name, format)?;
        }
        Ok(Tool {
            parameters: Value::Null,
            format,
            custom: true,
            ..function
        })
    }

    /// Like [`Tool::custom`], with the format as JSON text.
    pub fn custom_from_text(
        name: &str,
        description: Option<&str>,
        format: Option<&str>,
    ) -> Result<Tool> {
        let format = json_text(format, || format!("the format of tool {name:?} is"))?;
        Tool::custom(name, description, format)
    }

    /// Like [`Tool::new`], with the parameters' JSON Schema as text.
    pub fn from_schema_text(
        name: &str,
        description: Option<&str>,
        parameters: Option<&str>,
    ) -> Result<Tool> {
        let parameters = json_text(parameters, || {
            format!("the parameters of tool {name:?} are")
        })?;
        Tool::new(name, description, parameters)
    }
}

/// JSON text as a value (`None` stays `None`); what is not JSON is refused,
/// `what` ("the value of \"x\" is") saying what it was.
pub(crate) fn json_text(
    text: Option<&str>,
    what: impl FnOnce() -> String,
) -> Result<Option<Value>> {
    text.map(serde_json::from_str)
        .transpose()
        .map_err(|err| Error::InvalidArgument(format!("{} not JSON: {err}", what())))
}

/// A custom tool's format as the official schema allows it: `{"type":
/// "text"}`, or `{"type": "grammar", "grammar": {"definition": text,
/// "syntax": "lark" or "regex"}}`, nothing else in either.
fn check_custom_format(name: &str, format: &Value) -> Result<()> {
    let (grammar, fields) = (&format["grammar"], format.as_object().map_or(0, Map::len));
    let fine = match format["type"].as_str() {
        Some("text") => fields == 1,
        Some("grammar") => {
            fields == 2
                && grammar["definition"].is_string()
                && matches!(grammar["syntax"].as_str(), Some("lark" | "regex"))
        }
        _ => false,
    };
    if fine {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "the format of tool {name:?} must be {{\"type\":\"text\"}} or {{\"type\":\"grammar\",\"grammar\":{{\"syntax\":\"lark\" or \"regex\",\"definition\":...}}}}, not {format}"
    )))
}

/// The rule OpenAI sets for the names of functions and of JSON Schema
/// response formats: 1 to 64 ASCII letters, digits, `_` or `-`.
pub(crate) fn is_function_name(name: &str) -> bool {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    (1..=64).contains(&name.len()) && name.bytes().all(allowed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_read_leniently() {
        let call = |arguments: &str| ToolCall::new("c", "f", arguments);
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

    #[test]
    fn custom_tool_formats_are_checked_as_the_schema_does() {
        let grammar = json!({"type": "grammar", "grammar": {"syntax": "lark", "definition": "start: /[0-9]+/"}});
        assert!(Tool::custom("sql", None, Some(grammar)).is_ok());
        assert!(Tool::custom("sql", None, Some(json!({"type": "text"}))).is_ok());
        assert!(Tool::custom("sql", None, None).unwrap().custom);
        for bad in [
            json!({"type": "grammar", "grammar": {"syntax": "ebnf", "definition": "x"}}),
            json!({"type": "grammar", "grammar": {"syntax": "lark"}}),
            json!({"type": "text", "more": 1}),
            json!({"type": "json"}),
            json!("text"),
        ] {
            assert!(
                Tool::custom("sql", None, Some(bad.clone())).is_err(),
                "{bad}"
            );
        }
        assert!(Tool::custom("bad name", None, None).is_err());
        assert!(Tool::custom_from_text("sql", None, Some("{")).is_err());
    }

    #[test]
    fn a_custom_tool_with_a_grammar() -> crate::Result<()> {
        let grammar = serde_json::json!({"type": "grammar",
            "grammar": {"syntax": "regex", "definition": "^[0-9]+$"}});
        let tool = crate::Tool::custom("count", Some("A number"), Some(grammar))?;
        assert!(tool.custom);
        Ok(())
    }
}
