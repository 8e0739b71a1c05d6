//! The streaming decoder: bytes in, text deltas out, the reply at the end.

use crate::error::{Error, Result};

use super::accumulate::Piece;
use super::{Accumulator, SseEvent, SseItem, SseParser, StreamResult};
use crate::wire::chunk::{api_error_from_text, Payload};

/// Something the caller may act on as the stream comes in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// More reply text (never empty). All deltas together are the content
    /// of choice 0.
    Delta(String),
    /// More reasoning text of choice 0 (never empty), from a reasoning
    /// field or a leading `<think>` block of the content.
    Reasoning(String),
    /// More refusal text of choice 0 (never empty).
    Refusal(String),
    /// The server sent `data: [DONE]`: nothing more is coming, the caller
    /// may stop reading.
    Done,
}

/// Decodes a streamed chat completion body.
///
/// Feed it the body's bytes as they arrive with [`feed`](Self::feed); at the
/// end of the body call [`finish`](Self::finish), then
/// [`into_result`](Self::into_result) for the whole reply. Anything after
/// `[DONE]` is ignored.
///
/// Errors: [`Error::Server`] for an error the server reported inside the
/// stream; [`Error::Decode`] for data that is not a chunk, a broken event
/// stream, or a body that ended before the reply was complete. After an
/// error the stream is broken; further results are unspecified (but never a
/// panic).
///
/// Every read counts as a sign of life (keep-alive comments included), so a
/// caller timing out an idle stream goes by its reads, not by the events.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    parser: SseParser,
    accumulator: Accumulator,
    /// What the last chunk gave choice 0; kept for the next chunk's, so
    /// that a delta costs no list of its own.
    pieces: Vec<Piece>,
    done: bool,
    closed: bool,
}

impl StreamDecoder {
    /// A decoder with the default limits.
    #[cfg(any(test, feature = "fuzzing"))]
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that rejects a line, or an event's data, longer than
    /// `limit` bytes (see [`SseParser::with_limit`]).
    #[cfg(test)]
    pub fn with_limit(limit: usize) -> Self {
        Self {
            parser: SseParser::with_limit(limit),
            ..Self::default()
        }
    }

    /// A decoder that fails with [`Error::TooLarge`] at a line or event
    /// longer than `event` bytes, or a reply that adds up to more than
    /// `stream` bytes (see [`Accumulator::with_limit`]).
    pub fn with_limits(event: u64, stream: u64) -> Self {
        Self {
            parser: SseParser::with_limit(usize::try_from(event).unwrap_or(usize::MAX)),
            accumulator: Accumulator::with_limit(stream),
            ..Self::default()
        }
    }

