//! Status codes, roles, the one table that maps [`Error`] to a status, why a
//! C call failed ([`FfiError`]), and the library's version.

use std::ffi::{c_char, c_int, CStr};

use crate::config::Limit;
use crate::conversation::message::Role;
use crate::error::Error;

/// The result of every fallible chatwire function; `CHATWIRE_OK` is 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum chatwire_status {
    /// Success.
    CHATWIRE_OK = 0,
    /// A required pointer argument was NULL.
    CHATWIRE_ERR_NULL_ARGUMENT = 1,
    /// An argument was out of range or malformed (a role, a zero timeout, bad JSON).
    CHATWIRE_ERR_INVALID_ARGUMENT = 2,
    /// A string argument was not valid UTF-8.
    CHATWIRE_ERR_INVALID_UTF8 = 3,
    /// The message would break the ordering rules, or the conversation cannot be sent as it is.
    CHATWIRE_ERR_INVALID_CONVERSATION = 4,
    /// No API key: not passed, not in $OPENAI_API_KEY, not in ./.env.
    CHATWIRE_ERR_MISSING_API_KEY = 5,
    /// Unusable configuration (a base URL that is not http(s), say).
    CHATWIRE_ERR_CONFIG = 6,
    /// The server could not be reached or the connection broke.
    CHATWIRE_ERR_TRANSPORT = 7,
    /// The request took longer than the client's timeout.
    CHATWIRE_ERR_TIMEOUT = 8,
    /// The server refused the key (HTTP 401 or 403), or the credential callback failed.
    CHATWIRE_ERR_AUTH = 9,
    /// Rate limited (HTTP 429), also after retrying.
    CHATWIRE_ERR_RATE_LIMITED = 10,
    /// The server failed (HTTP 5xx), also after retrying.
    CHATWIRE_ERR_SERVER = 11,
    /// Any other non-2xx HTTP status (400, 404, 422, ...), or a redirect not followed.
    CHATWIRE_ERR_HTTP = 12,
    /// A 2xx response whose body is not a chat completion.
    CHATWIRE_ERR_DECODE = 13,
    /// No JSON found in the text given to chatwire_extract_json().
    CHATWIRE_ERR_NO_JSON = 14,
    /// The request was cancelled.
    CHATWIRE_ERR_CANCELLED = 15,
    /// A bug inside chatwire was caught at the API boundary; please report it.
    CHATWIRE_ERR_PANIC = 16,
    /// The server did not send what was asked for (token usage, say).
    CHATWIRE_ERR_UNAVAILABLE = 17,
    /// What the server sent is over a limit (chatwire_client_set_limit()).
    CHATWIRE_ERR_TOO_LARGE = 18,
    /// The operating system refused something chatwire needed (a thread, say).
    CHATWIRE_ERR_SYSTEM = 19,
    /// The reply did not match the JSON Schema of chatwire_send_json().
    CHATWIRE_ERR_INVALID_REPLY = 20,
    /// The TLS handshake failed (a certificate refused: see
    /// chatwire_client_set_ca_file()); not retried.
    CHATWIRE_ERR_TLS = 21,
    /// The conversation is longer than the model's context window, or its
    /// last exchange alone is over the token budget; not retried.
    CHATWIRE_ERR_CONTEXT_LENGTH = 22,
    /// The provider's content filter refused the request; not retried.
    CHATWIRE_ERR_CONTENT_FILTERED = 23,
}

use chatwire_status::*;

/// The role of a message, as an `int` (chatwire_conversation_append()).
#[repr(C)]
#[allow(dead_code)]
pub enum chatwire_role {
    /// Instructions for the model; at most one, and only first.
    CHATWIRE_ROLE_SYSTEM = 0,
    /// The person or program asking.
    CHATWIRE_ROLE_USER = 1,
    /// The model's answer.
    CHATWIRE_ROLE_ASSISTANT = 2,
    /// A tool's result (appended with chatwire_conversation_append_tool_result()).
    CHATWIRE_ROLE_TOOL = 3,
}

/// Which limit chatwire_client_set_limit() sets; see there.
#[repr(C)]
#[allow(dead_code)]
pub enum chatwire_limit {
    /// A whole response body.
    CHATWIRE_LIMIT_BODY = 0,
    /// One line or event of a stream.
    CHATWIRE_LIMIT_EVENT = 1,
    /// All a streamed reply adds up to.
    CHATWIRE_LIMIT_STREAM = 2,
    /// The status line and headers of a response.
    CHATWIRE_LIMIT_HEADERS = 3,
}

/// Where a client puts its credential (chatwire_client_set_auth()).
#[repr(C)]
#[allow(dead_code)]
pub enum chatwire_auth {
    /// "Authorization: Bearer KEY", the default.
    CHATWIRE_AUTH_BEARER = 0,
    /// "api-key: KEY": Azure OpenAI's keys (chatwire_client_new_azure()).
    CHATWIRE_AUTH_API_KEY = 1,
    /// No credential at all, whatever key or callback the client has.
    CHATWIRE_AUTH_NONE = 2,
}

