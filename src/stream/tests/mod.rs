//! The stream decoder's own tests: the SSE parser, chunk decoding and
//! accumulation, and the same streams split at every point (or at random
//! points), which must decode the same way.

mod decoder;
mod providers;
mod reply_stream;
mod rich;
mod split;
mod sse;
mod support;
