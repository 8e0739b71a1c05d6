//! Strings chatwire hands out (`char *`), and the one way to free them.

use std::ffi::c_char;

use super::boundary;
use super::text;

/// Frees a string that chatwire handed out (a reply, a JSON text). NULL is
/// ignored. Never pass it a string from anywhere else, nor free() one of ours.
#[no_mangle]
pub unsafe extern "system" fn chatwire_string_free(s: *mut c_char) {
    // SAFETY: chatwire strings come from text::string_out.
    boundary::release(|| unsafe { text::string_free(s) })
}
