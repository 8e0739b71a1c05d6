//! A whole Responses API body (`"object": "response"`) read into the same
//! [`Reply`] a chat completion makes: its output items folded into one
//! choice (the text of its messages, a refusal, the reasoning, the tool
//! calls), the usage, and a finish reason from its `status`.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::conversation::message::{Reasoning, ReasoningField, ToolCall};
use crate::error::{ApiError, Error, Result};
use crate::reply::{Body, Reply, ReplyChoice, Usage};
use crate::wire::error::ErrorReport;

/// The message of a failed response that came without one.
const NO_MESSAGE: &str = "the response failed";

/// A response, as read from a body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Response {
    id: Option<String>,
    model: Option<String>,
    status: Option<String>,
    incomplete_details: Option<Incomplete>,
    output: Vec<Map<String, Value>>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Incomplete {
    reason: Option<String>,
}

/// The Responses API's token counts.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireUsage {
    input_tokens: u64,
    output_tokens: u64,
    total_tokens: Option<u64>,
    input_tokens_details: Option<Details>,
    output_tokens_details: Option<Details>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Details {
    cached_tokens: Option<u64>,
    reasoning_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(wire: WireUsage) -> Usage {
        Usage {
            prompt_tokens: wire.input_tokens,
            completion_tokens: wire.output_tokens,
            total_tokens: wire
                .total_tokens
                .unwrap_or(wire.input_tokens.saturating_add(wire.output_tokens)),
            cached_tokens: wire.input_tokens_details.and_then(|d| d.cached_tokens),
            reasoning_tokens: wire.output_tokens_details.and_then(|d| d.reasoning_tokens),
        }
    }
}

/// Decodes a 2xx body into a [`Reply`], keeping the body as received. A
/// failed response, or a body that is an error object, is the server's error.
pub(crate) fn decode(body: String, request_id: Option<String>) -> Result<Reply> {
    let response: Response = serde_json::from_str(&body)
        .map_err(|err| Error::decode(format!("not a Responses API response: {err}"), &body))?;
    if let Some(error) = response.error.as_ref().filter(|error| !error.is_null()) {
        return Err(crate::wire::error::in_band(failure(error, request_id)));
    }
    if response.status.is_none() && response.output.is_empty() {
        return Err(Error::decode("the response has no output", &body));
    }
    let mut choice = choice_of(response.output);
    let called = !choice.tool_calls.is_empty();
    let incomplete = response
        .incomplete_details
        .and_then(|details| details.reason);
    let finish = finish_reason(response.status.as_deref(), incomplete, called);
    choice.finish_reason = finish.map(str::to_owned);
    let mut reply = Reply::new(vec![choice], Body::Received(body));
    reply.usage = response.usage.map(Usage::from);
    reply.id = response.id;
    reply.model = response.model;
    reply.request_id = request_id;
    Ok(reply)
}

/// The error a failed response reports (`{"code", "message"}`), whole or
/// in a stream, with the status it names, if any, as over chat completions.
pub(crate) fn failure(error: &Value, request_id: Option<String>) -> ApiError {
    let report = ErrorReport::from_value(&serde_json::json!({ "error": error }));
    report
        .unwrap_or_default()
        .into_api_error(None, NO_MESSAGE, request_id)
}

/// A response's `usage` read, if it is one.
pub(crate) fn usage_of(usage: &Value) -> Option<Usage> {
    WireUsage::deserialize(usage).ok().map(Usage::from)
}

/// The chat completions finish reason for a response's `status` and the
/// reason it is incomplete: `stop` (`tool_calls` when it `called` tools),
/// `length` or `content_filter`.
pub(crate) fn finish_reason(
    status: Option<&str>,
    incomplete: Option<String>,
    called: bool,
) -> Option<&'static str> {
    match (status?, incomplete.as_deref()) {
        ("completed", _) if called => Some("tool_calls"),
        ("completed", _) => Some("stop"),
        ("incomplete", Some("content_filter")) => Some("content_filter"),
        ("incomplete", _) => Some("length"),
        _ => None,
    }
}

/// The output items folded into one choice, in order; the reasoning items
/// kept whole as the reasoning's details (id, summary, encrypted content and
/// any field of their own), which the next request sends back in place.
fn choice_of(output: Vec<Map<String, Value>>) -> ReplyChoice {
    let mut choice = ReplyChoice::default();
    let mut reasoning_items = Vec::new();
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => reasoning_items.push(Value::Object(item)),
            _ => add_item(&mut choice, item),
        }
    }
    if !reasoning_items.is_empty() {
        let text: String = reasoning_items.iter().map(reasoning_text).collect();
        let mut reasoning = Reasoning::new(text, ReasoningField::Reasoning);
        reasoning.details = serde_json::to_string(&reasoning_items).ok();
        choice.reasoning = Some(reasoning);
    }
    choice
}

/// A reasoning item's text: its summary's, then its content's.
fn reasoning_text(item: &Value) -> String {
    let parts = ["summary", "content"]
        .into_iter()
        .filter_map(|list| item.get(list).and_then(Value::as_array))
        .flatten();
    parts
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect()
}

/// Adds one output item to a choice: a message's text and refusal, a tool call.
fn add_item(choice: &mut ReplyChoice, mut item: Map<String, Value>) {
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or_default().to_owned();
    match item.get("type").and_then(Value::as_str).unwrap_or_default() {
        "message" => {
            let parts = item.remove("content");
            for part in parts.iter().flat_map(|parts| parts.as_array()).flatten() {
                match part.get("type").and_then(Value::as_str) {
                    Some("output_text") => choice.content.push_str(&text(part.get("text"))),
                    Some("refusal") => {
                        let refusal = choice.refusal.get_or_insert_with(String::new);
                        refusal.push_str(&text(part.get("refusal")));
                    }
                    _ => {}
                }
            }
            for known in ["type", "role", "id", "status"] {
                item.remove(known);
            }
            choice
                .extra
                .extend(item.into_iter().filter(|(_, value)| !value.is_null()));
        }
        "function_call" => choice.tool_calls.push(ToolCall::new(
            text(item.get("call_id")),
            text(item.get("name")),
            text(item.get("arguments")),
        )),
        "custom_tool_call" => choice.tool_calls.push(ToolCall::custom(
            text(item.get("call_id")),
            text(item.get("name")),
            text(item.get("input")),
        )),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_tool_call_and_a_messages_fields_of_its_own_are_read() {
        let body = serde_json::json!({"id": "resp_1", "status": "completed", "output": [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "phase": "commentary", "content": [{"type": "output_text", "text": "Running."}]},
            {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_9", "name": "shell",
             "input": "ls -l"}
        ]});
        let reply = decode(body.to_string(), None).unwrap();
        assert_eq!(reply.content(), "Running.");
        assert_eq!(reply.extra()["phase"], "commentary");
        let call = &reply.tool_calls()[0];
        assert!(call.is_custom());
        assert_eq!(
            (call.id.as_str(), call.arguments.as_str()),
            ("call_9", "ls -l")
        );
        assert_eq!(reply.finish_reason(), Some("tool_calls"));
    }

    #[test]
    fn a_body_that_is_no_response_is_a_decode_error() {
        for body in ["[1]", "{}", "not json"] {
            assert!(
                matches!(decode(body.into(), None), Err(Error::Decode { .. })),
                "{body}"
            );
        }
    }
}
