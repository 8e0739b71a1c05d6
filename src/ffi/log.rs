//! Log lines for C: chatwire_set_log_callback() and its level names.

use std::ffi::{c_char, c_int, c_void};

use log::{Level, LevelFilter};

use super::boundary;
use super::callback::UserData;
use super::status::{chatwire_status, from_c};
use super::text;

/// The level of a log line, most severe first.
#[repr(C)]
#[allow(dead_code)]
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
        // `log` numbers its levels as chatwire_log_level does, from Error = 1;
        // its Trace, past Debug, is given as Debug.
        let level = (level as c_int).min(chatwire_log_level::CHATWIRE_LOG_DEBUG as c_int);
        let line = text::c_string(line);
        // SAFETY: the caller gave a callback valid until it is replaced;
        // `line` outlives the call.
        unsafe { (self.callback)(self.userdata.0, level, line.as_ptr()) }
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
        use LevelFilter as L;
        let levels = [L::Off, L::Error, L::Warn, L::Info, L::Debug];
        let max = from_c(max_level, &levels, "a chatwire_log_level (0 to 4)")?;
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
