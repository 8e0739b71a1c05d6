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
use super::error::FfiError;
use super::handle;
use super::reply::chatwire_reply;
use super::request::chatwire_request;
use super::status::{chatwire_status, status_of};
use super::text;
use crate::client::Client;
use crate::conversation::Conversation;
use crate::reply::Reply;

/// Sends the whole conversation and appends the assistant's reply to it.
///
/// The last message must be a user message (else
/// CHATWIRE_ERR_INVALID_CONVERSATION and nothing is sent). On success the
/// reply is appended and `*reply_out` owns a copy of it; free it with
/// chatwire_string_free(). On any failure the conversation is exactly as
/// before, so the call can simply be repeated; chatwire_last_error() and
/// chatwire_last_http_status() say what happened. Blocks until the reply has
/// arrived, the timeout has passed, or the retries are used up.
/// The copy ends at the first U+0000 of the text, as a C string does; for
/// text that may hold one, use chatwire_send_reply() and
/// chatwire_reply_content_len().
#[no_mangle]
pub unsafe extern "system" fn chatwire_send(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        let out = unsafe { handle::out(reply_out, "reply_out")? };
        let reply = unsafe { send_with(client, conversation, Client::send)? };
        out.write(text::string_out(&reply));
        Ok(())
    })
}

/// Asks for JSON that matches a JSON Schema and hands out only data that
/// matches it.
///
/// `schema_json` is the schema as JSON text (a subset of JSON Schema draft
/// 2020-12; the Rust docs of `Client::send_json` list what is checked; a
/// schema that uses "pattern" and a few other keywords is refused with
/// CHATWIRE_ERR_INVALID_ARGUMENT before anything is sent, as is text that
/// is not JSON). The schema reaches the model as
/// chatwire_client_set_schema_delivery() says (default: in the prompt).
/// The reply is read as chatwire_extract_json() reads it and checked; when
/// it does not match, the model gets a short correction turn naming each
/// problem, up to chatwire_client_set_json_corrections() times (default 2).
///
/// On success `*json_out` owns the JSON, compact, matching the schema
/// (free with chatwire_string_free()), and the conversation holds the
/// question as asked and that JSON as the assistant's answer, without the
/// correction turns. When no reply matched: CHATWIRE_ERR_INVALID_REPLY, and
/// chatwire_last_error() lists the last problems (each with its place, as
/// in "at /0/quantity: expected a number, got \"two\"") and the start of
/// the last reply; when the token limit cut that reply (finish_reason
/// "length"), the first problem says so. On any failure the conversation
/// is exactly as before.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_json(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    schema_json: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        let (schema, out) = unsafe {
            (
                text::str_in(schema_json, "schema_json")?,
                handle::out(json_out, "json_out")?,
            )
        };
        // Read inside the send, after the handles: a NULL handle is
        // reported as such, whatever the other arguments are.
        let answer: serde_json::Value = unsafe {
            send_with(client, conversation, |client, conversation| {
                let schema: serde_json::Value = serde_json::from_str(schema).map_err(|err| {
                    crate::Error::InvalidArgument(format!("schema_json is not JSON: {err}"))
                })?;
                client.send_json(conversation, &schema)
            })?
        };
        out.write(text::string_out(&answer.to_string()));
        Ok(())
    })
}

/// Borrows the client and holds the conversation of a send (refused when
/// another call holds it: see chatwire_conversation) and runs `send` with
/// the client as it is now; the conversation only ever grows by the reply.
/// It stays held while the callbacks run, so a callback that calls back
/// with the same conversation is refused.
///
/// # Safety
/// `client` and `conversation` are NULL or live.
unsafe fn send_with<T>(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    send: impl FnOnce(&Client, &mut Conversation) -> crate::error::Result<T>,
) -> Result<T, FfiError> {
    let (client, mut held) = unsafe {
        (
            handle::borrow(client, "client")?,
            chatwire_conversation::hold(conversation)?,
        )
    };
    Ok(send(&client.snapshot(), &mut held.conversation)?)
}

/// Sends the conversation and streams the reply: `on_delta` (required; NULL
/// gives CHATWIRE_ERR_NULL_ARGUMENT) gets each piece of text as it arrives,
/// on the calling thread, with `userdata`. A server that answers with one
/// JSON body instead of a stream is accepted: its text arrives as one delta.
///
/// When the reply is complete it is appended to the conversation and, if
/// `reply_out` is not NULL, `*reply_out` owns a copy (all deltas together,
/// exactly as the model wrote it, and ending at the first U+0000 as
/// in chatwire_send(); free with chatwire_string_free()). An answer past
/// one of the limits (chatwire_client_set_limit()) gives
/// CHATWIRE_ERR_TOO_LARGE, also after deltas were passed on. A callback that returns
/// non-zero stops the request: CHATWIRE_ERR_CANCELLED. The callback may call
/// chatwire functions on other conversations; any call on this one (a
/// send, an append, a read) is refused with
/// CHATWIRE_ERR_INVALID_CONVERSATION while the send runs. A stream silent for
/// longer than the idle timeout gives CHATWIRE_ERR_TIMEOUT. On any failure
/// the conversation is exactly as before.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_stream(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        let reply = unsafe { stream_with(client, conversation, on_delta, userdata)? };
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
unsafe fn stream_with(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
) -> Result<Reply, FfiError> {
    let mut sink = DeltaSink::new(on_delta.ok_or(FfiError::Null("on_delta"))?, userdata);
    unsafe {
        send_with(client, conversation, |client, conversation| {
            client.send_stream(conversation, |delta| sink.deliver(delta))
        })
    }
}

