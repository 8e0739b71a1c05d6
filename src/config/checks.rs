//! The checks that hold a setting to its maximum in
//! [`defaults`](super::defaults): each returns the value given, or an
//! [`Error::InvalidArgument`] naming the setting, its range and the value.

use std::time::Duration;

use super::defaults::{
    MAX_IDLE_CONNECTIONS, MAX_IN_FLIGHT, MAX_JSON_CORRECTIONS, MAX_RETRIES_CEILING, MAX_TIMEOUT,
    MAX_WORKER_STACK_BYTES, MIN_WORKER_STACK_BYTES,
};
use crate::error::{Error, Result};

/// `value` when `ok`, else an [`Error::InvalidArgument`] saying `why`.
fn kept<T>(value: T, ok: bool, why: impl FnOnce() -> String) -> Result<T> {
    ok.then_some(value)
        .ok_or_else(|| Error::InvalidArgument(why()))
}

/// A retry count of at most [`MAX_RETRIES_CEILING`].
pub(crate) fn checked_retries(n: u32) -> Result<u32> {
    kept(n, n <= MAX_RETRIES_CEILING, || {
        format!("max retries must be at most {MAX_RETRIES_CEILING}, not {n}")
    })
}

/// A timeout longer than zero (zero would fail every request at once) and
/// at most [`MAX_TIMEOUT`]; `what` names it in the error ("idle timeout").
pub(crate) fn checked_timeout(time: Duration, what: &str) -> Result<Duration> {
    kept(time, !time.is_zero() && time <= MAX_TIMEOUT, || {
        let ms = time.as_millis();
        format!("the {what} must be longer than zero and at most 24 hours, not {ms} ms")
    })
}

/// A pool size of at most [`MAX_IDLE_CONNECTIONS`].
pub(crate) fn checked_pool_size(n: usize) -> Result<usize> {
    kept(n, n <= MAX_IDLE_CONNECTIONS, || {
        format!("a client keeps at most {MAX_IDLE_CONNECTIONS} idle connections, not {n}")
    })
}

/// A cap on requests in flight, from 1 to [`MAX_IN_FLIGHT`].
pub(crate) fn checked_in_flight(n: usize) -> Result<usize> {
    kept(n, (1..=MAX_IN_FLIGHT).contains(&n), || {
        format!("the cap on requests in flight is from 1 to {MAX_IN_FLIGHT}, not {n}")
    })
}

/// A worker thread's stack size, from [`MIN_WORKER_STACK_BYTES`] to [`MAX_WORKER_STACK_BYTES`].
pub(crate) fn checked_stack_size(n: usize) -> Result<usize> {
    let (min, max) = (MIN_WORKER_STACK_BYTES, MAX_WORKER_STACK_BYTES);
    kept(n, (min..=max).contains(&n), || {
        format!("a worker's stack is from {min} to {max} bytes, not {n}")
    })
}

/// A number of correction turns of at most [`MAX_JSON_CORRECTIONS`].
pub(crate) fn checked_corrections(n: u32) -> Result<u32> {
    kept(n, n <= MAX_JSON_CORRECTIONS, || {
        format!("at most {MAX_JSON_CORRECTIONS} correction turns can be set, not {n}")
    })
}

#[cfg(test)]
mod tests {
    use crate::config::checks::*;

    fn message<T: std::fmt::Debug>(result: Result<T>) -> String {
        match result {
            Err(Error::InvalidArgument(message)) => message,
            other => panic!("expected an invalid argument, got {other:?}"),
        }
    }

    #[test]
    fn retries_up_to_the_ceiling() {
        assert_eq!(checked_retries(0).unwrap(), 0);
        assert_eq!(checked_retries(MAX_RETRIES_CEILING).unwrap(), 10);
        assert_eq!(
            message(checked_retries(11)),
            "max retries must be at most 10, not 11"
        );
    }

    #[test]
    fn timeouts_above_zero_and_up_to_a_day() {
        assert_eq!(
            checked_timeout(MAX_TIMEOUT, "timeout").unwrap(),
            MAX_TIMEOUT
        );
        let one_ms = Duration::from_millis(1);
        assert_eq!(checked_timeout(one_ms, "timeout").unwrap(), one_ms);
        assert_eq!(
            message(checked_timeout(Duration::ZERO, "idle timeout")),
            "the idle timeout must be longer than zero and at most 24 hours, not 0 ms"
        );
        assert_eq!(
            message(checked_timeout(MAX_TIMEOUT + one_ms, "connect timeout")),
            "the connect timeout must be longer than zero and at most 24 hours, not 86400001 ms"
        );
    }

    #[test]
    fn pool_size_up_to_its_maximum() {
        assert_eq!(checked_pool_size(0).unwrap(), 0);
        assert_eq!(checked_pool_size(MAX_IDLE_CONNECTIONS).unwrap(), 1024);
        assert_eq!(
            message(checked_pool_size(1025)),
            "a client keeps at most 1024 idle connections, not 1025"
        );
    }

    #[test]
    fn corrections_up_to_their_maximum() {
        assert_eq!(checked_corrections(MAX_JSON_CORRECTIONS).unwrap(), 10);
        assert_eq!(
            message(checked_corrections(11)),
            "at most 10 correction turns can be set, not 11"
        );
    }
}
