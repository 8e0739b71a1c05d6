//! Streamed replies: bytes to events (`sse.rs`), events to chunks
//! (`wire/chunk.rs`), chunks straight into the [`Reply`](crate::Reply)
//! (`accumulate.rs`), tied together by [`StreamDecoder`]; only
//! `reply_stream.rs` does I/O.

mod accumulate;
mod decoder;
pub(crate) mod reply_stream;
mod sse;
#[cfg(test)]
mod tests;
mod think;
mod tool_calls;

pub(crate) use crate::wire::chunk::{Chunk, ChunkChoice, ToolCallDelta};
pub(crate) use accumulate::Accumulator;
pub use decoder::{StreamDecoder, StreamEvent};
pub(crate) use sse::{SseEvent, SseItem, SseParser};
