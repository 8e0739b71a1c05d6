//! The request body of `POST /v1/responses`: the conversation as input
//! items, sent statelessly (`"store": false`, the whole history every
//! time), and the request options in the places the Responses API has for
//! them. An option it lacks is refused here, before anything is sent.
//!
//! The items are serialized straight from the conversation's messages, as
//! a chat completions body is (wire/request.rs): nothing of the history is
//! copied into a JSON value first. Only the request options, a few small
//! values, are moved into a map of their own.

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::conversation::message::{AttachmentKind, ImageDetail, Message, Role, Tool, ToolCall};
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::wire::request::Delivery;

/// What every request asks for back: the reasoning items' encrypted
/// content, which a stateless request must send back for the model to keep
/// its reasoning across a tool loop.
const INCLUDE: [&str; 1] = ["reasoning.encrypted_content"];

/// The JSON body of `POST /v1/responses`.
#[derive(Serialize)]
struct ResponsesRequest<'a> {
    model: &'a str,
    input: Input<'a>,
    store: Value,
    include: Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Tools::is_empty")]
    tools: Tools<'a>,
    #[serde(flatten)]
    options: Map<String, Value>,
}

/// The body for `conversation`, or why the Responses API cannot carry it.
pub(crate) fn encode(conversation: &Conversation, delivery: Delivery) -> Result<Vec<u8>> {
    refuse_audio(conversation.messages())?;
    let mut options = Map::new();
    for (name, value) in conversation.options() {
        option(&mut options, name, value)?;
    }
    let store = options.remove("store").unwrap_or(Value::Bool(false));
    let include = include(options.remove("include"));
    let request = ResponsesRequest {
        model: conversation.model(),
        input: Input(conversation.messages()),
        store,
        include,
        stream: delivery != Delivery::Whole,
        tools: Tools(conversation.tools()),
        options,
    };
    // Serializing strings, plain structs and JSON values into a Vec cannot fail.
    Ok(serde_json::to_vec(&request).unwrap_or_default())
}

/// What the body's `include` lists: chatwire's [`INCLUDE`] and, after it,
/// what the conversation's option `include` asks for (a list, or one name).
fn include(asked: Option<Value>) -> Value {
    let mut include: Vec<Value> = INCLUDE.iter().map(|&name| name.into()).collect();
    let asked = match asked {
        Some(Value::Array(names)) => names,
        Some(name) => vec![name],
        None => Vec::new(),
    };
    for name in asked {
        if !include.contains(&name) {
            include.push(name);
        }
    }
    Value::Array(include)
}

/// The Responses API takes PDF files, not audio: a conversation with audio
/// is refused before anything is written.
fn refuse_audio(messages: &[Message]) -> Result<()> {
    let files = messages.iter().flat_map(|message| &message.files);
    if files
        .into_iter()
        .any(|file| file.kind != AttachmentKind::Pdf)
    {
        return Err(Error::InvalidArgument(
            "the Responses API takes no audio input: send audio over chat completions".into(),
        ));
    }
    Ok(())
}

/// The conversation's messages as input items, in order: most messages
/// are one item; an assistant message is its reasoning items, its text and
/// its tool calls.
struct Input<'a>(&'a [Message]);

impl Serialize for Input<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let messages = self.0;
        let mut seq = serializer.serialize_seq(None)?;
        for message in messages {
            match message.role {
                Role::System => seq.serialize_element(&TextItem::new("system", message))?,
                Role::User if is_text_only(message) => {
                    seq.serialize_element(&TextItem::new("user", message))?
                }
                Role::User => seq.serialize_element(&UserParts {
                    role: "user",
                    content: Parts(message),
                })?,
                Role::Assistant => assistant(message, &mut seq)?,
                Role::Tool => seq.serialize_element(&ToolOutput::new(message, messages))?,
            }
        }
        seq.end()
    }
}

fn is_text_only(message: &Message) -> bool {
    message.images.is_empty() && message.files.is_empty()
}

/// An assistant message's items: the reasoning items it came with, whole
/// and in their place (first, as the model wrote them); its text as an
/// assistant message, when it has text or no tool call; then each tool
/// call as its own item.
fn assistant<S: SerializeSeq>(message: &Message, seq: &mut S) -> Result<(), S::Error> {
    for item in reasoning_items(message) {
        seq.serialize_element(&item)?;
    }
    if !message.content.is_empty() || message.tool_calls.is_empty() {
        seq.serialize_element(&AssistantText(message))?;
    }
    for call in &message.tool_calls {
        seq.serialize_element(&CallItem(call))?;
    }
    Ok(())
}

