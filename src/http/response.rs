//! Decoding what the server sent: a chat completion on success, an error
//! body otherwise. Lenient with loosely compatible servers (unknown fields
//! ignored; `id`, `object`, `created`, `usage` optional), strict about what
//! makes a chat completion (a choice with a message).

use serde::Deserialize;

use crate::conversation::message::WireToolCall;
use crate::error::{ApiError, Error, Result};
use crate::reply::{Reply, Usage};

#[derive(Deserialize)]
struct Completion {
    id: Option<String>,
    model: Option<String>,
    choices: Vec<Choice>,
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<AssistantMessage>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct AssistantMessage {
    content: Option<String>,
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

/// Decodes a 2xx body into a [`Reply`], keeping the body as received.
pub(crate) fn decode_completion(body: String, request_id: Option<String>) -> Result<Reply> {
    let completion: Completion = serde_json::from_str(&body)
        .map_err(|err| Error::decode(format!("not a chat completion: {err}"), &body))?;
    let Some(choice) = completion.choices.into_iter().next() else {
        return Err(Error::decode("the response has no choices", &body));
    };
    let Some(message) = choice.message else {
        return Err(Error::decode("the first choice has no message", &body));
    };
    Ok(Reply {
        // A refusal takes the place of the text, so the caller sees why there is none.
        content: message.content.or(message.refusal).unwrap_or_default(),
        finish_reason: choice.finish_reason,
        usage: completion.usage,
        id: completion.id,
        model: completion.model,
        request_id,
        tool_calls: message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .map(Into::into)
            .collect(),
        json: body,
    })
}

#[derive(Deserialize)]
struct ErrorEnvelope {
    error: ErrorBody,
}

#[derive(Deserialize)]
struct ErrorBody {
    message: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    code: Option<serde_json::Value>,
}

/// Reads a non-2xx answer: `{"error": {"message", "type", "code"}}` where the
/// server sent one, else the start of the body, else the reason phrase.
pub(crate) fn decode_error(status: u16, body: &str, request_id: Option<String>) -> ApiError {
    let parsed = serde_json::from_str::<ErrorEnvelope>(body).ok();
    let (message, kind, code) = match parsed {
        Some(ErrorEnvelope { error }) => {
            (error.message, error.kind, error.code.and_then(code_text))
        }
        None => (None, None, None),
    };
    let message = message
        .or_else(|| plain_text_message(body))
        .unwrap_or_else(|| reason_phrase(status).to_owned());
    ApiError {
        status,
        message,
        kind,
        code,
        request_id,
    }
}

/// `code` may be a string or a number; anything else is dropped.
fn code_text(code: serde_json::Value) -> Option<String> {
    match code {
        serde_json::Value::String(text) => Some(text),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The first line of a non-JSON error body (a proxy's HTML page, say), shortened.
fn plain_text_message(body: &str) -> Option<String> {
    let line = body.lines().map(str::trim).find(|line| !line.is_empty())?;
    Some(crate::error::excerpt(line, 200).to_owned())
}

fn reason_phrase(status: u16) -> &'static str {
    ureq::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
        .unwrap_or("unknown status")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_completion_decodes() {
        let body = r#"{"choices":[{"message":{"content":"hi"}}]}"#.to_owned();
        let reply = decode_completion(body.clone(), None).unwrap();
        assert_eq!(reply.content, "hi");
        assert_eq!(reply.usage, None);
        assert_eq!(reply.json, body);
    }

    #[test]
    fn tool_calls_decode_with_empty_content() {
        let body = r#"{"choices":[{"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
            "tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}}]}"#;
        let reply = decode_completion(body.into(), None).unwrap();
        assert_eq!(reply.content, "");
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].name, "f");
        assert_eq!(reply.tool_calls[0].arguments, r#"{"x":1}"#);
    }

    #[test]
    fn not_a_completion_is_a_decode_error() {
        for body in [
            "",
            "<html>",
            "{}",
            r#"{"choices":[]}"#,
            r#"{"choices":[{"index":0}]}"#,
            r#"{"choices":[{"message":{"content":"cut"#,
        ] {
            let err = decode_completion(body.into(), None).unwrap_err();
            assert!(matches!(err, Error::Decode { .. }), "{body}: {err}");
        }
    }

    #[test]
    fn error_body_with_numeric_code() {
        let api = decode_error(
            400,
            r#"{"error":{"code":400,"message":"bad","type":"invalid_request_error"}}"#,
            Some("r".into()),
        );
        assert_eq!(api.message, "bad");
        assert_eq!(api.code.as_deref(), Some("400"));
        assert_eq!(api.kind.as_deref(), Some("invalid_request_error"));
        assert_eq!(api.request_id.as_deref(), Some("r"));
    }

    #[test]
    fn error_without_json_uses_text_or_reason() {
        assert_eq!(
            decode_error(502, "\n<h1>Bad gateway</h1>\n", None).message,
            "<h1>Bad gateway</h1>"
        );
        assert_eq!(decode_error(503, "", None).message, "Service Unavailable");
    }
}
