//! Decoding of streamed chat completions (`"stream": true`).
//!
//! The body of a streamed reply is a stream of server-sent events, each
//! carrying one JSON chunk, ending with `data: [DONE]`. The decoding is pure
//! and I/O-free, in three steps, one file each:
//!
//! - [`SseParser`] (`sse.rs`) splits bytes into events, whatever way the bytes
//!   were cut into reads;
//! - [`Chunk`] (`chunk.rs`) is one event's JSON payload, read leniently, and
//!   [`Payload`] tells a chunk from `[DONE]` and from an error the server
//!   reported inside the stream;
//! - [`Accumulator`] (`accumulate.rs`) folds chunks into the [`StreamResult`].
//!
//! [`StreamDecoder`] ties them together: feed it the body's bytes as they
//! arrive and it hands back the text deltas as soon as they are complete.
//!
//! ```
//! use chatwire::stream::{StreamDecoder, StreamEvent};
//!
//! let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n\
//!              data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
//!              data: [DONE]\n\n";
//! let mut decoder = StreamDecoder::new();
//! let mut text = String::new();
//! // A real caller feeds each read from the network as it arrives.
//! for piece in body.chunks(7) {
//!     for event in decoder.feed(piece)? {
//!         if let StreamEvent::Delta(delta) = event {
//!             text.push_str(&delta);
//!         }
//!     }
//! }
//! decoder.finish()?;
//! let result = decoder.into_result()?;
//! assert_eq!(text, "Hi");
//! assert_eq!(result.content, "Hi");
//! assert_eq!(result.finish_reason.as_deref(), Some("stop"));
//! # Ok::<(), chatwire::Error>(())
//! ```

mod accumulate;
mod chunk;
mod decoder;
pub(crate) mod reply_stream;
mod sse;

pub use accumulate::{Accumulator, StreamResult, ToolCall};
pub use chunk::{Chunk, ChunkChoice, Delta, FunctionDelta, Payload, ToolCallDelta};
pub use decoder::{StreamDecoder, StreamEvent};
pub use sse::{SseEvent, SseItem, SseParser, DEFAULT_MAX_EVENT_BYTES};

use crate::error::Error;

/// The most bytes of offending text an error carries.
const EXCERPT_BYTES: usize = 200;

/// Builds a [`Error::Decode`] with an excerpt of the text it is about.
fn decode_error(message: impl Into<String>, text: &str) -> Error {
    Error::decode(message, text)
}

/// The end of `text`, at most [`EXCERPT_BYTES`] long, cut on a char boundary:
/// for a cut-off stream the interesting part is where it stopped.
fn excerpt_tail(text: &str) -> String {
    let mut start = text.len().saturating_sub(EXCERPT_BYTES);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_tail_keeps_short_text_whole() {
        assert_eq!(excerpt_tail("abc"), "abc");
    }

    #[test]
    fn excerpt_tail_cuts_long_text_on_a_char_boundary() {
        // 'é' is two bytes, so byte 200 falls inside a char.
        let text = format!("{}a", "é".repeat(150));
        let tail = excerpt_tail(&text);
        assert!(tail.len() <= EXCERPT_BYTES);
        assert_eq!(tail.len(), 199);
        assert!(text.ends_with(&tail));
    }
}
