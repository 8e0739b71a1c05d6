//! The providers people point compatible clients at in 2026, emulated where
//! they differ from OpenAI in what they accept: each rule below follows the
//! provider's own page or a public issue, cited with it. Chosen by `model`
//! from the provider server's match (tests/common/providers.rs); driven by
//! tests/providers_recent.rs. Each answer checks the request as the
//! provider would and refuses it as the provider does, so that a test
//! passing means chatwire, set up as docs/providers.md says, sends what the
//! provider takes.

use std::net::TcpStream;

use serde_json::{json, Value};

use super::{completion, delta, finish, json_reply, sse};
use crate::common::hostile::{respond, Request};

/// The models this module answers for.
pub const MODELS: [&str; 9] = [
    CEREBRAS, PERPLEXITY, ZAI, BEDROCK, AZURE_V1, DASHSCOPE, XAI, GITHUB, CLOUDFLARE,
];

pub const CEREBRAS: &str = "llama-3.3-70b";
pub const PERPLEXITY: &str = "sonar";
pub const ZAI: &str = "glm-4.6";
pub const BEDROCK: &str = "openai.gpt-oss-20b-1:0";
pub const AZURE_V1: &str = "my-gpt-4o-deployment";
pub const DASHSCOPE: &str = "qwen-plus";
pub const XAI: &str = "grok-3-mini";
pub const GITHUB: &str = "openai/gpt-4.1";
pub const CLOUDFLARE: &str = "@cf/meta/llama-3.1-8b-instruct";

/// The paths each provider serves chat completions at, as its docs give
/// them (test servers put them under their own host).
pub const ZAI_PATH: &str = "/api/paas/v4/chat/completions";
pub const BEDROCK_PATH: &str = "/openai/v1/chat/completions";
pub const AZURE_V1_PATH: &str = "/openai/v1/chat/completions";
pub const DASHSCOPE_PATH: &str = "/compatible-mode/v1/chat/completions";
pub const GITHUB_PATH: &str = "/inference/chat/completions";
pub const GITHUB_ORG_PATH: &str = "/orgs/acme/inference/chat/completions";
pub const CLOUDFLARE_PATH: &str = "/client/v4/accounts/0123abcd/ai/v1/chat/completions";
pub const PERPLEXITY_PATH: &str = "/chat/completions";

pub fn answer(model: &str, request: &Request, body: &Value, stream: &mut TcpStream) {
    let streamed = body["stream"] == true;
    let refusal = match model {
        CEREBRAS => cerebras(body),
        PERPLEXITY => path(request, &[PERPLEXITY_PATH])
            .or_else(|| bearer(request).or_else(|| perplexity(body))),
        ZAI => path(request, &[ZAI_PATH]).or_else(|| bearer(request)),
        BEDROCK => path(request, &[BEDROCK_PATH]).or_else(|| bearer(request)),
        AZURE_V1 => path(request, &[AZURE_V1_PATH]).or_else(|| azure_v1_auth(request)),
        DASHSCOPE => path(request, &[DASHSCOPE_PATH])
            .or_else(|| bearer(request))
            .or_else(|| dashscope(body, streamed)),
        XAI => xai(body),
        GITHUB => path(request, &[GITHUB_PATH, GITHUB_ORG_PATH]).or_else(|| bearer(request)),
        CLOUDFLARE => path(request, &[CLOUDFLARE_PATH]).or_else(|| bearer(request)),
        _ => Some((
            "404 Not Found",
            json!({"error": {"message": "no such model"}}),
        )),
    };
    if let Some((status, error)) = refusal {
        respond(
            stream,
            status,
            &[("content-type", "application/json")],
            error.to_string().as_bytes(),
        );
        return;
    }
    match model {
        // A stream carries the sources on its chunks too:
        // https://docs.perplexity.ai/api-reference/chat-completions-post
        PERPLEXITY if streamed => {
            let sourced = |mut chunk: Value| {
                chunk["citations"] = json!(["https://example.org/milky-way"]);
                chunk["search_results"] = json!([{"title": "The Milky Way",
                    "url": "https://example.org/milky-way", "date": "2025-01-01"}]);
                chunk
            };
            let chunks = [
                delta(json!({"role": "assistant", "content": "About 100 to "})),
                delta(json!({"content": "400 billion [1]."})),
                finish("stop"),
            ];
            sse(stream, &chunks.map(sourced), true);
        }
        PERPLEXITY => {
            // Perplexity's answer carries its sources at the top level,
            // `citations` (URLs) and `search_results` (title, url, date):
            // https://docs.perplexity.ai/api-reference/chat-completions-post
            let mut reply = completion(
                json!({"role": "assistant", "content": "About 100 to 400 billion [1]."}),
                "stop",
            );
            reply["citations"] = json!(["https://example.org/milky-way"]);
            reply["search_results"] = json!([{"title": "The Milky Way",
                "url": "https://example.org/milky-way", "date": "2025-01-01"}]);
            json_reply(stream, &reply, &[]);
        }
        // Z.ai's GLM, DashScope's Qwen and xAI's grok-3-mini think in
        // `reasoning_content`:
        // https://docs.z.ai/api-reference/llm/chat-completion
        // https://www.alibabacloud.com/help/en/model-studio/deep-thinking
        // https://docs.x.ai/docs/guides/reasoning
        DASHSCOPE if !streamed => {
            let message = json!({"role": "assistant", "content": "303"});
            json_reply(stream, &completion(message, "stop"), &[]);
        }
        ZAI | XAI if !streamed => {
            let message = json!({"role": "assistant", "content": "303",
                "reasoning_content": "101 times 3 is 303."});
            json_reply(stream, &completion(message, "stop"), &[]);
        }
        ZAI | DASHSCOPE | XAI => sse(
            stream,
            &[
                delta(json!({"role": "assistant", "reasoning_content": "101 times 3"})),
                delta(json!({"reasoning_content": " is 303."})),
                delta(json!({"content": "303"})),
                finish("stop"),
            ],
            true,
        ),
        _ => {
            let message = json!({"role": "assistant", "content": format!("hello from {model}")});
            json_reply(stream, &completion(message, "stop"), &[]);
        }
    }
}

