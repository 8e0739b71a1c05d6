//! The C API: a thin shell over the Rust API, in two layers.
//!
//! The support layer is what every exported function stands on:
//! [`boundary`] (panics caught, errors turned into a `chatwire_status`, the
//! last error recorded), [`error`], [`status`] (status and role codes),
//! [`handle`] (pointer checks and casts), [`text`] (C strings in and out)
//! and [`callback`] (C function pointers). It names no module of a C type.
//! Above it, one module per C type, its functions, and no logic of their
//! own.
//!
//! # Safety
//!
//! Every exported function is `unsafe` with one contract, the C conventions
//! (docs/c-api.md), which its own comment adds to where it must: a handle
//! is NULL or a live pointer that chatwire handed out, a string is NULL or
//! NUL-terminated, an out-parameter is NULL or writable, a callback is NULL
//! or valid with its `userdata`. Every `unsafe` block relies on it; the
//! helpers of [`handle`] and [`text`] turn NULL into an error.

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
