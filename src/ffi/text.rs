//! Strings across the boundary: C strings in, owned C strings out.

use std::alloc::{handle_alloc_error, Layout};
use std::ffi::{c_char, CStr, CString};

use super::handle;
use super::status::FfiError;

/// Reads a required NUL-terminated UTF-8 argument (unsafe: `ptr` is NULL or
/// points to a NUL-terminated string that outlives `'a`).
pub(crate) unsafe fn str_in<'a>(
    ptr: *const c_char,
    name: &'static str,
) -> Result<&'a str, FfiError> {
    // SAFETY: as the caller promises.
    unsafe { opt_str_in(ptr, name) }?.ok_or(FfiError::Null(name))
}

/// Reads an optional NUL-terminated UTF-8 argument, NULL giving `None`
/// (unsafe: as [`str_in`]).
pub(crate) unsafe fn opt_str_in<'a>(
    ptr: *const c_char,
    name: &'static str,
) -> Result<Option<&'a str>, FfiError> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL and NUL-terminated, by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(ptr) };
    bytes.to_str().map(Some).map_err(|_| FfiError::Utf8(name))
}

/// The body of a function that turns one C string into another the caller
/// owns, written only when `transform` succeeds (unsafe: as [`str_in`] for
/// `input`; `output` is NULL or writable).
pub(crate) unsafe fn transform(
    input: (*const c_char, &'static str),
    output: (*mut *mut c_char, &'static str),
    transform: impl FnOnce(&str) -> crate::error::Result<String>,
) -> Result<(), FfiError> {
    // SAFETY: `output` is NULL or writable (the C conventions).
    let (text, out) = unsafe { (str_in(input.0, input.1)?, handle::out(output.0, output.1)?) };
    *out = string_out(&transform(text)?);
    Ok(())
}

/// A C copy of text, cut at the first NUL byte (C cannot see past it anyway).
pub(crate) fn c_string(text: impl Into<Vec<u8>>) -> CString {
    CString::new(text).unwrap_or_else(|err| {
        let end = err.nul_position();
        CString::new(&err.into_vec()[..end]).unwrap_or_default()
    })
}

/// A copy of text for C to borrow, NUL bytes included (read whole with a
/// `_len` accessor), in a buffer that never moves while the value lives.
pub(crate) struct CText(Box<[u8]>);

impl CText {
    pub(crate) fn new(text: &str) -> CText {
        CText([text.as_bytes(), b"\0"].concat().into_boxed_slice())
    }

    pub(crate) fn as_ptr(&self) -> *const c_char {
        self.0.as_ptr().cast()
    }

    /// The length of the text in bytes, without the final NUL.
    pub(crate) fn len(&self) -> usize {
        self.0.len() - 1
    }
}

pub(crate) fn borrowed(text: &Option<CText>) -> *const c_char {
    text.as_ref().map_or(std::ptr::null(), CText::as_ptr)
}

pub(crate) fn borrowed_len(text: &Option<CText>) -> usize {
    text.as_ref().map_or(0, CText::len)
}

/// A copy of text, U+0000 included, and a final NUL, that C owns and frees
/// with chatwire_string_free(): from C's allocator, which needs no length.
pub(crate) fn string_out(text: &str) -> *mut c_char {
    let bytes = text.as_bytes();
    // SAFETY: malloc gives `len + 1` writable bytes or NULL, checked; the
    // copy and the final NUL stay within them.
    unsafe {
        let copy = libc::malloc(bytes.len() + 1).cast::<u8>();
        if copy.is_null() {
            handle_alloc_error(Layout::array::<u8>(bytes.len() + 1).unwrap_or(Layout::new::<u8>()));
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), copy, bytes.len());
        *copy.add(bytes.len()) = 0;
        copy.cast()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_text_keeps_every_byte() {
        let text = CText::new("ab\0cd");
        assert_eq!(text.len(), 5);
        // SAFETY: the buffer holds len() + 1 bytes.
        let bytes = unsafe { std::slice::from_raw_parts(text.as_ptr().cast::<u8>(), 6) };
        assert_eq!(bytes, b"ab\0cd\0");
    }

    #[test]
    fn a_string_out_keeps_every_byte() {
        let text = string_out("ab\0cd");
        // SAFETY: string_out wrote 5 bytes and a NUL.
        let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), 6) };
        assert_eq!(bytes, b"ab\0cd\0");
        // SAFETY: from string_out, freed once.
        unsafe { libc::free(text.cast()) };
    }

    #[test]
    fn c_string_cuts_at_nul() {
        assert_eq!(c_string("ab\0cd").as_bytes(), b"ab");
        assert_eq!(c_string("abc").as_bytes(), b"abc");
    }
}
