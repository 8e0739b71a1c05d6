//! Strings chatwire hands out (`char *`), and the one way to free them.

use std::ffi::{c_char, CString};

use super::boundary;

/// Frees a string that chatwire handed out (a reply, a JSON text). NULL is
/// ignored. Never pass it a string from anywhere else, nor free() one of ours.
///
/// # Safety
/// `s` is NULL or a string from chatwire that has not been freed.
#[no_mangle]
pub unsafe extern "system" fn chatwire_string_free(s: *mut c_char) {
    boundary::release(|| {
        if !s.is_null() {
            // SAFETY: chatwire strings come from CString::into_raw.
            drop(unsafe { CString::from_raw(s) });
        }
    })
}
