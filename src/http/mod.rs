//! How bytes travel, on ureq's agent; each file says what ureq lacks that
//! it adds. This stage takes the request body as bytes and gives the answer
//! as text or a byte reader; it reads only an error body, whose words
//! decide a retry.

pub(crate) mod attempt;
pub(crate) mod buffers;
pub(crate) mod cancel;
pub(crate) mod connect;
pub(crate) mod decompress;
pub(crate) mod failure;
pub(crate) mod pool;
pub(crate) mod post;
pub(crate) mod proxy;
pub(crate) mod reader;
pub(crate) mod redirect;
pub(crate) mod resolve;
pub(crate) mod retry;
pub(crate) mod stack;
pub(crate) mod tls;
pub(crate) mod tls_transport;
pub(crate) mod upload;
