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
//! Beyond that one call:
//!
//! - streaming: [`Client::send_stream`] (a callback), [`Client::stream`] (an
//!   iterator, [`ReplyStream`]), and background sends with
//!   [`Client::send_async`] / [`Client::stream_async`], whose
//!   [`PendingReply`] can be waited on, polled, cancelled or awaited in any
//!   executor, with no async runtime;
//! - [`Client::send_reply`] returns the whole [`Reply`]: finish reason,
//!   [`Usage`], request id, tool calls, the body as received;
//! - tools ([`Tool`], [`ToolCall`], [`Conversation::tool_result`]) and images
//!   ([`Image`], [`Conversation::user_image`]);
//! - request options ([`Conversation::set_option`] and typed setters such as
//!   [`Conversation::set_temperature`]) and extra headers;
//! - [`extract_json`] and the rest of [`mod@extract`]: the JSON in a model's
//!   almost-JSON reply.
//!
//! Errors are [`Error`] values whose messages never contain the API key.
//! The C API (`include/chatwire.h`) is the same core behind `extern "C"`
//! functions; see the README.

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
mod reply;
mod stream;

/// The streaming decoder, for the fuzz targets only: not part of the API,
/// and not built unless the `fuzzing` feature is on.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::stream::{StreamDecoder, StreamEvent};
}

pub use client::{
    Client, ClientBuilder, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT, MAX_TIMEOUT,
};
pub use config::DEFAULT_BASE_URL;
pub use conversation::image::MAX_IMAGE_BYTES;
pub use conversation::message::{Image, ImageDetail, Message, Role, Tool, ToolCall};
pub use conversation::options::ResponseFormat;
pub use conversation::Conversation;
pub use error::{ApiError, Error, Result, TimeoutKind};
pub use extract::{
    extract, extract_ingredients, extract_json, ingredients_prompt, json_prompt, Ingredient,
};
pub use http::cancel::CancelToken;
pub use http::pending::PendingReply;
pub use reply::{Reply, Usage};
pub use stream::reply_stream::ReplyStream;
