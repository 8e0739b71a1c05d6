//! Why a C call failed, before it becomes a status and a last-error text.

use std::ffi::c_int;

use super::status::chatwire_status::{self, *};
use super::status::status_of;
use crate::error::Error;

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
    /// An error reported before and reported again (waiting twice on a request).
    Again {
        status: chatwire_status,
        message: String,
        http_status: c_int,
    },
}

impl From<Error> for FfiError {
    fn from(error: Error) -> FfiError {
        FfiError::Core(error)
    }
}

impl FfiError {
    /// The same report as `error` gave, for an error that stays where it is.
    pub(crate) fn again(error: &Error) -> FfiError {
        FfiError::Again {
            status: status_of(error),
            message: error.to_string(),
            http_status: error.http_status().map_or(0, c_int::from),
        }
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
            FfiError::Again {
                status,
                message,
                http_status,
            } => return (status, message, http_status),
        };
        (status, message, 0)
    }
}
