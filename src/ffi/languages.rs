//! Forms of a few functions for languages that cannot call the originals
//! cleanly (docs/languages.md): a `uint32_t` twin of each function with a
//! `uint64_t` parameter, for VB6 and 32-bit VBA, which have no 64-bit
//! integer; and [`chatwire_request_wait_text`], a streamed reply in a plain
//! loop, for COBOL, which can neither hand over a callback nor wait on a
//! descriptor. Each forwards to the original (or the core's wait), which
//! does the checks and records the last error.

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
/// without a 64-bit integer (VB6, 32-bit VBA: a `Long`).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    boundary::status(|| {
        forwarded(unsafe { chatwire_client_set_timeout_ms(client, u64::from(timeout_ms)) })
    })
}

/// chatwire_client_set_idle_timeout_ms() with a 32-bit count.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_idle_timeout_ms_u32(
    client: *mut chatwire_client,
    timeout_ms: u32,
) -> chatwire_status {
    boundary::status(|| {
        forwarded(unsafe { chatwire_client_set_idle_timeout_ms(client, u64::from(timeout_ms)) })
    })
}

/// chatwire_client_set_limit() with a 32-bit count of bytes.
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

/// chatwire_conversation_set_token_budget() with a 32-bit count.
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

/// chatwire_reply_usage() in 32-bit counts: a count past 4294967295 (which no
/// reply reaches) is given as 4294967295, negative in VB's signed `Long`
/// past 2147483647.
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

/// chatwire_reply_usage_details() in 32-bit counts, as
/// chatwire_reply_usage_u32().
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

/// Waits until a background request has text not yet taken, or is done, and
/// hands it out as chatwire_request_take_text() does; "" only once it is done
/// and all its text was taken, when chatwire_request_wait() no longer blocks.
/// A streamed reply in a plain loop, for languages that can neither hand
/// over a callback nor wait on a descriptor (COBOL, batch Fortran):
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
/// With an `on_delta` callback it waits for the end and gives "": never call
/// it from that callback (the request would wait for itself). Cancel a wait
/// from another thread or with a timeout; never free the request during it.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_text(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
) -> chatwire_status {
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
