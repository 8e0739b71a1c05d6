//! The streaming decoder: bytes in, text deltas out, the reply at the end.

use crate::config::{DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_STREAM_BYTES};
use crate::error::{Error, Result};

use super::{Accumulator, SseEvent, SseItem, SseParser};
use crate::config::Api;
use crate::reply::Reply;
use crate::wire::chunk::{api_error_from_text, Last, Payload};
use crate::wire::responses::events::{self as responses, Calls};

/// Whose events a stream carries: chat completion chunks, or the Responses
/// API's events and what reading them needs remembered.
#[derive(Debug, Default)]
enum Events {
    #[default]
    Chat,
    Responses(Calls),
}

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

/// Decodes a streamed body: [`feed`](Self::feed) it bytes as they arrive,
/// then [`finish`](Self::finish) and [`into_reply`](Self::into_reply).
/// What follows `[DONE]` is ignored; after an error, results are
/// unspecified (never a panic).
#[derive(Debug)]
pub struct StreamDecoder {
    parser: SseParser,
    events: Events,
    accumulator: Accumulator,
    /// How many choices the request asked for (its `n`).
    asked: u32,
    done: bool,
    closed: bool,
}

impl Default for StreamDecoder {
    fn default() -> Self {
        Self::with_limits(DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_STREAM_BYTES)
    }
}

impl StreamDecoder {
    /// A decoder that fails with [`Error::TooLarge`] at a line or event
    /// over `event` bytes, or a reply over `stream` bytes.
    pub fn with_limits(event: u64, stream: u64) -> Self {
        Self {
            parser: SseParser::with_limit(usize::try_from(event).unwrap_or(usize::MAX)),
            events: Events::Chat,
            accumulator: Accumulator::with_limit(stream),
            asked: 1,
            done: false,
            closed: false,
        }
    }

    /// The same decoder for a request that asked for `choices` choices
    /// (its `n`; 1 unless set), which [`has_finished`](Self::has_finished)
    /// waits for.
    pub fn asking(mut self, choices: u32) -> Self {
        self.asked = choices.max(1);
        self
    }

    /// The same decoder for a stream of `api`'s events.
    pub(crate) fn speaking(mut self, api: Api) -> Self {
        self.events = match api {
            Api::ChatCompletions => Events::Chat,
            Api::Responses => Events::Responses(Calls::default()),
        };
        self
    }

    /// Decodes the next bytes; returns the events they complete, in order.
    ///
    /// # Errors
    ///
    /// [`Error::Server`] for an error the server reported, [`Error::Decode`]
    /// for a broken stream or data that is not a chunk (the reply has failed).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>> {
        if self.done || self.closed {
            return Ok(Vec::new());
        }
        self.parser.push(bytes);
        self.drain(false)
    }

    /// Ends the body; returns the events its unterminated end completes.
    ///
    /// # Errors
    ///
    /// As [`feed`](Self::feed), and [`Error::Decode`] for an end cut off in
    /// an event, unless a finish reason was seen (then at most `[DONE]` or
    /// the usage was lost).
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>> {
        if self.done || self.closed {
            return Ok(Vec::new());
        }
        self.closed = true;
        self.parser.close();
        let mut events = self.drain(true)?;
        events.extend(self.accumulator.flush());
        Ok(events)
    }

    /// Whether every choice asked for has come and finished: only `[DONE]`
    /// and the usage may follow.
    pub fn has_finished(&self) -> bool {
        self.accumulator.has_finished_all(self.asked)
    }

    /// Whether what came is a complete reply should the body end now:
    /// `[DONE]`, or every choice that came has finished (a server may send
    /// fewer choices than asked for).
    pub fn is_complete(&self) -> bool {
        self.accumulator.is_complete()
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

    /// The whole reply; calls [`finish`](Self::finish) first if the caller
    /// has not.
    ///
    /// # Errors
    ///
    /// As [`finish`](Self::finish), and [`Error::Decode`] if the stream ended
    /// with neither `[DONE]` nor a finish reason.
    pub fn into_reply(mut self) -> Result<Reply> {
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

    /// The next payload that carries something; `None` until more bytes come.
    fn next_payload(&mut self) -> Result<Option<Payload>> {
        while let Some(item) = self.parser.next_item()? {
            if let SseItem::Event(event) = item {
                let payload = match &mut self.events {
                    Events::Chat => payload_of(&event),
                    Events::Responses(calls) => responses::payload(&event.data, calls),
                };
                self.parser.recycle(event.data);
                if let Some(payload) = payload? {
                    return Ok(Some(payload));
                }
            }
        }
        Ok(None)
    }

    fn apply(&mut self, payload: Payload, events: &mut Vec<StreamEvent>) -> Result<()> {
        match payload {
            Payload::Chunk(chunk) => self.accumulator.push_chunk_into(chunk, events),
            Payload::Done => {
                self.done = true;
                events.extend(self.accumulator.flush());
                self.accumulator.mark_done();
                events.push(StreamEvent::Done);
                Ok(())
            }
            Payload::Error(error) => Err(crate::wire::error::in_band(error)),
            Payload::Last(last) => {
                let Last { chunk, response } = *last;
                if let Some(response) = response {
                    self.accumulator.keep_response(response)?;
                }
                self.accumulator.push_chunk_into(chunk, events)
            }
        }
    }

    /// A decode error in the body's unterminated end (an event cut off):
    /// dropped if the reply was complete, else the stream ended early.
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

/// Reads an event; `Ok(None)` for one that carries nothing. An `error`
/// event is an error whatever its data says; others are read as chunks.
fn payload_of(event: &SseEvent) -> Result<Option<Payload>> {
    match event.event.as_deref() {
        Some("error") => Ok(Some(Payload::Error(api_error_from_text(&event.data)))),
        None | Some("message") => Payload::from_data(&event.data),
        // Another type (a proxy's `ping`): used if a chunk, never fatal.
        Some(_) => Ok(Payload::from_data(&event.data).ok().flatten()),
    }
}
