//! Casts between the pointers C holds and the Rust values behind them, in
//! one place. A handle is a `Box` made by [`into_c`] and taken back by [`free`].

use super::error::FfiError;

/// Moves a value to the heap and gives up ownership to C.
pub(crate) fn into_c<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Borrows the value behind a handle.
///
/// # Safety
/// `ptr` is NULL or came from [`into_c`] and has not been freed, and no
/// `&mut` to it is alive.
pub(crate) unsafe fn borrow<'a, T>(ptr: *const T, name: &'static str) -> Result<&'a T, FfiError> {
    // SAFETY: non-NULL pointers are live handles, by the caller's contract.
    unsafe { ptr.as_ref() }.ok_or(FfiError::Null(name))
}

/// Borrows the value behind a handle mutably.
///
/// # Safety
/// `ptr` is NULL or came from [`into_c`] and has not been freed, and nothing
/// else borrows it (the C API forbids using one conversation from two threads).
pub(crate) unsafe fn borrow_mut<'a, T>(
    ptr: *mut T,
    name: &'static str,
) -> Result<&'a mut T, FfiError> {
    // SAFETY: as above.
    unsafe { ptr.as_mut() }.ok_or(FfiError::Null(name))
}

/// Takes a handle back and drops it; NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or came from [`into_c`] and has not been freed.
pub(crate) unsafe fn free<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the pointer came from Box::into_raw and is freed once.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// An out-parameter, checked for NULL before any work is done and written
/// only once the work has succeeded.
pub(crate) struct Out<'a, T>(&'a mut T);

impl<T> Out<'_, T> {
    pub(crate) fn write(self, value: T) {
        *self.0 = value;
    }
}

/// Checks an out-parameter.
///
/// # Safety
/// `ptr` is NULL or points to writable memory for a `T` (a caller's variable).
pub(crate) unsafe fn out<'a, T>(ptr: *mut T, name: &'static str) -> Result<Out<'a, T>, FfiError> {
    // SAFETY: a non-NULL out-parameter points to the caller's variable; the
    // old value is a plain pointer or integer, so overwriting it drops nothing.
    unsafe { ptr.as_mut() }.map(Out).ok_or(FfiError::Null(name))
}

/// An out-parameter the caller may leave NULL when it does not want the value.
///
/// # Safety
/// As [`out`].
pub(crate) unsafe fn optional_out<'a, T>(ptr: *mut T) -> Option<Out<'a, T>> {
    // SAFETY: as in `out`.
    unsafe { ptr.as_mut() }.map(Out)
}