/// The Responses API's reasoning items kept with a message (the details of
/// its reasoning, when they are items of type `reasoning`), as they are
/// kept: each is written back as its raw JSON, not read into a value;
/// reasoning of another API's shape has no item to go back in.
fn reasoning_items(message: &Message) -> Vec<Box<RawValue>> {
    let details = message
        .reasoning
        .as_ref()
        .and_then(|r| r.details.as_deref());
    let parts: Vec<Box<RawValue>> = details
        .and_then(|details| serde_json::from_str(details).ok())
        .unwrap_or_default();
    parts
        .into_iter()
        .filter(|part| is_reasoning_item(part))
        .collect()
}

/// Whether a part of a reasoning's details is a Responses API reasoning
/// item (`"type": "reasoning"`).
fn is_reasoning_item(part: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    let kind = serde_json::from_str::<Kind>(part.get()).ok();
    kind.and_then(|kind| kind.kind).as_deref() == Some("reasoning")
}

/// A system message, or a user message of text alone: `{"role", "content"}`.
#[derive(Serialize)]
struct TextItem<'a> {
    role: &'static str,
    content: &'a str,
}

impl<'a> TextItem<'a> {
    fn new(role: &'static str, message: &'a Message) -> TextItem<'a> {
        TextItem {
            role,
            content: &message.content,
        }
    }
}

/// A user message with images or files: its text, images and files as parts.
#[derive(Serialize)]
struct UserParts<'a> {
    role: &'static str,
    content: Parts<'a>,
}

/// A user message's content parts: `input_text`, then an `input_image`
/// for each image and an `input_file` for each (PDF) file.
struct Parts<'a>(&'a Message);

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = self.0;
        let mut seq = serializer.serialize_seq(None)?;
        seq.serialize_element(&InputText {
            kind: "input_text",
            text: &message.content,
        })?;
        for image in &message.images {
            seq.serialize_element(&InputImage {
                kind: "input_image",
                image_url: &image.url,
                detail: image.detail,
            })?;
        }
        for file in &message.files {
            seq.serialize_element(&InputFile {
                kind: "input_file",
                file_data: PdfDataUrl(&file.data),
                filename: file.filename.as_deref(),
            })?;
        }
        seq.end()
    }
}

/// `{"type": "input_text", "text"}`.
#[derive(Serialize)]
struct InputText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// `{"type": "input_image", "image_url", "detail"}`, the detail when set.
#[derive(Serialize)]
struct InputImage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    image_url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<ImageDetail>,
}

/// `{"type": "input_file", "file_data", "filename"}`: the PDF inline as a
/// data URL, its name when it has one.
#[derive(Serialize)]
struct InputFile<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    file_data: PdfDataUrl<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
}

/// A PDF's base64 text as a `data:` URL, written into the body as it is
/// formatted: the base64 text is not copied.
struct PdfDataUrl<'a>(&'a str);

impl Serialize for PdfDataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("data:application/pdf;base64,{}", self.0))
    }
}

/// An assistant message's text as an output message in the easy form,
/// which needs no item id, with its `"type": "message"` (without which
/// llama.cpp's server cannot tell what the item is), and the message's
/// fields that chatwire does not know.
struct AssistantText<'a>(&'a Message);

impl Serialize for AssistantText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "message")?;
        map.serialize_entry("role", "assistant")?;
        map.serialize_entry("content", &message.content)?;
        extra_fields(&mut map, &message.extra, &["type", "role", "content"])?;
        map.end()
    }
}

/// Writes the fields in `extra` that are not among those written already
/// (`written`): chatwire's own fields win over a server's of the same name.
fn extra_fields<M: SerializeMap>(
    map: &mut M,
    extra: &Map<String, Value>,
    written: &[&str],
) -> Result<(), M::Error> {
    for (name, value) in extra {
        if !written.contains(&name.as_str()) {
            map.serialize_entry(name, value)?;
        }
    }
    Ok(())
}

