//! How an error reads: `Display` and `Debug` (see [`Error`]).

use std::fmt;

use super::one_line::OneLine;
use super::{excerpt, ApiError, Error, Keep, EXCERPT_BYTES};

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_raw(&mut OneLine(f))
    }
}

impl fmt::Debug for Error {
    /// `Variant: message`; with `{:#?}`, the fields under the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            self.debug_fields(f)
        } else {
            write!(f, "{}: {self}", self.variant())
        }
    }
}

impl Error {
    /// The text of `Display`, before escaping.
    fn write_raw(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Error::InvalidArgument(text) => write!(out, "invalid argument: {text}"),
            Error::InvalidConversation(text) => write!(out, "invalid conversation: {text}"),
            Error::MissingApiKey => out.write_str(
                "no API key: pass one (\"\" for none), set OPENAI_API_KEY (AZURE_OPENAI_API_KEY for Azure), or add it to .env in the current directory",
            ),
            Error::Config(text) => write!(out, "invalid configuration: {text}"),
            Error::Transport { message, .. } => write!(out, "transport error: {message}"),
            Error::Timeout { message, .. } => write!(out, "timed out: {message}"),
            Error::Auth(api) => Self::write_api(out, "authentication failed", api),
            Error::RateLimited(api) => Self::write_api(out, "rate limited", api),
            Error::Server(api) => Self::write_api(out, "server error", api),
            Error::Http(api) => Self::write_api(out, "request failed", api),
            Error::ContextLength(api) => Self::write_api(out, "context length exceeded", api),
            Error::ContentFiltered(api) => Self::write_api(out, "refused by the content filter", api),
            Error::Decode { message, excerpt } => write!(
                out,
                "could not decode the response: {message} (excerpt: {excerpt:?})"
            ),
            Error::NoJson(text) => write!(out, "no JSON found: {text}"),
            Error::Cancelled => out.write_str("cancelled"),
            Error::TooLarge { what, limit } => {
                let unit = if what == super::BATCH_REQUESTS { "requests" } else { "bytes" };
                write!(out, "too large: {what} is over the limit of {limit} {unit}")
            }
            Error::Unavailable(text) => write!(out, "unavailable: {text}"),
            Error::System { message, .. } => write!(out, "system error: {message}"),
            Error::InvalidReply { errors, last_reply } => {
                let last = excerpt(last_reply, EXCERPT_BYTES, Keep::Start);
                write!(out, "invalid reply: {} (last reply: {last:?})", errors.join("; "))
            }
            Error::Tls { message } => write!(out, "TLS error: {message}"),
            Error::Internal(text) => write!(out, "internal error: {text}"),
        }
    }

    fn write_api(out: &mut impl fmt::Write, what: &str, api: &ApiError) -> fmt::Result {
        write!(out, "{what}: ")?;
        api.write_raw(out)
    }

    /// The variant's name, as `Debug` starts with it.
    fn variant(&self) -> &'static str {
        macro_rules! names {
            ($($name:ident)*) => {
                match self { $(Error::$name { .. } => stringify!($name),)* }
            };
        }
        names! {
            InvalidArgument InvalidConversation MissingApiKey Config Transport Timeout Auth
            RateLimited Server Http ContextLength ContentFiltered Decode NoJson Cancelled
            TooLarge Unavailable System InvalidReply Tls Internal
        }
    }

    /// `{:#?}`: the message, then what it leaves out. An underlying error
    /// is shown by its text, as `redact` checked it, not its `Debug`.
    fn debug_fields(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct(self.variant());
        out.field("message", &self.to_string());
        if let Some(api) = self.api_error() {
            out.field("api", api);
        }
        match self {
            Error::Timeout { kind, .. } => out.field("kind", kind),
            Error::Transport {
                source: Some(source),
                ..
            } => out.field("source", &source.to_string()),
            Error::System { source, .. } => out
                .field("source", &source.to_string())
                .field("os_error", &source.raw_os_error()),
            Error::Decode { excerpt, .. } => out.field("excerpt", excerpt),
            Error::InvalidReply { errors, last_reply } => {
                out.field("errors", errors).field("last_reply", last_reply)
            }
            _ => &mut out,
        };
        out.finish()
    }
}
