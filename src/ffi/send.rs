//! Every `chatwire_send*`: a conversation goes out through a client and
//! comes back as a string, a `chatwire_reply`, or a background request.

use std::ffi::{c_char, c_void};

use super::boundary;
use super::callback::{
    chatwire_delta_callback, chatwire_done_callback, chatwire_event_callback, DeltaSink, EventSink,
    UserData,
};
use super::client::chatwire_client;
use super::conversation::chatwire_conversation;
use super::handle;
use super::reply::chatwire_reply;
use super::request::chatwire_request;
use super::status::{chatwire_status, status_of, FfiError};
use super::text;
use crate::client::Client;
use crate::conversation::Conversation;
use crate::reply::Reply;

/// Sends the whole conversation, whose last message must be the user's, and
/// appends the reply; `*reply_out` owns a copy that ends at its first U+0000
/// (chatwire_send_reply() gives all). Blocks until the reply, the timeout or
/// the last retry; on failure the conversation is unchanged.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        send_with(client, conversation, |client, conversation| {
            let out = handle::out(reply_out, "reply_out")?;
            *out = text::string_out(&client.send(conversation)?);
            Ok(())
        })
    })
}

/// Asks for JSON matching the JSON Schema `schema_json` (the subset
/// docs/structured-output.md lists), with up to
/// chatwire_client_set_json_corrections() correction turns; `*json_out` owns
/// the matching JSON, compact, which the conversation keeps as the answer. No
/// match: CHATWIRE_ERR_INVALID_REPLY, the last error listing the problems.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_json(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    schema_json: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        send_with(client, conversation, |client, conversation| {
            let schema = text::str_in(schema_json, "schema_json")?;
            let out = handle::out(json_out, "json_out")?;
            let schema: serde_json::Value = serde_json::from_str(schema).map_err(|err| {
                crate::Error::InvalidArgument(format!("schema_json is not JSON: {err}"))
            })?;
            let answer: serde_json::Value = client.send_json(conversation, &schema)?;
            *out = text::string_out(&answer.to_string());
            Ok(())
        })
    })
}

/// Runs `send` with the client as it is now and the conversation held
/// (refused when another call holds it); unsafe: both are NULL or live.
/// `send` checks the other arguments: a NULL handle is reported as such,
/// whatever they are.
unsafe fn send_with<T>(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    send: impl FnOnce(&Client, &mut Conversation) -> Result<T, FfiError>,
) -> Result<T, FfiError> {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    let client = unsafe { handle::from_ptr(client, "client")? };
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    let mut held = unsafe { chatwire_conversation::hold(conversation)? };
    let client = client.snapshot();
    held.guard
        .change(|conversation| send(&client, conversation))
}

/// Like chatwire_send(), streamed: `on_delta` (required) gets each piece of
/// text on the calling thread; non-zero from it gives CHATWIRE_ERR_CANCELLED.
/// `reply_out` may be NULL. Past a limit or the idle timeout it fails, also
/// after deltas went out, and the conversation is unchanged.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_stream(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        send_with(client, conversation, |client, conversation| {
            let reply = stream_with(client, conversation, on_delta, userdata)?;
            if let Some(out) = reply_out.as_mut() {
                *out = text::string_out(&reply.content);
            }
            Ok(())
        })
    })
}

/// Streams with `on_delta` (required) as chatwire_send_stream() does.
fn stream_with(
    client: &Client,
    conversation: &mut Conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
) -> Result<Reply, FfiError> {
    let mut sink = DeltaSink::new(on_delta.ok_or(FfiError::Null("on_delta"))?, userdata);
    Ok(client.send_stream(conversation, |delta| sink.deliver(delta))?)
}

/// Like chatwire_send(), but `*reply_out` owns the whole reply (free with
/// chatwire_reply_free()), tool calls included.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_reply(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        send_with(client, conversation, |client, conversation| {
            let out = handle::out(reply_out, "reply_out")?;
            *out = handle::into_c(chatwire_reply::new(client.send_reply(conversation)?));
            Ok(())
        })
    })
}

/// Like chatwire_send_stream(), handing out the whole reply as
/// chatwire_send_reply() does.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_stream_reply(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        send_with(client, conversation, |client, conversation| {
            let out = handle::out(reply_out, "reply_out")?;
            let reply = stream_with(client, conversation, on_delta, userdata)?;
            *out = handle::into_c(chatwire_reply::new(reply));
            Ok(())
        })
    })
}

/// Like chatwire_send_stream_reply() (`reply_out` may be NULL), with text,
/// reasoning and refusal apart: `on_event` (required) gets each piece with its
/// chatwire_stream_kind.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_stream_events(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_event: chatwire_event_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        send_with(client, conversation, |client, conversation| {
            let mut sink = EventSink::new(on_event.ok_or(FfiError::Null("on_event"))?, userdata);
            let reply = client.send_stream_events(conversation, |delta| sink.deliver(delta))?;
            if let Some(out) = reply_out.as_mut() {
                *out = handle::into_c(chatwire_reply::new(reply));
            }
            Ok(())
        })
    })
}

/// Starts sending the conversation on a worker thread; `*request_out` owns
/// the request. The reply goes to `on_delta`, or waits for
/// chatwire_request_take_text() when it is NULL; `on_done` (may be NULL) gets
/// the status once. Both run on the worker with `userdata` and may free the
/// request. The conversation is held until `on_done` returns.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_async(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    on_done: chatwire_done_callback,
    userdata: *mut c_void,
    request_out: *mut *mut chatwire_request,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid, and `on_done` valid with
    // `userdata` on any thread (the C conventions).
    boundary::status(|| unsafe {
        let client = handle::from_ptr(client, "client")?;
        let held = chatwire_conversation::hold(conversation)?;
        let running = held.mark_running();
        let out = handle::out(request_out, "request_out")?;
        let on_delta = on_delta.map(|callback| {
            let mut sink = DeltaSink::new(callback, userdata);
            Box::new(move |delta: &crate::StreamDelta| {
                !delta.kind.is_text() || sink.deliver(&delta.text).is_continue()
            }) as crate::client::DeltaHandler
        });
        let done_userdata = UserData(userdata);
        let request_mark = running.clone();
        let on_finish = move |outcome: &crate::error::Result<crate::reply::Reply>| {
            // The conversation is free again once the callback has returned
            // (or once the request is freed, if that comes first).
            let _running = running;
            if let Some(on_done) = on_done {
                let status = outcome
                    .as_ref()
                    .map_or_else(status_of, |_| chatwire_status::CHATWIRE_OK);
                let userdata = done_userdata;
                on_done(userdata.0, status);
            }
        };
        let client = client.snapshot();
        let send = client.start_background(held.guard.conversation(), on_delta, on_finish)?;
        let conversation = held.alive.clone();
        drop(held);
        *out = handle::into_c(chatwire_request {
            send,
            conversation,
            _running: request_mark,
            appended: Default::default(),
        });
        Ok(())
    })
}