type Refusal = Option<(&'static str, Value)>;

fn error(status: &'static str, message: &str, kind: &str) -> Refusal {
    Some((
        status,
        json!({"error": {"message": message, "type": kind, "code": null}}),
    ))
}

/// Each provider serves chat completions at one documented path; anything
/// else is a 404, as a wrong base URL gets from the real thing.
fn path(request: &Request, served: &[&str]) -> Refusal {
    if served.contains(&request.path.as_str()) {
        return None;
    }
    error(
        "404 Not Found",
        &format!("no route {} (query strings included)", request.path),
        "not_found",
    )
}

/// The key as `Authorization: Bearer`, as every provider here but Azure
/// takes it (Bedrock's API keys too:
/// https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html).
fn bearer(request: &Request) -> Refusal {
    let expected = format!("Bearer {}", crate::common::KEY);
    if request.header("authorization") == Some(expected.as_str()) {
        return None;
    }
    error(
        "401 Unauthorized",
        "missing or wrong bearer token",
        "authentication_error",
    )
}

/// Azure's v1 route, `{endpoint}/openai/v1/chat/completions` with no
/// `api-version`, takes a key as `api-key` or as `Authorization: Bearer`:
/// https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle
fn azure_v1_auth(request: &Request) -> Refusal {
    let bearer = format!("Bearer {}", crate::common::KEY);
    let by_key = request.header("api-key") == Some(crate::common::KEY);
    let by_bearer = request.header("authorization") == Some(bearer.as_str());
    if by_key || by_bearer {
        return None;
    }
    error(
        "401 Unauthorized",
        "Access denied due to invalid subscription key or wrong API endpoint.",
        "invalid_request_error",
    )
}

/// Cerebras answers 400 to fields it does not support:
/// https://inference-docs.cerebras.ai/resources/openai ("Currently
/// unsupported OpenAI features").
fn cerebras(body: &Value) -> Refusal {
    for field in [
        "frequency_penalty",
        "logit_bias",
        "presence_penalty",
        "parallel_tool_calls",
        "service_tier",
    ] {
        if body.get(field).is_some() {
            return error(
                "400 Bad Request",
                &format!("Unsupported parameter: {field}"),
                "invalid_request_error",
            );
        }
    }
    None
}

/// Perplexity refuses a history whose roles do not alternate after the
/// system message(s), and one that does not end with the user:
/// https://github.com/perplexityai/api-discussion/issues/265
fn perplexity(body: &Value) -> Refusal {
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .map(|messages| messages.iter().filter_map(|m| m["role"].as_str()).collect())
        .unwrap_or_default();
    let turns: Vec<&str> = roles
        .into_iter()
        .skip_while(|role| *role == "system")
        .collect();
    let alternating = turns.iter().enumerate().all(|(i, role)| {
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        *role == expected
    });
    if alternating && turns.len() % 2 == 1 {
        return None;
    }
    Some((
        "400 Bad Request",
        json!({"error": {"message": "After the (optional) system message(s), user and assistant roles should be alternating.",
            "type": "invalid_message", "code": 400}}),
    ))
}

/// DashScope's hybrid-thinking Qwen models think only in a stream:
/// `enable_thinking` with a whole reply is a 400
/// (https://www.alibabacloud.com/help/en/model-studio/deep-thinking, and
/// https://github.com/coze-dev/coze-studio/issues/324 for the message).
fn dashscope(body: &Value, streamed: bool) -> Refusal {
    if body["enable_thinking"] == true && !streamed {
        return error(
            "400 Bad Request",
            "parameter.enable_thinking must be set to false for non-streaming calls",
            "invalid_request_error",
        );
    }
    None
}

/// xAI's reasoning models refuse `presence_penalty`, `frequency_penalty`
/// and `stop`: https://docs.x.ai/docs/guides/reasoning
fn xai(body: &Value) -> Refusal {
    for field in ["presence_penalty", "frequency_penalty", "stop"] {
        if body.get(field).is_some() {
            return error(
                "400 Bad Request",
                &format!("Argument not supported on this model: {field}"),
                "invalid_request_error",
            );
        }
    }
    None
}
