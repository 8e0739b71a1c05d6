//! Casts between the pointers C holds and the Rust values behind them: a
//! `Box` ([`into_c`], [`free`]), or an `Arc` when a call may still hold it
//! after C frees it ([`into_c_shared`], [`retain`], [`release_shared`]).

use std::sync::Arc;

use super::status::FfiError;

/// Moves a value to the heap and gives up ownership to C.
pub(crate) fn into_c<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// The value behind a handle that C passes as a raw pointer, or the error of
/// a NULL one (unsafe: `ptr` is NULL or from [`into_c`], not freed, with no
/// `&mut` to it alive). [`required`] is the same for a parameter declared
/// `Option<&T>`, whose non-NULL value Rust already holds as a reference.
pub(crate) unsafe fn from_ptr<'a, T>(ptr: *const T, name: &'static str) -> Result<&'a T, FfiError> {
    // SAFETY: non-NULL pointers are live handles, by the caller's contract.
    unsafe { ptr.as_ref() }.ok_or(FfiError::Null(name))
}

/// The value behind a handle that a call only reads, declared `Option<&T>`
/// (the same pointer), or the error of a NULL one.
pub(crate) fn required<'a, T>(
    handle: Option<&'a T>,
    name: &'static str,
) -> Result<&'a T, FfiError> {
    handle.ok_or(FfiError::Null(name))
}

/// Takes a handle back and drops it; NULL is ignored (unsafe: `ptr` is NULL or
/// from [`into_c`] and not freed).
pub(crate) unsafe fn free<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the pointer came from Box::into_raw and is freed once.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// Moves a value to the heap, shared: C holds one reference, and each call
/// that must outlive a free from elsewhere holds another ([`retain`]).
pub(crate) fn into_c_shared<T>(value: T) -> *mut T {
    Arc::into_raw(Arc::new(value)).cast_mut()
}

/// A reference that keeps the value behind a shared handle alive (unsafe: `ptr`
/// is NULL or from [`into_c_shared`] and C has not freed it).
pub(crate) unsafe fn retain<T>(ptr: *const T, name: &'static str) -> Result<Arc<T>, FfiError> {
    if ptr.is_null() {
        return Err(FfiError::Null(name));
    }
    // SAFETY: a live shared handle counts at least C's own reference, so the
    // count is not 0 and the pointer came from Arc::into_raw.
    unsafe {
        Arc::increment_strong_count(ptr);
        Ok(Arc::from_raw(ptr))
    }
}

/// Gives up C's reference to a shared handle; NULL is ignored (unsafe: as
/// [`retain`]).
pub(crate) unsafe fn release_shared<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: C's reference, given up once.
        unsafe { Arc::decrement_strong_count(ptr.cast_const()) };
    }
}

/// Item `index` of a list, or the error of an index out of range (`what`
/// names an item).
pub(crate) fn item<'a, T>(
    items: &'a [T],
    index: usize,
    what: &'static str,
) -> Result<&'a T, FfiError> {
    items.get(index).ok_or(FfiError::OutOfRange {
        what,
        index,
        len: items.len(),
    })
}

/// Checks an out-parameter before any work is done, to write once it has
/// succeeded (unsafe: `ptr` is NULL or points to a caller's writable `T`).
pub(crate) unsafe fn out<'a, T>(ptr: *mut T, name: &'static str) -> Result<&'a mut T, FfiError> {
    // SAFETY: as the caller promises; the old value is a plain pointer or
    // integer, so overwriting it drops nothing.
    unsafe { ptr.as_mut() }.ok_or(FfiError::Null(name))
}

/// Writes each value where its out-parameter is not NULL (unsafe: each pointer
/// is NULL or writable).
pub(crate) unsafe fn write_optional<T, const N: usize>(outs: [*mut T; N], values: [T; N]) {
    for (out, value) in outs.into_iter().zip(values) {
        // SAFETY: as the caller promises.
        if let Some(out) = unsafe { out.as_mut() } {
            *out = value;
        }
    }
}
