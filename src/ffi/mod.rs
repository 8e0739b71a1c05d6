//! The C API: a thin shell over the Rust API, in two layers.
//!
//! The support layer is what every exported function stands on:
//! [`boundary`] (panics caught, errors turned into a `chatwire_status`, the
//! thread's last error recorded), [`error`] (why a call failed), [`status`]
//! (the status and role codes), [`handle`] (pointer checks and casts between
//! handles and the values behind them), [`text`] (C strings in and out) and
//! [`callback`] (C function pointers and the glue that calls them). It names
//! no module of a C type.
//!
//! Above it, one module per C type, holding that type and its functions and
//! no logic of their own: [`client`], [`conversation`], [`send`] (every
//! `chatwire_send*`), [`reply`], [`request`], [`extract`] (with the
//! ingredient list), [`string`] (strings chatwire hands out), [`log`]
//! (the process-wide log callback) and [`version`] (the version at run
//! time).
//!
//! # Safety
//!
//! Every exported function is `unsafe` with one contract, the C conventions
//! (docs/c-api.md), which its own comment adds to where it must: a handle
//! is NULL or a live pointer that chatwire handed out, a string is NULL or
//! NUL-terminated, an out-parameter is NULL or writable, a callback is NULL
//! or valid with its `userdata`. Every `unsafe` block relies on it. The helpers of
//! [`handle`] and [`text`] turn NULL into an error; what they cannot check
//! (liveness) is the caller's promise. Blocks that rely on more than that
//! say so in their own `SAFETY` comment.

// The C names are the API: snake case, with the chatwire_ prefix.
#![allow(non_camel_case_types)]

mod boundary;
mod callback;
mod client;
mod conversation;
mod error;
mod extract;
mod handle;
mod languages;
mod log;
mod notify;
mod reply;
mod request;
mod send;
mod status;
mod string;
mod text;
mod version;
