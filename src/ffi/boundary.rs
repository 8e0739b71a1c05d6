//! The boundary every exported function goes through: panics are caught,
//! errors become a status, and the thread's last error is recorded.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::status::{chatwire_status, FfiError};
use super::text;
use crate::error::one_line;

/// The last failure on a thread. A call that succeeds marks it `cleared`
/// but keeps its text: a text that `chatwire_last_error()` handed out stays
/// readable until a later call fails, so that a program reading it in the
/// same expression as another call (`printf("%s %zu", chatwire_last_error(),
/// chatwire_conversation_len(c))`, in either order of evaluation) reads no
/// freed memory.
struct LastError {
    text: CString,
    http_status: c_int,
    cleared: bool,
}

thread_local! {
    /// The last failure on this thread, none before the first.
    static LAST_ERROR: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Runs a function body, catching panics, with the last error cleared
/// first and recorded on failure. The previous error's text lives until
/// the next failure replaces it, after the body has returned: a program may
/// pass chatwire_last_error() itself as an argument (docs/c-api.md,
/// "Conventions").
fn run<T>(body: impl FnOnce() -> Result<T, FfiError>) -> Result<T, chatwire_status> {
    clear();
    let outcome = catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(FfiError::Panic(panic_message(&*payload))));
    outcome.map_err(record)
}

/// Marks the thread's last error cleared, its text kept.
fn clear() {
    LAST_ERROR.with_borrow_mut(|last| {
        if let Some(last) = last {
            last.cleared = true;
        }
    });
}

/// Records `error` as the thread's last error. Out of line: inlined, it
/// would be copied into each of the hundred exported functions.
#[cold]
#[inline(never)]
fn record(error: FfiError) -> chatwire_status {
    let (status, message, http_status) = error.report();
    // Escaped here, once for every kind of failure: an error's text is
    // escaped already (and escaping twice changes nothing), a panic's
    // message may quote anything.
    let text = text::c_string(one_line::escape(&message).as_bytes());
    LAST_ERROR.set(Some(LastError {
        text,
        http_status,
        cleared: false,
    }));
    status
}

/// The body of a function that returns a status; after success
/// chatwire_last_error() is "".
pub(crate) fn status(body: impl FnOnce() -> Result<(), FfiError>) -> chatwire_status {
    run(body).err().unwrap_or(chatwire_status::CHATWIRE_OK)
}

/// The body of a getter: its value, or its type's [`Failed`] value, told
/// from a value by chatwire_last_error().
pub(crate) fn value<T: Failed>(body: impl FnOnce() -> Result<T, FfiError>) -> T {
    run(body).unwrap_or(T::FAILED)
}

/// What a getter gives when it fails (docs/c-api.md, "Results").
pub(crate) trait Failed {
    const FAILED: Self;
}

macro_rules! failed {
    ($($type:ty = $value:expr),*) => {
        $(impl Failed for $type {
            const FAILED: Self = $value;
        })*
    };
}

failed!(*const c_char = std::ptr::null(), *mut c_void = std::ptr::null_mut());
failed!(usize = 0, c_int = -1, f64 = 0.0);

/// The body of a `_free` function: panics are caught, the last error is
/// kept, so that a program may free what it holds before it reports the
/// failure of an earlier call.
pub(crate) fn release(body: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(body));
}

/// A one-line description of the last failure on the calling thread, or ""
/// after a success; borrowed until a later chatwire call on this thread
/// fails (so it may be passed to a call, and read beside one that
/// succeeds). A server's control characters are escaped; secrets never
/// appear.
#[no_mangle]
pub extern "system" fn chatwire_last_error() -> *const c_char {
    LAST_ERROR.with_borrow(|last| match last {
        // The CString stays in the thread-local until a later failure on
        // this thread replaces it.
        Some(last) if !last.cleared => last.text.as_ptr(),
        _ => c"".as_ptr(),
    })
}

/// The HTTP status of the last failure on the calling thread, or 0 (no HTTP
/// error, or none).
#[no_mangle]
pub extern "system" fn chatwire_last_http_status() -> c_int {
    LAST_ERROR.with_borrow(|last| match last {
        Some(last) if !last.cleared => last.http_status,
        _ => 0,
    })
}

/// Frees a string that chatwire handed out (a reply, a JSON text). NULL is
/// ignored. Never pass it a string from anywhere else, nor free() one of ours.
#[no_mangle]
pub unsafe extern "system" fn chatwire_string_free(s: *mut c_char) {
    // SAFETY: chatwire strings come from malloc (text::string_out); free(NULL) does nothing.
    super::boundary::release(|| unsafe { libc::free(s.cast()) })
}
