//! Streamed replies (`"stream": true`): the decoder, and the reply it
//! amounts to.
//!
//! The body of a streamed reply is a stream of server-sent events, each
//! carrying one JSON chunk, ending with `data: [DONE]`. The decoding is pure
//! and I/O-free, in three steps, one file each:
//!
//! - [`SseParser`] (`sse.rs`) splits bytes into events, whatever way the bytes
//!   were cut into reads;
//! - [`Payload`] (`wire/chunk.rs`, the wire format's home) reads one
//!   event's JSON: a [`Chunk`], `[DONE]`, or an error the server reported
//!   inside the stream;
//! - [`Accumulator`] (`accumulate.rs`) folds chunks into the [`StreamResult`].
//!
//! [`StreamDecoder`] (`decoder.rs`) ties them together: fed the body's bytes
//! as they arrive, it hands back the text deltas as soon as they are
//! complete. `reply_stream.rs` pulls bytes from the transport's reader
//! through the decoder and makes the [`Reply`](crate::Reply) at the end; it
//! is the only part that does I/O.
//!
//! None of this is public: users see deltas and replies through
//! [`Client`](crate::Client). The `fuzzing` feature exposes the decoder to
//! the fuzz targets.

mod accumulate;
mod decoder;
pub(crate) mod reply_stream;
mod result;
mod sse;
#[cfg(test)]
mod tests;
mod think;
mod tool_calls;

#[cfg(test)]
pub(crate) use crate::conversation::message::ToolCall;
pub(crate) use crate::wire::chunk::{Chunk, ChunkChoice, ToolCallDelta};
pub(crate) use accumulate::{Accumulator, StreamResult};
pub use decoder::{StreamDecoder, StreamEvent};
pub(crate) use sse::{SseEvent, SseItem, SseParser};

use crate::error::{excerpt, Error, Keep, EXCERPT_BYTES};

/// A [`Error::Decode`] quoting the end of a stream's text, where it stopped.
fn decode_error_at_end(message: impl Into<String>, text: &str) -> Error {
    Error::Decode {
        message: message.into(),
        excerpt: excerpt(text, EXCERPT_BYTES, Keep::End).to_owned(),
    }
}
