//! Stopping a request from another thread, and noticing a stream that has
//! gone quiet.
//!
//! A blocking read cannot be interrupted by a flag, so a request that can
//! be stopped runs on a connection of its own (a private ureq agent) which
//! [`CancelToken::cancel`] shuts down: the blocked read fails at once, the
//! server sees the connection close and stops generating.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    cancelled: bool,
    idle_expired: bool,
    /// The request's own agent, shut down to interrupt a blocked read.
    agent: Option<ureq::Agent>,
    last_activity: Option<Instant>,
    watching: bool,
    /// Pausing between retries: the server owes nothing, so the idle watch waits.
    pausing: bool,
}

impl CancelToken {
    /// A token that has not been cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Stops the request this token was given to.
    pub fn cancel(&self) {
        let agent = {
            let mut state = self.lock();
            state.cancelled = true;
            state.agent.take()
        };
        self.0.changed.notify_all();
        if let Some(agent) = agent {
            agent.shutdown();
        }
    }

    /// True once [`cancel`](Self::cancel) has been called.
    pub fn is_cancelled(&self) -> bool {
        self.lock().cancelled
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Fails with [`Error::Cancelled`] once cancelled.
    pub(crate) fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// Sleeps for `pause` (between retries), waking early to fail when cancelled.
    /// The pause does not count as silence for the idle watch.
    pub(crate) fn sleep(&self, pause: Duration) -> Result<()> {
        let deadline = Instant::now() + pause;
        let mut state = self.lock();
        state.pausing = true;
        while !state.cancelled && Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            state = self
                .0
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        state.pausing = false;
        state.last_activity = Some(Instant::now());
        let cancelled = state.cancelled;
        drop(state);
        self.0.changed.notify_all();
        if cancelled {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// Hands over the agent whose connection a cancel must shut down.
    pub(crate) fn attach(&self, agent: &ureq::Agent) {
        let mut state = self.lock();
        if state.cancelled {
            drop(state);
            agent.clone().shutdown();
        } else {
            state.agent = Some(agent.clone());
        }
    }

    /// Records that bytes arrived, for the idle watch.
    pub(crate) fn touch(&self) {
        self.lock().last_activity = Some(Instant::now());
    }

    /// True when the idle watch closed the connection.
    pub(crate) fn idle_expired(&self) -> bool {
        self.lock().idle_expired
    }

    /// Starts a thread that shuts the connection down when nothing has
    /// arrived for `idle`; it ends when the returned guard is dropped.
    pub(crate) fn watch_idle(&self, idle: Duration) -> IdleWatch {
        {
            let mut state = self.lock();
            state.last_activity = Some(Instant::now());
            state.watching = true;
        }
        let token = self.clone();
        let thread = std::thread::Builder::new()
            .name("chatwire-idle-watch".into())
            .spawn(move || token.run_idle_watch(idle))
            .ok();
        IdleWatch {
            token: self.clone(),
            thread,
        }
    }

    fn run_idle_watch(&self, idle: Duration) {
        let mut state = self.lock();
        while state.watching && !state.cancelled {
            if state.pausing {
                state = self
                    .0
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let since = state
                .last_activity
                .map_or(Duration::ZERO, |at| at.elapsed());
            if since >= idle {
                state.idle_expired = true;
                let agent = state.agent.take();
                drop(state);
                if let Some(agent) = agent {
                    agent.shutdown();
                }
                return;
            }
            state = self
                .0
                .changed
                .wait_timeout(state, idle - since)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Ends the idle watch when dropped.
pub(crate) struct IdleWatch {
    token: CancelToken,
    thread: Option<JoinHandle<()>>,
}

impl Drop for IdleWatch {
    fn drop(&mut self) {
        self.token.lock().watching = false;
        self.token.0.changed.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_wakes_on_cancel() {
        let token = CancelToken::new();
        let other = token.clone();
        let started = Instant::now();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            other.cancel();
        });
        assert!(matches!(
            token.sleep(Duration::from_secs(10)),
            Err(Error::Cancelled)
        ));
        assert!(started.elapsed() < Duration::from_secs(5));
        canceller.join().unwrap();
    }

    #[test]
    fn sleep_runs_out_when_not_cancelled() {
        let token = CancelToken::new();
        assert!(token.sleep(Duration::from_millis(10)).is_ok());
        assert!(token.check().is_ok());
    }

    #[test]
    fn a_pause_between_retries_is_not_silence() {
        let token = CancelToken::new();
        let watch = token.watch_idle(Duration::from_millis(50));
        token.sleep(Duration::from_millis(300)).unwrap();
        assert!(!token.idle_expired());
        drop(watch);
    }

    #[test]
    fn idle_watch_expires_without_activity_and_stops_when_dropped() {
        let token = CancelToken::new();
        let watch = token.watch_idle(Duration::from_millis(30));
        std::thread::sleep(Duration::from_millis(200));
        assert!(token.idle_expired());
        drop(watch);

        let busy = CancelToken::new();
        let watch = busy.watch_idle(Duration::from_millis(200));
        for _ in 0..5 {
            std::thread::sleep(Duration::from_millis(20));
            busy.touch();
        }
        drop(watch);
        assert!(!busy.idle_expired());
    }
}
