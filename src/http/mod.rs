//! How bytes travel, on ureq's agent: one attempt ([`attempt`], [`outcome`])
//! under the retry loop ([`retry`]) and the redirect policy ([`redirect`]),
//! posted whole or streamed ([`post`], [`body`], [`reader`], [`decompress`]);
//! errors in chatwire's words ([`failure`]). What ureq lacks, each in its
//! file: a per-request [`cancel`], connections that can be interrupted
//! ([`connect`]) with buffers that grow ([`buffers`]), a cancellable cached
//! lookup ([`resolve`]), absolute-form proxying and curl's NO_PROXY
//! ([`proxy`]), the system's trust store ([`tls`]), a worker's stack given
//! back while it waits ([`stack`]), and fork safety ([`pool`]).
//!
//! This stage names no conversation, stream event or client: the request
//! body comes in as bytes, the answer leaves as text or a byte reader. Only
//! an error body is read here, since whether to retry depends on it.

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
