//! The cap on a client's background requests in flight: past it, a new
//! request waits its turn (on its worker thread, which has done nothing
//! yet) instead of failing, for at most the request timeout, and a cancel
//! ends the wait at once. Each process counts its own requests: a forked
//! child starts with none in flight, as the parent's requests do not run
//! in it (as `http::pool::ProcessAgent` gives a child an agent of its own).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use crate::error::{Error, Result, TimeoutKind};
use crate::http::cancel::{self, CancelToken, Interrupt};
use crate::sync;

/// How many background requests of one client (and its clones) run at once.
pub(crate) struct Gate {
    limit: AtomicUsize,
    /// The process that made the gate, and its places.
    pid: u32,
    own: Arc<Places>,
    /// The places of the forked child that asked last, with that child's id.
    child: Mutex<Option<(u32, Arc<Places>)>>,
}

/// The requests of one process inside the gate, and the wait for a place.
#[derive(Default)]
struct Places {
    counts: Mutex<Counts>,
    turn: Condvar,
}

#[derive(Default)]
struct Counts {
    running: usize,
    /// Requests inside the wait for a place: what a test waits on to know
    /// a request is queued, instead of guessing with a pause.
    waiting: usize,
}

impl Places {
    fn lock(&self) -> MutexGuard<'_, Counts> {
        sync::lock(&self.counts)
    }
}

impl Gate {
    pub(crate) fn new(limit: usize) -> Arc<Gate> {
        Arc::new(Gate {
            limit: AtomicUsize::new(limit),
            pid: std::process::id(),
            own: Arc::default(),
            child: Mutex::new(None),
        })
    }

    /// The places of the process this runs in. A child never takes its
    /// parent's locks (a thread of the parent may have held one at the
    /// fork, and would never let it go in the child).
    fn places(&self) -> Arc<Places> {
        let pid = std::process::id();
        if pid == self.pid {
            return self.own.clone();
        }
        self.in_child(pid)
    }

    /// A forked child's places, made by its first request. Only
    /// `try_lock`, as the pool's agent of a child: a lock held at the fork
    /// stays held, and a request then has a place of its own (it runs,
    /// uncounted, rather than never).
    #[cold]
    fn in_child(&self, pid: u32) -> Arc<Places> {
        let mut child = match self.child.try_lock() {
            Ok(child) => child,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return Arc::default(),
        };
        match &*child {
            Some((owner, places)) if *owner == pid => places.clone(),
            _ => child.insert((pid, Arc::default())).1.clone(),
        }
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit.load(Ordering::SeqCst)
    }

    /// Changes the cap; a higher one lets waiting requests through at once.
    pub(crate) fn set_limit(&self, limit: usize) {
        let places = self.places();
        // Stored under the lock a waiter checks the cap under, so that no
        // waiter misses the notification between its check and its wait.
        let counts = places.lock();
        self.limit.store(limit, Ordering::SeqCst);
        drop(counts);
        places.turn.notify_all();
    }

    /// Waits for a place, for at most `patience` (the request timeout):
    /// then [`Error::Timeout`] ([`TimeoutKind::Request`]); [`Error::Cancelled`]
    /// when `token` is cancelled first. The place is given back when the
    /// pass is dropped.
    pub(crate) fn enter(&self, token: &CancelToken, patience: Duration) -> Result<Pass> {
        let places = self.places();
        if let Some(pass) = self.take_place(&places, &mut places.lock()) {
            return Ok(pass);
        }
        // Full: wait, and let a cancel wake the wait (through the token,
        // as it wakes a blocked socket).
        let wake = Arc::new(Wake {
            places: places.clone(),
            cancelled: AtomicBool::new(false),
        });
        let _working = token.enter();
        let target: Arc<dyn Interrupt> = wake.clone();
        cancel::hold(&target).map_err(|_| Error::Cancelled)?;
        let deadline = Instant::now() + patience;
        let mut counts = places.lock();
        counts.waiting += 1;
        let entered = loop {
            // The flag, not the token: the token's lock is taken before
            // this one when a cancel wakes the wait, never after.
            if wake.cancelled.load(Ordering::SeqCst) {
                break Err(Error::Cancelled);
            }
            if let Some(pass) = self.take_place(&places, &mut counts) {
                break Ok(pass);
            }
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break Err(self.out_of_patience(patience));
            };
            counts = match places.turn.wait_timeout(counts, left) {
                Ok((counts, _)) => counts,
                Err(poisoned) => poisoned.into_inner().0,
            };
        };
        counts.waiting -= 1;
        if entered.is_err() {
            // A notification that woke this request is passed on to the next.
            places.turn.notify_one();
        }
        entered
    }

    /// A place, when one is free.
    fn take_place(&self, places: &Arc<Places>, counts: &mut Counts) -> Option<Pass> {
        if counts.running >= self.limit() {
            return None;
        }
        counts.running += 1;
        Some(Pass {
            places: places.clone(),
            pid: std::process::id(),
        })
    }

    fn out_of_patience(&self, patience: Duration) -> Error {
        Error::Timeout {
            kind: TimeoutKind::Request,
            message: format!(
                "the request waited the whole request timeout of {patience:?} for one of the \
                 {} places of max_in_flight, and did not start",
                self.limit()
            ),
        }
    }
}

/// A place in the gate, given back when dropped.
pub(crate) struct Pass {
    places: Arc<Places>,
    /// The process the place was taken in: a child that a callback forked
    /// on the worker leaves its parent's count alone.
    pid: u32,
}

