//! The provider test server's emulations of what servers of 2026 send and
//! want back, chosen by `model` like the rest of tests/common/providers.rs:
//! Gemini 3's thought signatures, Kimi's reasoning on every tool-call turn,
//! OpenRouter's streamed reasoning_details, Mistral's thinking chunks and
//! free-form (custom) tools. Each cites the public doc or issue it follows.
//! Each one refuses with 400, as the provider does, a request that lacks
//! what it wants back.

use std::net::TcpStream;

use serde_json::{json, Value};

use super::hostile::respond;
use super::providers::{completion, delta, finish, json_reply, sse};

/// Answers `body` when its model is one of these; false otherwise.
pub fn answer(model: &str, body: &Value, streamed: bool, stream: &mut TcpStream) -> bool {
    match model {
        "gemini-3-pro-preview" => gemini(body, streamed, stream),
        "kimi-k2.5" => kimi(body, streamed, stream),
        "openrouter-reasoning" => openrouter(body, streamed, stream),
        "magistral-medium-latest" => magistral(streamed, stream),
        "gpt-5-custom" => custom_tools(body, streamed, stream),
        _ => return false,
    }
    true
}

fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// The conversation stands at a question (the model may call a tool), not
/// at a tool's result.
fn asks(body: &Value) -> bool {
    messages(body).last().is_some_and(|m| m["role"] == "user")
}

fn refuse(stream: &mut TcpStream, message: &str) {
    let error = json!({"error": {"message": message, "type": "invalid_request_error",
        "code": 400, "status": "INVALID_ARGUMENT"}});
    respond(
        stream,
        "400 Bad Request",
        &[("content-type", "application/json")],
        error.to_string().as_bytes(),
    );
}

/// The signature this server gives the call `id` (opaque base64 to the client).
pub fn gemini_signature(id: &str) -> String {
    format!("CiQBjz1rX{id}Sig==")
}

/// Gemini 3 through its OpenAI-compatible endpoint. Each function call of a
/// step carries `extra_content.google.thought_signature` (parallel calls:
/// the first only), and the next request must carry it back on the call
/// "exactly as received", else 400 "Function call is missing a
/// thought_signature in functionCall parts":
/// https://ai.google.dev/gemini-api/docs/thought-signatures
/// https://discuss.ai.google.dev/t/openai-api-compatibility-broken-due-to-thought-signature-on-gemini-3-pro-preview/109823
/// Streamed, the signature comes on the tool call's delta (as agents that
/// mend this read it: https://github.com/openai/codex/pull/7586), and on a
/// text reply on the message (its first content delta; same discuss page).
fn gemini(body: &Value, streamed: bool, stream: &mut TcpStream) {
    for (index, message) in messages(body).iter().enumerate() {
        let calls = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (position, call) in calls.iter().enumerate() {
            let id = call["id"].as_str().unwrap_or_default();
            let signature = &call["extra_content"]["google"]["thought_signature"];
            if position == 0 && signature != &json!(gemini_signature(id)) {
                refuse(stream, &format!("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_time` , position {index}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."));
                return;
            }
        }
    }
    let turn = messages(body)
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    let (first, second) = (format!("gem_{turn}_a"), format!("gem_{turn}_b"));
    let signed = json!({"google": {"thought_signature": gemini_signature(&first)}});
    let text_signature = json!({"google": {"thought_signature": "CiQBtextSig=="}});
    if asks(body) {
        if !streamed {
            let message = json!({"role": "assistant", "tool_calls": [
                {"id": first, "type": "function", "extra_content": signed,
                 "function": {"name": "get_time", "arguments": "{\"zone\":\"UTC\"}"}},
                {"id": second, "type": "function",
                 "function": {"name": "get_time", "arguments": "{\"zone\":\"CET\"}"}}]});
            json_reply(stream, &completion(message, "tool_calls"), &[]);
            return;
        }
        sse(
            stream,
            &[
                delta(json!({"role": "assistant", "tool_calls": [
                    {"index": 0, "id": first, "type": "function", "extra_content": signed,
                     "function": {"name": "get_time", "arguments": "{\"zone\":"}}]})),
                delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"UTC\"}"}}]})),
                delta(
                    json!({"tool_calls": [{"index": 1, "id": second, "type": "function",
                     "function": {"name": "get_time", "arguments": "{\"zone\":\"CET\"}"}}]}),
                ),
                finish("tool_calls"),
            ],
            true,
        );
        return;
    }
    if !streamed {
        let message = json!({"role": "assistant", "content": "It is noon.",
            "extra_content": text_signature});
        json_reply(stream, &completion(message, "stop"), &[]);
        return;
    }
    sse(
        stream,
        &[
            delta(json!({"role": "assistant", "content": "It is ",
                "extra_content": text_signature})),
            delta(json!({"content": "noon."})),
            finish("stop"),
        ],
        true,
    );
}

