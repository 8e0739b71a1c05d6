//! chatwire: a blocking client for OpenAI-compatible chat completions, for
//! Rust programs and, through its C API, for C and C++ programs.
//!
//! The service keeps no state: a [`Conversation`] holds the history, and
//! [`Client::send`] posts all of it to `{base_url}/v1/chat/completions`,
//! then appends the reply.
//!
//! ```no_run
//! let client = chatwire::Client::builder()
//!     .base_url("http://127.0.0.1:8080")
//!     .api_key("sk-...")
//!     .timeout(std::time::Duration::from_secs(30))
//!     .max_retries(2)
//!     .build()?;
//! let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
//! conversation.set_system("You are terse.");
//! conversation.user("Name three colours.")?;
//! let reply: String = client.send(&mut conversation)?;
//! println!("{reply}");
//! conversation.user("And three more?")?;
//! println!("{}", client.send(&mut conversation)?);
//! # Ok::<(), chatwire::Error>(())
//! ```
//!
//! # The API by task
//!
//! | to ... | use |
//! |---|---|
//! | configure a client (URL, key, timeouts, retries, headers) | [`Client::builder`], [`ClientBuilder`], [`Client::from_env`] |
//! | keep a conversation | [`Conversation`]: [`user`](Conversation::user), [`assistant`](Conversation::assistant), [`set_system`](Conversation::set_system), [`push`](Conversation::push), [`truncate`](Conversation::truncate), [`to_json`](Conversation::to_json) / [`from_json`](Conversation::from_json) |
//! | send and get the text | [`Client::send`] |
//! | send and get the finish reason, [`Usage`], request id, tool calls, body | [`Client::send_reply`] → [`Reply`]; [`Client::complete`] without appending |
//! | stream the text as it arrives | [`Client::send_stream`] (a callback), [`Client::stream`] (an iterator, [`ReplyStream`]) |
//! | send in the background, poll, wait, cancel | [`Client::send_async`], [`Client::stream_async`] → [`PendingReply`] (also a `Future`), [`CancelToken`] |
//! | set request options | [`Conversation::set_option`] and typed setters such as [`Conversation::set_temperature`], [`ResponseFormat`]; a server's own form: [`Conversation::set_option_unchecked`] |
//! | offer tools and answer their calls | [`Tool`], [`Conversation::add_tool`], [`ToolCall`], [`Conversation::tool_result`] |
//! | send images | [`Image`], [`ImageDetail`], [`Conversation::user_image`] |
//! | send a PDF or a recording (WAV, MP3) | [`Attachment`], [`Conversation::user_file`] |
//! | get data matching a JSON Schema, with correction turns | [`Client::send_json`] (into your type), [`SchemaDelivery`], [`INGREDIENTS_SCHEMA`] |
//! | get JSON out of a model's almost-JSON reply | [`extract_json`], [`extract()`], [`extract_ingredients`], [`json_prompt`], [`ingredients_prompt`]; the rest of [`mod@extract`] |
//! | bound what is kept of an answer | [`Limit`], [`ClientBuilder::limit`], [`Client::limit`]; [`Error::TooLarge`] past a limit |
//! | go through a company network: trust a CA, show a client certificate (mutual TLS), use a proxy, see log lines | [`ClientBuilder::ca_file`], [`ClientBuilder::client_certificate`], [`ClientBuilder::proxy`] (by default the system's CAs, `SSL_CERT_FILE` / `SSL_CERT_DIR`, and the proxy variables as curl reads them); lines through the `log` facade (target `chatwire`), or `CHATWIRE_LOG=debug` on stderr |
//! | tell failures apart | [`Error`] (one variant per thing a caller can act on), [`ApiError`], [`TimeoutKind`], [`Error::http_status`] |
//!
//! Errors never contain the API key or a header value, even when a server
//! echoes them; everything kept from an answer has a limit ([`Limit`]);
//! redirects are followed only when they keep the request and its origin
//! (`docs/security.md` in the repository has the whole policy). The C API
//! (`include/chatwire.h`) is the same core behind `extern "C"` functions;
//! the repository's `docs/` folder is the manual (the C API, installing,
//! configuration, providers, structured output, performance), and its
//! `ARCHITECTURE.md` says how the crate is laid out.

#![warn(missing_docs)]
#![deny(unsafe_code)]
#![warn(unsafe_op_in_unsafe_fn)]

mod client;
mod config;
mod conversation;
mod error;
pub mod extract;
#[allow(unsafe_code)]
mod ffi;
mod http;
mod log;
mod reply;
mod response_headers;
mod schema;
mod secrets;
mod stream;
mod structured;
mod sys;
mod wire;

/// The streaming decoder, for the fuzz targets only: not part of the API,
/// and not built unless the `fuzzing` feature is on.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::stream::{StreamDecoder, StreamEvent};
}

pub use client::{Client, ClientBuilder, PendingReply};
pub use config::{
    Auth, Limit, DEFAULT_AZURE_API_VERSION, DEFAULT_BASE_URL, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT, DEFAULT_JSON_CORRECTIONS, DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_IDLE_CONNECTIONS,
    DEFAULT_MAX_RETRIES, DEFAULT_MAX_STREAM_BYTES, DEFAULT_TIMEOUT, MAX_CA_FILE_BYTES,
    MAX_CREDENTIAL_BYTES, MAX_FILE_BYTES, MAX_HEADER_LIMIT, MAX_IDLE_CONNECTIONS, MAX_IMAGE_BYTES,
    MAX_JSON_CORRECTIONS, MAX_LIMIT, MAX_RETRIES_CEILING, MAX_TIMEOUT, MIN_LIMIT, STREAM_END_GRACE,
};
pub use config::{
    DEFAULT_MAX_IN_FLIGHT, DEFAULT_WORKER_STACK_BYTES, MAX_IN_FLIGHT, MAX_WORKER_STACK_BYTES,
    MIN_WORKER_STACK_BYTES,
};
pub use conversation::message::{
    Attachment, AttachmentKind, Image, ImageDetail, Message, Reasoning, ReasoningField,
    ReasoningReplay, Role, Tool, ToolCall,
};
pub use conversation::options::ResponseFormat;
pub use conversation::Conversation;
pub use error::{ApiError, Error, Result, TimeoutKind};
pub use extract::{
    extract, extract_ingredients, extract_json, ingredients_prompt, json_prompt, Ingredient,
};
pub use http::cancel::CancelToken;
pub use reply::{Reply, ReplyChoice, Usage};
pub use response_headers::ResponseHeaders;
pub use stream::reply_stream::{DeltaKind, ReplyStream, StreamDelta};
pub use structured::{SchemaDelivery, INGREDIENTS_SCHEMA};
