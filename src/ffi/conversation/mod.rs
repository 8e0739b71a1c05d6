//! `chatwire_conversation`: the handle (its lock against calls that call
//! back) and what reads it; what a call holding it works on, and the texts
//! it lends, in [`held`]; what changes it in [`edit`].

pub(super) mod edit;
mod held;

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use crate::conversation::Conversation;
use crate::error::Error;
use crate::ffi::boundary;
use crate::ffi::handle;
use crate::ffi::status::{chatwire_status, role_to_c, FfiError};
use crate::ffi::text;
pub(super) use held::reasoning;
use held::{Held, Lendable};

/// A model name and the messages so far, which every send carries in full.
/// One thread at a time; it may move between threads. A call on it while
/// another holds it (a callback of its own send, another thread, a running
/// background request) is refused with CHATWIRE_ERR_INVALID_CONVERSATION.
pub struct chatwire_conversation {
    /// Taken by every call while it runs, never waited for (see
    /// [`Self::hold`]): a re-entrant call never makes a second reference to
    /// the history while a send's `&mut` lives.
    held: Mutex<Held>,
    /// The mark of a background request running on it (0: none), apart, so
    /// that the worker clears it without borrowing the handle.
    running: Arc<AtomicU64>,
}

impl chatwire_conversation {
    fn into_c(conversation: Conversation) -> *mut chatwire_conversation {
        handle::into_c_shared(chatwire_conversation {
            held: Mutex::new(Held::new(conversation)),
            running: Arc::default(),
        })
    }

    /// Holds the conversation behind `ptr` for one call, or refuses when another
    /// call holds it; also keeps it alive until the call returns. Unsafe: `ptr`
    /// is NULL or live (a shared borrow, which may overlap a holding call).
    pub(crate) unsafe fn hold<'a>(ptr: *const chatwire_conversation) -> Result<Hold<'a>, FfiError> {
        // SAFETY: `ptr` is NULL or a live handle (the C conventions).
        let alive = unsafe { handle::retain(ptr, "conversation")? };
        // SAFETY: `alive` keeps the value where it is for as long as the
        // guard lives: both go into one `Hold`, which drops the guard first.
        let handle: &'a chatwire_conversation = unsafe { &*Arc::as_ptr(&alive) };
        let guard = handle.try_lock()?;
        if handle.running.load(Ordering::Acquire) != 0 {
            return Err(in_use("a background request that has not finished"));
        }
        Ok(Hold { guard, alive })
    }

    /// The conversation, unless another call holds it; also for a
    /// background request's wait, which its own mark does not refuse.
    pub(crate) fn try_lock(&self) -> Result<MutexGuard<'_, Held>, FfiError> {
        match self.held.try_lock() {
            Ok(held) => Ok(held),
            // A panic inside a call left it: the core changes a history only
            // once a call has succeeded, so what it holds is still whole.
            Err(TryLockError::Poisoned(poisoned)) => Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => Err(in_use("a call that has not returned")),
        }
    }
}

/// A conversation held for one call: what it holds, and a reference that
/// keeps the conversation alive until the call returns.
pub(crate) struct Hold<'a> {
    // Declared first, so dropped before the reference that keeps its memory.
    pub(crate) guard: MutexGuard<'a, Held>,
    /// Also taken by a background request, which appends its reply after
    /// the call that started it has returned.
    pub(crate) alive: Arc<chatwire_conversation>,
}

impl Hold<'_> {
    /// Marks the conversation as sent by a background request until the
    /// returned mark is dropped; held, so no other call can be setting it
    /// between the check in `hold` and here.
    pub(crate) fn mark_running(&self) -> Running {
        let id = NEXT_RUNNING.fetch_add(1, Ordering::Relaxed);
        self.alive.running.store(id, Ordering::Release);
        let mark = self.alive.running.clone();
        Running { mark, id }
    }
}

/// The refusal of a call on a conversation that `user` holds.
fn in_use(user: &str) -> FfiError {
    Error::InvalidConversation(format!(
        "the conversation is in use by {user} (a callback calling back with the \
         conversation of its own send, or a call on another thread); nothing changed"
    ))
    .into()
}