/// Kimi (Moonshot) with thinking on: every assistant message that called
/// tools, in any earlier turn, must carry its `reasoning_content`, else 400
/// "thinking is enabled but reasoning_content is missing in assistant tool
/// call message at index N":
/// https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model#multi-step-tool-call
/// https://github.com/continuedev/continue/issues/11711
fn kimi(body: &Value, streamed: bool, stream: &mut TcpStream) {
    for (index, message) in messages(body).iter().enumerate() {
        let calls = message["tool_calls"]
            .as_array()
            .is_some_and(|calls| !calls.is_empty());
        if message["role"] == "assistant" && calls && !message["reasoning_content"].is_string() {
            refuse(stream, &format!("thinking is enabled but reasoning_content is missing in assistant tool call message at index {index}"));
            return;
        }
    }
    let turn = messages(body)
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    let (reasoning, message, reason) = if asks(body) {
        (
            format!("Turn {turn}: I need the time."),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": format!("kimi_{turn}"), "type": "function", "index": 0,
                 "function": {"name": "get_time", "arguments": "{}"}}]}),
            "tool_calls",
        )
    } else {
        (
            format!("Turn {turn}: the tool said noon."),
            json!({"role": "assistant", "content": "It is noon."}),
            "stop",
        )
    };
    if !streamed {
        let mut message = message;
        message["reasoning_content"] = json!(reasoning);
        json_reply(stream, &completion(message, reason), &[]);
        return;
    }
    let mut rest = message;
    rest.as_object_mut().unwrap().remove("role");
    let (head, tail) = reasoning.split_at(7);
    sse(
        stream,
        &[
            delta(json!({"role": "assistant", "reasoning_content": head})),
            delta(json!({"reasoning_content": tail})),
            delta(rest),
            finish(reason),
        ],
        true,
    );
}

/// The reasoning_details OpenRouter streams for one tool-call step, joined
/// as its docs say they must come back (fragments of one part, by `type`
/// and `index`, joined; the signature on the last fragment kept).
pub fn openrouter_details() -> Value {
    json!([
        {"type": "reasoning.text", "text": "I should check the time.", "format": "anthropic-claude-v1",
         "index": 0, "signature": "EqQBCkgIBxABGAIiQL"},
        {"type": "reasoning.encrypted", "data": "gAAAAABoSecret", "format": "anthropic-claude-v1", "index": 1}
    ])
}

/// OpenRouter: reasoning in `reasoning` and `reasoning_details`; with tool
/// calls the details must come back unmodified on the assistant message
/// ("Preserving reasoning blocks"), and a stream sends them in fragments:
/// https://openrouter.ai/docs/guides/best-practices/reasoning-tokens
/// https://github.com/langchain-ai/langchain/issues/36400 (fragments sent
/// back unjoined are refused).
fn openrouter(body: &Value, streamed: bool, stream: &mut TcpStream) {
    for message in messages(body) {
        let calls = message["role"] == "assistant" && message.get("tool_calls").is_some();
        if calls && message["reasoning_details"] != openrouter_details() {
            refuse(
                stream,
                &format!(
                    "reasoning_details were not sent back as received: {}",
                    message["reasoning_details"]
                ),
            );
            return;
        }
    }
    if !asks(body) {
        let reply = completion(json!({"role": "assistant", "content": "Noon."}), "stop");
        json_reply(stream, &reply, &[]);
        return;
    }
    let call = json!([{"index": 0, "id": "or_1", "type": "function",
        "function": {"name": "get_time", "arguments": "{}"}}]);
    if !streamed {
        let message = json!({"role": "assistant", "content": "", "tool_calls": call,
            "reasoning": "I should check the time.", "reasoning_details": openrouter_details()});
        json_reply(stream, &completion(message, "tool_calls"), &[]);
        return;
    }
    let part = |fields: Value| {
        let mut part =
            json!({"type": "reasoning.text", "format": "anthropic-claude-v1", "index": 0});
        part.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        part
    };
    sse(
        stream,
        &[
            delta(
                json!({"role": "assistant", "content": "", "reasoning": "I should ",
                "reasoning_details": [part(json!({"text": "I should "}))]}),
            ),
            delta(json!({"reasoning": "check the time.",
                "reasoning_details": [part(json!({"text": "check the time."}))]})),
            delta(
                json!({"reasoning_details": [part(json!({"text": "", "signature": "EqQBCkgIBxABGAIiQL"}))]}),
            ),
            delta(
                json!({"reasoning_details": [{"type": "reasoning.encrypted", "data": "gAAAAABo",
                "format": "anthropic-claude-v1", "index": 1}]}),
            ),
            delta(
                json!({"reasoning_details": [{"type": "reasoning.encrypted", "data": "Secret",
                "format": "anthropic-claude-v1", "index": 1}]}),
            ),
            delta(json!({"tool_calls": call})),
            finish("tool_calls"),
        ],
        true,
    );
}

