//! C callbacks: the function pointer types and the glue that calls them.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ops::ControlFlow;

use super::status::chatwire_status;
use crate::config::MAX_CREDENTIAL_BYTES;

/// Receives a streamed reply's text as it arrives: `delta` is `len` bytes of
/// whole UTF-8 characters and a NUL, valid only during the call. Return 0 to
/// go on; anything else stops the request (CHATWIRE_ERR_CANCELLED).
pub type chatwire_delta_callback = Option<
    unsafe extern "system" fn(userdata: *mut c_void, delta: *const c_char, len: usize) -> c_int,
>;

/// What kind of text a chatwire_event_callback gets.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum chatwire_stream_kind {
    /// The answer's text (chatwire_reply_content()).
    CHATWIRE_STREAM_CONTENT = 0,
    /// The model's reasoning (chatwire_reply_reasoning()).
    CHATWIRE_STREAM_REASONING = 1,
    /// The model's refusal.
    CHATWIRE_STREAM_REFUSAL = 2,
}

/// Receives a streamed reply's pieces with their `kind`, a
/// chatwire_stream_kind; otherwise as chatwire_delta_callback.
pub type chatwire_event_callback = Option<
    unsafe extern "system" fn(
        userdata: *mut c_void,
        kind: c_int,
        text: *const c_char,
        len: usize,
    ) -> c_int,
>;

/// Told once, on the worker thread, that a background request has finished,
/// with its status; collect it with chatwire_request_wait().
pub type chatwire_done_callback =
    Option<unsafe extern "system" fn(userdata: *mut c_void, status: chatwire_status)>;

/// The caller's `userdata`, carried to the worker thread.
#[derive(Clone, Copy)]
pub(crate) struct UserData(pub(crate) *mut c_void);

// SAFETY: chatwire never dereferences the pointer; it only hands it back to
// the caller's callbacks, which the caller wrote to run on the worker thread.
unsafe impl Send for UserData {}

/// A C callback, its userdata, and a buffer for the NUL-terminated copies.
pub(crate) struct Sink<F> {
    callback: F,
    userdata: UserData,
    buffer: Vec<u8>,
}

/// Calls a C delta callback with NUL-terminated copies of the deltas.
pub(crate) type DeltaSink =
    Sink<unsafe extern "system" fn(*mut c_void, *const c_char, usize) -> c_int>;

/// Calls a C event callback with NUL-terminated copies of the pieces.
pub(crate) type EventSink =
    Sink<unsafe extern "system" fn(*mut c_void, c_int, *const c_char, usize) -> c_int>;

impl<F: Copy> Sink<F> {
    pub(crate) fn new(callback: F, userdata: *mut c_void) -> Sink<F> {
        Sink {
            callback,
            userdata: UserData(userdata),
            buffer: Vec::new(),
        }
    }

    /// Hands `text` to C through `call`; `Break` when C asks to stop.
    fn hand(
        &mut self,
        text: &str,
        call: impl FnOnce(F, *mut c_void, *const c_char) -> c_int,
    ) -> ControlFlow<()> {
        self.buffer.clear();
        self.buffer.extend_from_slice(text.as_bytes());
        self.buffer.push(0);
        match call(self.callback, self.userdata.0, self.buffer.as_ptr().cast()) {
            0 => ControlFlow::Continue(()),
            _ => ControlFlow::Break(()),
        }
    }
}

impl DeltaSink {
    /// Hands one delta to C; `Break` when C asks to stop.
    pub(crate) fn deliver(&mut self, delta: &str) -> ControlFlow<()> {
        // SAFETY: the caller gave a valid callback; the copy is
        // NUL-terminated and outlives the call.
        self.hand(delta, |callback, userdata, text| unsafe {
            callback(userdata, text, delta.len())
        })
    }
}

impl EventSink {
    /// Hands one piece to C with its kind; `Break` when C asks to stop.
    pub(crate) fn deliver(&mut self, delta: &crate::StreamDelta) -> ControlFlow<()> {
        let kind = match delta.kind {
            crate::DeltaKind::Reasoning => chatwire_stream_kind::CHATWIRE_STREAM_REASONING,
            crate::DeltaKind::Refusal => chatwire_stream_kind::CHATWIRE_STREAM_REFUSAL,
            _ => chatwire_stream_kind::CHATWIRE_STREAM_CONTENT,
        };
        // SAFETY: as in DeltaSink::deliver.
        self.hand(&delta.text, |callback, userdata, text| unsafe {
            callback(userdata, kind as c_int, text, delta.text.len())
        })
    }
}

/// Gives a client its credential before each attempt: writes the token and a
/// NUL into `token`, `capacity` bytes valid during the call, and returns 0;
/// anything else, or a token that does not fit, fails the send with
/// CHATWIRE_ERR_AUTH. Called on any thread, several at once, so thread-safe.
pub type chatwire_credential_callback = Option<
    unsafe extern "system" fn(userdata: *mut c_void, token: *mut c_char, capacity: usize) -> c_int,
>;

/// A C credential callback and its userdata, asked from any thread.
pub(crate) type CredentialSource =
    Sink<unsafe extern "system" fn(*mut c_void, *mut c_char, usize) -> c_int>;

// SAFETY: as for UserData; the callback's documentation asks the caller to
// make it safe to call from several threads at once, and `token` leaves
// the sink's buffer alone.
unsafe impl Sync for CredentialSource {}

impl CredentialSource {
    /// Asks C for a token; the error says what went wrong, never the token.
    pub(crate) fn token(&self) -> Result<String, String> {
        let mut buffer = vec![0u8; MAX_CREDENTIAL_BYTES + 1];
        // SAFETY: the caller gave a valid callback; the buffer is writable
        // for its whole length and outlives the call.
        let verdict =
            unsafe { (self.callback)(self.userdata.0, buffer.as_mut_ptr().cast(), buffer.len()) };
        let token = match CStr::from_bytes_until_nul(&buffer) {
            _ if verdict != 0 => Err(format!("it returned {verdict}")),
            Ok(token) => token
                .to_str()
                .map(str::to_owned)
                .map_err(|_| "its token is not UTF-8".into()),
            Err(_) => Err("it filled the whole buffer without a terminating NUL".into()),
        };
        // Zeroed in a way the compiler keeps: the buffer held a secret.
        for byte in buffer.iter_mut() {
            // SAFETY: `byte` is a valid, aligned, exclusive reference.
            unsafe { std::ptr::write_volatile(byte, 0) };
        }
        token
    }
}
