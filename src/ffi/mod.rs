//! The C API: a thin shell over the Rust API. A support layer ([`boundary`],
//! [`status`], [`handle`], [`text`], [`callback`]) that names no
//! module of a C type; above it, one module per C type and no logic.
//!
//! # Safety
//!
//! Every exported function is `unsafe` with one contract, the C conventions
//! (docs/c-api.md): a handle is NULL or a live pointer that chatwire handed
//! out, a string NULL or NUL-terminated, an out-parameter NULL or writable,
//! a callback NULL or valid with its `userdata`. Every `unsafe` block
//! relies on it; [`handle`] and [`text`] turn NULL into an error. A handle
//! that a call only reads may arrive as an `Option<&T>`, the same pointer.

// The C names are the API: snake case, with the chatwire_ prefix.
#![allow(non_camel_case_types, clippy::upper_case_acronyms)]

mod batch;
mod boundary;
mod callback;
mod client;
mod conversation;
mod extract;
mod handle;
mod languages;
mod models;
mod notify;
mod reply;
mod request;
mod send;
mod status;
mod text;
