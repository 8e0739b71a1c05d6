//! `chatwire_request`: a send running in the background.

use std::ffi::{c_char, c_int, c_void};

use super::boundary::{self, FfiError};
use super::callback::{chatwire_delta_callback, chatwire_done_callback, DeltaSink, UserData};
use super::client::chatwire_client;
use super::conversation::chatwire_conversation;
use super::handle;
use super::reply::chatwire_reply;
use super::status::{chatwire_status, status_of};
use super::text;
use crate::error::Error;
use crate::pending::PendingReply;
use crate::reply::Reply;

/// A send running on a worker thread, made by chatwire_send_async().
///
/// Poll it with chatwire_request_done(), stop it with
/// chatwire_request_cancel(), collect it with chatwire_request_wait(), and
/// free it with chatwire_request_free(), which cancels and waits if it is
/// still running. Its callbacks run on the worker thread. The conversation
/// it was started with must stay alive, and untouched by the caller, until
/// chatwire_request_wait() has returned or the request is freed.
pub struct chatwire_request {
    pending: Option<PendingReply>,
    conversation: *mut chatwire_conversation,
    finished: Option<Result<Reply, Error>>,
}

/// Starts sending the conversation on a worker thread and returns at once.
///
/// With `on_delta` the reply is streamed to it (see chatwire_send_stream());
/// with NULL it arrives whole. `on_done` (may be NULL) is called once at the
/// end with the request's status. Both run on the worker thread, with
/// `userdata`. The request reads the conversation now; chatwire_request_wait()
/// appends the reply to it afterwards, so that after the wait the
/// conversation is as after chatwire_send(). Until then the caller must not
/// use or free the conversation.
///
/// On success `*request_out` owns the request; free it with
/// chatwire_request_free(). A conversation that cannot be sent as it is
/// fails here, with nothing started.
///
/// # Safety
/// `client` and `conversation` are NULL or live; the callbacks are valid or
/// NULL; `request_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chatwire_send_async(
    client: *mut chatwire_client,
    conversation: *mut chatwire_conversation,
    on_delta: chatwire_delta_callback,
    on_done: chatwire_done_callback,
    userdata: *mut c_void,
    request_out: *mut *mut chatwire_request,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let (client, handle, out) = unsafe {
            (
                handle::borrow(client, "client")?,
                handle::borrow(conversation, "conversation")?,
                handle::out(request_out, "request_out")?,
            )
        };
        let on_delta = on_delta.map(|callback| {
            let mut sink = DeltaSink::new(callback, userdata);
            Box::new(move |delta: &str| sink.deliver(delta).is_continue())
                as crate::client::DeltaHandler
        });
        let done_userdata = UserData(userdata);
        let on_finish = move |outcome: &crate::Result<crate::Reply>| {
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
        let pending = client
            .snapshot()
            .spawn(handle.conversation(), on_delta, on_finish)?;
        out.write(handle::into_c(chatwire_request {
            pending: Some(pending),
            conversation,
            finished: None,
        }));
        Ok(())
    })
}

/// 1 when the request has finished (successfully or not), 0 while it runs;
/// 1 for NULL. Never blocks.
///
/// # Safety
/// `request` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn chatwire_request_done(request: *const chatwire_request) -> c_int {
    boundary::value(1, || {
        // SAFETY: per this function's contract.
        let request = unsafe { handle::borrow(request, "request")? };
        Ok(c_int::from(
            request.pending.as_ref().is_none_or(PendingReply::is_done),
        ))
    })
}

/// Waits for the request to finish and returns the send's own status.
///
/// On success the reply is appended to the conversation and, if `reply_out`
/// is not NULL, `*reply_out` owns a copy (free with chatwire_string_free()).
/// On failure the conversation is unchanged and chatwire_last_error() says
/// why, on the calling thread. Waiting again returns the same status (and a
/// new copy of the reply) without appending it twice.
///
/// # Safety
/// `request` is NULL or live; its conversation is still live; `reply_out` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chatwire_request_wait(
    request: *mut chatwire_request,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let request = unsafe { handle::borrow_mut(request, "request")? };
        let reply = request.finish()?;
        // SAFETY: per this function's contract.
        if let Some(out) = unsafe { handle::optional_out(reply_out) } {
            out.write(text::string_out(&reply.content));
        }
        Ok(())
    })
}

/// Like chatwire_request_wait(), but hands out the whole reply: on success
/// `*reply_out` owns a chatwire_reply (free with chatwire_reply_free()).
///
/// # Safety
/// As chatwire_request_wait(); `reply_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chatwire_request_wait_reply(
    request: *mut chatwire_request,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let (request, out) = unsafe {
            (
                handle::borrow_mut(request, "request")?,
                handle::out(reply_out, "reply_out")?,
            )
        };
        let reply = request.finish()?.clone();
        chatwire_reply::hand_out(reply, out);
        Ok(())
    })
}

impl chatwire_request {
    /// Waits for the worker once, appends a successful reply to the
    /// conversation, and keeps the outcome for later waits.
    fn finish(&mut self) -> Result<&Reply, FfiError> {
        if let Some(pending) = self.pending.take() {
            let conversation = self.conversation;
            let outcome = pending.wait().and_then(|reply| {
                // SAFETY: the caller keeps the conversation alive and leaves
                // it alone until the wait, as chatwire_send_async() requires.
                let handle = unsafe { handle::borrow_mut(conversation, "conversation") };
                let handle = handle.map_err(|_| Error::Cancelled)?;
                handle.appendable().append_reply(&reply)?;
                Ok(reply)
            });
            self.finished = Some(outcome);
        }
        match &self.finished {
            Some(Ok(reply)) => Ok(reply),
            Some(Err(error)) => Err(FfiError::again(error)),
            None => Err(Error::Cancelled.into()),
        }
    }
}

/// Stops the request if it is still running: it finishes with
/// CHATWIRE_ERR_CANCELLED within milliseconds, also while the server is
/// silent, and its connection is closed. A finished request is left as it is.
///
/// # Safety
/// `request` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn chatwire_request_cancel(
    request: *mut chatwire_request,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let request = unsafe { handle::borrow(request, "request")? };
        if let Some(pending) = &request.pending {
            pending.cancel();
        }
        Ok(())
    })
}

/// Frees a request; a running one is cancelled and waited for first (its
/// reply, if any, is not appended). NULL is ignored.
///
/// # Safety
/// `request` is NULL or live, and not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn chatwire_request_free(request: *mut chatwire_request) {
    // SAFETY: per this function's contract.
    boundary::release(|| unsafe { handle::free(request) })
}
