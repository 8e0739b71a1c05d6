//! Stopping one request from another thread, in every phase. What ureq
//! lacks: its `ShutdownHandle` stops every connection of an agent, only once
//! connected, and nothing ends its wait for a name lookup.
//!
//! While a thread works for a token ([`CancelToken::enter`]), whatever it
//! blocks on (a socket, the wait for a lookup) hands itself to the token
//! first ([`hold`]), and [`CancelToken::cancel`] interrupts it.

use std::cell::RefCell;
use std::io;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::error::{Error, Result};

/// Stops a request: cheap to clone, and usable from any thread.
///
/// Cancelling takes effect at once, also while the server is silent: the
/// request's connection is closed, and the request fails with
/// [`Error::Cancelled`]. Cancelling a finished request does nothing.
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Shared>);

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// This token's number, for the claims of what it holds ([`Interrupt::claim`]).
    id: u64,
}

impl Default for Shared {
    fn default() -> Shared {
        // 0 stands for no token, so the count starts at 1.
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Shared {
            state: Mutex::default(),
            changed: Condvar::new(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }
}

#[derive(Default)]
struct State {
    cancelled: bool,
    /// What the request is blocked on, or about to be; set only while a
    /// thread works for the token, so a cancel never reaches a connection
    /// that went back to the pool.
    target: Option<Arc<dyn Interrupt>>,
}

impl CancelToken {
    /// A token that has not been cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Stops the request this token was given to.
    pub fn cancel(&self) {
        {
            let mut state = self.lock();
            state.cancelled = true;
            // With the lock held, which `Entered` takes too: once the thread
            // has stopped working for the token, none of its connections
            // can be reached from here.
            if let Some(target) = state.target.take() {
                target.interrupt_for(self.0.id);
            }
        }
        self.0.changed.notify_all();
    }

    /// True once [`cancel`](Self::cancel) has been called.
    pub fn is_cancelled(&self) -> bool {
        self.lock().cancelled
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        crate::sync::lock(&self.0.state)
    }

    /// Fails with [`Error::Cancelled`] once cancelled.
    pub(crate) fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// Sleeps for `pause` (between retries), waking early to fail when cancelled.
    pub(crate) fn sleep(&self, pause: Duration) -> Result<()> {
        let (state, _) = self
            .0
            .changed
            .wait_timeout_while(self.lock(), pause, |state| !state.cancelled)
            .unwrap_or_else(PoisonError::into_inner);
        if state.cancelled {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// Makes this the token that stops what the calling thread blocks on,
    /// until the returned guard is dropped.
    pub(crate) fn enter(&self) -> Entered {
        let previous = CURRENT.with(|current| current.replace(Some(self.clone())));
        Entered {
            previous,
            _not_send: PhantomData,
        }
    }
}

/// Something a blocked request waits on that another thread can wake: the
/// socket of its connection, or the wait for a name lookup.
pub(crate) trait Interrupt: Send + Sync {
    /// Makes the blocked call (and any later one) fail at once.
    fn interrupt(&self);

    /// Records which token may interrupt it from now on (its id; 0 for
    /// none): a pooled connection another request took at once is then
    /// spared a late cancel of the first. A name lookup needs no claim.
    fn claim(&self, _owner: u64) {}

    /// Interrupts, if the token `owner` still holds the claim.
    fn interrupt_for(&self, _owner: u64) {
        self.interrupt();
    }
}

thread_local! {
    static CURRENT: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// Hands `target` to the token the calling thread works for (if any) before
/// blocking on it, so that a cancel can interrupt it. Fails when that
/// request is already stopped, so that nothing new starts blocking.
pub(crate) fn hold(target: &Arc<dyn Interrupt>) -> io::Result<()> {
    CURRENT.with(|current| {
        let Some(token) = &*current.borrow() else {
            target.claim(0);
            return Ok(());
        };
        let mut state = token.lock();
        if state.cancelled {
            let stopped = "the request was stopped";
            return Err(io::Error::new(io::ErrorKind::ConnectionAborted, stopped));
        }
        target.claim(token.0.id);
        let held = state.target.as_ref();
        if !held.is_some_and(|held| Arc::ptr_eq(held, target)) {
            state.target = Some(target.clone());
        }
        Ok(())
    })
}

/// Claims `target` for the token the calling thread works for (0: none)
/// without handing it over, as a request that takes a pooled connection
/// does before its first read or write.
pub(crate) fn claim(target: &dyn Interrupt) {
    let owner = CURRENT.with(|current| current.borrow().as_ref().map_or(0, |token| token.0.id));
    target.claim(owner);
}

/// The thread works for a token until this is dropped.
pub(crate) struct Entered {
    previous: Option<CancelToken>,
    /// Dropped on the thread that entered, whose state it restores.
    _not_send: PhantomData<*const ()>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let left = CURRENT.with(|current| current.replace(self.previous.take()));
        if let Some(token) = left {
            token.lock().target = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn sleep_wakes_on_cancel() {
        let token = CancelToken::new();
        let other = token.clone();
        let (about_to_sleep, told) = std::sync::mpsc::channel();
        let canceller = std::thread::spawn(move || {
            told.recv().unwrap();
            other.cancel();
        });
        let started = Instant::now();
        about_to_sleep.send(()).unwrap();
        // A pause that runs out ends with Cancelled too (the flag is set by
        // then), so only the clock tells a wake from a pause that ran its
        // course: a minute's pause, and half of it allowed, so that only a
        // sleep that ignored the cancel fails, however busy the machine.
        assert!(matches!(
            token.sleep(Duration::from_secs(60)),
            Err(Error::Cancelled)
        ));
        assert!(started.elapsed() < Duration::from_secs(30));
        canceller.join().unwrap();
    }

    #[test]
    fn sleep_runs_out_when_not_cancelled() {
        let token = CancelToken::new();
        assert!(token.sleep(Duration::from_millis(10)).is_ok());
        assert!(token.check().is_ok());
    }
}
