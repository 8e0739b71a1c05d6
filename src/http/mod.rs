//! How bytes travel: the connection pool ([`pool`]), the two ways a request
//! is posted ([`post`]), one attempt ([`attempt`], [`outcome`]) under the
//! retry loop and its policy ([`retry`]), redirected only as [`redirect`]
//! allows; whole bodies read up to their limit ([`body`]), streamed ones as
//! they arrive ([`reader`]), both decompressed by [`decompress`], through
//! buffers grown as needed ([`buffers`]); what went wrong, in chatwire's
//! words ([`failure`]).
//! Connections are opened by [`connect`] to the addresses [`resolve`]
//! finds, through a route ([`proxy`]) and with a trust store ([`tls`]);
//! requests that can be stopped carry a [`cancel`] token; a background
//! worker waits with no more stack than waiting takes ([`stack`]). A forked
//! child gets pools of its own ([`pool`]).
//!
//! This stage moves bytes and nothing else: it names no conversation, no
//! stream event, no client; the request body comes in as bytes, and the
//! answer leaves as text or as a byte reader. Only an error body is read
//! here (with the wire format's reader), because whether to retry depends
//! on what it says.

pub(crate) mod attempt;
pub(crate) mod body;
pub(crate) mod buffers;
pub(crate) mod cancel;
pub(crate) mod connect;
pub(crate) mod decompress;
pub(crate) mod failure;
pub(crate) mod outcome;
pub(crate) mod pool;
pub(crate) mod post;
pub(crate) mod proxy;
pub(crate) mod reader;
pub(crate) mod redirect;
pub(crate) mod resolve;
pub(crate) mod retry;
pub(crate) mod stack;
pub(crate) mod tls;
