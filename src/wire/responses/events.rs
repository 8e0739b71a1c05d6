//! A Responses API stream's events made into the [`Chunk`]s the one
//! accumulator folds (`stream/accumulate.rs`): the text, refusal and
//! reasoning deltas as a choice's delta, a function call's item and its
//! argument deltas as tool-call fragments, and `response.completed` (or
//! `.incomplete`) as the finish reason and the usage. `response.failed` and
//! `error` are the server's error. Events that repeat what their deltas
//! said (`.done`, `content_part.*`) carry nothing.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::wire::chunk::{
    api_error_from_text, Chunk, ChunkChoice, Delta, Last, Payload, ToolCallDelta,
};
use crate::wire::message::CallText;
use crate::wire::responses::response;

/// What a stream's events need remembered: the tool calls begun, in order,
/// by item id, and whether their arguments came in deltas.
#[derive(Debug, Clone, Default)]
pub(crate) struct Calls {
    /// For each call begun: its item id, and whether deltas brought its input.
    begun: Vec<(String, bool)>,
}

/// Reads one event's data; `Ok(None)` for an event that carries nothing.
pub(crate) fn payload(data: &str, calls: &mut Calls) -> Result<Option<Payload>> {
    if data.trim().is_empty() {
        return Ok(None);
    }
    let event: Map<String, Value> = serde_json::from_str(data)
        .map_err(|err| Error::decode(format!("event data is not a json object: {err}"), data))?;
    let text = |name: &str| event.get(name).and_then(Value::as_str).map(str::to_owned);
    let delta = |delta: Delta| Some(Payload::Chunk(choice(delta, None)));
    let kind = event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(match kind {
        "response.output_text.delta" => delta(Delta {
            content: text("delta"),
            ..Delta::default()
        }),
        "response.refusal.delta" => delta(Delta {
            refusal: text("delta"),
            ..Delta::default()
        }),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => delta(Delta {
            reasoning: text("delta"),
            ..Delta::default()
        }),
        // A reasoning item whole, kept as the reasoning's details (its text came in deltas).
        "response.output_item.done" if item_type(&event) == Some("reasoning") => delta(Delta {
            reasoning_details: event.get("item").cloned().into_iter().collect(),
            ..Delta::default()
        }),
        "response.output_item.added" | "response.output_item.done" => {
            let done = kind.ends_with(".done");
            item_call(event.get("item"), done, calls).map(tool_fragment)
        }
        "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
            let custom = kind.contains("custom");
            argument_delta(text("item_id"), text("delta"), custom, calls).map(tool_fragment)
        }
        "response.completed" | "response.incomplete" => {
            let chunk = finished(event.get("response"), !calls.begun.is_empty());
            let response = response_as_it_came(data, &event);
            Some(Payload::Last(Box::new(Last { chunk, response })))
        }
        "response.failed" => {
            let error = event
                .get("response")
                .and_then(|response| response.get("error"));
            Some(Payload::Error(response::failure(
                error.unwrap_or(&Value::Null),
                None,
            )))
        }
        "error" => Some(Payload::Error(api_error_from_text(data))),
        _ => None,
    })
}

/// The type of an event's item.
fn item_type(event: &Map<String, Value>) -> Option<&str> {
    event.get("item")?.get("type")?.as_str()
}

/// A chunk of one choice's delta, and its finish reason.
fn choice(delta: Delta, finish_reason: Option<String>) -> Chunk {
    Chunk {
        choices: vec![ChunkChoice {
            delta,
            finish_reason,
            ..ChunkChoice::default()
        }],
        ..Chunk::default()
    }
}

fn tool_fragment(call: ToolCallDelta) -> Payload {
    Payload::Chunk(choice(
        Delta {
            tool_calls: vec![call],
            ..Delta::default()
        },
        None,
    ))
}

