//! How a request travels: the body is serialized ([`body`]), posted and
//! retried ([`transport`], [`retry`]) over pooled connections that
//! [`connect`] opens to the addresses [`resolve`] finds, through a route
//! ([`proxy`]) and with a trust store ([`tls`]), redirected only as
//! [`redirect`] allows, its answer decoded ([`response`]);
//! requests that can be stopped carry a [`cancel`] token (which reaches a
//! blocked socket through [`wake`]), and background
//! requests run as a [`pending`] reply.
//!
//! Nothing here knows about C, and nothing here reads a stream's events:
//! a streamed answer leaves as a byte reader for [`crate::stream`].

pub(crate) mod body;
pub(crate) mod cancel;
pub(crate) mod connect;
pub(crate) mod pending;
pub(crate) mod proxy;
pub(crate) mod redirect;
pub(crate) mod resolve;
pub(crate) mod response;
pub(crate) mod retry;
pub(crate) mod tls;
pub(crate) mod transport;
pub(crate) mod wake;