    /// Decodes the next bytes of the body; returns the events they
    /// complete, in order. Bytes after `[DONE]` or after
    /// [`finish`](Self::finish) are ignored.
    ///
    /// # Errors
    ///
    /// [`Error::Server`] for an error the server reported, [`Error::Decode`]
    /// for a broken event stream or data that is not a chunk. The events
    /// before the error in the same bytes are lost with it: the reply has
    /// failed anyway.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>> {
        if self.done || self.closed {
            return Ok(Vec::new());
        }
        self.parser.push(bytes);
        self.drain(false)
    }

    /// Ends the body; returns the events its unterminated end completes.
    ///
    /// An end cut off in the middle of an event's data is a decode error
    /// unless the reply was already complete (a finish reason was seen), in
    /// which case what was lost is at most `[DONE]` or the usage.
    ///
    /// # Errors
    ///
    /// As [`feed`](Self::feed), and [`Error::Decode`] for an end cut off in
    /// the middle of an event of an incomplete reply.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>> {
        if self.done || self.closed {
            return Ok(Vec::new());
        }
        self.closed = true;
        self.parser.close();
        let mut events = self.drain(true)?;
        events.extend(self.accumulator.flush().into_iter().map(event_of));
        Ok(events)
    }

    /// Whether every choice has finished: all that may still come is
    /// `[DONE]` and the usage.
    pub fn has_finished(&self) -> bool {
        self.accumulator.has_finished()
    }

    /// Whether `[DONE]` has been seen.
    #[cfg(test)]
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// What has been gathered so far.
    #[cfg(test)]
    pub fn accumulator(&self) -> &Accumulator {
        &self.accumulator
    }

    /// The whole reply, or why the stream did not give one.
    ///
    /// Calls [`finish`](Self::finish) first if the caller has not; the
    /// deltas that finds are then only in the result, so a caller that shows
    /// deltas should call `finish` itself.
    ///
    /// # Errors
    ///
    /// As [`finish`](Self::finish), and [`Error::Decode`] if the stream ended
    /// before the reply was complete (neither `[DONE]` nor a finish reason).
    pub fn into_result(mut self) -> Result<StreamResult> {
        self.finish()?;
        self.accumulator.finish()
    }

    /// Takes events from the parser until it needs more bytes or `[DONE]`.
    fn drain(&mut self, at_end: bool) -> Result<Vec<StreamEvent>> {
        let mut events = Vec::new();
        while !self.done {
            let payload = match self.next_payload() {
                Ok(Some(payload)) => payload,
                Ok(None) => break,
                Err(err) if at_end => return self.cut_off(err).map_or(Ok(events), Err),
                Err(err) => return Err(err),
            };
            self.apply(payload, &mut events)?;
        }
        Ok(events)
    }

    /// The next payload that carries something; `None` until more bytes
    /// come. Comments are skipped: they carry nothing to decode.
    fn next_payload(&mut self) -> Result<Option<Payload>> {
        while let Some(item) = self.parser.next_item()? {
            if let SseItem::Event(event) = item {
                let payload = payload_of(&event);
                self.parser.recycle(event.data);
                if let Some(payload) = payload? {
                    return Ok(Some(payload));
                }
            }
        }
        Ok(None)
    }

    /// Acts on one payload; adds the events it gives the caller to `events`.
    fn apply(&mut self, payload: Payload, events: &mut Vec<StreamEvent>) -> Result<()> {
        match payload {
            Payload::Chunk(chunk) => {
                self.pieces.clear();
                self.accumulator.push_chunk_into(chunk, &mut self.pieces)?;
                events.extend(self.pieces.drain(..).map(event_of));
                Ok(())
            }
            Payload::Done => {
                self.done = true;
                events.extend(self.accumulator.flush().into_iter().map(event_of));
                self.accumulator.mark_done();
                events.push(StreamEvent::Done);
                Ok(())
            }
            Payload::Error(error) => Err(crate::wire::error::in_band(error)),
        }
    }

    /// Judges a decode error in the body's unterminated end, which is most
    /// likely an event (or a UTF-8 character) cut off by the end of the
    /// body. If the reply was already complete, what was lost is at most
    /// `[DONE]` or the usage, and the error is dropped (`None`); otherwise
    /// it is reported as the stream ending early.
    fn cut_off(&self, err: Error) -> Option<Error> {
        match err {
            Error::Decode { .. } if self.accumulator.is_complete() => None,
            Error::Decode { excerpt, .. } => Some(Error::Decode {
                message: "stream ended before the reply was complete, in the middle of an event"
                    .to_owned(),
                excerpt,
            }),
            other => Some(other),
        }
    }
}

/// The event a piece of choice 0 is for the caller.
fn event_of(piece: Piece) -> StreamEvent {
    match piece {
        Piece::Content(text) => StreamEvent::Delta(text),
        Piece::Reasoning(text) => StreamEvent::Reasoning(text),
        Piece::Refusal(text) => StreamEvent::Refusal(text),
    }
}

/// Reads an event; `Ok(None)` for an event that carries nothing to act on
/// (empty data, or an event of an unknown type whose data is not JSON).
///
/// An event of type `error` is an error whatever its data says; events of
/// other types are read like chunks, since a chunk's JSON says what it is.
fn payload_of(event: &SseEvent) -> Result<Option<Payload>> {
    match event.event.as_deref() {
        Some("error") => Ok(Some(Payload::Error(api_error_from_text(&event.data)))),
        None | Some("message") => Payload::from_data(&event.data),
        // Not something chat completions define (a proxy's `ping`, say):
        // used if it is a chunk, never fatal if it is not.
        Some(_) => Ok(Payload::from_data(&event.data).ok().flatten()),
    }
}
