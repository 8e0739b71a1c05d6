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
    /// What was asked for is not there: the server did not send it (token
    /// usage, say), or a batch has no result for the request.
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
pub enum chatwire_auth {
    /// "Authorization: Bearer KEY", the default.
    CHATWIRE_AUTH_BEARER = 0,
    /// "api-key: KEY": Azure OpenAI's keys (chatwire_client_new_azure()).
    CHATWIRE_AUTH_API_KEY = 1,
    /// No credential at all, whatever key or callback the client has.
    CHATWIRE_AUTH_NONE = 2,
}

/// The error of an `int` from C that is none of a C enum's constants;
/// `what` says what it should have been.
pub(crate) fn refused(value: c_int, what: &str) -> Error {
    Error::InvalidArgument(format!("{value} is not {what}"))
}

/// The limit for a chatwire_limit, checked: C may pass any integer.
pub(crate) fn limit_from_c(which: c_int) -> Result<Limit, Error> {
    use chatwire_limit::*;
    match which {
        c if c == CHATWIRE_LIMIT_BODY as c_int => Ok(Limit::Body),
        c if c == CHATWIRE_LIMIT_EVENT as c_int => Ok(Limit::Event),
        c if c == CHATWIRE_LIMIT_STREAM as c_int => Ok(Limit::Stream),
        c if c == CHATWIRE_LIMIT_HEADERS as c_int => Ok(Limit::Headers),
        _ => {
            let what = "a chatwire_limit (0 body, 1 event, 2 stream, 3 headers)";
            Err(refused(which, what))
        }
    }
}

/// The chatwire_role of a role, as C reads it.
pub(crate) fn role_to_c(role: Role) -> c_int {
    use chatwire_role::*;
    let role = match role {
        Role::System => CHATWIRE_ROLE_SYSTEM,
        Role::User => CHATWIRE_ROLE_USER,
        Role::Assistant => CHATWIRE_ROLE_ASSISTANT,
        Role::Tool => CHATWIRE_ROLE_TOOL,
    };
    role as c_int
}

