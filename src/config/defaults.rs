//! Every default and maximum of chatwire, each with the reason for its
//! value, and the checks that hold a setting to its range, among them the
//! limits on what chatwire keeps of a server's answer.

use std::time::Duration;

use crate::error::{Error, Result};

/// The base URL used when none is given and `$OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com";
/// The `api-version` of Azure OpenAI's classic route when neither the caller
/// nor `$OPENAI_API_VERSION` names one: the latest generally available one
/// (<https://learn.microsoft.com/azure/ai-services/openai/reference>).
pub const DEFAULT_AZURE_API_VERSION: &str = "2024-10-21";

/// The longest token a credential callback may give: an Entra ID token is
/// 1 to 4 KiB; the C callback gets a buffer of this many bytes.
pub const MAX_CREDENTIAL_BYTES: usize = 16 * 1024;
/// How many of a callback's tokens a client remembers, to take them out of
/// what servers echo: a callback hands out one cached token until it expires.
pub(crate) const REMEMBERED_TOKENS: usize = 64;

/// The whole-request timeout unless set otherwise: long enough for a long
/// reply from a slow model, short enough that a dead server is noticed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// The connect timeout unless set otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a stream may stay silent (not even a keep-alive) before it
/// counts as stalled, unless set otherwise.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stream whose every choice asked for (`n`) has finished may
/// take to send `[DONE]`, its usage or the body's end: some servers keep the
/// connection open after a complete reply, which is then taken as it is.
pub const STREAM_END_GRACE: Duration = Duration::from_secs(1);
/// The longest timeout accepted: more than any reply takes, and far enough
/// from the clock's limits that deadlines cannot overflow.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// How many times a failed request is retried unless set otherwise.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The most retries accepted: with the longest pause (120 s), ten retries
/// already wait 20 minutes.
pub const MAX_RETRIES_CEILING: u32 = 10;
/// A server asking for a longer pause than this gets an immediate error instead.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
/// The first pause between attempts when the server names none; it doubles
/// after each one, up to [`MAX_BACKOFF`].
pub(crate) const INITIAL_BACKOFF: Duration = Duration::from_millis(500);
/// The longest pause the doubling reaches.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// The most redirects followed for one request: more is a loop.
pub(crate) const MAX_REDIRECTS: u32 = 3;

/// How many idle connections a client keeps for reuse unless set otherwise.
pub const DEFAULT_MAX_IDLE_CONNECTIONS: usize = 16;
/// The most idle connections a client may keep: each holds a socket.
pub const MAX_IDLE_CONNECTIONS: usize = 1024;

/// How many background requests of one client run at once unless set
/// otherwise: past 1024, a process's default limit of descriptors runs out.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;
/// The highest cap on requests in flight that can be set.
pub const MAX_IN_FLIGHT: usize = 65_536;
/// The stack of a background request's worker thread unless set otherwise:
/// what a debug build's request takes, with room for callbacks.
pub const DEFAULT_WORKER_STACK_BYTES: usize = 256 * 1024;
/// The smallest worker stack that can be set: an optimized request touches
/// about 48 KiB of it.
pub const MIN_WORKER_STACK_BYTES: usize = 64 * 1024;
/// The largest worker stack that can be set: the main thread's usual size.
pub const MAX_WORKER_STACK_BYTES: usize = 8 * 1024 * 1024;
/// The buffer a connection writes requests through: each line of a
/// request's head must fit (servers refuse header lines past 8 KiB).
pub(crate) const OUTPUT_BUFFER_BYTES: usize = 8 * 1024;

