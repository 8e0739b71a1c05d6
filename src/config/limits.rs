//! The limits on what chatwire keeps of a server's answer.

use super::defaults::{
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_STREAM_BYTES, MAX_HEADER_LIMIT, MAX_LIMIT, MIN_LIMIT,
};
use crate::error::{Error, Result};

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

    /// Sets one limit; below [`MIN_LIMIT`] or above its maximum is an
    /// [`Error::InvalidArgument`] and changes nothing.
    pub(crate) fn set(&mut self, limit: Limit, bytes: u64) -> Result<()> {
        let max = limit.max();
        if !(MIN_LIMIT..=max).contains(&bytes) {
            return Err(Error::InvalidArgument(format!(
                "the limit on {} must be from {MIN_LIMIT} to {max} bytes, not {bytes}",
                limit.what()
            )));
        }
        *self.slot(limit) = bytes;
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
    use crate::config::limits::*;

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