/// Like chatwire_send(), but hands out the whole reply: `*reply_out` owns a
/// chatwire_reply (free with chatwire_reply_free()). The reply, with its tool
/// calls, is appended to the conversation as with chatwire_send(). When the
/// model calls tools, chatwire_reply_content() is "" and
/// chatwire_reply_tool_call() gives each call; append one result per call
/// with chatwire_conversation_append_tool_result(), then send again.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_reply(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    boundary::status(|| {
        let out = unsafe { handle::out(reply_out, "reply_out")? };
        let reply = unsafe { send_with(client, conversation, Client::send_reply)? };
        chatwire_reply::hand_out(reply, out);
        Ok(())
    })
}

/// Like chatwire_send_stream(), but hands out the whole reply as a
/// chatwire_reply (see chatwire_send_reply()); tool calls streamed in
/// fragments are assembled.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_stream_reply(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    boundary::status(|| {
        let out = unsafe { handle::out(reply_out, "reply_out")? };
        let reply = unsafe { stream_with(client, conversation, on_delta, userdata)? };
        chatwire_reply::hand_out(reply, out);
        Ok(())
    })
}

/// Like chatwire_send_stream_reply(), with the reply's text, reasoning and
/// refusal apart: `on_event` (required; NULL gives
/// CHATWIRE_ERR_NULL_ARGUMENT) gets each piece as it arrives with its kind
/// (CHATWIRE_STREAM_CONTENT, CHATWIRE_STREAM_REASONING,
/// CHATWIRE_STREAM_REFUSAL), on the calling thread, with `userdata`. A
/// leading <think>...</think> block in the content arrives as reasoning,
/// also when its tags are split across chunks. Non-zero from the callback
/// stops the request: CHATWIRE_ERR_CANCELLED. On success the reply is
/// appended (with its reasoning) and, if `reply_out` is not NULL,
/// `*reply_out` owns it (free with chatwire_reply_free()). On any failure
/// the conversation is exactly as before.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_stream_events(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_event: chatwire_event_callback,
    userdata: *mut c_void,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    boundary::status(|| {
        let mut sink = EventSink::new(on_event.ok_or(FfiError::Null("on_event"))?, userdata);
        let reply = unsafe {
            send_with(client, conversation, |client, conversation| {
                client.send_stream_events(conversation, |delta| sink.deliver(delta))
            })?
        };
        if let Some(out) = unsafe { handle::optional_out(reply_out) } {
            chatwire_reply::hand_out(reply, out);
        }
        Ok(())
    })
}

/// Starts sending the conversation on a worker thread and returns at once.
///
/// The reply is streamed. With `on_delta` its text goes to the callback as
/// it arrives (see chatwire_send_stream()); with NULL it is kept for
/// chatwire_request_take_text(), which a program's own event loop calls
/// when chatwire_request_fd() (POSIX) or chatwire_request_event()
/// (Windows) signals. `on_done` (may be NULL) is called once at the end
/// with the request's status. Both run on the worker thread, with
/// `userdata`; either may free the request (chatwire_request_free()), which
/// cancels it if it still runs and releases it when the callback returns.
/// The worker thread's stack is 256 KiB by default: a callback that needs
/// more (deep recursion, large local arrays) sets it with
/// chatwire_client_set_worker_stack_size(). The request reads the
/// conversation now; chatwire_request_wait()
/// appends the reply to it afterwards, so that after the wait the
/// conversation is as after chatwire_send(). Until then the caller must not
/// use the conversation: while the request runs (up to the return of
/// `on_done`) calls on it, from the callbacks too, are refused with
/// CHATWIRE_ERR_INVALID_CONVERSATION. It may free it: the request holds it
/// until chatwire_request_free().
///
/// On success `*request_out` owns the request; free it with
/// chatwire_request_free(). A conversation that cannot be sent as it is
/// fails here, with nothing started.
#[no_mangle]
pub unsafe extern "system" fn chatwire_send_async(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    on_done: chatwire_done_callback,
    userdata: *mut c_void,
    request_out: *mut *mut chatwire_request,
) -> chatwire_status {
    boundary::status(|| {
        let (client, (held, running), out) = unsafe {
            (
                handle::borrow(client, "client")?,
                chatwire_conversation::hold_for_background(conversation)?,
                handle::out(request_out, "request_out")?,
            )
        };
        let on_delta = on_delta.map(|callback| {
            let mut sink = DeltaSink::new(callback, userdata);
            Box::new(move |delta: &crate::StreamDelta| {
                delta.kind != crate::DeltaKind::Content || sink.deliver(&delta.text).is_continue()
            }) as crate::client::DeltaHandler
        });
        let done_userdata = UserData(userdata);
        let request_mark = running.clone();
        let on_finish = move |outcome: &crate::error::Result<crate::reply::Reply>| {
            // The conversation is free again once the callback has returned
            // (or once the request is freed, if that comes first).
            let _running = running;
            if let Some(on_done) = on_done {
                let status = match outcome {
                    Ok(_) => chatwire_status::CHATWIRE_OK,
                    Err(error) => status_of(error),
                };
                let userdata = done_userdata;
                // SAFETY: the caller gave a valid callback and its own userdata.
                unsafe { on_done(userdata.0, status) };
            }
        };
        let send = client
            .snapshot()
            .start_background(&held.conversation, on_delta, on_finish)?;
        let conversation = held.retain();
        drop(held);
        out.write(handle::into_c(chatwire_request::new(
            send,
            conversation,
            request_mark,
        )));
        Ok(())
    })
}
