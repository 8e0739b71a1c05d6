//! Forms of a few functions for languages that cannot call the originals
//! (docs/languages.md): `uint32_t` twins of those with a `uint64_t`, and
//! [`chatwire_request_wait_text`], a streamed reply in a plain loop. Each
//! twin forwards to its original (the counts in, widened; or its counts out,
//! narrowed), so the same checks and errors.

use std::ffi::{c_char, c_int};

use super::batch::{self, chatwire_batch};
use super::boundary;
use super::client::{chatwire_client, settings};
use super::conversation::{chatwire_conversation, edit};
use super::handle;
use super::reply::{chatwire_reply, usage, usage_details, write_counts};
use super::request::{chatwire_request, hand_text};
use super::status::chatwire_status;
use crate::client::BackgroundSend;

/// chatwire_client_set_timeout_ms() with a 32-bit count, for languages
/// without a 64-bit integer (VB6, 32-bit VBA).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { settings::chatwire_client_set_timeout_ms(client, timeout_ms.into()) }
}

/// chatwire_client_set_connect_timeout_ms() with a 32-bit count.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_connect_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { settings::chatwire_client_set_connect_timeout_ms(client, timeout_ms.into()) }
}

/// chatwire_client_set_idle_timeout_ms() with a 32-bit count.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_idle_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { settings::chatwire_client_set_idle_timeout_ms(client, timeout_ms.into()) }
}

/// chatwire_client_set_limit() with a 32-bit count of bytes.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_limit_u32(
    client: *mut chatwire_client,
    which: c_int,
    bytes: u32,
) -> chatwire_status {
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { settings::chatwire_client_set_limit(client, which, bytes.into()) }
}

/// chatwire_conversation_set_token_budget() with a 32-bit count.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_token_budget_u32(
    conversation: *mut chatwire_conversation,
    max_prompt_tokens: u32,
) -> chatwire_status {
    // SAFETY: the caller's arguments, passed on as they came.
    unsafe { edit::chatwire_conversation_set_token_budget(conversation, max_prompt_tokens.into()) }
}

/// chatwire_reply_usage() in 32-bit counts; a count past 4294967295 (which no
/// reply reaches) is given as 4294967295.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage_u32(
    reply: Option<&chatwire_reply>,
    prompt_tokens: *mut u32,
    completion_tokens: *mut u32,
    total_tokens: *mut u32,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let outs = [prompt_tokens, completion_tokens, total_tokens];
        write_counts(reply, usage, outs, narrowed)
    })
}

/// chatwire_reply_usage_details() in 32-bit counts, as
/// chatwire_reply_usage_u32().
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage_details_u32(
    reply: Option<&chatwire_reply>,
    cached_tokens: *mut u32,
    reasoning_tokens: *mut u32,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let outs = [cached_tokens, reasoning_tokens];
        write_counts(reply, usage_details, outs, narrowed)
    })
}

/// chatwire_batch_counts() in 32-bit counts (a batch holds at most 50,000
/// requests, so each fits).
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_counts_u32(
    batch: Option<&chatwire_batch>,
    completed: *mut u32,
    failed: *mut u32,
    total: *mut u32,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        handle::write_optional(
            [completed, failed, total],
            batch::counts(batch)?.map(narrowed),
        );
        Ok(())
    })
}

fn narrowed(count: u64) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// Waits until the request has text not yet taken, or is done, and hands it
/// out as chatwire_request_take_text() does; "" only once all is taken and the
/// request is done: a streamed reply in a plain loop (docs/languages.md). With
/// `on_delta` it gives "" at the end; never call it from that callback.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_text(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe { hand_text(request, text_out, None, BackgroundSend::wait_text) })
}

/// Like chatwire_request_wait_text(), and writes the text's length in bytes
/// to `*len_out`.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_text_len(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
    len_out: *mut usize,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        hand_text(request, text_out, Some(len_out), BackgroundSend::wait_text)
    })
}
