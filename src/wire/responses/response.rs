//! A whole Responses API body (`"object": "response"`) read into the same
//! [`Reply`] a chat completion makes: its output items folded into one
//! choice (the text of its messages, a refusal, the reasoning, the tool
//! calls), the usage, and a finish reason from its `status`.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
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
    /// Each item as it came: read again as an [`Item`], and kept as it
    /// came when it is a reasoning item.
    output: Vec<Box<RawValue>>,
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
    let mut choice = choice_of(response.output)?;
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

/// One output item, read in one pass: its type, what a message, a
/// reasoning item or a tool call holds, and a message's or a call's fields
/// that chatwire does not know, which go back with it (item ids and
/// statuses are left: a stateless request sends an earlier message or call
/// back without them, and a call's `id` over chat completions is its
/// `call_id`).
#[derive(Debug, Default)]
struct Item {
    kind: String,
    /// A message's content parts, or a reasoning item's reasoning text.
    content: Vec<Part>,
    /// A reasoning item's summary parts.
    summary: Vec<Part>,
    call_id: Option<String>,
    name: Option<String>,
    /// A function call's arguments.
    arguments: Option<String>,
    /// A custom tool call's input.
    input: Option<String>,
    extra: Map<String, Value>,
}

/// A content or summary part: `output_text` and `refusal` in a message,
/// `reasoning_text` and `summary_text` in a reasoning item. Its other
/// fields (annotations, log probabilities) are not read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Part {
    #[serde(rename = "type")]
    kind: Option<String>,
    text: Option<String>,
    refusal: Option<String>,
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Item, D::Error> {
        deserializer.deserialize_map(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an output item")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
        let mut item = Item::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => item.kind = map.next_value::<Option<String>>()?.unwrap_or_default(),
                "content" => item.content = map.next_value::<Parts>()?.0,
                "summary" => item.summary = map.next_value::<Parts>()?.0,
                "call_id" => item.call_id = map.next_value()?,
                "name" => item.name = map.next_value()?,
                "arguments" => item.arguments = map.next_value()?,
                "input" => item.input = map.next_value()?,
                "role" | "id" | "status" => _ = map.next_value::<IgnoredAny>()?,
                _ => {
                    let value: Value = map.next_value()?;
                    if !value.is_null() {
                        item.extra.insert(key, value);
                    }
                }
            }
        }
        Ok(item)
    }
}

/// A list of parts; null as none, and a string (which some servers write
/// for a message's content) as one `output_text` part.
struct Parts(Vec<Part>);

impl<'de> Deserialize<'de> for Parts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Parts, D::Error> {
        deserializer.deserialize_any(PartsVisitor)
    }
}

struct PartsVisitor;

impl<'de> Visitor<'de> for PartsVisitor {
    type Value = Parts;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a list of parts or a string")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(1));
        while let Some(part) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Parts(parts))
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Parts, E> {
        let part = Part {
            kind: Some("output_text".into()),
            text: Some(text.into()),
            refusal: None,
        };
        Ok(Parts(vec![part]))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Parts, E> {
        Ok(Parts(Vec::new()))
    }
}

/// One raw output item read as an [`Item`]. An item of a type chatwire
/// does not read (a web search call, say) that it cannot read so is
/// skipped; one of a type it reads is a decode error.
fn item_of(raw: &RawValue) -> Result<Option<Item>> {
    match serde_json::from_str::<Item>(raw.get()) {
        Ok(item) => Ok(Some(item)),
        Err(err) => {
            let kind = serde_json::from_str::<Kind>(raw.get()).unwrap_or_default();
            match kind.kind.as_deref() {
                Some("message" | "reasoning" | "function_call" | "custom_tool_call") => Err(
                    Error::decode(format!("an output item cannot be read: {err}"), raw.get()),
                ),
                _ => Ok(None),
            }
        }
    }
}

/// An item's type alone, for an item read no further.
#[derive(Default, Deserialize)]
#[serde(default)]
struct Kind {
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// The output items folded into one choice, in order; the reasoning items
/// kept whole, as they came, as the reasoning's details (id, summary,
/// encrypted content and any field of their own), which the next request
/// sends back in place.
fn choice_of(output: Vec<Box<RawValue>>) -> Result<ReplyChoice> {
    let mut choice = ReplyChoice::default();
    let mut reasoning_text = String::new();
    let mut reasoning_items: Vec<&RawValue> = Vec::new();
    for raw in &output {
        let Some(item) = item_of(raw)? else {
            continue;
        };
        match item.kind.as_str() {
            "reasoning" => {
                add_reasoning_text(&mut reasoning_text, &item);
                reasoning_items.push(raw);
            }
            _ => add_item(&mut choice, item),
        }
    }
    if !reasoning_items.is_empty() {
        let mut reasoning = Reasoning::new(reasoning_text, ReasoningField::Reasoning);
        reasoning.details = serde_json::to_string(&reasoning_items).ok();
        choice.reasoning = Some(reasoning);
    }
    Ok(choice)
}

/// A reasoning item's text: its summary's, then its content's.
fn add_reasoning_text(text: &mut String, item: &Item) {
    for part in item.summary.iter().chain(&item.content) {
        text.push_str(part.text.as_deref().unwrap_or_default());
    }
}

/// Adds one output item to a choice: a message's text and refusal, a tool call.
fn add_item(choice: &mut ReplyChoice, item: Item) {
    let text = |value: Option<String>| value.unwrap_or_default();
    match item.kind.as_str() {
        "message" => {
            for part in item.content {
                match part.kind.as_deref() {
                    Some("output_text") => choice.content.push_str(&text(part.text)),
                    Some("refusal") => {
                        let refusal = choice.refusal.get_or_insert_with(String::new);
                        refusal.push_str(&text(part.refusal));
                    }
                    _ => {}
                }
            }
            choice.extra.extend(item.extra);
        }
        "function_call" => {
            let mut call = ToolCall::new(text(item.call_id), text(item.name), text(item.arguments));
            call.extra = item.extra;
            choice.tool_calls.push(call);
        }
        "custom_tool_call" => {
            let mut call = ToolCall::custom(text(item.call_id), text(item.name), text(item.input));
            call.extra = item.extra;
            choice.tool_calls.push(call);
        }
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
             "input": "ls -l", "status": "completed", "namespace": "ops"}
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
        assert_eq!(
            call.extra,
            Map::from_iter([("namespace".into(), "ops".into())])
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

    #[test]
    fn reasoning_items_are_kept_as_they_came_and_a_string_content_is_text() {
        let reasoning = r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"gAAA","zeta":1,"alpha":2}"#;
        let body = format!(
            r#"{{"status":"completed","output":[{reasoning},
               {{"type":"message","role":"assistant","content":"Hi."}},
               {{"type":"web_search_call","id":"ws_1","action":"not an object of ours","content":7}}]}}"#
        );
        let reply = decode(body, None).unwrap();
        assert_eq!(reply.content(), "Hi.");
        let kept = reply.reasoning().unwrap();
        assert_eq!(kept.text, "Think.");
        assert_eq!(
            kept.details.as_deref(),
            Some(format!("[{reasoning}]").as_str())
        );
    }

    #[test]
    fn an_item_of_a_type_chatwire_reads_that_cannot_be_read_is_a_decode_error() {
        let body = r#"{"status":"completed","output":[{"type":"function_call","call_id":7}]}"#;
        assert!(matches!(
            decode(body.into(), None),
            Err(Error::Decode { .. })
        ));
    }
}
