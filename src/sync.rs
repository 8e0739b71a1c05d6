//! Locks and waits that carry on after a holder panicked: chatwire's shared
//! states are whole between statements, and a panic must not spread to every
//! thread that shares one.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, also when a holder panicked while holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Waits on `condvar`, also when a holder panicked, as [`lock`] locks.
pub(crate) fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar.wait(guard).unwrap_or_else(PoisonError::into_inner)
}
