//! `chatwire_request`: a send running in the background.

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::boundary;
use super::conversation::{chatwire_conversation, Running};
use super::handle::{self, required};
use super::notify;
use super::reply::chatwire_reply;
use super::status::{chatwire_status, FfiError};
use super::text;
use crate::client::BackgroundSend;
use crate::conversation::Conversation;
use crate::reply::Reply;

/// A send running on a worker thread, made by chatwire_send_async(): poll
/// with chatwire_request_done(), stop with chatwire_request_cancel(), collect
/// with chatwire_request_wait(), free with chatwire_request_free().
pub struct chatwire_request {
    pub(super) send: BackgroundSend,
    /// The conversation the reply is appended to, held also after C freed it.
    pub(super) conversation: Arc<chatwire_conversation>,
    /// The conversation's mark of this request (see [`Running`]).
    pub(super) _running: Running,
    /// Whether a wait has appended the reply: only that one changed the
    /// conversation (and let the texts it lent go).
    pub(super) appended: AtomicBool,
}

/// 1 when the request has finished, 0 while it runs; never blocks.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_done(request: Option<&chatwire_request>) -> c_int {
    boundary::value(|| Ok(c_int::from(required(request, "request")?.send.is_done())))
}

/// Waits for the request and returns the send's status; on success the reply
/// is appended and `*reply_out`, unless NULL, owns a copy as chatwire_send()
/// gives it. Waiting again gives the same status without appending twice.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait(
    request: *mut chatwire_request,
    reply_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let out = reply_out.as_mut();
        handle::from_ptr(request, "request")?.finish(|reply| {
            if let Some(out) = out {
                *out = text::string_out(&reply.content);
            }
        })
    })
}

/// Like chatwire_request_wait(), but `*reply_out` owns the whole reply (free
/// with chatwire_reply_free()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_wait_reply(
    request: *mut chatwire_request,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let request = handle::from_ptr(request, "request")?;
        let out = handle::out(reply_out, "reply_out")?;
        request.finish(|reply| *out = handle::into_c(chatwire_reply::new(reply.clone())))
    })
}

impl chatwire_request {
    /// The request's descriptor or event, where this platform has what
    /// `asked` gives (`here`), else an error naming the function to use.
    fn waitable(&self, here: bool, asked: &str, instead: &str) -> Result<isize, FfiError> {
        if !here {
            let message = format!("{asked} is not available on this platform; use {instead}");
            let source = std::io::ErrorKind::Unsupported.into();
            return Err(crate::error::Error::System { message, source }.into());
        }
        Ok(self.send.signal(notify::new_signal)?.waitable())
    }

    /// Hands a successful outcome of the send to `read`; the first wait
    /// appends the reply. Any thread may cancel or poll meanwhile.
    fn finish<T>(&self, read: impl FnOnce(&Reply) -> T) -> Result<T, FfiError> {
        let mut held = self.conversation.try_lock()?;
        let finish = |conversation: &mut Conversation| {
            self.send.finish(conversation, |outcome| {
                outcome.map(read).map_err(FfiError::again)
            })
        };
        // The first wait that succeeds is the one that appended: a wait
        // that fails appends nothing, nor does any after it (the outcome
        // stays). Read and written while the conversation is held.
        let appends = !self.appended.load(Ordering::Relaxed);
        let outcome = held.change_if(appends, finish);
        if outcome.is_ok() {
            self.appended.store(true, Ordering::Relaxed);
        }
        outcome
    }
}

/// Stops the request if it still runs: it finishes with
/// CHATWIRE_ERR_CANCELLED within milliseconds and its connection is closed.
/// Any thread may cancel, also while another waits for the request.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_cancel(
    request: *mut chatwire_request,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe { handle::from_ptr(request, "request").map(|r| r.send.cancel()) })
}

/// Frees a request and its descriptor or event; a running one is cancelled and waited
/// for (its reply not appended). From its own callbacks it goes on return; `on_done` still comes.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_free(request: *mut chatwire_request) {
    // SAFETY: `request` is NULL or a live handle the caller gives up (the C conventions).
    boundary::release(|| unsafe { handle::free(request) })
}

/// POSIX: a descriptor for an event loop, readable while the request has text
/// not yet taken and once it is done: then call chatwire_request_take_text()
/// (never read from it) and chatwire_request_done(). The same one every time,
/// owned by the request. Elsewhere -1 and CHATWIRE_ERR_SYSTEM.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_fd(request: Option<&chatwire_request>) -> c_int {
    boundary::value(|| {
        let (asked, instead) = ("chatwire_request_fd", "chatwire_request_event");
        let fd = required(request, "request")?.waitable(cfg!(unix), asked, instead)?;
        // A descriptor as the system made it: it fits.
        Ok(c_int::try_from(fd).unwrap_or(-1))
    })
}

/// Windows: a manual-reset event HANDLE owned by the request (never close, set or reset
/// it), signalled as chatwire_request_fd() is readable. Elsewhere NULL (CHATWIRE_ERR_SYSTEM).
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_event(
    request: Option<&chatwire_request>,
) -> *mut c_void {
    boundary::value(|| {
        let (asked, instead) = ("chatwire_request_event", "chatwire_request_fd");
        let event = required(request, "request")?.waitable(cfg!(windows), asked, instead)?;
        Ok(event as *mut c_void)
    })
}

/// The text that arrived since the last call (whole UTF-8 characters), owned by
/// `*text_out`; "" when nothing new came or with an `on_delta` callback. Never blocks.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_take_text(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe { hand_text(request, text_out, None, BackgroundSend::take_text) })
}

/// Like chatwire_request_take_text(), and writes the text's length in bytes
/// to `*len_out`.
#[no_mangle]
pub unsafe extern "system" fn chatwire_request_take_text_len(
    request: *mut chatwire_request,
    text_out: *mut *mut c_char,
    len_out: *mut usize,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        hand_text(request, text_out, Some(len_out), BackgroundSend::take_text)
    })
}

/// The body of the functions that hand out a request's text (`take` gives it)
/// to `*text_out`, and its length to `*len_out` for a `_len` form, both checked
/// first (unsafe: `request` NULL or live, the out-parameters NULL or writable).
pub(super) unsafe fn hand_text(
    request: *const chatwire_request,
    text_out: *mut *mut c_char,
    len_out: Option<*mut usize>,
    take: fn(&BackgroundSend) -> String,
) -> Result<(), FfiError> {
    // SAFETY: as the caller promises.
    unsafe {
        let request = handle::from_ptr(request, "request")?;
        let out = handle::out(text_out, "text_out")?;
        let len = len_out.map(|len| handle::out(len, "len_out")).transpose()?;
        let text = take(&request.send);
        *out = text::string_out(&text);
        if let Some(len) = len {
            *len = text.len();
        }
    }
    Ok(())
}
