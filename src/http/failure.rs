//! ureq's and the socket's errors in chatwire's words: which timeout ran
//! out, retryable connection trouble, refused certificates, limits.

use std::time::Duration;

use crate::config::{Limit, Settings};
use crate::error::{Error, TimeoutKind};
use crate::http::retry::Attempt;
use crate::http::{connect, tls};
use crate::log;

/// Sorts an error of a request into timeouts, retryable connection
/// trouble, and the rest. Out of line, as a failure's road is: see
/// `attempt::refused`.
#[inline(never)]
pub(crate) fn of_transport<T>(
    endpoint: &str,
    error: ureq::Error,
    settings: &Settings,
) -> Attempt<T> {
    // A refused certificate is refused again on a retry.
    if let Some(detail) = tls::certificate_failure(&error) {
        return Attempt::Failed(Error::Tls {
            message: format!("{}: {detail}", log::shown_url(endpoint)),
        });
    }
    match error {
        ref error if connect::is_silence(error) => {
            Attempt::Failed(silent(endpoint, settings.idle_timeout))
        }
        ureq::Error::Timeout(which) => Attempt::retryable(timed_out(endpoint, settings, which)),
        ureq::Error::Io(io) => Attempt::retryable(of_read(endpoint, settings, io)),
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
            Attempt::retryable(transport_error(endpoint, error))
        }
        ureq::Error::BadUri(ref why) => {
            Attempt::Failed(Error::Config(format!("bad URL {endpoint}: {why}")))
        }
        ureq::Error::BodyExceedsLimit(limit) => Attempt::Failed(Limit::Body.exceeded(limit)),
        ureq::Error::LargeResponseHeader(_, limit) => {
            Attempt::Failed(Limit::Headers.exceeded(limit as u64))
        }
        other => Attempt::Failed(transport_error(endpoint, other)),
    }
}

/// Sorts an I/O error: of a request, or of a read from a body that has
/// begun to arrive.
pub(crate) fn of_read(endpoint: &str, settings: &Settings, error: std::io::Error) -> Error {
    match error {
        error if connect::is_silence(&error) => silent(endpoint, settings.idle_timeout),
        error if is_timeout(&error) => timed_out(endpoint, settings, ureq::Timeout::Global),
        error => transport_error(endpoint, error),
    }
}

/// ureq reports a timeout while reading a body as an I/O error wrapping its own.
fn is_timeout(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::TimedOut
        || error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
            .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)))
}

/// A timeout error that says which timeout ran out.
fn timed_out(endpoint: &str, settings: &Settings, which: ureq::Timeout) -> Error {
    match which {
        ureq::Timeout::Resolve => Error::Timeout {
            kind: TimeoutKind::Connect,
            message: format!(
                "could not connect to {endpoint}: the name lookup did not answer within the connect timeout of {:?}",
                settings.connect_timeout
            ),
        },
        ureq::Timeout::Connect => Error::Timeout {
            kind: TimeoutKind::Connect,
            message: format!(
                "could not connect to {endpoint} within the connect timeout of {:?}",
                settings.connect_timeout
            ),
        },
        _ => Error::Timeout {
            kind: TimeoutKind::Request,
            message: format!(
                "no complete response from {endpoint} within the request timeout of {:?}",
                settings.timeout
            ),
        },
    }
}

/// The error of a stream that stayed silent for the idle timeout.
fn silent(endpoint: &str, idle_timeout: Duration) -> Error {
    Error::Timeout {
        kind: TimeoutKind::Idle,
        message: format!(
            "the stream from {endpoint} was silent for the idle timeout of {idle_timeout:?}"
        ),
    }
}

fn transport_error(endpoint: &str, error: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Transport {
        message: format!("{endpoint}: {error}"),
        source: Some(Box::new(error)),
    }
}