/// A conversation's mark of a running background request, held by the
/// request and its worker: the first to drop clears it, if still this one's.
#[derive(Clone)]
pub(crate) struct Running {
    mark: Arc<AtomicU64>,
    id: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self
            .mark
            .compare_exchange(self.id, 0, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// The next background request's mark; 0 means none.
static NEXT_RUNNING: AtomicU64 = AtomicU64::new(1);

/// The `which` text of message `index` of the conversation behind `ptr`,
/// lent until the conversation changes (unsafe: `ptr` is NULL or live).
unsafe fn lend(
    ptr: *const chatwire_conversation,
    index: usize,
    which: Lendable,
) -> Result<*const c_char, FfiError> {
    // SAFETY: as the caller promises.
    let mut held = unsafe { chatwire_conversation::hold(ptr)? };
    held.guard.lend(index, which)
}

/// What `read` gives of message `index` of the conversation behind `ptr`
/// (unsafe: `ptr` is NULL or live).
unsafe fn read<T>(
    ptr: *const chatwire_conversation,
    index: usize,
    read: impl FnOnce(&crate::Message) -> T,
) -> Result<T, FfiError> {
    // SAFETY: as the caller promises.
    let held = unsafe { chatwire_conversation::hold(ptr)? };
    let messages = held.guard.conversation().messages();
    Ok(read(handle::item(messages, index, "message")?))
}

/// Runs `body` on the conversation behind `ptr`, held for it (see
/// [`chatwire_conversation::hold`]); unsafe: `ptr` is NULL or live.
pub(super) unsafe fn on<T>(
    ptr: *const chatwire_conversation,
    body: impl FnOnce(&mut Held) -> Result<T, FfiError>,
) -> Result<T, FfiError> {
    // SAFETY: `ptr` is NULL or a live handle (the C conventions).
    body(&mut unsafe { chatwire_conversation::hold(ptr)? }.guard)
}

/// Creates in `*conversation_out` an empty conversation for `model`
/// (copied), e.g. "gpt-4o-mini".
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_new(
    model: *const c_char,
    conversation_out: *mut *mut chatwire_conversation,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let model = text::str_in(model, "model")?;
        let out = handle::out(conversation_out, "conversation_out")?;
        *out = chatwire_conversation::into_c(Conversation::with_model(model)?);
        Ok(())
    })
}

/// Writes the conversation to `*json_out` in the request's shape ("model",
/// "messages", and "tools" and the options when there are any).
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_to_json(
    conversation: *const chatwire_conversation,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: `json_out` is NULL or writable (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let out = handle::out(json_out, "json_out")?;
            *out = text::string_out(&held.conversation().to_json());
            Ok(())
        })
    })
}

/// Reads into `*conversation_out` what chatwire_conversation_to_json() wrote. Another
/// shape: CHATWIRE_ERR_INVALID_ARGUMENT; broken ordering: CHATWIRE_ERR_INVALID_CONVERSATION.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_from_json(
    json: *const c_char,
    conversation_out: *mut *mut chatwire_conversation,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let json = text::str_in(json, "json")?;
        let out = handle::out(conversation_out, "conversation_out")?;
        *out = chatwire_conversation::into_c(Conversation::from_json(json)?);
        Ok(())
    })
}

/// Frees a conversation and every string borrowed from it; one that a call
/// holds goes when that call returns.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_free(conversation: *mut chatwire_conversation) {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::release(|| unsafe { handle::release_shared(conversation) })
}

/// The number of messages, the system message included.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_len(
    conversation: *const chatwire_conversation,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.conversation().len())) })
}

/// The role (a chatwire_role) of message `index`.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_role(
    conversation: *const chatwire_conversation,
    index: usize,
) -> c_int {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { read(conversation, index, |m| role_to_c(m.role)) })
}

/// The text of message `index`, borrowed until the conversation changes or
/// is freed (docs/c-api.md, "Ownership", says what changes it).
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_content(
    conversation: *const chatwire_conversation,
    index: usize,
) -> *const c_char {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { lend(conversation, index, Lendable::Content) })
}

/// The length in bytes of chatwire_conversation_content().
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_content_len(
    conversation: *const chatwire_conversation,
    index: usize,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { read(conversation, index, |m| m.content.len()) })
}

/// The reasoning of message `index`; NULL when it has none. Borrowed as
/// chatwire_conversation_content() is.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_reasoning(
    conversation: *const chatwire_conversation,
    index: usize,
) -> *const c_char {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { lend(conversation, index, Lendable::Reasoning) })
}

/// The length in bytes of chatwire_conversation_reasoning(); 0 when NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_reasoning_len(
    conversation: *const chatwire_conversation,
    index: usize,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe {
        read(conversation, index, |m| {
            reasoning(&m.reasoning).map_or(0, str::len)
        })
    })
}