/// The value at index `value` of a C enum's `table`, or an error saying
/// that it is not `what`.
pub(crate) fn from_c<T: Copy>(value: c_int, table: &[T], what: &str) -> Result<T, Error> {
    usize::try_from(value)
        .ok()
        .and_then(|index| table.get(index).copied())
        .ok_or_else(|| Error::InvalidArgument(format!("{value} is not {what}")))
}

pub(crate) fn limit_from_c(which: c_int) -> Result<Limit, Error> {
    let limits = [Limit::Body, Limit::Event, Limit::Stream, Limit::Headers];
    let what = "a chatwire_limit (0 body, 1 event, 2 stream, 3 headers)";
    from_c(which, &limits, what)
}

/// The roles in the order of chatwire_role.
const ROLES: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

pub(crate) fn role_to_c(role: Role) -> c_int {
    let index = ROLES.iter().position(|r| *r == role);
    index.map_or(-1, |index| index as c_int)
}

/// The role for a C value, checked: C may pass any integer.
pub(crate) fn role_from_c(role: c_int) -> Result<Role, Error> {
    let what = "a chatwire_role (0 system, 1 user, 2 assistant, 3 tool)";
    let refusal = |_| Error::InvalidArgument(format!("role {role} is not {what}"));
    from_c(role, &ROLES, what).map_err(refusal)
}

/// The status for each error: the single table between Rust errors and C codes.
pub(crate) fn status_of(error: &Error) -> chatwire_status {
    match error {
        Error::InvalidArgument(_) => CHATWIRE_ERR_INVALID_ARGUMENT,
        Error::InvalidConversation(_) => CHATWIRE_ERR_INVALID_CONVERSATION,
        Error::MissingApiKey => CHATWIRE_ERR_MISSING_API_KEY,
        Error::Config(_) => CHATWIRE_ERR_CONFIG,
        Error::Transport { .. } => CHATWIRE_ERR_TRANSPORT,
        Error::Timeout { .. } => CHATWIRE_ERR_TIMEOUT,
        Error::Auth(_) => CHATWIRE_ERR_AUTH,
        Error::RateLimited(_) => CHATWIRE_ERR_RATE_LIMITED,
        Error::Server(_) => CHATWIRE_ERR_SERVER,
        Error::Http(_) => CHATWIRE_ERR_HTTP,
        Error::Decode { .. } => CHATWIRE_ERR_DECODE,
        Error::NoJson(_) => CHATWIRE_ERR_NO_JSON,
        Error::Cancelled => CHATWIRE_ERR_CANCELLED,
        Error::TooLarge { .. } => CHATWIRE_ERR_TOO_LARGE,
        Error::System { .. } => CHATWIRE_ERR_SYSTEM,
        Error::InvalidReply { .. } => CHATWIRE_ERR_INVALID_REPLY,
        Error::Internal(_) => CHATWIRE_ERR_PANIC,
        Error::Tls { .. } => CHATWIRE_ERR_TLS,
        Error::ContextLength(_) => CHATWIRE_ERR_CONTEXT_LENGTH,
        Error::ContentFiltered(_) => CHATWIRE_ERR_CONTENT_FILTERED,
    }
}

