//! chatwire_send: one request, the reply appended.

use std::ffi::c_char;

use super::boundary;
use super::client::chatwire_client;
use super::conversation::chatwire_conversation;
use super::handle;
use super::status::chatwire_status;
use super::text;

/// Sends the whole conversation and appends the assistant's reply to it.
///
/// The last message must be a user message (else
/// CHATWIRE_ERR_INVALID_CONVERSATION and nothing is sent). On success the
/// reply is appended and `*reply_out` owns a copy of it; free it with
/// chatwire_string_free(). On any failure the conversation is exactly as
/// before, so the call can simply be repeated; chatwire_last_error() and
/// chatwire_last_http_status() say what happened. Blocks until the reply has
/// arrived, the timeout has passed, or the retries are used up.
///
/// # Safety
/// `client` and `conversation` are NULL or live; `reply_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chatwire_send(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let (client, conversation, out) = unsafe {
            (
                handle::borrow(client, "client")?,
                handle::borrow_mut(conversation, "conversation")?,
                handle::out(reply_out, "reply_out")?,
            )
        };
        let reply = client.snapshot().send(conversation.appendable())?;
        out.write(text::string_out(&reply));
        Ok(())
    })
}
