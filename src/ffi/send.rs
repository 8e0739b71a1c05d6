//! chatwire_send: one request, the reply appended.

use std::ffi::c_char;

use super::boundary::{self, FfiError};
use super::client::chatwire_client;
use super::conversation::chatwire_conversation;
use super::handle;
use super::status::chatwire_status;
use super::text;
use crate::client::Client;
use crate::conversation::Conversation;

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
        let out = unsafe { handle::out(reply_out, "reply_out")? };
        // SAFETY: per this function's contract.
        let reply = unsafe { send_with(client, conversation, Client::send)? };
        out.write(text::string_out(&reply));
        Ok(())
    })
}

/// Borrows the client and the conversation of a send and runs `send` with
/// the client as it is now; the conversation only ever grows by the reply.
///
/// # Safety
/// `client` and `conversation` are NULL or live.
pub(crate) unsafe fn send_with<T>(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    send: impl FnOnce(&Client, &mut Conversation) -> crate::Result<T>,
) -> Result<T, FfiError> {
    // SAFETY: per this function's contract.
    let (client, conversation) = unsafe {
        (
            handle::borrow(client, "client")?,
            handle::borrow_mut(conversation, "conversation")?,
        )
    };
    Ok(send(&client.snapshot(), conversation.appendable())?)
}
