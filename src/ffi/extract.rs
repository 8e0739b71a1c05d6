//! chatwire_extract_json: the JSON inside a model's reply.

use std::ffi::c_char;

use super::boundary;
use super::handle;
use super::status::chatwire_status;
use super::text;

/// Finds the JSON in a model's reply (a fenced json block, or bare JSON
/// inside prose), repairs what models get wrong (fractions such as 1/2,
/// mixed numbers, vulgar fractions such as ½, trailing commas) and writes it
/// as compact, valid JSON. On success `*json_out` owns the text; free with
/// chatwire_string_free(). No JSON: CHATWIRE_ERR_NO_JSON.
///
/// # Safety
/// `text` is NULL or NUL-terminated; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn chatwire_extract_json(
    text: *const c_char,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    boundary::status(|| {
        // SAFETY: per this function's contract.
        let (input, out) = unsafe {
            (
                text::str_in(text, "text")?,
                handle::out(json_out, "json_out")?,
            )
        };
        let value = crate::extract_json(input)?;
        out.write(text::string_out(&value.to_string()));
        Ok(())
    })
}
