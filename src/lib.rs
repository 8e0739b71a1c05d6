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
//! The main types: [`Client`], [`Conversation`], [`Reply`], [`Error`]; JSON
//! out of a model's text: [`mod@extract`]. The repository's `docs/rust.md`
//! lists the API by task; its `docs/` folder is the manual.

#![warn(missing_docs)]
#![deny(unsafe_code)]
#![warn(unsafe_op_in_unsafe_fn)]
// Some crate-private items serve the C API alone (background requests,
// the C forms of a few texts). Without it they are unused, and left so:
// the builds that have the C API (`make`, the unit tests, clippy over
// every target) still find what nothing uses.
#![cfg_attr(not(any(feature = "capi", test)), allow(dead_code, unused_imports))]

mod batch;
mod client;
mod config;
mod conversation;
mod error;
pub mod extract;
// The C API (docs/c-api.md), only in the C libraries that `make` builds
// (and in the unit tests): a Rust program that depends on chatwire
// exports no chatwire_* symbol.
#[cfg(any(feature = "capi", test))]
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
mod sync;
mod sys;
mod wire;

/// The streaming decoder, for the fuzz targets only: not part of the API,
/// and not built unless the `fuzzing` feature is on.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::stream::{StreamDecoder, StreamEvent};
}

pub use batch::{Batch, BatchCounts, BatchState};
pub use client::{Client, ClientBuilder, PendingReply};
// Every public default and maximum.
pub use config::{defaults::*, Api, Auth, Limit};
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
pub use wire::models::Model;
