//! A provider test server: one raw-socket server that answers as each
//! provider chatwire meets does, chosen by the request's `model`. Each
//! emulation cites the public doc or issue it follows. Driven from Rust
//! (tests/providers.rs) and from C (tests/c/providers.c).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

use super::hostile::{respond, HostileServer, Request};

/// The providers of 2026 (docs/providers.md), each citing its source.
pub mod recent;

/// Starts the provider server.
pub fn start() -> HostileServer {
    HostileServer::start(answer)
}

fn answer(request: &Request, stream: &mut TcpStream) {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let streamed = body["stream"] == true;
    match model.as_str() {
        "deepseek-reasoner" => deepseek(&body, streamed, stream),
        "vllm-reasoning" => sse(
            stream,
            &[
                // vLLM 0.9+ streams reasoning in `reasoning`:
                // https://docs.vllm.ai/en/latest/features/reasoning_outputs.html
                delta(json!({"role": "assistant", "reasoning": "Two and "})),
                delta(json!({"reasoning": "two."})),
                delta(json!({"content": "4"})),
                finish("stop"),
            ],
            true,
        ),
        "raw-think" => sse(
            stream,
            &[
                // A server without a reasoning parser leaves the model's
                // <think> block in content, its tags cut anywhere (llama.cpp
                // with reasoning_format "none").
                delta(json!({"content": "<thi"})),
                delta(json!({"content": "nk>\nHmm, 2+2.</th"})),
                delta(json!({"content": "ink>\n\nFour"})),
                finish("stop"),
            ],
            true,
        ),
        "mistral-small" => mistral(&body, stream),
        "tgi-open" => tgi_open(stream),
        "tgi-error" => {
            // TGI answers some failures with 200 and an error object:
            // https://github.com/huggingface/text-generation-inference/issues/1896
            let error = json!({"error": "Input validation error: `top_p` must be > 0.0 and < 1.0",
                               "error_type": "validation"});
            respond(
                stream,
                "200 OK",
                &[("content-type", "application/json")],
                error.to_string().as_bytes(),
            );
        }
        "llamacpp-old" => {
            // Older llama.cpp sent tool calls without an id.
            let reply = completion(
                json!({"role": "assistant", "content": null,
                "tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": "{}"}}]}),
                "tool_calls",
            );
            json_reply(stream, &reply, &[]);
        }
        "ollama" => sse(
            stream,
            &[
                // Ollama streams each call whole, without "index":
                // https://github.com/ollama/ollama/issues/7881
                delta(json!({"role": "assistant", "tool_calls": [
                {"id": "call_a", "function": {"name": "get_time", "arguments": "{}"}}]})),
                delta(json!({"tool_calls": [
                {"id": "call_b", "function": {"name": "get_date", "arguments": "{}"}}]})),
                finish("tool_calls"),
            ],
            true,
        ),
        "n2" => n2(streamed, stream),
        "openai-usage" => {
            // OpenAI's usage details and rate-limit headers:
            // https://platform.openai.com/docs/api-reference/chat/object
            // https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
            let mut reply = completion(json!({"role": "assistant", "content": "ok"}), "stop");
            reply["usage"] = json!({"prompt_tokens": 2000, "completion_tokens": 300, "total_tokens": 2300,
                "prompt_tokens_details": {"cached_tokens": 1920},
                "completion_tokens_details": {"reasoning_tokens": 256}});
            json_reply(
                stream,
                &reply,
                &[
                    ("x-ratelimit-remaining-requests", "59"),
                    ("X-Echo", super::KEY),
                ],
            );
        }
        "groq" => sse(
            stream,
            &[
                // Groq puts a stream's usage under x_groq.usage:
                // https://console.groq.com/docs/openai
                delta(json!({"role": "assistant", "content": "hi"})),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "x_groq": {"id": "req_1", "usage": {"prompt_tokens": 5, "completion_tokens": 1,
                   "total_tokens": 6, "prompt_tokens_details": {"cached_tokens": 4}}}}),
            ],
            true,
        ),
        "azure-filtered" => {
            // Azure OpenAI refuses a filtered prompt with 400 and code content_filter:
            // https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter
            let error = json!({"error": {"message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
                "type": null, "param": "prompt", "code": "content_filter", "status": 400,
                "innererror": {"code": "ResponsibleAIPolicyViolation"}}});
            respond(
                stream,
                "400 Bad Request",
                &[("content-type", "application/json")],
                error.to_string().as_bytes(),
            );
        }
        "azure-finish-filtered" => {
            // ... and a completion it filtered finishes with "content_filter" (same page).
            let reply = completion(
                json!({"role": "assistant", "content": ""}),
                "content_filter",
            );
            json_reply(stream, &reply, &[]);
        }
        "openrouter-error" => sse(
            stream,
            &[
                // OpenRouter's mid-stream error: https://openrouter.ai/docs/api-reference/errors
                delta(json!({"role": "assistant", "content": "Par"})),
                json!({"id": "gen-1", "object": "chat.completion.chunk",
                   "error": {"code": 502, "message": "Provider disconnected unexpectedly"},
                   "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]}),
            ],
            true,
        ),
        model if recent::MODELS.contains(&model) => recent::answer(model, request, &body, stream),
        other => {
            if !super::providers_2026::answer(other, &body, streamed, stream) {
                respond(
                    stream,
                    "404 Not Found",
                    &[],
                    b"{\"error\":{\"message\":\"no such model\"}}",
                )
            }
        }
    }
}

