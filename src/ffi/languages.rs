//! Forms of a few functions for languages that cannot call the originals
//! cleanly (docs/languages.md):
//!
//! - VB6 and 32-bit VBA have no 64-bit integer (only `Currency`, scaled by
//!   10,000), so every `uint64_t` parameter gets a `uint32_t` twin:
//!   [`chatwire_client_set_timeout_ms_u32`],
//!   [`chatwire_client_set_idle_timeout_ms_u32`],
//!   [`chatwire_client_set_limit_u32`],
//!   [`chatwire_conversation_set_token_budget_u32`],
//!   [`chatwire_reply_usage_u32`] and [`chatwire_reply_usage_details_u32`].
//! - COBOL cannot hand over a C callback, nor wait on a descriptor, so a
//!   streamed reply is read in a plain loop: [`chatwire_request_wait_text`]
//!   (and [`chatwire_request_wait_text_len`], for text that holds U+0000).
//!
//! Each forwards to the original function, which does the checks and
//! records the last error; nothing here has logic of its own beyond
//! widening and narrowing; the wait is the core's.

use std::ffi::{c_char, c_int};

use super::boundary;
use super::client::chatwire_client;
use super::client::settings::{
    chatwire_client_set_idle_timeout_ms, chatwire_client_set_limit, chatwire_client_set_timeout_ms,
};
use super::conversation::chatwire_conversation;
use super::conversation::edit::chatwire_conversation_set_token_budget;
use super::error::FfiError;
use super::handle;
use super::reply::{chatwire_reply, chatwire_reply_usage, chatwire_reply_usage_details};
use super::request::{chatwire_request, hand_text};
use super::status::chatwire_status;
use crate::client::BackgroundSend;

/// chatwire_client_set_timeout_ms() with a 32-bit count, for languages
/// without a 64-bit integer (VB6, 32-bit VBA: a `Long`). The same checks
/// and errors.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    boundary::status(|| {
        forwarded(unsafe { chatwire_client_set_timeout_ms(client, u64::from(timeout_ms)) })
    })
}

/// chatwire_client_set_idle_timeout_ms() with a 32-bit count (see
/// chatwire_client_set_timeout_ms_u32()). The same checks and errors.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_idle_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    boundary::status(|| {
        forwarded(unsafe { chatwire_client_set_idle_timeout_ms(client, u64::from(timeout_ms)) })
    })
}

/// chatwire_client_set_limit() with a 32-bit count of bytes (up to
/// 4 GiB - 1; see chatwire_client_set_timeout_ms_u32()). The same checks
/// and errors.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_limit_u32(
    client: *mut chatwire_client,
    which: c_int,
    bytes: u32,
) -> chatwire_status {
    boundary::status(|| {
        forwarded(unsafe { chatwire_client_set_limit(client, which, u64::from(bytes)) })
    })
}

/// chatwire_conversation_set_token_budget() with a 32-bit count (see
/// chatwire_client_set_timeout_ms_u32()). The same checks and errors.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_token_budget_u32(
    conversation: *mut chatwire_conversation,
    max_prompt_tokens: u32,
) -> chatwire_status {
    boundary::status(|| {
        forwarded(unsafe {
            chatwire_conversation_set_token_budget(conversation, u64::from(max_prompt_tokens))
        })
    })
}

/// chatwire_reply_usage() in 32-bit counts, for languages without a 64-bit
/// integer (a count past 4294967295, which no reply reaches, is given as
/// 4294967295; read from VB's signed `Long`, past 2147483647 it is
/// negative). Each out-parameter may be NULL. The same errors: when the
/// server reported no usage, CHATWIRE_ERR_UNAVAILABLE and nothing is
/// written.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage_u32(
    reply: *const chatwire_reply,
    prompt_tokens: *mut u32,
    completion_tokens: *mut u32,
    total_tokens: *mut u32,
) -> chatwire_status {
    boundary::status(|| {
        let mut counts = [0_u64; 3];
        let [prompt, completion, total] = &mut counts;
        forwarded(unsafe { chatwire_reply_usage(reply, prompt, completion, total) })?;
        let outs = [prompt_tokens, completion_tokens, total_tokens];
        unsafe { handle::write_optional(outs, counts.map(narrowed)) };
        Ok(())
    })
}

/// chatwire_reply_usage_details() in 32-bit counts (see
/// chatwire_reply_usage_u32()). Each out-parameter may be NULL; the same
/// errors.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage_details_u32(
    reply: *const chatwire_reply,
    cached_tokens: *mut u32,
    reasoning_tokens: *mut u32,
) -> chatwire_status {
    boundary::status(|| {
        let mut counts = [0_u64; 2];
        let [cached, reasoning] = &mut counts;
        forwarded(unsafe { chatwire_reply_usage_details(reply, cached, reasoning) })?;
        let outs = [cached_tokens, reasoning_tokens];
        unsafe { handle::write_optional(outs, counts.map(narrowed)) };
        Ok(())
    })
}

/// A count saturated to 32 bits.
fn narrowed(count: u64) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// Waits until a background request (chatwire_send_async() with a NULL
/// `on_delta`) has text that was not yet taken, or is done, and hands that
/// text out as chatwire_request_take_text() does: `*text_out` owns it (free
/// with chatwire_string_free()). It is "" only once the request is done and
/// all its text was taken; chatwire_request_wait() then gives the outcome
/// (and appends the reply) without blocking.
///
/// A streamed reply for languages that can neither hand over a callback
/// nor wait on a descriptor (COBOL, batch Fortran), in a plain loop:
///
/// ```c
/// for (;;) {
///     char *text;
///     if (chatwire_request_wait_text(request, &text) != CHATWIRE_OK) break;
///     int end = text[0] == '\0';
///     fputs(text, stdout);
///     chatwire_string_free(text);
///     if (end) break;
/// }
/// status = chatwire_request_wait(request, &reply);
/// ```
///
/// For a request started with an `on_delta` callback (which gets the text
/// instead), it waits for the end and gives "", so never call it from
/// that callback (the request would wait for itself); from `on_done` it
/// returns at once. It blocks the calling thread: cancel from another
/// thread (chatwire_request_cancel()), or set a timeout on the client; do
/// not free the request during the wait. Errors: CHATWIRE_ERR_NULL_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_text(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| unsafe { hand_text(request, text_out, None, BackgroundSend::wait_text) })
}

/// Like chatwire_request_wait_text(), and writes the text's length in bytes
/// (without the final NUL) to `*len_out`: a model may write U+0000, which
/// ends the text for strlen() but not for this length. Both out-parameters
/// are required and written only on success.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_text_len(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
    len_out: *mut usize,
) -> chatwire_status {
    boundary::status(|| unsafe {
        hand_text(request, text_out, Some(len_out), BackgroundSend::wait_text)
    })
}

/// The status of a forwarded call, as this call's outcome: its error again,
/// with the message and HTTP status it recorded.
fn forwarded(status: chatwire_status) -> Result<(), FfiError> {
    if status == chatwire_status::CHATWIRE_OK {
        return Ok(());
    }
    // SAFETY: chatwire_last_error() never gives NULL, and its text lives
    // until the next chatwire call on this thread; it is copied at once.
    let message = unsafe { std::ffi::CStr::from_ptr(boundary::chatwire_last_error()) };
    Err(FfiError::Again {
        status,
        message: message.to_string_lossy().into_owned(),
        http_status: boundary::chatwire_last_http_status(),
    })
}
