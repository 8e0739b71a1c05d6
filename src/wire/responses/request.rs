//! The request body of `POST /v1/responses`: the conversation as input
//! items, sent statelessly (`"store": false`, the whole history every
//! time), and the request options in the places the Responses API has for
//! them. An option it lacks is refused here, before anything is sent.

use serde_json::{json, Map, Value};

use crate::conversation::message::{AttachmentKind, Message, Role, Tool, ToolCall};
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::wire::request::Delivery;

/// What every request asks for back: the reasoning items' encrypted
/// content, which a stateless request must send back for the model to keep
/// its reasoning across a tool loop.
const INCLUDE: [&str; 1] = ["reasoning.encrypted_content"];

/// The body for `conversation`, or why the Responses API cannot carry it.
pub(crate) fn encode(conversation: &Conversation, delivery: Delivery) -> Result<Vec<u8>> {
    let mut body = Map::new();
    body.insert("model".into(), conversation.model().into());
    body.insert("input".into(), input(conversation.messages())?);
    body.insert("store".into(), false.into());
    body.insert("include".into(), json!(INCLUDE));
    if delivery != Delivery::Whole {
        body.insert("stream".into(), true.into());
    }
    if !conversation.tools().is_empty() {
        let tools = conversation.tools().iter().map(tool).collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    for (name, value) in conversation.options() {
        option(&mut body, name, value)?;
    }
    // Serializing a JSON value into a Vec cannot fail.
    Ok(serde_json::to_vec(&body).unwrap_or_default())
}

/// The conversation's messages as input items, in order.
fn input(messages: &[Message]) -> Result<Value> {
    let mut items = Vec::with_capacity(messages.len());
    for message in messages {
        match message.role {
            Role::System => items.push(json!({"role": "system", "content": message.content})),
            Role::User => items.push(user(message)?),
            Role::Assistant => assistant(message, &mut items),
            Role::Tool => items.push(tool_output(message, messages)),
        }
    }
    Ok(Value::Array(items))
}

/// A user message: its text alone, or its text, images and files as parts.
fn user(message: &Message) -> Result<Value> {
    if message.images.is_empty() && message.files.is_empty() {
        return Ok(json!({"role": "user", "content": message.content}));
    }
    let mut parts = vec![json!({"type": "input_text", "text": message.content})];
    for image in &message.images {
        let mut part = json!({"type": "input_image", "image_url": image.url});
        if let Some(detail) = image.detail {
            part["detail"] = json!(detail);
        }
        parts.push(part);
    }
    for file in &message.files {
        if file.kind != AttachmentKind::Pdf {
            return Err(Error::InvalidArgument(
                "the Responses API takes no audio input: send audio over chat completions".into(),
            ));
        }
        let mut part = json!({
            "type": "input_file",
            "file_data": format!("data:application/pdf;base64,{}", file.data),
        });
        if let Some(filename) = &file.filename {
            part["filename"] = filename.as_str().into();
        }
        parts.push(part);
    }
    Ok(json!({"role": "user", "content": parts}))
}

/// An assistant message: the reasoning items it came with, whole and in
/// their place (first, as the model wrote them); its text as an assistant
/// message (the easy form, which needs no item id, with its `"type":
/// "message"`, without which llama.cpp's server cannot tell what the item
/// is), its fields that chatwire does not know kept on it; then each tool
/// call as its own item.
fn assistant(message: &Message, items: &mut Vec<Value>) {
    items.extend(reasoning_items(message));
    if !message.content.is_empty() || message.tool_calls.is_empty() {
        let mut item = message.extra.clone();
        item.insert("type".into(), "message".into());
        item.insert("role".into(), "assistant".into());
        item.insert("content".into(), message.content.as_str().into());
        items.push(Value::Object(item));
    }
    items.extend(message.tool_calls.iter().map(tool_call));
}

/// The Responses API's reasoning items kept with a message (the details of
/// its reasoning, when they are items of type `reasoning`); reasoning of
/// another API's shape has no item to go back in.
fn reasoning_items(message: &Message) -> Vec<Value> {
    let details = message
        .reasoning
        .as_ref()
        .and_then(|r| r.details.as_deref());
    let parts: Vec<Value> = details
        .and_then(|details| serde_json::from_str(details).ok())
        .unwrap_or_default();
    let is_item = |part: &Value| part.get("type").and_then(Value::as_str) == Some("reasoning");
    parts.into_iter().filter(is_item).collect()
}

/// A tool call as a `function_call` or `custom_tool_call` item.
fn tool_call(call: &ToolCall) -> Value {
    let mut item = call.extra.clone();
    let (kind, input) = match call.is_custom() {
        true => ("custom_tool_call", "input"),
        false => ("function_call", "arguments"),
    };
    item.insert("type".into(), kind.into());
    item.insert("call_id".into(), call.id.as_str().into());
    item.insert("name".into(), call.name.as_str().into());
    item.insert(input.into(), call.arguments.as_str().into());
    Value::Object(item)
}

/// A tool's result as the output item of the call it answers (a custom
/// tool's output for a custom tool's call).
fn tool_output(message: &Message, messages: &[Message]) -> Value {
    let call_id = message.tool_call_id.as_deref().unwrap_or_default();
    let custom = messages
        .iter()
        .flat_map(|message| &message.tool_calls)
        .any(|call| call.id == call_id && call.is_custom());
    let kind = match custom {
        true => "custom_tool_call_output",
        false => "function_call_output",
    };
    json!({"type": kind, "call_id": call_id, "output": message.content})
}

/// A tool, flattened: the Responses API has no `function` object inside.
fn tool(tool: &Tool) -> Value {
    let mut object = Map::new();
    let kind = if tool.custom { "custom" } else { "function" };
    object.insert("type".into(), kind.into());
    object.insert("name".into(), tool.name.as_str().into());
    if let Some(description) = &tool.description {
        object.insert("description".into(), description.as_str().into());
    }
    match (tool.custom, &tool.format) {
        (true, Some(format)) => _ = object.insert("format".into(), format.clone()),
        (true, None) => {}
        (false, _) => _ = object.insert("parameters".into(), tool.parameters.clone()),
    }
    Value::Object(object)
}

/// Puts one request option where the Responses API has it; one it lacks
/// (several choices, stop sequences) is refused.
fn option(body: &mut Map<String, Value>, name: &str, value: &Value) -> Result<()> {
    match name {
        "max_tokens" | "max_completion_tokens" => {
            body.insert("max_output_tokens".into(), value.clone());
        }
        "response_format" => set(body, "text", "format", text_format(value)),
        "verbosity" => set(body, "text", "verbosity", value.clone()),
        "reasoning_effort" => set(body, "reasoning", "effort", value.clone()),
        "tool_choice" => _ = body.insert(name.into(), tool_choice(value)),
        "n" if value.as_u64().is_none_or(|n| n > 1) => return Err(refused("n > 1", name)),
        "n" => {}
        "stop" => return Err(refused("stop sequences", name)),
        _ => _ = body.insert(name.into(), value.clone()),
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

/// Sets `field` of the object `outer` of the body, made if missing.
fn set(body: &mut Map<String, Value>, outer: &str, field: &str, value: Value) {
    let object = body.entry(outer).or_insert_with(|| json!({}));
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
}
