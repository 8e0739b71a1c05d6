//! The crate's one error type.
//!
//! Each variant is a thing a caller can act on: fix the input, fix the
//! configuration, retry later, or give up. The C layer maps every variant to
//! one `chatwire_status` code in a single table (`ffi::status`).

use std::fmt;

/// The result type of every fallible chatwire call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error reported by the server: the HTTP status and what its
/// `{"error": {...}}` body said, when it said anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status code, or 0 for an error reported inside a stream.
    pub status: u16,
    /// The server's message, or the HTTP reason phrase when the body had none.
    pub message: String,
    /// The error's `type` field (`invalid_request_error`, `insufficient_quota`, ...).
    pub kind: Option<String>,
    /// The error's `code` field; numeric codes are kept as their decimal text.
    pub code: Option<String>,
    /// The `x-request-id` response header, to quote when asking the provider for help.
    pub request_id: Option<String>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.status != 0 {
            write!(f, "HTTP {}: ", self.status)?;
        }
        f.write_str(&self.message)?;
        let details = [
            ("type", &self.kind),
            ("code", &self.code),
            ("request id", &self.request_id),
        ];
        for (label, value) in details {
            if let Some(value) = value {
                write!(f, " ({label} {value})")?;
            }
        }
        Ok(())
    }
}

/// Everything that can go wrong in chatwire.
///
/// The messages are single lines, lower case, and never contain the API key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument was out of range or malformed (a zero timeout, an unknown role).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The conversation breaks the ordering rules, or is not ready to be sent.
    #[error("invalid conversation: {0}")]
    InvalidConversation(String),

    /// No API key was given, in the environment, or in `./.env`.
    #[error(
        "no API key: pass one, set OPENAI_API_KEY, or add OPENAI_API_KEY=... to .env in the current directory"
    )]
    MissingApiKey,

    /// The client's configuration is unusable (a base URL that is not http(s), say).
    #[error("invalid configuration: {0}")]
    Config(String),

    /// The server could not be reached, or the connection broke.
    #[error("transport error: {message}")]
    Transport {
        /// What happened, including the address that was tried.
        message: String,
        /// The underlying error, where there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },

    /// The request took longer than the configured timeout.
    #[error("timed out: {0}")]
    Timeout(String),

    /// The server refused the key (HTTP 401 or 403).
    #[error("authentication failed: {0}")]
    Auth(Box<ApiError>),

    /// The server is rate limiting this key (HTTP 429), also after retrying.
    #[error("rate limited: {0}")]
    RateLimited(Box<ApiError>),

    /// The server failed (HTTP 5xx), also after retrying.
    #[error("server error: {0}")]
    Server(Box<ApiError>),

    /// Any other non-2xx answer (400, 404, 422, ...).
    #[error("request failed: {0}")]
    Http(Box<ApiError>),

    /// A 2xx answer whose body is not a chat completion.
    #[error("could not decode the response: {message} (body starts: {excerpt:?})")]
    Decode {
        /// What was wrong with the body.
        message: String,
        /// A short excerpt of the body, cut at a character boundary.
        excerpt: String,
    },

    /// [`extract_json`](crate::extract_json) found no usable JSON in the text.
    #[error("no JSON found: {0}")]
    NoJson(String),

    /// The caller cancelled the request.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// The HTTP status of an error the server reported, `None` for every other error.
    pub fn http_status(&self) -> Option<u16> {
        self.api_error()
            .map(|api| api.status)
            .filter(|&status| status != 0)
    }

    /// The server's error details, for errors the server reported.
    pub fn api_error(&self) -> Option<&ApiError> {
        match self {
            Error::Auth(api) | Error::RateLimited(api) | Error::Server(api) | Error::Http(api) => {
                Some(api)
            }
            _ => None,
        }
    }

    /// Builds the error variant that matches an HTTP status.
    pub(crate) fn from_api(api: ApiError) -> Error {
        let api = Box::new(api);
        match api.status {
            401 | 403 => Error::Auth(api),
            429 => Error::RateLimited(api),
            500..=599 => Error::Server(api),
            _ => Error::Http(api),
        }
    }

    /// A decode error quoting the start of the offending body.
    pub(crate) fn decode(message: impl Into<String>, body: &str) -> Error {
        Error::Decode {
            message: message.into(),
            excerpt: excerpt(body, 200).to_owned(),
        }
    }
}

/// The first `max` bytes of `text` or less, cut at a character boundary.
pub(crate) fn excerpt(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_never_splits_a_character() {
        let text = "ééé";
        assert_eq!(excerpt(text, 3), "é");
        assert_eq!(excerpt(text, 100), text);
    }

    #[test]
    fn status_picks_the_variant() {
        let api = |status| ApiError {
            status,
            ..ApiError::default()
        };
        assert!(matches!(Error::from_api(api(401)), Error::Auth(_)));
        assert!(matches!(Error::from_api(api(403)), Error::Auth(_)));
        assert!(matches!(Error::from_api(api(429)), Error::RateLimited(_)));
        assert!(matches!(Error::from_api(api(503)), Error::Server(_)));
        assert!(matches!(Error::from_api(api(422)), Error::Http(_)));
        assert_eq!(Error::from_api(api(404)).http_status(), Some(404));
        assert_eq!(Error::Cancelled.http_status(), None);
    }

    #[test]
    fn api_error_display_names_every_detail() {
        let api = ApiError {
            status: 429,
            message: "slow down".into(),
            kind: Some("rate_limit_error".into()),
            code: Some("rate_limit".into()),
            request_id: Some("req_1".into()),
        };
        assert_eq!(
            api.to_string(),
            "HTTP 429: slow down (type rate_limit_error) (code rate_limit) (request id req_1)"
        );
    }
}