/// The role for a C value, checked: C may pass any integer.
pub(crate) fn role_from_c(role: c_int) -> Result<Role, Error> {
    use chatwire_role::*;
    match role {
        c if c == CHATWIRE_ROLE_SYSTEM as c_int => Ok(Role::System),
        c if c == CHATWIRE_ROLE_USER as c_int => Ok(Role::User),
        c if c == CHATWIRE_ROLE_ASSISTANT as c_int => Ok(Role::Assistant),
        c if c == CHATWIRE_ROLE_TOOL as c_int => Ok(Role::Tool),
        _ => {
            let what = "a chatwire_role (0 system, 1 user, 2 assistant, 3 tool)";
            Err(Error::InvalidArgument(format!("role {role} is not {what}")))
        }
    }
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
        Error::Unavailable(_) => CHATWIRE_ERR_UNAVAILABLE,
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

/// The text of a status code; any `int` from C has one.
fn describe(status: c_int) -> &'static CStr {
    match status {
        s if s == CHATWIRE_OK as c_int => c"ok",
        s if s == CHATWIRE_ERR_NULL_ARGUMENT as c_int => c"a required pointer argument is NULL",
        s if s == CHATWIRE_ERR_INVALID_ARGUMENT as c_int => c"invalid argument",
        s if s == CHATWIRE_ERR_INVALID_UTF8 as c_int => c"a string argument is not valid UTF-8",
        s if s == CHATWIRE_ERR_INVALID_CONVERSATION as c_int => {
            c"the conversation breaks the ordering rules or cannot be sent"
        }
        s if s == CHATWIRE_ERR_MISSING_API_KEY as c_int => {
            c"no API key (argument, OPENAI_API_KEY or .env)"
        }
        s if s == CHATWIRE_ERR_CONFIG as c_int => c"invalid configuration",
        s if s == CHATWIRE_ERR_TRANSPORT as c_int => c"could not reach the server",
        s if s == CHATWIRE_ERR_TIMEOUT as c_int => c"the request timed out",
        s if s == CHATWIRE_ERR_AUTH as c_int => c"the server refused the credentials",
        s if s == CHATWIRE_ERR_RATE_LIMITED as c_int => c"rate limited by the server",
        s if s == CHATWIRE_ERR_SERVER as c_int => c"the server failed",
        s if s == CHATWIRE_ERR_HTTP as c_int => c"the server answered with an error status",
        s if s == CHATWIRE_ERR_DECODE as c_int => c"the response is not a chat completion",
        s if s == CHATWIRE_ERR_NO_JSON as c_int => c"no JSON found",
        s if s == CHATWIRE_ERR_CANCELLED as c_int => c"cancelled",
        s if s == CHATWIRE_ERR_PANIC as c_int => c"internal error (a caught panic)",
        s if s == CHATWIRE_ERR_UNAVAILABLE as c_int => {
            c"not available: the server did not send it, or a batch has no result for it"
        }
        s if s == CHATWIRE_ERR_TOO_LARGE as c_int => c"the response is larger than the limit",
        s if s == CHATWIRE_ERR_SYSTEM as c_int => c"the operating system refused a resource",
        s if s == CHATWIRE_ERR_INVALID_REPLY as c_int => {
            c"the reply does not match the JSON Schema"
        }
        s if s == CHATWIRE_ERR_TLS as c_int => c"the TLS handshake failed",
        s if s == CHATWIRE_ERR_CONTEXT_LENGTH as c_int => {
            c"the conversation does not fit the model's context window"
        }
        s if s == CHATWIRE_ERR_CONTENT_FILTERED as c_int => {
            c"the provider's content filter refused the request"
        }
        _ => c"unknown chatwire_status",
    }
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

    /// Integers that no C enum of chatwire has as a constant.
    const STRANGERS: [c_int; 4] = [-1, 4, c_int::MIN, c_int::MAX];

    #[test]
    fn each_role_constant_is_its_role_both_ways() {
        use chatwire_role::*;
        let pairs = [
            (CHATWIRE_ROLE_SYSTEM as c_int, Role::System),
            (CHATWIRE_ROLE_USER as c_int, Role::User),
            (CHATWIRE_ROLE_ASSISTANT as c_int, Role::Assistant),
            (CHATWIRE_ROLE_TOOL as c_int, Role::Tool),
        ];
        for (c, role) in pairs {
            assert_eq!(role_from_c(c).unwrap(), role);
            assert_eq!(role_to_c(role), c);
        }
        for stranger in STRANGERS {
            let error = role_from_c(stranger).unwrap_err();
            assert_eq!(status_of(&error), CHATWIRE_ERR_INVALID_ARGUMENT);
        }
    }

    #[test]
    fn each_limit_constant_is_its_limit() {
        use chatwire_limit::*;
        let pairs = [
            (CHATWIRE_LIMIT_BODY as c_int, Limit::Body),
            (CHATWIRE_LIMIT_EVENT as c_int, Limit::Event),
            (CHATWIRE_LIMIT_STREAM as c_int, Limit::Stream),
            (CHATWIRE_LIMIT_HEADERS as c_int, Limit::Headers),
        ];
        for (c, limit) in pairs {
            assert_eq!(limit_from_c(c).unwrap(), limit);
        }
        for stranger in STRANGERS {
            let error = limit_from_c(stranger).unwrap_err();
            assert_eq!(status_of(&error), CHATWIRE_ERR_INVALID_ARGUMENT);
        }
    }

    #[test]
    fn each_status_constant_has_its_own_text() {
        assert_eq!(describe(CHATWIRE_OK as c_int), c"ok");
        assert_eq!(
            describe(CHATWIRE_ERR_TLS as c_int),
            c"the TLS handshake failed"
        );
        let filtered = c"the provider's content filter refused the request";
        assert_eq!(describe(CHATWIRE_ERR_CONTENT_FILTERED as c_int), filtered);
        for stranger in [-1, 24, c_int::MIN, c_int::MAX] {
            assert_eq!(describe(stranger), c"unknown chatwire_status");
        }
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