/// DeepSeek's thinking mode: reasoning in `reasoning_content`; an assistant
/// message that called tools after the last user message must carry its
/// reasoning_content back, else 400
/// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls). Earlier
/// turns' reasoning is not wanted: the older reasoner answered 400 when any
/// came back (https://api-docs.deepseek.com/guides/reasoning_model).
fn deepseek(body: &Value, streamed: bool, stream: &mut TcpStream) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let last_user = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .unwrap_or(0);
    for (index, message) in messages.iter().enumerate() {
        let has = message.get("reasoning_content").is_some();
        let complaint = if index > last_user && message["role"] == "assistant" && !has {
            Some(format!("Missing `reasoning_content` field in the assistant message at message index {index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"))
        } else if index < last_user && has {
            Some(format!(
                "reasoning_content of an earlier turn was sent back at message index {index}"
            ))
        } else {
            None
        };
        if let Some(message) = complaint {
            let error = json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}});
            respond(
                stream,
                "400 Bad Request",
                &[("content-type", "application/json")],
                error.to_string().as_bytes(),
            );
            return;
        }
    }
    let tool_turn =
        messages.last().is_some_and(|m| m["role"] == "user") && body.get("tools").is_some();
    let (reasoning, message, reason) = if tool_turn {
        (
            "I need the time.",
            json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "index": 0, "function": {"name": "get_time", "arguments": "{}"}}]}),
            "tool_calls",
        )
    } else {
        (
            "The tool said noon.",
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
    let mut content = message.clone();
    content.as_object_mut().unwrap().remove("role");
    sse(
        stream,
        &[
            delta(json!({"role": "assistant", "reasoning_content": reasoning})),
            delta(content),
            finish(reason),
        ],
        true,
    );
}

/// Mistral refuses `stream_options` with 422:
/// https://github.com/dnakov/anon-kode/issues/53
fn mistral(body: &Value, stream: &mut TcpStream) {
    if body.get("stream_options").is_some() {
        let error = json!({"object": "error", "message": {"detail": [{"type": "extra_forbidden",
            "loc": ["body", "stream_options", "include_usage"], "msg": "Extra inputs are not permitted",
            "input": true}]}, "type": "invalid_request_error", "param": null, "code": null});
        respond(
            stream,
            "422 Unprocessable Entity",
            &[("content-type", "application/json")],
            error.to_string().as_bytes(),
        );
        return;
    }
    sse(
        stream,
        &[
            delta(json!({"role": "assistant", "content": "Bonjour"})),
            finish("stop"),
        ],
        true,
    );
}

/// TGI (before [DONE] was added) and gateways that keep the connection
/// open end with a finish_reason and nothing more:
/// https://github.com/huggingface/text-generation-inference/issues/1896
fn tgi_open(stream: &mut TcpStream) {
    let head =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
    let _ = stream.write_all(head.as_bytes());
    let events: String = [
        delta(json!({"role": "assistant", "content": "Done"})),
        finish("stop"),
    ]
    .iter()
    .map(|event| format!("data: {event}\n\n"))
    .collect();
    let _ = stream.write_all(format!("{:x}\r\n{events}\r\n", events.len()).as_bytes());
    let _ = stream.flush();
    // The connection stays open, silent, until the client hangs up (at
    // the grace's end); half a minute at most.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut rest = [0u8; 1024];
    while matches!(stream.read(&mut rest), Ok(read) if read > 0) {}
}

/// `n` = 2: two choices, streamed interleaved or whole.
fn n2(streamed: bool, stream: &mut TcpStream) {
    if !streamed {
        let reply = json!({"id": "c", "object": "chat.completion", "model": "n2", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "red"}, "finish_reason": "stop"},
            {"index": 1, "message": {"role": "assistant", "content": "blue"}, "finish_reason": "stop"}]});
        json_reply(stream, &reply, &[]);
        return;
    }
    let chunk = |index: u32, delta: Value, reason: Value| {
        json!({"choices": [{"index": index, "delta": delta, "finish_reason": reason,
            "logprobs": {"content": [{"token": "x", "logprob": -0.5}]}}]})
    };
    sse(
        stream,
        &[
            chunk(
                0,
                json!({"role": "assistant", "content": "re"}),
                Value::Null,
            ),
            chunk(
                1,
                json!({"role": "assistant", "content": "bl"}),
                Value::Null,
            ),
            chunk(1, json!({"content": "ue"}), json!("stop")),
            chunk(0, json!({"content": "d"}), json!("stop")),
        ],
        true,
    );
}

pub fn delta(delta: Value) -> Value {
    json!({"id": "chatcmpl-p", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

pub fn finish(reason: &str) -> Value {
    json!({"id": "chatcmpl-p", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

pub fn completion(message: Value, reason: &str) -> Value {
    json!({"id": "chatcmpl-p", "object": "chat.completion", "model": "m",
           "choices": [{"index": 0, "message": message, "finish_reason": reason}],
           "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})
}

pub fn json_reply(stream: &mut TcpStream, reply: &Value, headers: &[(&str, &str)]) {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    respond(stream, "200 OK", &all, reply.to_string().as_bytes());
}

pub fn sse(stream: &mut TcpStream, events: &[Value], done: bool) {
    let mut body: String = events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect();
    if done {
        body.push_str("data: [DONE]\n\n");
    }
    respond(
        stream,
        "200 OK",
        &[("content-type", "text/event-stream")],
        body.as_bytes(),
    );
}
