//! What a request is and what an attempt came to, the retry policy, and
//! the loop that runs the attempts and logs one line for each.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant, SystemTime};

use ureq::http::{HeaderMap, HeaderValue, Uri};

use crate::config::{Settings, INITIAL_BACKOFF, MAX_BACKOFF, MAX_RETRY_AFTER};
use crate::error::{ApiError, Error, Result};
use crate::http::cancel::CancelToken;
use crate::http::pool::Pool;
use crate::log;

/// What one attempt came to.
pub(crate) enum Attempt<T> {
    Done(T),
    Retryable {
        error: Error,
        retry_after: Option<Duration>,
    },
    Failed(Error),
}

impl<T> Attempt<T> {
    /// A failure worth another try, with no pause asked for.
    pub(crate) fn retryable(error: Error) -> Attempt<T> {
        Attempt::Retryable {
            error,
            retry_after: None,
        }
    }

    /// Goes on with what a successful attempt gave; a failure stays as it is.
    pub(crate) fn and_then<U>(self, next: impl FnOnce(T) -> Attempt<U>) -> Attempt<U> {
        match self {
            Attempt::Done(value) => next(value),
            Attempt::Retryable { error, retry_after } => Attempt::Retryable { error, retry_after },
            Attempt::Failed(error) => Attempt::Failed(error),
        }
    }
}

/// Where a request goes and what it sends: a JSON body posted, or a GET.
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The URL as given, for log lines.
    pub(crate) url: &'a str,
    pub(crate) uri: &'a Uri,
    /// The body posted; `None` for a GET, which sends none.
    pub(crate) body: Option<&'a [u8]>,
    /// The body's content type when it is not JSON (a multipart form).
    pub(crate) content_type: Option<&'a HeaderValue>,
}

impl Call<'_> {
    /// The method, for log lines: what the request line says.
    pub(crate) fn method(&self) -> &'static str {
        match self.body {
            Some(_) => "POST",
            None => "GET",
        }
    }

    /// The size of the body sent.
    pub(crate) fn sent(&self) -> usize {
        self.body.map_or(0, <[u8]>::len)
    }
}

/// What one attempt saw of the response, for its log line.
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) status: Option<u16>,
    pub(crate) received: Option<usize>,
}

/// Whether an HTTP error status is worth another try: request timeout (408),
/// conflict (409), rate limits (429) and server errors (5xx), except a 429
/// that says the quota is used up, which no waiting fixes.
pub(crate) fn status_is_retryable(api: &ApiError) -> bool {
    match api.status {
        Some(429) => ![&api.kind, &api.code]
            .into_iter()
            .any(|field| field.as_deref() == Some("insufficient_quota")),
        Some(408 | 409 | 500..=599) => true,
        _ => false,
    }
}

/// The pause before retry number `retry + 1`: 0.5 s doubling per retry,
/// capped at 8 s, less up to a quarter at random so that clients that
/// failed together do not come back together.
pub(crate) fn backoff(retry: u32) -> Duration {
    let exponential = INITIAL_BACKOFF.saturating_mul(1u32 << retry.min(16));
    let capped = exponential.min(MAX_BACKOFF);
    capped.mul_f64(1.0 - 0.25 * random_fraction())
}

/// A number in [0, 1) from the standard library's per-process random keys.
fn random_fraction() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The pause the server asked for: `retry-after-ms` (milliseconds), else
/// `retry-after` as seconds or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    let value = header("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

impl Pool {
    /// Runs attempts of `call` until one succeeds, fails for good, or the
    /// retries run out; logs one line per attempt.
    pub(crate) fn with_retries<T>(
        &self,
        settings: &Settings,
        token: Option<&CancelToken>,
        call: &Call<'_>,
        mut attempt: impl FnMut(&mut Seen) -> Attempt<T>,
    ) -> Result<T> {
        let mut retries = 0;
        loop {
            if let Some(token) = token {
                token.check()?;
            }
            let started = Instant::now();
            let mut seen = Seen::default();
            // The attempt's sockets and lookups answer to the token while it
            // runs, and only then.
            let outcome = {
                let _entered = token.map(CancelToken::enter);
                attempt(&mut seen)
            };
            // A cancel closes the connection under the attempt, which then
            // fails with a plain I/O error: say why instead.
            let outcome = if token.is_some_and(CancelToken::is_cancelled) {
                Attempt::Failed(Error::Cancelled)
            } else {
                outcome
            };
            let line = |outcome| log::AttemptLine {
                method: call.method(),
                url: call.url,
                status: seen.status,
                sent: call.sent(),
                received: seen.received,
                elapsed: started.elapsed(),
                number: retries + 1,
                outcome,
            };
            let (error, pause) = match outcome {
                Attempt::Done(value) => {
                    log::attempt(&line(log::Verdict::Done));
                    return Ok(value);
                }
                // A server that asks for a longer pause than chatwire waits is not retried.
                Attempt::Retryable { error, retry_after } if retries < settings.max_retries => {
                    let pause = retry_after.unwrap_or_else(|| backoff(retries));
                    (error, Some(pause).filter(|pause| *pause <= MAX_RETRY_AFTER))
                }
                Attempt::Retryable { error, .. } | Attempt::Failed(error) => (error, None),
            };
            if let Error::Cancelled = error {
                log::attempt(&line(log::Verdict::Cancelled));
                return Err(error);
            }
            // The log line quotes the error, which may quote the server: the
            // secrets are taken out here, as the client does for the caller.
            let why = self.secrets(settings).redact(&error.to_string());
            let Some(pause) = pause else {
                log::attempt(&line(log::Verdict::Failed { why: &why }));
                return Err(error);
            };
            log::attempt(&line(log::Verdict::Retry { pause, why: &why }));
            match token {
                Some(token) => token.sleep(pause)?,
                None => std::thread::sleep(pause),
            }
            retries += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn backoff_doubles_with_jitter_and_caps() {
        for retry in 0..10 {
            let nominal = (0.5 * 2f64.powi(retry as i32)).min(8.0);
            let got = backoff(retry).as_secs_f64();
            assert!(got <= nominal && got >= nominal * 0.75, "{retry}: {got}");
        }
        assert!(backoff(u32::MAX) <= MAX_BACKOFF);
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let ms = headers(&[("retry-after-ms", "250"), ("retry-after", "9")]);
        assert_eq!(retry_after(&ms, now), Some(Duration::from_millis(250)));
        let secs = headers(&[("retry-after", "2")]);
        assert_eq!(retry_after(&secs, now), Some(Duration::from_secs(2)));
        let date = httpdate::fmt_http_date(now + Duration::from_secs(30));
        let mut map = HeaderMap::new();
        map.insert("retry-after", HeaderValue::from_str(&date).unwrap());
        assert_eq!(retry_after(&map, now), Some(Duration::from_secs(30)));
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn which_statuses_retry() {
        let api = |status, kind: Option<&str>, code: Option<&str>| ApiError {
            status: Some(status),
            kind: kind.map(Into::into),
            code: code.map(Into::into),
            ..ApiError::default()
        };
        for status in [408, 409, 429, 500, 502, 503, 599] {
            assert!(status_is_retryable(&api(status, None, None)), "{status}");
        }
        for status in [400, 401, 403, 404, 422] {
            assert!(!status_is_retryable(&api(status, None, None)), "{status}");
        }
        assert!(!status_is_retryable(&api(
            429,
            Some("insufficient_quota"),
            None
        )));
        assert!(!status_is_retryable(&api(
            429,
            None,
            Some("insufficient_quota")
        )));
    }
}
