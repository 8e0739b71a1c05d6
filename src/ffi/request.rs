//! `chatwire_request`: a send running in the background.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use super::boundary;
use super::conversation::{chatwire_conversation, Running};
use super::error::FfiError;
use super::handle;
use super::notify;
use super::reply::chatwire_reply;
use super::status::chatwire_status;
use super::text;
use crate::client::BackgroundSend;
use crate::reply::Reply;

/// A send running on a worker thread, made by chatwire_send_async().
///
/// Poll it with chatwire_request_done(), stop it with
/// chatwire_request_cancel(), collect it with chatwire_request_wait(), and
/// free it with chatwire_request_free(), which cancels and waits if it is
/// still running. Its callbacks run on the worker thread. The conversation
/// it was started with must be left untouched by the caller until
/// chatwire_request_wait() has returned or the request is freed; the
/// request holds it, so it may be freed meanwhile
/// (chatwire_conversation_free()).
pub struct chatwire_request {
    pub(super) send: BackgroundSend,
    /// Holds the conversation that the reply is appended to, also after C
    /// freed it.
    conversation: Arc<chatwire_conversation>,
    /// The conversation's mark of this request, cleared when the request
    /// is freed (or its worker is done, whichever comes first).
    _running: Running,
}

/// 1 when the request has finished (successfully or not), 0 while it runs;
/// -1 for NULL (with chatwire_last_error() saying so). Never blocks.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_done(request: *const chatwire_request) -> c_int {
    boundary::value(|| {
        Ok(c_int::from(
            unsafe { handle::borrow(request, "request")? }
                .send
                .is_done(),
        ))
    })
}

/// Waits for the request to finish and returns the send's own status.
///
/// On success the reply is appended to the conversation and, if `reply_out`
/// is not NULL, `*reply_out` owns a copy (free with chatwire_string_free();
/// it ends at the first U+0000: chatwire_request_wait_reply() and
/// chatwire_reply_content_len() give all of it). On failure the conversation is unchanged and chatwire_last_error() says
/// why, on the calling thread. Waiting again returns the same status (and a
/// new copy of the reply) without appending it twice.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait(
    request: *mut chatwire_request,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        let request = unsafe { handle::borrow_mut(request, "request")? };
        let reply = request.finish()?;
        if let Some(out) = unsafe { handle::optional_out(reply_out) } {
            out.write(text::string_out(&reply.content));
        }
        Ok(())
    })
}

/// Like chatwire_request_wait(), but hands out the whole reply: on success
/// `*reply_out` owns a chatwire_reply (free with chatwire_reply_free()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_reply(
    request: *mut chatwire_request,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    boundary::status(|| {
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
    /// A request for a send started in the background on `conversation`.
    pub(crate) fn new(
        send: BackgroundSend,
        conversation: Arc<chatwire_conversation>,
        running: Running,
    ) -> chatwire_request {
        chatwire_request {
            send,
            conversation,
            _running: running,
        }
    }

    /// The outcome of the send, collected by the first wait, which also
    /// appends a successful reply to the conversation.
    fn finish(&mut self) -> Result<&Reply, FfiError> {
        let mut held = self.conversation.appendable()?;
        self.send
            .finish(&mut held.conversation)
            .map_err(FfiError::again)
    }
}

/// Stops the request if it is still running: it finishes with
/// CHATWIRE_ERR_CANCELLED within milliseconds, also while the server is
/// silent, and its connection is closed. A finished request is left as it is.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_cancel(
    request: *mut chatwire_request,
) -> chatwire_status {
    boundary::status(|| {
        unsafe { handle::borrow(request, "request")? }.send.cancel();
        Ok(())
    })
}

/// Frees a request; a running one is cancelled and waited for first (its
/// reply, if any, is not appended). NULL is ignored. Its descriptor
/// (chatwire_request_fd()) or event (chatwire_request_event()) is closed.
///
/// May be called from inside the request's own `on_delta` or `on_done`
/// callback (fire and forget): the request is cancelled if it still runs,
/// and released when the callback returns; no later `on_delta` call comes,
/// `on_done` still does (with CHATWIRE_ERR_CANCELLED, when freed from
/// `on_delta`). chatwire_request_wait() from inside its own callback is
/// refused with CHATWIRE_ERR_INVALID_ARGUMENT: a thread cannot wait for itself.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_free(request: *mut chatwire_request) {
    boundary::release(|| unsafe { handle::free(request) })
}

