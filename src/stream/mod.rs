//! Streamed replies (`"stream": true`), decoded without I/O in three steps:
//! [`SseParser`] (`sse.rs`) cuts bytes into events however the reads split
//! them, [`Payload`](crate::wire::chunk::Payload) (`wire/chunk.rs`) reads an
//! event's JSON, and [`Accumulator`] (`accumulate.rs`) folds the chunks into
//! the [`StreamResult`]. [`StreamDecoder`] ties them together;
//! `reply_stream.rs`, the only part that does I/O, pulls the body through
//! it. Not public: the `fuzzing` feature exposes the decoder to the fuzz
//! targets.

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