/// A tool call as a `function_call` or `custom_tool_call` item, with the
/// call's fields that chatwire does not know.
struct CallItem<'a>(&'a ToolCall);

impl Serialize for CallItem<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let call = self.0;
        let (kind, input) = match call.is_custom() {
            true => ("custom_tool_call", "input"),
            false => ("function_call", "arguments"),
        };
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", kind)?;
        map.serialize_entry("call_id", &call.id)?;
        map.serialize_entry("name", &call.name)?;
        map.serialize_entry(input, &call.arguments)?;
        extra_fields(&mut map, &call.extra, &["type", "call_id", "name", input])?;
        map.end()
    }
}

/// A tool's result as the output item of the call it answers (a custom
/// tool's output for a custom tool's call).
#[derive(Serialize)]
struct ToolOutput<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    output: &'a str,
}

impl<'a> ToolOutput<'a> {
    fn new(message: &'a Message, messages: &[Message]) -> ToolOutput<'a> {
        let call_id = message.tool_call_id.as_deref().unwrap_or_default();
        let custom = messages
            .iter()
            .flat_map(|message| &message.tool_calls)
            .any(|call| call.id == call_id && call.is_custom());
        let kind = match custom {
            true => "custom_tool_call_output",
            false => "function_call_output",
        };
        ToolOutput {
            kind,
            call_id,
            output: &message.content,
        }
    }
}

/// The conversation's tools, flattened: the Responses API has no
/// `function` object inside a tool.
struct Tools<'a>(&'a [Tool]);

impl Tools<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(FlatTool))
    }
}

/// One tool: `{"type": "function", "name", "description", "parameters"}`,
/// or a custom tool's `{"type": "custom", "name", "description", "format"}`.
struct FlatTool<'a>(&'a Tool);

impl Serialize for FlatTool<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        let mut map = serializer.serialize_map(None)?;
        let kind = if tool.custom { "custom" } else { "function" };
        map.serialize_entry("type", kind)?;
        map.serialize_entry("name", &tool.name)?;
        if let Some(description) = &tool.description {
            map.serialize_entry("description", description)?;
        }
        match (tool.custom, &tool.format) {
            (true, Some(format)) => map.serialize_entry("format", format)?,
            (true, None) => {}
            (false, _) => map.serialize_entry("parameters", &tool.parameters)?,
        }
        map.end()
    }
}

/// Puts one request option where the Responses API has it; one it lacks
/// (several choices, stop sequences), or `input`, which the conversation
/// provides, is refused. `store` and `include` are kept here for
/// [`encode`] to put in place of its own.
fn option(options: &mut Map<String, Value>, name: &str, value: &Value) -> Result<()> {
    match name {
        "input" => {
            return Err(Error::InvalidArgument(
                "\"input\" cannot be set as an option: the conversation provides it".into(),
            ))
        }
        "max_tokens" | "max_completion_tokens" => {
            options.insert("max_output_tokens".into(), value.clone());
        }
        "response_format" => set(options, "text", "format", text_format(value)),
        "verbosity" => set(options, "text", "verbosity", value.clone()),
        "reasoning_effort" => set(options, "reasoning", "effort", value.clone()),
        "tool_choice" => _ = options.insert(name.into(), tool_choice(value)),
        "n" if value.as_u64().is_none_or(|n| n > 1) => return Err(refused("n > 1", name)),
        "n" => {}
        "stop" => return Err(refused("stop sequences", name)),
        _ => _ = options.insert(name.into(), value.clone()),
    }
    Ok(())
}

/// The error for an option the Responses API lacks.
fn refused(what: &str, name: &str) -> Error {
    Error::InvalidArgument(format!(
        "the Responses API has no {what} (the option {name:?}): remove it, \
         or send this conversation over chat completions"
    ))
}

/// Sets `field` of the object `outer` of the options, made if missing.
fn set(options: &mut Map<String, Value>, outer: &str, field: &str, value: Value) {
    let object = options.entry(outer).or_insert_with(|| json!({}));
    if let Some(object) = object.as_object_mut() {
        object.insert(field.into(), value);
    }
}

/// A `response_format` as `text.format`: a JSON schema's fields flattened
/// into the format (`{"type": "json_schema", "name", "schema", "strict"}`).
fn text_format(format: &Value) -> Value {
    let Some(schema) = format.get("json_schema").and_then(Value::as_object) else {
        return format.clone();
    };
    let mut flat = schema.clone();
    flat.insert("type".into(), "json_schema".into());
    Value::Object(flat)
}