/// The default [`Limit::Body`](super::Limit::Body): no chat completion comes near it.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;
/// The most of a model list ([`Client::models`](crate::Client::models))
/// read, when [`Limit::Body`](super::Limit::Body) is higher: a list is kept
/// as a tree of values, several times its size (OpenRouter's list of
/// hundreds of models is about 1 MiB).
pub const MAX_MODELS_BODY_BYTES: u64 = 8 * 1024 * 1024;
/// The most requests one batch input file holds: OpenAI's Batch API
/// reference (`POST /v1/batches`, `input_file_id`: "The file can contain up
/// to 50,000 requests, and can be up to 200 MB in size"); Azure's says the same.
pub const MAX_BATCH_REQUESTS: usize = 50_000;
/// The largest batch input file, in bytes: the same reference's 200 MB, read
/// as decimal megabytes, the smaller reading.
pub const MAX_BATCH_FILE_BYTES: u64 = 200_000_000;
/// The most of a batch's output or error file read
/// ([`Client::fetch_batch_results`](crate::Client::fetch_batch_results)),
/// whatever [`Limit::Body`](super::Limit::Body) says: room for the replies
/// to a full input file, which are kept as the text they came in.
pub const MAX_BATCH_RESULTS_BYTES: u64 = 1024 * 1024 * 1024;
/// The most of a file or batch object read (a batch's validation errors
/// are in it), when [`Limit::Body`](super::Limit::Body) is higher.
pub const MAX_BATCH_OBJECT_BYTES: u64 = 8 * 1024 * 1024;
/// The default [`Limit::Event`](super::Limit::Event): a quarter of a body.
pub const DEFAULT_MAX_EVENT_BYTES: u64 = 16 * 1024 * 1024;
/// The default [`Limit::Stream`](super::Limit::Stream): as much as a body.
pub const DEFAULT_MAX_STREAM_BYTES: u64 = 64 * 1024 * 1024;
/// The default [`Limit::Headers`](super::Limit::Headers).
pub const DEFAULT_MAX_HEADER_BYTES: u64 = 64 * 1024;
/// The smallest value any limit accepts: less cannot hold an error body.
pub const MIN_LIMIT: u64 = 1024;
/// The largest [`Limit::Headers`](super::Limit::Headers) accepted.
pub const MAX_HEADER_LIMIT: u64 = 1024 * 1024;
/// The largest value the other limits accept.
pub const MAX_LIMIT: u64 = 4 * 1024 * 1024 * 1024;

/// A CA file larger than this is not one (the Mozilla bundle is about
/// 220 KiB); the same holds for a client certificate's chain and key.
pub const MAX_CA_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// The largest image file read: the limit the OpenAI API sets per image.
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// The largest PDF, WAV or MP3 file read for a user message.
pub const MAX_FILE_BYTES: u64 = MAX_IMAGE_BYTES;

/// How many correction turns [`Client::send_json`](crate::Client::send_json)
/// allows unless set otherwise.
pub const DEFAULT_JSON_CORRECTIONS: u32 = 2;
/// The most correction turns that can be set: a model that has not
/// corrected itself after ten will not.
pub const MAX_JSON_CORRECTIONS: u32 = 10;

// Every default within its own range, checked at compile time.
const _: () = {
    let max_timeout = MAX_TIMEOUT.as_millis();
    assert!(DEFAULT_TIMEOUT.as_millis() <= max_timeout);
    assert!(DEFAULT_CONNECT_TIMEOUT.as_millis() <= max_timeout);
    assert!(DEFAULT_IDLE_TIMEOUT.as_millis() <= max_timeout);
    assert!(DEFAULT_MAX_RETRIES <= MAX_RETRIES_CEILING);
    assert!(INITIAL_BACKOFF.as_millis() <= MAX_BACKOFF.as_millis());
    assert!(MAX_BACKOFF.as_millis() <= MAX_RETRY_AFTER.as_millis());
    assert!(DEFAULT_MAX_IDLE_CONNECTIONS <= MAX_IDLE_CONNECTIONS);
    assert!(DEFAULT_JSON_CORRECTIONS <= MAX_JSON_CORRECTIONS);
    assert!(0 < DEFAULT_MAX_IN_FLIGHT && DEFAULT_MAX_IN_FLIGHT <= MAX_IN_FLIGHT);
    assert!(MIN_WORKER_STACK_BYTES <= DEFAULT_WORKER_STACK_BYTES);
    assert!(DEFAULT_WORKER_STACK_BYTES <= MAX_WORKER_STACK_BYTES);
    assert!(MIN_LIMIT <= DEFAULT_MAX_BODY_BYTES && DEFAULT_MAX_BODY_BYTES <= MAX_LIMIT);
    assert!(MIN_LIMIT <= DEFAULT_MAX_EVENT_BYTES && DEFAULT_MAX_EVENT_BYTES <= MAX_LIMIT);
    assert!(MIN_LIMIT <= DEFAULT_MAX_STREAM_BYTES && DEFAULT_MAX_STREAM_BYTES <= MAX_LIMIT);
    assert!(MIN_LIMIT <= DEFAULT_MAX_HEADER_BYTES && DEFAULT_MAX_HEADER_BYTES <= MAX_HEADER_LIMIT);
};

