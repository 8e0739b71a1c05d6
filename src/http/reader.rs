//! A body read whole (at most a limit of bytes, and UTF-8), or as it
//! arrives: then every read waits at most the idle timeout and answers to
//! the request's cancel token.

use std::io::Read;
use std::time::{Duration, Instant};

use crate::config::{Limit, Settings};
use crate::error::{Error, Result};
use crate::http::attempt::Head;
use crate::http::cancel::CancelToken;
use crate::http::connect;
use crate::http::failure;
use crate::log;

/// The most room made for a body before its bytes arrive.
const PRESIZE_BYTES: u64 = 1024 * 1024;

/// Why a whole body could not be had.
#[derive(Debug)]
pub(crate) enum BodyError {
    Io(std::io::Error),
    /// Longer than the limit, or not UTF-8.
    Refused(Error),
}

/// Reads a whole body as text, failing past `limit` bytes as decompressed.
/// Room for the `announced` length saves the small reads that grow an
/// empty buffer, but no more than [`PRESIZE_BYTES`] before bytes arrive.
pub(crate) fn read_text(
    reader: impl Read,
    announced: Option<u64>,
    limit: u64,
) -> Result<String, BodyError> {
    let room = announced.unwrap_or(0).min(limit).min(PRESIZE_BYTES) as usize;
    let mut bytes = Vec::with_capacity(room + 1);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(BodyError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(BodyError::Refused(Limit::Body.exceeded(limit)));
    }
    String::from_utf8(bytes).map_err(|err| {
        BodyError::Refused(Error::decode(
            "the body is not UTF-8",
            &String::from_utf8_lossy(err.as_bytes()),
        ))
    })
}

/// How long a streamed body's end may take to arrive after the reply's end
/// for the connection to be kept, and how much may come.
const LEFTOVER_PATIENCE: Duration = Duration::from_millis(20);
const LEFTOVER_BYTES: usize = 16 * 1024;

/// The body of a streamed answer, read as it arrives.
pub(crate) struct StreamReader {
    pub(crate) head: Head,
    pub(super) reader: Box<dyn Read + Send>,
    pub(super) token: CancelToken,
    pub(super) settings: Settings,
    pub(super) endpoint: String,
    /// When the answer's head came, what the body brought since, and
    /// whether it was read to its end: for the line logged when it closes.
    pub(super) opened: Instant,
    pub(super) received: usize,
    pub(super) ended: bool,
}

impl StreamReader {
    /// Reads the rest of the body as text (a server that did not stream).
    pub(crate) fn read_all(&mut self) -> Result<String> {
        let limit = self.settings.limits.body;
        match read_text(Reads(self), None, limit) {
            Ok(text) => Ok(text),
            Err(BodyError::Refused(error)) => Err(error),
            // Reads carries chatwire's own error through io::Error.
            Err(BodyError::Io(error)) => Err(match error.downcast::<Error>() {
                Ok(error) => error,
                Err(error) => failure::of_read(&self.endpoint, &self.settings, error),
            }),
        }
    }

    /// Reads what is left after the reply's end (a chunked body's last
    /// chunk, say) if it comes at once: then the connection can be pooled.
    pub(crate) fn finish(&mut self) {
        let _entered = self.token.enter();
        connect::with_patience(LEFTOVER_PATIENCE, || {
            let mut rest = [0u8; 1024];
            let mut left = LEFTOVER_BYTES;
            loop {
                match self.reader.read(&mut rest) {
                    Ok(0) => {
                        self.ended = true;
                        break;
                    }
                    Ok(read) => {
                        self.received += read;
                        left = match left.checked_sub(read) {
                            Some(left) => left,
                            None => break,
                        };
                    }
                    Err(_) => break,
                }
            }
        });
    }

    /// Reads the next bytes; 0 at the end of the body. No read waits
    /// longer than the idle timeout.
    pub(crate) fn read(&mut self, buffer: &mut [u8]) -> Result<usize> {
        self.read_within(buffer, self.settings.idle_timeout)
    }

    /// Like [`read`](Self::read), waiting at most `patience` (the idle
    /// timeout's error after it): for the short wait at a stream's end.
    pub(crate) fn read_within(&mut self, buffer: &mut [u8], patience: Duration) -> Result<usize> {
        self.token.check()?;
        let read = {
            let _entered = self.token.enter();
            connect::with_patience(patience, || self.reader.read(buffer))
        };
        match read {
            // A cancel shuts the connection down, which a blocked read may
            // see as a clean end of the body: say why.
            Ok(0) | Err(_) if self.token.is_cancelled() => Err(Error::Cancelled),
            Ok(0) => {
                self.ended = true;
                Ok(0)
            }
            Ok(read) => {
                self.received += read;
                Ok(read)
            }
            Err(error) => Err(failure::of_read(&self.endpoint, &self.settings, error)),
        }
    }
}

/// A [`StreamReader`] as an [`io::Read`](Read), for [`read_text`].
struct Reads<'a>(&'a mut StreamReader);

impl Read for Reads<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buffer).map_err(std::io::Error::other)
    }
}

impl Drop for StreamReader {
    /// The stream's own line: the attempt's was logged when its head came.
    fn drop(&mut self) {
        log::line(
            ::log::Level::Info,
            format_args!(
                "POST {}: stream closed, received {} bytes in {:.3} s{}",
                log::shown_url(&self.endpoint),
                self.received,
                self.opened.elapsed().as_secs_f64(),
                if self.ended { "" } else { ", before its end" }
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_at_the_limit_is_read_and_one_byte_more_is_refused() {
        assert_eq!(read_text(&b"abcd"[..], Some(4), 4).unwrap(), "abcd");
        assert!(matches!(
            read_text(&b"abcde"[..], None, 4),
            Err(BodyError::Refused(Error::TooLarge { .. }))
        ));
    }

    #[test]
    fn a_body_that_is_not_utf8_is_a_decode_error() {
        assert!(matches!(
            read_text(&b"a\xffb"[..], None, 64),
            Err(BodyError::Refused(Error::Decode { .. }))
        ));
    }
}
