//! The crate's one error type: each variant is a thing a caller can act
//! on. The C layer maps each to a `chatwire_status` code (`ffi::status`).

use std::fmt;

use crate::secrets::Secrets;

pub(crate) mod one_line;
mod text;

use one_line::OneLine;

/// The result type of every fallible chatwire call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error reported by the server: the HTTP status and what its body said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApiError {
    /// The HTTP status code; `None` for an error inside a stream.
    pub status: Option<u16>,
    /// The server's message, or the HTTP reason phrase when the body had none.
    pub message: String,
    /// The error's `type` field (`invalid_request_error`, `insufficient_quota`, ...).
    pub kind: Option<String>,
    /// The error's `code` field; numeric codes are kept as their decimal text.
    pub code: Option<String>,
    /// The request id the server or gateway sent (as [`Reply::request_id`](crate::Reply::request_id)).
    pub request_id: Option<String>,
}

impl fmt::Display for ApiError {
    /// `HTTP 400: the message (type t, code c, request id r)`, on one line
    /// (see [`Error`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_raw(&mut OneLine(f))
    }
}

impl ApiError {
    fn redact(&mut self, secrets: &Secrets) {
        // The message may be the first line of a body, cut short.
        self.message = secrets.redact_excerpt(&self.message);
        for text in [&mut self.kind, &mut self.code, &mut self.request_id] {
            text.iter_mut().for_each(|text| secrets.scrub(text));
        }
    }

    /// The text of `Display`, before escaping.
    fn write_raw(&self, out: &mut impl fmt::Write) -> fmt::Result {
        if let Some(status) = self.status {
            write!(out, "HTTP {status}")?;
            if !self.message.is_empty() {
                out.write_str(": ")?;
            }
        }
        out.write_str(&self.message)?;
        let details = [
            ("type", &self.kind),
            ("code", &self.code),
            ("request id", &self.request_id),
        ];
        let mut opener = " (";
        for (label, value) in details {
            if let Some(value) = value {
                write!(out, "{opener}{label} {value}")?;
                opener = ", ";
            }
        }
        if opener == ", " {
            out.write_str(")")?;
        }
        Ok(())
    }
}

/// Everything that can go wrong in chatwire.
///
/// `Display` gives one line, a server's text escaped onto it (the fields
/// keep it raw): `authentication failed: HTTP 401: Invalid API Key (request
/// id req_1)`. `Debug` is `Variant: the same line`; `{:#?}` adds the fields.
/// Neither ever holds the API key or a header value (`[redacted]`).
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument was out of range or malformed (a zero timeout, an unknown role).
    InvalidArgument(String),

    /// The conversation breaks the ordering rules, or is not ready to be sent.
    InvalidConversation(String),

    /// No API key was given, in the environment, or in `./.env`.
    MissingApiKey,

    /// The client's configuration is unusable (a base URL that is not http(s), say).
    Config(String),

    /// The server could not be reached, or the connection broke.
    Transport {
        /// What happened, including the address that was tried.
        message: String,
        /// The underlying error, where there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },

    /// One of the timeouts ran out; `kind` says which.
    Timeout {
        /// Which timeout ran out.
        kind: TimeoutKind,
        /// What was being waited for, and the timeout's value.
        message: String,
    },

    /// The server refused the key (HTTP 401 or 403).
    Auth(Box<ApiError>),

    /// The server is rate limiting this key (HTTP 429), also after retrying.
    RateLimited(Box<ApiError>),

    /// The server failed (HTTP 5xx), also after retrying.
    Server(Box<ApiError>),

    /// Any other non-2xx answer (400, 404, 422, ...).
    Http(Box<ApiError>),

    /// The conversation is longer than the model's context window, as the
    /// server said, or the last exchange alone is over a token budget. Not retried.
    ContextLength(Box<ApiError>),

    /// The provider's content filter refused the request (an error with
    /// code `content_filter`). Not retried.
    ContentFiltered(Box<ApiError>),

    /// A 2xx answer whose body is not a chat completion.
    Decode {
        /// What was wrong with the body.
        message: String,
        /// A short excerpt of the body (its start, or a cut stream's end).
        excerpt: String,
    },

    /// [`extract_json`](crate::extract_json) found no usable JSON in the text.
    NoJson(String),

    /// The caller cancelled the request.
    Cancelled,

    /// What the server sent is larger than its [`Limit`](crate::Limit); the
    /// request was stopped there. Also a batch input file past what a
    /// provider takes ([`MAX_BATCH_REQUESTS`](crate::MAX_BATCH_REQUESTS),
    /// [`MAX_BATCH_FILE_BYTES`](crate::MAX_BATCH_FILE_BYTES)).
    TooLarge {
        /// What grew past its limit (the response body, one stream event, ...).
        what: String,
        /// The limit, in bytes (for a batch's count of requests, in requests).
        limit: u64,
    },

    /// What was asked for is not there: a batch's result for a request that
    /// never ran (the batch expired or was cancelled first), or that no
    /// results file read holds.
    Unavailable(String),

    /// The operating system refused something, such as a thread.
    System {
        /// What chatwire was trying to do.
        message: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The model's reply did not match the JSON Schema asked for
    /// ([`Client::send_json`](crate::Client::send_json)), also after correction.
    InvalidReply {
        /// Each problem of the last reply with its place, or why it held no JSON.
        errors: Vec<String>,
        /// The last reply, as the model wrote it.
        last_reply: String,
    },

    /// The TLS handshake failed: the server's certificate was refused, no TLS
    /// could be agreed, or a client certificate was wanted or refused. Not retried.
    Tls {
        /// What failed, and the server's address.
        message: String,
    },

    /// A state chatwire never expects (a panic in a callback, say).
    Internal(String),
}

/// Which timeout ran out; see [`Error::Timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutKind {
    /// Connecting (name lookup, TCP, TLS) took longer than the connect timeout.
    Connect,
    /// The whole request took longer than the request timeout.
    Request,
    /// A stream was silent (not even a keep-alive) for longer than the idle timeout.
    Idle,
}