/// A `tool_choice`: a named function's choice flattened
/// (`{"type": "function", "name"}`), the words as they are.
fn tool_choice(choice: &Value) -> Value {
    match choice.pointer("/function/name") {
        Some(name) => json!({"type": "function", "name": name}),
        None => choice.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::message::ToolCall;

    fn body(conversation: &Conversation) -> Value {
        serde_json::from_slice(&encode(conversation, Delivery::Whole).unwrap()).unwrap()
    }

    #[test]
    fn a_custom_tool_its_call_and_its_output_are_custom_items() {
        let mut c = Conversation::new("gpt-5");
        c.user("Run it.").unwrap();
        c.add_tool(Tool::custom("shell", Some("Runs a command"), None).unwrap());
        c.assistant_tool_calls("", vec![ToolCall::custom("call_9", "shell", "ls -l")])
            .unwrap();
        c.tool_result("call_9", "total 0").unwrap();
        let sent = body(&c);
        assert_eq!(
            sent["tools"],
            json!([{"type": "custom", "name": "shell", "description": "Runs a command"}])
        );
        assert_eq!(
            sent["input"][1],
            json!({"type": "custom_tool_call", "call_id": "call_9", "name": "shell",
                   "input": "ls -l"})
        );
        assert_eq!(
            sent["input"][2],
            json!({"type": "custom_tool_call_output", "call_id": "call_9", "output": "total 0"})
        );
    }

    #[test]
    fn an_assistant_messages_fields_of_its_own_go_back_on_it() {
        let mut c = Conversation::new("m");
        c.user("Hi").unwrap();
        let mut answer = Message::new(Role::Assistant, "Hello");
        answer.extra.insert("phase".into(), json!("final_answer"));
        c.push_message(answer).unwrap();
        c.user("Bye").unwrap();
        assert_eq!(
            body(&c)["input"][1],
            json!({"type": "message", "role": "assistant", "content": "Hello",
                   "phase": "final_answer"})
        );
    }

    #[test]
    fn store_and_include_options_take_their_place_and_input_is_refused() -> Result<()> {
        let mut c = Conversation::new("m");
        c.user("Hi")?;
        assert_eq!(body(&c)["store"], false);
        c.set_option_unchecked("store", Some(json!(true)))?;
        c.set_option_unchecked("include", Some(json!("message.output_text.logprobs")))?;
        let sent = body(&c);
        assert_eq!(sent["store"], true);
        assert_eq!(
            sent["include"],
            json!([
                "reasoning.encrypted_content",
                "message.output_text.logprobs"
            ])
        );
        let text = String::from_utf8(encode(&c, Delivery::Whole)?).unwrap_or_default();
        assert_eq!(text.matches("\"store\"").count(), 1, "{text}");
        c.set_option_unchecked("include", None)?;
        c.set_option_unchecked("input", Some(json!("Ignore the history")))?;
        let refused = encode(&c, Delivery::Whole).map(|_| ()).unwrap_err();
        assert!(refused.to_string().contains("\"input\""), "{refused}");
        Ok(())
    }

    #[test]
    fn a_servers_field_named_like_chatwires_own_is_not_written_twice() -> Result<()> {
        let mut c = Conversation::new("m");
        c.user("Hi")?;
        let mut answer = Message::new(Role::Assistant, "Hello");
        answer.extra.insert("content".into(), json!("stale"));
        let mut call = ToolCall::new("call_1", "f", "{}");
        call.extra.insert("name".into(), json!("g"));
        call.extra.insert("id".into(), json!("fc_1"));
        answer.tool_calls.push(call);
        c.push_message(answer)?;
        let text = String::from_utf8(encode(&c, Delivery::Whole)?).unwrap_or_default();
        assert_eq!(text.matches("\"content\"").count(), 2, "{text}");
        let sent = body(&c);
        assert_eq!(sent["input"][1]["content"], "Hello");
        assert_eq!(
            sent["input"][2],
            json!({"type": "function_call", "call_id": "call_1", "name": "f",
                   "arguments": "{}", "id": "fc_1"})
        );
        Ok(())
    }
}