/// Mistral's reasoning models: `content` is a list of chunks, a thinking
/// chunk (`{"type": "thinking", "thinking": [{"type": "text", "text"}]}`)
/// and a text chunk: https://docs.mistral.ai/capabilities/reasoning/
/// Streamed, the thinking arrives as lists of thinking chunks and the
/// answer as plain strings after it
/// (https://github.com/mistralai/client-python/pull/511, its
/// reasoning_with_streaming example).
fn magistral(streamed: bool, stream: &mut TcpStream) {
    let thinking =
        |text: &str| json!([{"type": "thinking", "thinking": [{"type": "text", "text": text}]}]);
    if !streamed {
        let mut content = thinking("Two and two make four.");
        content
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "text", "text": "4"}));
        let message = json!({"role": "assistant", "content": content});
        json_reply(stream, &completion(message, "stop"), &[]);
        return;
    }
    sse(
        stream,
        &[
            delta(json!({"role": "assistant", "content": thinking("Two and two ")})),
            delta(json!({"content": thinking("make four.")})),
            delta(json!({"content": "4"})),
            finish("stop"),
        ],
        true,
    );
}

/// OpenAI's free-form tools: a tool `{"type": "custom", "custom": {"name",
/// "description", "format"}}` is called as `{"type": "custom", "custom":
/// {"name", "input"}}`, its result sent back as a tool message:
/// https://platform.openai.com/docs/guides/function-calling#custom-tools
/// Streamed, the input comes in fragments of `custom.input`
/// (https://github.com/openai/openai-openapi/issues/576,
/// https://github.com/openai/openai-python/issues/2530).
fn custom_tools(body: &Value, streamed: bool, stream: &mut TcpStream) {
    let offered = body["tools"].as_array().cloned().unwrap_or_default();
    let custom = offered.iter().find(|tool| tool["type"] == "custom");
    let Some(custom) = custom else {
        refuse(stream, "no custom tool offered");
        return;
    };
    let expected_call = json!({"id": "call_sql", "type": "custom",
        "custom": {"name": "run_sql", "input": "SELECT 1;"}});
    if !asks(body) {
        let all = messages(body);
        let calling = all.iter().rev().find(|m| m["role"] == "assistant");
        let result = all.last().unwrap();
        if calling.map(|m| &m["tool_calls"][0]) != Some(&expected_call)
            || result["role"] != "tool"
            || result["tool_call_id"] != "call_sql"
        {
            refuse(stream, "the custom call and its result did not come back");
            return;
        }
        let reply = completion(json!({"role": "assistant", "content": "One row."}), "stop");
        json_reply(stream, &reply, &[]);
        return;
    }
    // The grammar came through as given.
    let format = &custom["custom"]["format"];
    if format["grammar"]["syntax"] != "lark" {
        refuse(stream, &format!("unexpected format {format}"));
        return;
    }
    if !streamed {
        let message = json!({"role": "assistant", "content": null, "tool_calls": [expected_call]});
        json_reply(stream, &completion(message, "tool_calls"), &[]);
        return;
    }
    sse(
        stream,
        &[
            delta(
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_sql",
                "type": "custom", "custom": {"name": "run_sql", "input": "SELECT "}}]}),
            ),
            delta(json!({"tool_calls": [{"index": 0, "custom": {"input": "1;"}}]})),
            finish("tool_calls"),
        ],
        true,
    );
}