/// The fragment a function (or custom tool) call's item gives: its id and
/// name when it begins, and its whole input at its end unless deltas
/// brought it. Other items give none.
fn item_call(item: Option<&Value>, done: bool, calls: &mut Calls) -> Option<ToolCallDelta> {
    let item = item?;
    let custom = match item.get("type")?.as_str()? {
        "function_call" => false,
        "custom_tool_call" => true,
        _ => return None,
    };
    let text = |name: &str| item.get(name).and_then(Value::as_str).map(str::to_owned);
    let item_id = text("id").unwrap_or_default();
    let input = text(if custom { "input" } else { "arguments" });
    let (index, begun, streamed) = match calls.begun.iter().position(|(id, _)| *id == item_id) {
        Some(index) => (index, true, calls.begun[index].1),
        None => {
            calls.begun.push((item_id, false));
            (calls.begun.len() - 1, false, false)
        }
    };
    let input = match (done, streamed) {
        (true, true) => None,
        (true, false) | (false, _) => input.filter(|input| !input.is_empty()),
    };
    if let Some(index) = input.as_ref().and(Some(index)) {
        calls.begun[index].1 = true;
    }
    let (id, name) = match begun {
        true => (None, None),
        false => (text("call_id"), text("name")),
    };
    let mut fragment = fragment(index, id, name, input, custom);
    fragment.extra = fields_of_its_own(item);
    Some(fragment)
}

/// A call item's fields that chatwire does not know, which go back with
/// the call (not its item `id` and `status`, as for a whole response).
fn fields_of_its_own(item: &Value) -> Map<String, Value> {
    const KNOWN: [&str; 7] = [
        "type",
        "id",
        "status",
        "call_id",
        "name",
        "arguments",
        "input",
    ];
    let Some(fields) = item.as_object() else {
        return Map::new();
    };
    let own = fields
        .iter()
        .filter(|(name, value)| !KNOWN.contains(&name.as_str()) && !value.is_null());
    own.map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// A piece of a call's input, for the call its item began.
fn argument_delta(
    item_id: Option<String>,
    piece: Option<String>,
    custom: bool,
    calls: &mut Calls,
) -> Option<ToolCallDelta> {
    let item_id = item_id?;
    let index = calls.begun.iter().position(|(id, _)| *id == item_id)?;
    calls.begun[index].1 = true;
    Some(fragment(index, None, None, piece, custom))
}

fn fragment(
    index: usize,
    id: Option<String>,
    name: Option<String>,
    input: Option<String>,
    custom: bool,
) -> ToolCallDelta {
    let mut text = CallText {
        name,
        ..CallText::default()
    };
    let kind = if custom {
        text.input = input;
        "custom"
    } else {
        text.arguments = input;
        "function"
    };
    let mut call = ToolCallDelta {
        index: u32::try_from(index).ok(),
        id,
        kind: Some(kind.to_owned()),
        ..ToolCallDelta::default()
    };
    match custom {
        true => call.custom = text,
        false => call.function = text,
    }
    call
}

/// The response object of a `response.completed` (or `.incomplete`) event
/// as it came, when it lists the output: a server that leaves the output
/// out of it gets a reply JSON written from what the stream gave.
fn response_as_it_came(data: &str, event: &Map<String, Value>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Finished {
        response: Box<RawValue>,
    }
    let output = event.get("response")?.get("output")?.as_array()?;
    if output.is_empty() {
        return None;
    }
    let finished: Finished = serde_json::from_str(data).ok()?;
    Some(Box::<str>::from(finished.response).into_string())
}

/// The last chunk: the finish reason from the response's status (after
/// tool calls, `tool_calls`), its id, model and usage.
fn finished(response: Option<&Value>, called: bool) -> Chunk {
    let empty = Value::Null;
    let response = response.unwrap_or(&empty);
    let text = |name: &str| {
        response
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let reason = response
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str);
    let status = response.get("status").and_then(Value::as_str);
    let finish = response::finish_reason(status, reason.map(str::to_owned), called);
    let usage = response.get("usage").and_then(response::usage_of);
    let mut chunk = choice(Delta::default(), Some(finish.unwrap_or("stop").to_owned()));
    chunk.id = text("id");
    chunk.model = text("model");
    chunk.usage_json = usage.and_then(|usage| serde_json::to_value(usage).ok());
    chunk.usage = usage;
    chunk
}
