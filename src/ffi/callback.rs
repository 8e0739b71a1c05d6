//! C callbacks: the function pointer types and the glue that calls them;
//! and chatwire_set_log_callback(), with its level names.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ops::ControlFlow;

use log::{Level, LevelFilter};

use super::boundary;
use super::status::{chatwire_status, refused};
use super::text;
use crate::config::MAX_CREDENTIAL_BYTES;

/// Receives a streamed reply's text as it arrives (the content, or a
/// refusal's text: docs/c-api.md, "Where a refusal goes"): `delta` is `len` bytes of
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
    /// The model's refusal (chatwire_reply_refusal()), never CONTENT, whether
    /// the server streamed or answered whole.
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
pub(crate) struct Callback<F> {
    callback: F,
    userdata: UserData,
    buffer: Vec<u8>,
}

/// Calls a C delta callback with NUL-terminated copies of the deltas.
pub(crate) type DeltaSink =
    Callback<unsafe extern "system" fn(*mut c_void, *const c_char, usize) -> c_int>;

/// Calls a C event callback with NUL-terminated copies of the pieces.
pub(crate) type EventSink =
    Callback<unsafe extern "system" fn(*mut c_void, c_int, *const c_char, usize) -> c_int>;

impl<F: Copy> Callback<F> {
    pub(crate) fn new(callback: F, userdata: *mut c_void) -> Callback<F> {
        Callback {
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
    Callback<unsafe extern "system" fn(*mut c_void, *mut c_char, usize) -> c_int>;

// SAFETY: as for UserData; the callback's documentation asks the caller to
// make it safe to call from several threads at once, and `token` leaves
// the callback's buffer alone.
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

/// The level of a log line, most severe first.
#[repr(C)]
pub enum chatwire_log_level {
    /// No lines (as a maximum level: the callback is removed).
    CHATWIRE_LOG_OFF = 0,
    /// A request failed for good.
    CHATWIRE_LOG_ERROR = 1,
    /// A request attempt failed and will be retried.
    CHATWIRE_LOG_WARN = 2,
    /// One line per successful request attempt.
    CHATWIRE_LOG_INFO = 3,
    /// Which proxy and trust store a client uses, cancelled requests.
    CHATWIRE_LOG_DEBUG = 4,
}

/// Receives one of chatwire's log lines, never with a secret: `level` is a
/// chatwire_log_level, `line` one line without a newline, valid during the
/// call. Called on whichever thread logs (so thread-safe); lines logged from
/// inside it are dropped, and it must not call chatwire_set_log_callback().
pub type chatwire_log_callback =
    Option<unsafe extern "system" fn(userdata: *mut c_void, level: c_int, line: *const c_char)>;

/// The C callback and its userdata, as the core's log sink.
struct Target {
    callback: unsafe extern "system" fn(*mut c_void, c_int, *const c_char),
    userdata: UserData,
}

// SAFETY: as for UserData; the caller promises that the callback is safe
// to call from any thread, concurrently as documented.
unsafe impl Sync for Target {}

impl Target {
    fn deliver(&self, level: Level, line: &str) {
        let level = level_to_c(level) as c_int;
        let line = text::c_string(line);
        // SAFETY: the caller gave a callback valid until it is replaced;
        // `line` outlives the call.
        unsafe { (self.callback)(self.userdata.0, level, line.as_ptr()) }
    }
}

/// The chatwire_log_level of a line's level; `log`'s Trace, past Debug, is
/// given as Debug.
fn level_to_c(level: Level) -> chatwire_log_level {
    use chatwire_log_level::*;
    match level {
        Level::Error => CHATWIRE_LOG_ERROR,
        Level::Warn => CHATWIRE_LOG_WARN,
        Level::Info => CHATWIRE_LOG_INFO,
        Level::Debug | Level::Trace => CHATWIRE_LOG_DEBUG,
    }
}

/// The most verbose level to send for a chatwire_log_level, checked: C may
/// pass any integer.
fn max_level_from_c(max_level: c_int) -> Result<LevelFilter, crate::Error> {
    use chatwire_log_level::*;
    match max_level {
        c if c == CHATWIRE_LOG_OFF as c_int => Ok(LevelFilter::Off),
        c if c == CHATWIRE_LOG_ERROR as c_int => Ok(LevelFilter::Error),
        c if c == CHATWIRE_LOG_WARN as c_int => Ok(LevelFilter::Warn),
        c if c == CHATWIRE_LOG_INFO as c_int => Ok(LevelFilter::Info),
        c if c == CHATWIRE_LOG_DEBUG as c_int => Ok(LevelFilter::Debug),
        _ => Err(refused(max_level, "a chatwire_log_level (0 to 4)")),
    }
}

/// Sends chatwire's log lines up to `max_level` (a chatwire_log_level) to
/// `callback` with `userdata`, for the whole process; NULL or CHATWIRE_LOG_OFF
/// removes it. On return the previous callback is not running and will not be
/// called again. Refused from inside the log callback.
#[no_mangle]
pub unsafe extern "system" fn chatwire_set_log_callback(
    callback: chatwire_log_callback,
    max_level: c_int,
    userdata: *mut c_void,
) -> chatwire_status {
    boundary::status(|| {
        let max = max_level_from_c(max_level)?;
        let sink = callback
            .filter(|_| max != LevelFilter::Off)
            .map(|callback| {
                let userdata = UserData(userdata);
                let target = Target { callback, userdata };
                Box::new(move |level: Level, line: &str| target.deliver(level, line))
                    as crate::log::Sink
            });
        Ok(crate::log::set_sink(sink, max)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatwire_log_level::*;

    #[test]
    fn each_log_level_constant_is_its_level_both_ways() {
        let pairs = [
            (CHATWIRE_LOG_ERROR as c_int, Level::Error),
            (CHATWIRE_LOG_WARN as c_int, Level::Warn),
            (CHATWIRE_LOG_INFO as c_int, Level::Info),
            (CHATWIRE_LOG_DEBUG as c_int, Level::Debug),
        ];
        for (c, level) in pairs {
            assert_eq!(max_level_from_c(c).unwrap(), level.to_level_filter());
            assert_eq!(level_to_c(level) as c_int, c);
        }
        let off = max_level_from_c(CHATWIRE_LOG_OFF as c_int).unwrap();
        assert_eq!(off, LevelFilter::Off);
        assert_eq!(
            level_to_c(Level::Trace) as c_int,
            CHATWIRE_LOG_DEBUG as c_int
        );
        for stranger in [-1, 5, c_int::MIN, c_int::MAX] {
            let error = max_level_from_c(stranger).unwrap_err();
            assert!(matches!(error, crate::Error::InvalidArgument(_)));
        }
    }
}
