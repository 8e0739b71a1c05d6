//! chatwire_send_stream: the reply's text handed to a callback as it arrives.

use std::ffi::{c_char, c_void};

use super::boundary::{self, FfiError};
use super::callback::{chatwire_delta_callback, DeltaSink};
use super::client::chatwire_client;
use super::conversation::chatwire_conversation;
use super::handle;
use super::send::send_with;
use super::status::chatwire_status;
use super::text;
use crate::reply::Reply;

/// Sends the conversation and streams the reply: `on_delta` (required; NULL
/// gives CHATWIRE_ERR_NULL_ARGUMENT) gets each piece of text as it arrives,
/// on the calling thread, with `userdata`. A server that answers with one
/// JSON body instead of a stream is accepted: its text arrives as one delta.
///
/// When the reply is complete it is appended to the conversation and, if
/// `reply_out` is not NULL, `*reply_out` owns a copy (equal to all deltas
/// together; free with chatwire_string_free()). A callback that returns
/// non-zero stops the request: CHATWIRE_ERR_CANCELLED. A stream silent for
/// longer than the idle timeout gives CHATWIRE_ERR_TIMEOUT. On any failure
/// the conversation is exactly as before.
///
/// # Safety
/// `client` and `conversation` are NULL or live; `on_delta` is NULL or a
/// valid callback; `reply_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chatwire_send_stream(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let reply = unsafe { stream_with(client, conversation, on_delta, userdata)? };
        // SAFETY: per this function's contract.
        if let Some(out) = unsafe { handle::optional_out(reply_out) } {
            out.write(text::string_out(&reply.content));
        }
        Ok(())
    })
}

/// A streamed send with a C delta callback, shared by the functions that
/// hand the reply out as a string or as a `chatwire_reply`.
///
/// # Safety
/// `client` and `conversation` are NULL or live; `on_delta` is NULL or valid.
pub(crate) unsafe fn stream_with(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
) -> Result<Reply, FfiError> {
    let mut sink = DeltaSink::new(on_delta.ok_or(FfiError::Null("on_delta"))?, userdata);
    // SAFETY: per this function's contract.
    unsafe {
        send_with(client, conversation, |client, conversation| {
            client.send_stream(conversation, |delta| sink.deliver(delta))
        })
    }
}
