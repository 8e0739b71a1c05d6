//! The cap on a client's background requests in flight: past it, a new
//! request waits its turn (on its worker thread, which has done nothing
//! yet) instead of failing, and a cancel ends the wait at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::error::{self, Error, Result};
use crate::http::cancel::{self, CancelToken, Interrupt};

/// How many background requests of one client (and its clones) run at once.
pub(crate) struct Gate {
    state: Mutex<GateState>,
    turn: Condvar,
}

#[derive(Default)]
struct GateState {
    running: usize,
    limit: usize,
    /// Requests inside the wait for a place: what a test waits on to know
    /// a request is queued, instead of guessing with a pause.
    waiting: usize,
}

impl Gate {
    pub(crate) fn new(limit: usize) -> Arc<Gate> {
        let state = Mutex::new(GateState {
            limit,
            ..GateState::default()
        });
        Arc::new(Gate {
            state,
            turn: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, GateState> {
        error::lock(&self.state)
    }

    pub(crate) fn limit(&self) -> usize {
        self.lock().limit
    }

    /// Changes the cap; a higher one lets waiting requests through at once.
    pub(crate) fn set_limit(&self, limit: usize) {
        self.lock().limit = limit;
        self.turn.notify_all();
    }

    /// Waits for a place; fails with [`Error::Cancelled`] when `token` is
    /// cancelled first. The place is given back when the pass is dropped.
    pub(crate) fn enter(self: &Arc<Self>, token: &CancelToken) -> Result<Pass> {
        {
            let mut state = self.lock();
            if state.running < state.limit {
                state.running += 1;
                return Ok(Pass(self.clone()));
            }
        }
        // Full: wait, and let a cancel wake the wait (through the token,
        // as it wakes a blocked socket).
        let wake = Arc::new(Wake {
            gate: self.clone(),
            cancelled: AtomicBool::new(false),
        });
        let _working = token.enter();
        let target: Arc<dyn Interrupt> = wake.clone();
        cancel::hold(&target).map_err(|_| Error::Cancelled)?;
        let mut state = self.lock();
        state.waiting += 1;
        let entered = loop {
            // The flag, not the token: the token's lock is taken before
            // this one when a cancel wakes the wait, never after.
            if wake.cancelled.load(Ordering::SeqCst) {
                break Err(Error::Cancelled);
            }
            if state.running < state.limit {
                state.running += 1;
                break Ok(Pass(self.clone()));
            }
            state = error::wait(&self.turn, state);
        };
        state.waiting -= 1;
        entered
    }
}

/// A place in the gate, given back when dropped.
pub(crate) struct Pass(Arc<Gate>);

impl Drop for Pass {
    fn drop(&mut self) {
        self.0.lock().running -= 1;
        self.0.turn.notify_one();
    }
}

/// Wakes a wait for a place when the request is cancelled.
struct Wake {
    gate: Arc<Gate>,
    cancelled: AtomicBool,
}

impl Interrupt for Wake {
    fn interrupt(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        // Taken and let go, so the waiter is either before its check of the
        // flag or inside the wait, which the notification then reaches.
        drop(self.gate.lock());
        self.gate.turn.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Waits until `count` requests are inside the gate's wait. A request
    /// counts itself there under the gate's lock, which it gives up only
    /// inside the wait: once counted, it is waiting.
    fn until_waiting(gate: &Gate, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while gate.lock().waiting < count {
            assert!(Instant::now() < deadline, "no request came to wait");
            std::thread::yield_now();
        }
    }

    #[test]
    fn past_the_cap_a_request_waits_for_a_place_to_free() {
        let gate = Gate::new(2);
        let token = CancelToken::new();
        let first = gate.enter(&token).unwrap();
        let _second = gate.enter(&token).unwrap();
        let waiting = gate.clone();
        let third = std::thread::spawn(move || waiting.enter(&CancelToken::new()).is_ok());
        until_waiting(&gate, 1);
        assert!(
            !third.is_finished(),
            "the third waits while the gate is full"
        );
        assert_eq!(gate.lock().running, 2);
        drop(first);
        assert!(third.join().unwrap(), "a freed place lets the third in");
        let state = gate.lock();
        assert_eq!(
            state.running, 1,
            "the third's pass was dropped by its thread"
        );
        assert_eq!(state.waiting, 0);
    }

    #[test]
    fn a_cancel_ends_the_wait_at_once() {
        let gate = Gate::new(1);
        let _held = gate.enter(&CancelToken::new()).unwrap();
        let token = CancelToken::new();
        let canceller = token.clone();
        let waiting = gate.clone();
        let queued = std::thread::spawn(move || waiting.enter(&token).map(drop));
        until_waiting(&gate, 1);
        canceller.cancel();
        // The place is still held: only the cancel can end this wait.
        assert!(matches!(queued.join().unwrap(), Err(Error::Cancelled)));
        let state = gate.lock();
        assert_eq!(state.running, 1);
        assert_eq!(state.waiting, 0);
    }

    #[test]
    fn raising_the_cap_lets_waiting_requests_through() {
        let gate = Gate::new(1);
        let _held = gate.enter(&CancelToken::new()).unwrap();
        let waiting = gate.clone();
        let queued = std::thread::spawn(move || waiting.enter(&CancelToken::new()).map(drop));
        until_waiting(&gate, 1);
        gate.set_limit(2);
        // The place is still held: only the raised cap lets it through.
        assert!(queued.join().unwrap().is_ok());
        assert_eq!(gate.limit(), 2);
        assert_eq!(gate.lock().waiting, 0);
    }
}