impl Drop for Pass {
    fn drop(&mut self) {
        if std::process::id() != self.pid {
            return;
        }
        self.places.lock().running -= 1;
        self.places.turn.notify_one();
    }
}

/// Wakes a wait for a place when the request is cancelled.
struct Wake {
    places: Arc<Places>,
    cancelled: AtomicBool,
}

impl Interrupt for Wake {
    fn interrupt(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        // Taken and let go, so the waiter is either before its check of the
        // flag or inside the wait, which the notification then reaches.
        drop(self.places.lock());
        self.places.turn.notify_all();
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// Longer than any test runs: only a place, a cancel or a new cap ends the wait.
    const PATIENT: Duration = Duration::from_secs(60);

    /// Waits until `count` requests are inside the gate's wait. A request
    /// counts itself there under the gate's lock, which it gives up only
    /// inside the wait: once counted, it is waiting.
    fn until_waiting(gate: &Gate, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while gate.places().lock().waiting < count {
            assert!(Instant::now() < deadline, "no request came to wait");
            std::thread::yield_now();
        }
    }

    fn running(gate: &Gate) -> usize {
        gate.places().lock().running
    }

    #[test]
    fn past_the_cap_a_request_waits_for_a_place_to_free() {
        let gate = Gate::new(2);
        let token = CancelToken::new();
        let first = gate.enter(&token, PATIENT).unwrap();
        let _second = gate.enter(&token, PATIENT).unwrap();
        let waiting = gate.clone();
        let third = std::thread::spawn(move || waiting.enter(&CancelToken::new(), PATIENT).is_ok());
        until_waiting(&gate, 1);
        assert!(
            !third.is_finished(),
            "the third waits while the gate is full"
        );
        assert_eq!(running(&gate), 2);
        drop(first);
        assert!(third.join().unwrap(), "a freed place lets the third in");
        assert_eq!(
            running(&gate),
            1,
            "the third's pass was dropped by its thread"
        );
        assert_eq!(gate.places().lock().waiting, 0);
    }

    #[test]
    fn a_cancel_ends_the_wait_at_once() {
        let gate = Gate::new(1);
        let _held = gate.enter(&CancelToken::new(), PATIENT).unwrap();
        let token = CancelToken::new();
        let canceller = token.clone();
        let waiting = gate.clone();
        let queued = std::thread::spawn(move || waiting.enter(&token, PATIENT).map(drop));
        until_waiting(&gate, 1);
        canceller.cancel();
        // The place is still held: only the cancel can end this wait.
        assert!(matches!(queued.join().unwrap(), Err(Error::Cancelled)));
        assert_eq!(running(&gate), 1);
        assert_eq!(gate.places().lock().waiting, 0);
    }

    #[test]
    fn raising_the_cap_lets_waiting_requests_through() {
        let gate = Gate::new(1);
        let _held = gate.enter(&CancelToken::new(), PATIENT).unwrap();
        let waiting = gate.clone();
        let queued =
            std::thread::spawn(move || waiting.enter(&CancelToken::new(), PATIENT).map(drop));
        until_waiting(&gate, 1);
        gate.set_limit(2);
        // The place is still held: only the raised cap lets it through.
        assert!(queued.join().unwrap().is_ok());
        assert_eq!(gate.limit(), 2);
        assert_eq!(gate.places().lock().waiting, 0);
    }

    #[test]
    fn a_request_waits_for_a_place_at_most_the_request_timeout() {
        let gate = Gate::new(1);
        let _held = gate.enter(&CancelToken::new(), PATIENT).unwrap();
        let err = gate
            .enter(&CancelToken::new(), Duration::from_millis(20))
            .map(drop)
            .unwrap_err();
        assert_eq!(err.timeout_kind(), Some(TimeoutKind::Request), "{err}");
        assert!(err.to_string().contains("max_in_flight"), "{err}");
        assert_eq!(gate.places().lock().waiting, 0);
        assert_eq!(running(&gate), 1, "the held place is still held");
    }

    /// The gate as a forked child sees the one its parent made: the
    /// parent's requests in flight are counted in the parent's places.
    fn made_by_the_parent(gate: Arc<Gate>) -> Gate {
        let gate = Arc::try_unwrap(gate).ok().unwrap();
        Gate {
            pid: std::process::id().wrapping_add(1),
            ..gate
        }
    }

    #[test]
    fn a_forked_child_counts_none_of_its_parents_requests() {
        let parent = Gate::new(1);
        let held = parent.enter(&CancelToken::new(), PATIENT).unwrap();
        assert_eq!(parent.own.lock().running, 1);
        let child = made_by_the_parent(Gate::new(1));
        // The parent's count, as the fork copied it.
        child.own.lock().running = 1;
        let first = child.enter(&CancelToken::new(), PATIENT).unwrap();
        assert_eq!(running(&child), 1, "the child's own request");
        // The child's own cap still holds.
        let err = child.enter(&CancelToken::new(), Duration::from_millis(1));
        assert!(matches!(err, Err(Error::Timeout { .. })));
        drop(first);
        assert_eq!(running(&child), 0);
        assert_eq!(child.own.lock().running, 1, "the parent's count untouched");
        drop(held);
    }

    #[test]
    fn a_place_taken_before_a_fork_is_not_given_back_in_the_child() {
        let gate = Gate::new(1);
        let mut pass = gate.enter(&CancelToken::new(), PATIENT).unwrap();
        // As the child sees a place its parent took on the same thread.
        pass.pid = pass.pid.wrapping_add(1);
        drop(pass);
        assert_eq!(running(&gate), 1);
    }
}
