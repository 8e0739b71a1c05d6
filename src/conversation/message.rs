//! One message of a conversation: its role, its text, and what some roles
//! carry besides (images from the user, tool calls from the assistant, the
//! call a tool result answers).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
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
            kind: function_kind(),
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

/// One message, as sent on the wire.
///
/// `content` is the text. A user message may also carry `images`, an
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
    /// The calls an assistant message asks for.
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the id of the call it answers.
    pub tool_call_id: Option<String>,
}

impl Message {
    /// A message with the given role and text.
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
            images: Vec::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
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

// The wire shapes. Content is a string, or for a message with images an
// array of parts. An assistant message that only calls tools is sent with
// `""`, not `null`: OpenAI, llama.cpp, Ollama and vLLM accept both, but
// llama-cpp-python's server answers a null content with HTTP 500. `null` is
// still read.

#[derive(Serialize, Deserialize)]
struct WireMessage {
    role: Role,
    #[serde(default)]
    content: Option<WireContent>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum WireContent {
    Text(String),
    Parts(Vec<WirePart>),
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WirePart {
    Text { text: String },
    ImageUrl { image_url: WireImage },
}

#[derive(Serialize, Deserialize)]
struct WireImage {
    url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<ImageDetail>,
}

/// A tool call as the API writes it: `{"id", "type", "function": {"name", "arguments"}}`.
#[derive(Serialize, Deserialize)]
pub(crate) struct WireToolCall {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default = "function_kind")]
    kind: String,
    function: WireFunction,
}

#[derive(Serialize, Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: String,
    #[serde(default, deserialize_with = "arguments_text")]
    arguments: String,
}

fn function_kind() -> String {
    "function".to_owned()
}

/// Arguments are a JSON string on the wire; a few servers send the object itself.
fn arguments_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(json_text(&Value::deserialize(deserializer)?).unwrap_or_default())
}

/// A JSON value as text: a string as itself, `null` as nothing, anything
/// else as its JSON text. How tool-call arguments and error fields that
/// servers send in varying forms are read.
pub(crate) fn json_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

impl From<&ToolCall> for WireToolCall {
    fn from(call: &ToolCall) -> WireToolCall {
        WireToolCall {
            id: call.id.clone(),
            kind: call.kind.clone(),
            function: WireFunction {
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        }
    }
}

impl From<WireToolCall> for ToolCall {
    fn from(wire: WireToolCall) -> ToolCall {
        ToolCall {
            id: wire.id,
            kind: wire.kind,
            name: wire.function.name,
            arguments: wire.function.arguments,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let content = if !self.images.is_empty() {
            let text = (!self.content.is_empty()).then(|| WirePart::Text {
                text: self.content.clone(),
            });
            let images = self.images.iter().map(|image| WirePart::ImageUrl {
                image_url: WireImage {
                    url: image.url.clone(),
                    detail: image.detail,
                },
            });
            Some(WireContent::Parts(text.into_iter().chain(images).collect()))
        } else {
            Some(WireContent::Text(self.content.clone()))
        };
        WireMessage {
            role: self.role,
            content,
            tool_calls: self.tool_calls.iter().map(WireToolCall::from).collect(),
            tool_call_id: self.tool_call_id.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Message, D::Error> {
        let wire = WireMessage::deserialize(deserializer)?;
        let mut message = Message::new(wire.role, "");
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
                    }
                }
            }
        }
        message.tool_calls = wire.tool_calls.into_iter().map(ToolCall::from).collect();
        message.tool_call_id = wire.tool_call_id;
        Ok(message)
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

#[derive(Serialize, Deserialize)]
struct WireTool {
    #[serde(rename = "type")]
    kind: String,
    function: WireFunctionDefinition,
}

#[derive(Serialize, Deserialize)]
struct WireFunctionDefinition {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(default)]
    parameters: Value,
}

impl Serialize for Tool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WireTool {
            kind: function_kind(),
            function: WireFunctionDefinition {
                name: self.name.clone(),
                description: self.description.clone(),
                parameters: self.parameters.clone(),
            },
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tool, D::Error> {
        let wire = WireTool::deserialize(deserializer)?;
        let parameters = Some(wire.function.parameters).filter(|p| !p.is_null());
        Tool::new(
            &wire.function.name,
            wire.function.description.as_deref(),
            parameters,
        )
        .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
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
    fn assistant_tool_calls_and_tool_results_round_trip() {
        let mut call = Message::new(Role::Assistant, "");
        call.tool_calls.push(ToolCall {
            id: "call_1".into(),
            kind: "function".into(),
            name: "get_weather".into(),
            arguments: r#"{"city":"Paris"}"#.into(),
        });
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
    fn tools_are_checked_and_serialize_as_functions() {
        assert!(Tool::new("bad name", None, None).is_err());
        assert!(Tool::new("f", None, Some(json!([1]))).is_err());
        let tool = Tool::new("get_weather", Some("Weather by city"), None).unwrap();
        let wire = serde_json::to_value(&tool).unwrap();
        assert_eq!(wire["type"], "function");
        assert_eq!(wire["function"]["parameters"]["type"], "object");
        assert_eq!(serde_json::from_value::<Tool>(wire).unwrap(), tool);
    }
}
