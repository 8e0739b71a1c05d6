//! An error body, in whichever shape a server used.

use serde_json::Value;

use crate::error::{excerpt, ApiError, Error, Keep, EXCERPT_BYTES};
use crate::wire::message::json_text;

/// What a server said about an error, in whichever shape it used.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorReport {
    pub(crate) message: Option<String>,
    pub(crate) kind: Option<String>,
    /// The `code` field; a number is kept as its decimal text.
    pub(crate) code: Option<String>,
    /// The HTTP status the error names: the first of its `status`,
    /// `status_code`, `statusCode` and `code` fields that is one, as a number
    /// or decimal text (Google's `"INVALID_ARGUMENT"` is passed over).
    pub(crate) code_status: Option<u16>,
}

impl ErrorReport {
    /// Reads an error from a JSON value, if it is one: `{"error": {message,
    /// type, code}}`, `{"error": "text"}`, or vLLM's `{"object": "error", ...}`.
    pub(crate) fn from_value(value: &Value) -> Option<ErrorReport> {
        let object = value.as_object()?;
        if let Some(error) = object.get("error").filter(|error| !error.is_null()) {
            let mut report = ErrorReport::from_fields(error);
            // TGI names the kind beside the error: {"error", "error_type"}.
            let kind = object.get("error_type").and_then(Value::as_str);
            report.kind = report.kind.or_else(|| kind.map(str::to_owned));
            return Some(report);
        }
        (object.get("object").and_then(Value::as_str) == Some("error"))
            .then(|| ErrorReport::from_fields(value))
    }

    /// Reads an error from text: JSON in any shape [`from_value`](Self::from_value)
    /// knows, any other JSON as the error object itself, or plain text (a
    /// proxy's HTML page, say), whose first non-blank line is the message.
    pub(crate) fn from_text(text: &str) -> ErrorReport {
        if let Ok(value) = serde_json::from_str::<Value>(text.trim()) {
            return ErrorReport::from_value(&value)
                .unwrap_or_else(|| ErrorReport::from_fields(&value));
        }
        let line = text.lines().map(str::trim).find(|line| !line.is_empty());
        ErrorReport {
            message: line.map(|line| excerpt(line, EXCERPT_BYTES, Keep::Start).to_owned()),
            ..ErrorReport::default()
        }
    }

    /// Reads an error object `{message, type, code}`; any other value is the message.
    fn from_fields(value: &Value) -> ErrorReport {
        let message = match value {
            Value::Object(_) => value.get("message").and_then(json_text),
            other => json_text(other),
        };
        ErrorReport {
            message: message.filter(|message| !message.is_empty()),
            kind: value.get("type").and_then(Value::as_str).map(str::to_owned),
            code: value
                .get("code")
                .filter(|code| code.is_string() || code.is_number())
                .and_then(json_text),
            code_status: ["status", "status_code", "statusCode", "code"]
                .iter()
                .find_map(|field| value.get(field).and_then(http_status)),
        }
    }

    /// The error as an [`ApiError`], with the HTTP status it came with, else
    /// (an error inside a 2xx answer or a stream) the one it names itself,
    /// and `fallback` as the message when the server gave none.
    pub(crate) fn into_api_error(
        self,
        status: Option<u16>,
        fallback: &str,
        request_id: Option<String>,
    ) -> ApiError {
        ApiError {
            status: status.or(self.code_status),
            message: self.message.unwrap_or_else(|| fallback.to_owned()),
            kind: self.kind,
            code: self.code,
            request_id,
        }
    }
}

/// An error reported inside a successful answer (a 2xx body, a stream): a
/// status it names picks the variant, as for an HTTP error; else it is
/// [`Error::Server`].
pub(crate) fn in_band(api: ApiError) -> Error {
    if api.status.is_some() {
        Error::from_api(api)
    } else {
        Error::Server(Box::new(api))
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
pub(crate) fn decode(status: u16, body: &str, request_id: Option<String>) -> ApiError {
    let reason = ureq::http::StatusCode::from_u16(status).ok();
    let reason = reason.and_then(|code| code.canonical_reason());
    ErrorReport::from_text(body).into_api_error(
        Some(status),
        reason.unwrap_or("unknown status"),
        request_id,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_body_with_numeric_code() {
        let api = decode(
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
            decode(502, "\n<h1>Bad gateway</h1>\n", None).message,
            "<h1>Bad gateway</h1>"
        );
        assert_eq!(decode(503, "", None).message, "Service Unavailable");
    }
}