impl Error {
    /// The HTTP status of an error the server reported, `None` for every other error.
    pub fn http_status(&self) -> Option<u16> {
        self.api_error().and_then(|api| api.status)
    }

    /// Which timeout ran out, for [`Error::Timeout`].
    pub fn timeout_kind(&self) -> Option<TimeoutKind> {
        match self {
            Error::Timeout { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// The server's error details, for errors the server reported.
    pub fn api_error(&self) -> Option<&ApiError> {
        match self {
            Error::Auth(api)
            | Error::RateLimited(api)
            | Error::Server(api)
            | Error::Http(api)
            | Error::ContextLength(api)
            | Error::ContentFiltered(api) => Some(api),
            _ => None,
        }
    }

    /// Builds the error variant that matches an HTTP status.
    pub(crate) fn from_api(api: ApiError) -> Error {
        let api = Box::new(api);
        if api.code.as_deref() == Some("content_filter") {
            return Error::ContentFiltered(api);
        }
        let (kind, code) = (api.kind.as_deref(), api.code.as_deref());
        let overflow = || crate::wire::overflow::is_context_length(&api.message, kind, code);
        match api.status {
            Some(401 | 403) => Error::Auth(api),
            Some(429) => Error::RateLimited(api),
            Some(400..=499) if overflow() => Error::ContextLength(api),
            Some(500..=599) => Error::Server(api),
            _ => Error::Http(api),
        }
    }

    /// A decode error quoting the start of the offending body.
    pub(crate) fn decode(message: impl Into<String>, body: &str) -> Error {
        Error::Decode {
            message: message.into(),
            excerpt: excerpt(body, EXCERPT_BYTES, Keep::Start).to_owned(),
        }
    }

    /// The same error without any of `secrets` in any of its texts (an
    /// underlying error whose text holds a secret is dropped).
    pub(crate) fn redact(mut self, secrets: &Secrets) -> Error {
        match &mut self {
            Error::InvalidArgument(text)
            | Error::InvalidConversation(text)
            | Error::Config(text)
            | Error::NoJson(text)
            | Error::Internal(text)
            | Error::Unavailable(text)
            | Error::Timeout { message: text, .. }
            | Error::System { message: text, .. }
            | Error::Tls { message: text } => secrets.scrub(text),
            Error::Transport { message, source } => {
                secrets.scrub(message);
                let shown = source.as_ref().map(ToString::to_string);
                if shown.is_some_and(|shown| secrets.redact(&shown) != shown) {
                    *source = None;
                }
            }
            Error::Auth(api)
            | Error::RateLimited(api)
            | Error::Server(api)
            | Error::Http(api)
            | Error::ContextLength(api)
            | Error::ContentFiltered(api) => api.redact(secrets),
            Error::Decode { message, excerpt } => {
                secrets.scrub(message);
                *excerpt = secrets.redact_excerpt(excerpt);
            }
            Error::TooLarge { what, .. } => secrets.scrub(what),
            // Unlike a reply, the error's text is chatwire's: cleaned.
            Error::InvalidReply { errors, last_reply } => {
                errors.iter_mut().for_each(|error| secrets.scrub(error));
                secrets.scrub(last_reply);
            }
            Error::MissingApiKey | Error::Cancelled => {}
        }
        self
    }
}

pub(crate) const EXCERPT_BYTES: usize = 200;

/// The `what` of an [`Error::TooLarge`] whose limit counts requests, not bytes.
pub(crate) const BATCH_REQUESTS: &str = "the requests of one batch input file";

/// Which end of a text an excerpt keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// The beginning: what a body starts with.
    Start,
    /// The end: where a cut-off stream stopped.
    End,
}

/// At most `max` bytes of `text`, from the end `keep` names, cut at a
/// character boundary.
pub(crate) fn excerpt(text: &str, max: usize, keep: Keep) -> &str {
    if text.len() <= max {
        return text;
    }
    let boundary = |at: &usize| text.is_char_boundary(*at);
    match keep {
        Keep::Start => &text[..(0..=max).rev().find(boundary).unwrap_or(0)],
        Keep::End => &text[(text.len() - max..).find(boundary).unwrap_or(text.len())..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_never_splits_a_character() {
        let text = "ééé";
        assert_eq!(excerpt(text, 3, Keep::Start), "é");
        assert_eq!(excerpt(text, 3, Keep::End), "é");
        assert_eq!(excerpt(text, 100, Keep::Start), text);
        assert_eq!(excerpt(text, 100, Keep::End), text);
        // 'é' is two bytes, so byte 200 from the end falls inside a char.
        let long = format!("{}a", "é".repeat(150));
        let tail = excerpt(&long, EXCERPT_BYTES, Keep::End);
        assert_eq!(tail.len(), 199);
        assert!(long.ends_with(tail));
    }

    #[test]
    fn status_picks_the_variant() {
        let api = |status| ApiError {
            status: Some(status),
            ..ApiError::default()
        };
        assert!(matches!(Error::from_api(api(401)), Error::Auth(_)));
        assert!(matches!(Error::from_api(api(403)), Error::Auth(_)));
        assert!(matches!(Error::from_api(api(429)), Error::RateLimited(_)));
        assert!(matches!(Error::from_api(api(503)), Error::Server(_)));
        assert!(matches!(Error::from_api(api(422)), Error::Http(_)));
        assert_eq!(Error::from_api(api(404)).http_status(), Some(404));
        let filtered = ApiError {
            code: Some("content_filter".into()),
            ..api(400)
        };
        assert!(matches!(
            Error::from_api(filtered),
            Error::ContentFiltered(_)
        ));
        assert_eq!(Error::Cancelled.http_status(), None);
    }

    #[test]
    fn api_error_display_names_every_detail() {
        let api = ApiError {
            status: Some(429),
            message: "slow down".into(),
            kind: Some("rate_limit_error".into()),
            code: Some("rate_limit".into()),
            request_id: Some("req_1".into()),
        };
        assert_eq!(
            api.to_string(),
            "HTTP 429: slow down (type rate_limit_error, code rate_limit, request id req_1)"
        );
        let bare = ApiError {
            status: Some(503),
            ..ApiError::default()
        };
        assert_eq!(bare.to_string(), "HTTP 503");
    }

    fn auth_401() -> Error {
        Error::from_api(ApiError {
            status: Some(401),
            message: "Invalid API Key".into(),
            request_id: Some("req_1".into()),
            ..ApiError::default()
        })
    }

    #[test]
    fn display_says_each_thing_once() {
        assert_eq!(
            auth_401().to_string(),
            "authentication failed: HTTP 401: Invalid API Key (request id req_1)"
        );
    }

    #[test]
    fn debug_is_the_variant_and_the_message() {
        assert_eq!(
            format!("{:?}", Error::MissingApiKey),
            format!("MissingApiKey: {}", Error::MissingApiKey)
        );
        assert_eq!(
            format!("{:?}", auth_401()),
            "Auth: authentication failed: HTTP 401: Invalid API Key (request id req_1)"
        );
        let pretty = format!("{:#?}", auth_401());
        assert!(pretty.starts_with("Auth {\n    message: \"authentication failed: HTTP 401"));
        assert!(pretty.contains("status: Some(\n"), "{pretty}");
        assert!(pretty.contains("request_id: Some(\n"), "{pretty}");
    }

    #[test]
    fn a_servers_text_stays_on_one_line() {
        let error = Error::from_api(ApiError {
            status: Some(400),
            message: "first\nsecond\r\n\u{1b}[31mFAKE: forged\u{2028}end".into(),
            code: Some("c\nd".into()),
            ..ApiError::default()
        });
        let shown = error.to_string();
        assert_eq!(
            shown,
            "request failed: HTTP 400: first\\nsecond\\r\\n\\u{1b}[31mFAKE: forged\\u{2028}end (code c\\nd)"
        );
        assert!(format!("{error:?}").ends_with(&shown));
        // The field keeps what the server sent.
        assert!(error.api_error().unwrap().message.contains("\r\n"));
        let decode = Error::decode("bad", "a\nb");
        assert!(!decode.to_string().contains('\n'));
    }
}