/// The bytes per token a token budget assumes until a reply gives the
/// server's own count: about 4 for English in most tokenizers.
pub(crate) const DEFAULT_BYTES_PER_TOKEN: f64 = 4.0;
/// The tokens a token budget counts an image as: OpenAI bills a 1024x1024
/// image at high detail as 765, Gemini any image as 258.
pub(crate) const IMAGE_TOKENS: u64 = 768;
/// The bytes of a PDF a token budget counts as one token: servers send
/// each page's text and an image of it.
pub(crate) const PDF_BYTES_PER_TOKEN: u64 = 64;
/// The bytes of WAV audio a token budget counts as one token: 16 kHz mono
/// 16-bit is 32,000 bytes a second, which Gemini counts as 32 tokens.
pub(crate) const WAV_BYTES_PER_TOKEN: u64 = 1000;
/// The bytes of MP3 audio a token budget counts as one token: 64 kbit/s,
/// 32 tokens a second as for WAV.
pub(crate) const MP3_BYTES_PER_TOKEN: u64 = 250;

/// Functions that return their first argument when it is within its range,
/// else an [`Error::InvalidArgument`] saying the range and the value.
macro_rules! checked {
    ($(
        $(#[$doc:meta])*
        $name:ident($n:ident: $t:ty $(, $more:ident: $more_t:ty)?) if $ok:expr
            => $why:literal $(, $arg:expr)?;
    )+) => {$(
        $(#[$doc])*
        pub(crate) fn $name($n: $t $(, $more: $more_t)?) -> Result<$t> {
            ($ok).then_some($n).ok_or_else(|| Error::InvalidArgument(format!($why $(, $arg)?)))
        }
    )+};
}

checked! {
    /// A timeout longer than zero (zero would fail every request at once) and
    /// at most [`MAX_TIMEOUT`]; `what` names it in the error ("idle timeout").
    checked_timeout(time: Duration, what: &str) if !time.is_zero() && time <= MAX_TIMEOUT
        => "the {what} must be longer than zero and at most 24 hours, not {} ms", time.as_millis();
    /// A retry count of at most [`MAX_RETRIES_CEILING`].
    checked_retries(n: u32) if n <= MAX_RETRIES_CEILING
        => "max retries must be at most {MAX_RETRIES_CEILING}, not {n}";
    /// A pool size of at most [`MAX_IDLE_CONNECTIONS`].
    checked_pool_size(n: usize) if n <= MAX_IDLE_CONNECTIONS
        => "a client keeps at most {MAX_IDLE_CONNECTIONS} idle connections, not {n}";
    /// A cap on requests in flight, from 1 to [`MAX_IN_FLIGHT`].
    checked_in_flight(n: usize) if (1..=MAX_IN_FLIGHT).contains(&n)
        => "the cap on requests in flight is from 1 to {MAX_IN_FLIGHT}, not {n}";
    /// A worker thread's stack size, from [`MIN_WORKER_STACK_BYTES`] to [`MAX_WORKER_STACK_BYTES`].
    checked_stack_size(n: usize)
        if (MIN_WORKER_STACK_BYTES..=MAX_WORKER_STACK_BYTES).contains(&n)
        => "a worker's stack is from {MIN_WORKER_STACK_BYTES} to {MAX_WORKER_STACK_BYTES} bytes, not {n}";
    /// A number of correction turns of at most [`MAX_JSON_CORRECTIONS`].
    checked_corrections(n: u32) if n <= MAX_JSON_CORRECTIONS
        => "at most {MAX_JSON_CORRECTIONS} correction turns can be set, not {n}";
}

/// One of the limits on what chatwire keeps of a server's answer, in bytes
/// after decompression; see [`ClientBuilder::limit`](crate::ClientBuilder::limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// A whole response body (not streamed). Default [`DEFAULT_MAX_BODY_BYTES`].
    Body,
    /// One line, and one event's data, of a streamed reply. Default
    /// [`DEFAULT_MAX_EVENT_BYTES`].
    Event,
    /// Everything a streamed reply adds up to. Default [`DEFAULT_MAX_STREAM_BYTES`].
    Stream,
    /// The status line and headers of a response. Default
    /// [`DEFAULT_MAX_HEADER_BYTES`], at most [`MAX_HEADER_LIMIT`].
    Headers,
}

impl Limit {
    /// Every limit, in the order they are checked.
    pub(crate) const EVERY: [Limit; 4] = [Limit::Body, Limit::Event, Limit::Stream, Limit::Headers];

    /// What the limit bounds, as [`Error::TooLarge`] names it.
    pub(crate) fn what(self) -> &'static str {
        match self {
            Limit::Body => "the response body",
            Limit::Event => "one event of the stream",
            Limit::Stream => "the streamed reply",
            Limit::Headers => "the response headers",
        }
    }

    pub(crate) fn exceeded(self, limit: u64) -> Error {
        Error::TooLarge {
            what: self.what().to_owned(),
            limit,
        }
    }

    fn max(self) -> u64 {
        match self {
            Limit::Headers => MAX_HEADER_LIMIT,
            Limit::Body | Limit::Event | Limit::Stream => MAX_LIMIT,
        }
    }
}

