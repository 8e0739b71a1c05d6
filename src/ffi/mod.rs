//! The C API: a thin shell over the Rust API.
//!
//! Every exported function runs its body through [`boundary`], which
//! catches panics, turns errors into a `chatwire_status` and records the
//! thread's last error. Pointer checks and casts live in [`handle`], string
//! conversions in [`text`]; the other modules hold one C type each and no
//! logic of their own.

// The C names are the API: snake case, with the chatwire_ prefix.
#![allow(non_camel_case_types)]

mod boundary;
mod callback;
mod client;
mod conversation;
mod extract;
mod handle;
mod reply;
mod request;
mod send;
mod status;
mod stream;
mod text;
mod version;