/// Why a C call failed: a core error, or a problem with what C passed in.
pub(crate) enum FfiError {
    /// A required pointer was NULL; names the argument.
    Null(&'static str),
    /// A string argument was not UTF-8; names the argument.
    Utf8(&'static str),
    /// An index past the end of a list: what the list holds, the index and
    /// the list's length.
    OutOfRange {
        what: &'static str,
        index: usize,
        len: usize,
    },
    /// An error from the Rust API.
    Core(Error),
    /// A panic, with its message.
    Panic(String),
    /// Information the server did not send; says what.
    Unavailable(&'static str),
    /// An error reported before and reported again (waiting twice on a
    /// request): its status, text and HTTP status, as [`FfiError::report`] gives.
    Again((chatwire_status, String, c_int)),
}

impl From<Error> for FfiError {
    fn from(error: Error) -> FfiError {
        FfiError::Core(error)
    }
}

impl FfiError {
    /// The same report as `error` gave, for an error that stays where it is.
    pub(crate) fn again(error: &Error) -> FfiError {
        let http_status = error.http_status().map_or(0, c_int::from);
        FfiError::Again((status_of(error), error.to_string(), http_status))
    }

    /// The status, the last error's text and the HTTP status (0: none).
    pub(crate) fn report(self) -> (chatwire_status, String, c_int) {
        let (status, message) = match self {
            FfiError::Null(name) => (CHATWIRE_ERR_NULL_ARGUMENT, format!("{name} is NULL")),
            FfiError::Utf8(name) => (
                CHATWIRE_ERR_INVALID_UTF8,
                format!("{name} is not valid UTF-8"),
            ),
            FfiError::OutOfRange { what, index, len } => {
                let message = format!("no {what} at index {index}: there are {len}");
                (CHATWIRE_ERR_INVALID_ARGUMENT, message)
            }
            FfiError::Core(error) => return FfiError::again(&error).report(),
            FfiError::Panic(message) => {
                let message = format!("internal error (please report): {message}");
                (CHATWIRE_ERR_PANIC, message)
            }
            FfiError::Unavailable(what) => (
                CHATWIRE_ERR_UNAVAILABLE,
                format!("the server sent no {what}"),
            ),
            FfiError::Again(report) => return report,
        };
        (status, message, 0)
    }
}

fn describe(status: c_int) -> &'static CStr {
    const STATUSES: [&CStr; 24] = [
        c"ok",
        c"a required pointer argument is NULL",
        c"invalid argument",
        c"a string argument is not valid UTF-8",
        c"the conversation breaks the ordering rules or cannot be sent",
        c"no API key (argument, OPENAI_API_KEY or .env)",
        c"invalid configuration",
        c"could not reach the server",
        c"the request timed out",
        c"the server refused the credentials",
        c"rate limited by the server",
        c"the server failed",
        c"the server answered with an error status",
        c"the response is not a chat completion",
        c"no JSON found",
        c"cancelled",
        c"internal error (a caught panic)",
        c"the server did not send this information",
        c"the response is larger than the limit",
        c"the operating system refused a resource",
        c"the reply does not match the JSON Schema",
        c"the TLS handshake failed",
        c"the conversation does not fit the model's context window",
        c"the provider's content filter refused the request",
    ];
    from_c(status, &STATUSES, "a chatwire_status").unwrap_or(c"unknown chatwire_status")
}

/// A static description of a status code, for any `int`; it names the
/// kind of failure only (print chatwire_last_error() to a person).
#[no_mangle]
pub extern "system" fn chatwire_status_str(status: c_int) -> *const c_char {
    describe(status).as_ptr()
}

/// The library's name and version, e.g. "chatwire 0.1.0". Static; do not free.
#[no_mangle]
pub extern "system" fn chatwire_version() -> *const c_char {
    const VERSION: &str = concat!("chatwire ", env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

const fn parse(digits: &str) -> u32 {
    match u32::from_str_radix(digits, 10) {
        Ok(value) => value,
        Err(_) => panic!("a version part is decimal"),
    }
}

const MAJOR: u32 = parse(env!("CARGO_PKG_VERSION_MAJOR"));
const MINOR: u32 = parse(env!("CARGO_PKG_VERSION_MINOR"));
const PATCH: u32 = parse(env!("CARGO_PKG_VERSION_PATCH"));
const NUMBER: u32 = MAJOR * 10_000 + MINOR * 100 + PATCH;

// The encoding below holds while minor and patch stay under 100.
const _: () = assert!(MINOR < 100 && PATCH < 100);

/// The version of the library loaded, as MAJOR * 10000 + MINOR * 100 + PATCH
/// (1.2.3 gives 10203), the encoding of CHATWIRE_VERSION_NUMBER, the header's:
/// check `chatwire_version_number() >= CHATWIRE_VERSION_NUMBER` at run time.
#[no_mangle]
pub extern "system" fn chatwire_version_number() -> u32 {
    NUMBER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_own_text() {
        let texts: Vec<_> = (0..=CHATWIRE_ERR_CONTENT_FILTERED as c_int)
            .map(describe)
            .collect();
        let mut unique = texts.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), texts.len());
        assert_eq!(describe(-1), c"unknown chatwire_status");
        assert_eq!(
            describe(CHATWIRE_ERR_CONTENT_FILTERED as c_int + 1),
            c"unknown chatwire_status"
        );
    }

    #[test]
    fn roles_round_trip_and_reject_strangers() {
        for role in [Role::System, Role::User, Role::Assistant, Role::Tool] {
            assert_eq!(role_from_c(role_to_c(role)).unwrap(), role);
        }
        assert!(role_from_c(4).is_err());
        assert!(role_from_c(-1).is_err());
    }

    #[test]
    fn the_number_encodes_cargo_s_version() {
        let parts: Vec<u32> = env!("CARGO_PKG_VERSION")
            .split(['.', '-', '+'])
            .take(3)
            .map(|part| part.parse().unwrap())
            .collect();
        assert_eq!(
            chatwire_version_number(),
            parts[0] * 10_000 + parts[1] * 100 + parts[2]
        );
        assert_eq!(parse("0"), 0);
        assert_eq!(parse("123"), 123);
    }
}