/// One limit's value within its range: from [`MIN_LIMIT`] to its maximum.
fn check_limit(limit: Limit, bytes: u64) -> Result<()> {
    let max = limit.max();
    if !(MIN_LIMIT..=max).contains(&bytes) {
        return Err(Error::InvalidArgument(format!(
            "the limit on {} must be from {MIN_LIMIT} to {max} bytes, not {bytes}",
            limit.what()
        )));
    }
    Ok(())
}

/// The limits of one client; see [`Limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) body: u64,
    pub(crate) event: u64,
    pub(crate) stream: u64,
    pub(crate) headers: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            body: DEFAULT_MAX_BODY_BYTES,
            event: DEFAULT_MAX_EVENT_BYTES,
            stream: DEFAULT_MAX_STREAM_BYTES,
            headers: DEFAULT_MAX_HEADER_BYTES,
        }
    }
}

impl Limits {
    /// The value of one limit (read from a copy, so that one match serves).
    pub(crate) fn get(&self, limit: Limit) -> u64 {
        *{ *self }.slot(limit)
    }

    /// Sets one limit, unchecked: [`check`](Self::check) holds each to its
    /// range when the configuration holding them is validated.
    pub(crate) fn put(&mut self, limit: Limit, bytes: u64) {
        *self.slot(limit) = bytes;
    }

    /// Sets one limit; below [`MIN_LIMIT`] or above its maximum is an
    /// [`Error::InvalidArgument`] and changes nothing.
    #[cfg(test)]
    pub(crate) fn set(&mut self, limit: Limit, bytes: u64) -> Result<()> {
        check_limit(limit, bytes)?;
        self.put(limit, bytes);
        Ok(())
    }

    /// Every limit from [`MIN_LIMIT`] to its maximum, checked in the order
    /// of [`Limit::EVERY`].
    pub(crate) fn check(&self) -> Result<()> {
        for limit in Limit::EVERY {
            check_limit(limit, self.get(limit))?;
        }
        Ok(())
    }

    fn slot(&mut self, limit: Limit) -> &mut u64 {
        match limit {
            Limit::Body => &mut self.body,
            Limit::Event => &mut self.event,
            Limit::Stream => &mut self.stream,
            Limit::Headers => &mut self.headers,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::defaults::*;

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
    const EVERY_LIMIT: [Limit; 4] = [Limit::Body, Limit::Event, Limit::Stream, Limit::Headers];

    #[test]
    fn each_limit_takes_its_whole_range_and_nothing_else() {
        for limit in EVERY_LIMIT {
            let mut limits = Limits::default();
            for bytes in [MIN_LIMIT, limit.max()] {
                limits.set(limit, bytes).unwrap();
                assert_eq!(limits.get(limit), bytes, "{limit:?}");
            }
            for bytes in [0, MIN_LIMIT - 1, limit.max() + 1] {
                assert!(limits.set(limit, bytes).is_err(), "{limit:?} took {bytes}");
                assert_eq!(
                    limits.get(limit),
                    limit.max(),
                    "a refusal changed {limit:?}"
                );
            }
        }
    }

    #[test]
    fn setting_one_limit_leaves_the_others() {
        let mut limits = Limits::default();
        limits.set(Limit::Event, 4096).unwrap();
        assert_eq!(
            limits,
            Limits {
                event: 4096,
                ..Limits::default()
            }
        );
    }

    #[test]
    fn a_refusal_names_the_limit_and_its_range() {
        let error = Limits::default().set(Limit::Headers, 1).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "invalid argument: the limit on the response headers must be from 1024 to {MAX_HEADER_LIMIT} bytes, not 1"
            )
        );
    }
}