/// A descriptor that polls readable while the request has text not yet
/// taken (chatwire_request_take_text()) or once it is done, for a
/// program's own event loop (poll, epoll, select, libuv, a GUI toolkit's
/// descriptor watch). POSIX only: elsewhere -1 and CHATWIRE_ERR_SYSTEM.
///
/// Level-triggered: it stays readable until the text is taken, and stays
/// readable for good once the request is done, so a loop that sees it
/// readable calls chatwire_request_take_text(), then checks
/// chatwire_request_done(), and collects the request with
/// chatwire_request_wait() (which no longer blocks). Taking the text is
/// the only way to make it unreadable again: do not read from it.
///
/// Made on the first call (an eventfd on Linux, a pipe elsewhere; close
/// on exec, non-blocking), owned by the request: the same descriptor every
/// time, closed by chatwire_request_free(); never close it yourself.
/// Never blocks. -1 (and chatwire_last_error()) when `request` is NULL or
/// the system refuses a descriptor.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_fd(request: *const chatwire_request) -> c_int {
    boundary::value(|| {
        let request = unsafe { handle::borrow(request, "request")? };
        if !cfg!(unix) {
            return Err(unsupported("chatwire_request_fd", "chatwire_request_event").into());
        }
        let signal = request.send.signal(notify::new_signal)?;
        // A descriptor as the system made it: it fits.
        Ok(c_int::try_from(signal.waitable()).unwrap_or(-1))
    })
}

/// Windows: a manual-reset event HANDLE (as `void *`) that is signalled
/// while the request has text not yet taken or once it is done, as
/// chatwire_request_fd() is readable on POSIX; for WaitForSingleObject(),
/// WaitForMultipleObjects() or MsgWaitForMultipleObjects() in the program's
/// own loop. chatwire_request_take_text() resets it when nothing is left
/// to take. Made on the first call, owned by the request and closed by
/// chatwire_request_free(); never close, set or reset it yourself. Elsewhere
/// NULL and CHATWIRE_ERR_SYSTEM; NULL too for a NULL `request` or when the
/// system refuses an event.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_event(
    request: *const chatwire_request,
) -> *mut c_void {
    boundary::value(|| {
        let request = unsafe { handle::borrow(request, "request")? };
        if !cfg!(windows) {
            return Err(unsupported("chatwire_request_event", "chatwire_request_fd").into());
        }
        let signal = request.send.signal(notify::new_signal)?;
        Ok(signal.waitable() as *mut c_void)
    })
}

/// The error of a waitable that this platform does not have.
fn unsupported(asked: &str, instead: &str) -> crate::error::Error {
    crate::error::Error::System {
        message: format!("{asked} is not available on this platform; use {instead}"),
        source: std::io::ErrorKind::Unsupported.into(),
    }
}

/// The request's text that arrived since the last call, on the caller's
/// thread: `*text_out` owns it (free with chatwire_string_free(); it ends
/// at its first U+0000: chatwire_request_take_text_len() gives the length
/// of all of it); "" when nothing new has arrived, and always "" for a
/// request started with an
/// `on_delta` callback (which gets the text instead). Pieces end on whole
/// UTF-8 characters; all of them together are the reply's text, which
/// chatwire_request_wait() still gives whole and appends. Taking the text
/// makes chatwire_request_fd() unreadable again until more arrives or the
/// request is done. Never blocks. Safe to call while the request runs, also
/// after it is done and after chatwire_request_wait().
///
/// Reasoning text, when a request carries it, will be taken the same way by
/// a function of the same shape, and signalled by the same descriptor.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_take_text(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| unsafe { hand_text(request, text_out, None, BackgroundSend::take_text) })
}

/// Like chatwire_request_take_text(), and writes the text's length in bytes
/// (without the final NUL) to `*len_out`: a model may write U+0000, which
/// ends the text for strlen() but not for this length. Both out-parameters
/// are required and written only on success.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_take_text_len(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
    len_out: *mut usize,
) -> chatwire_status {
    boundary::status(|| unsafe {
        hand_text(request, text_out, Some(len_out), BackgroundSend::take_text)
    })
}

/// The body of the functions that hand out a request's text: `take` gives
/// it, `*text_out` owns it and `*len_out`, for a `_len` form, says its
/// length; both are checked before the text is taken.
///
/// # Safety
/// `request` is NULL or live; the out-parameters are NULL or writable.
pub(super) unsafe fn hand_text(
    request: *const chatwire_request,
    text_out: *mut *mut c_char,
    len_out: Option<*mut usize>,
    take: fn(&BackgroundSend) -> String,
) -> Result<(), FfiError> {
    let request = unsafe { handle::borrow(request, "request")? };
    let out = unsafe { handle::out(text_out, "text_out")? };
    let len = len_out
        .map(|len| unsafe { handle::out(len, "len_out") })
        .transpose()?;
    let text = take(&request.send);
    out.write(text::string_out(&text));
    if let Some(len) = len {
        len.write(text.len());
    }
    Ok(())
}
