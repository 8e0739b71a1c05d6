//! Decoding what the server sent: a chat completion on success, an error
//! body otherwise. Lenient with loosely compatible servers (unknown fields
//! ignored; `id`, `object`, `created`, `usage` optional), strict about what
//! makes a chat completion (a choice with a message).

use serde::Deserialize;

use crate::conversation::message::WireToolCall;
use serde_json::Value;

use crate::conversation::message::json_text;
use crate::error::{excerpt, ApiError, Error, Keep, Result, EXCERPT_BYTES};
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

/// What a server said about an error, in whichever shape it used.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorReport {
    /// The message, when there was one.
    pub(crate) message: Option<String>,
    /// The `type` field.
    pub(crate) kind: Option<String>,
    /// The `code` field; a number is kept as its decimal text.
    pub(crate) code: Option<String>,
    /// The HTTP status the error names, if it names one: the first of its
    /// `status`, `status_code`, `statusCode` and `code` fields that is an
    /// HTTP status, as a number or as decimal text (llama.cpp and vLLM send
    /// `code`, some gateways `status`; Google's word `status` such as
    /// `"INVALID_ARGUMENT"` is passed over). Errors inside streams use it.
    pub(crate) code_status: Option<u16>,
}

impl ErrorReport {
    /// Reads an error from a JSON value, if the value is one:
    /// `{"error": {message, type, code}}` (OpenAI, llama.cpp),
    /// `{"error": "text"}`, or the bare `{"object": "error", ...}` that some
    /// vLLM versions send.
    pub(crate) fn from_value(value: &Value) -> Option<ErrorReport> {
        let object = value.as_object()?;
        match object.get("error") {
            None | Some(Value::Null) => {}
            Some(error) => return Some(ErrorReport::from_fields(error)),
        }
        (object.get("object").and_then(Value::as_str) == Some("error"))
            .then(|| ErrorReport::from_fields(value))
    }

    /// Reads an error from text: JSON in any shape [`from_value`](Self::from_value)
    /// knows, any other JSON as the error object itself, or plain text (a
    /// proxy's HTML page, say), whose first non-blank line is the message.
    pub(crate) fn from_text(text: &str) -> ErrorReport {
        match serde_json::from_str::<Value>(text.trim()) {
            Ok(value) => {
                ErrorReport::from_value(&value).unwrap_or_else(|| ErrorReport::from_fields(&value))
            }
            Err(_) => ErrorReport {
                message: first_line(text),
                ..ErrorReport::default()
            },
        }
    }

    /// Reads an error object `{message, type, code}`; any other value is the message.
    fn from_fields(value: &Value) -> ErrorReport {
        let message = match value {
            Value::Object(_) => value.get("message").and_then(json_text),
            other => json_text(other),
        };
        let code = value.get("code");
        ErrorReport {
            message: message.filter(|message| !message.is_empty()),
            kind: value.get("type").and_then(Value::as_str).map(str::to_owned),
            code: match code {
                Some(Value::String(code)) => Some(code.clone()),
                Some(Value::Number(code)) => Some(code.to_string()),
                _ => None,
            },
            code_status: ["status", "status_code", "statusCode", "code"]
                .iter()
                .find_map(|field| value.get(field).and_then(http_status)),
        }
    }

    /// The error as an [`ApiError`], with the HTTP status it came with and
    /// `fallback` as the message when the server gave none.
    pub(crate) fn into_api_error(
        self,
        status: Option<u16>,
        fallback: &str,
        request_id: Option<String>,
    ) -> ApiError {
        ApiError {
            status,
            message: self.message.unwrap_or_else(|| fallback.to_owned()),
            kind: self.kind,
            code: self.code,
            request_id,
        }
    }
}

/// A value that is an HTTP status: a number from 100 to 599, or its decimal text.
fn http_status(value: &Value) -> Option<u16> {
    let number = match value {
        Value::Number(number) => number.as_u64()?,
        Value::String(text) => text.trim().parse().ok()?,
        _ => return None,
    };
    u16::try_from(number)
        .ok()
        .filter(|status| (100..=599).contains(status))
}

/// Reads a non-2xx answer: what the body says (see [`ErrorReport::from_text`]),
/// else the reason phrase.
pub(crate) fn decode_error(status: u16, body: &str, request_id: Option<String>) -> ApiError {
    ErrorReport::from_text(body).into_api_error(Some(status), reason_phrase(status), request_id)
}

/// The first non-blank line of a text, shortened.
fn first_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    Some(excerpt(line, EXCERPT_BYTES, Keep::Start).to_owned())
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
