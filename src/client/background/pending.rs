//! A reply being fetched on a worker thread: the handle a caller waits on,
//! polls, cancels or awaits.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread::{JoinHandle, ThreadId};

use ::log::Level;

use crate::error::{Error, Result};
use crate::http::cancel::CancelToken;
use crate::http::stack;
use crate::log;
use crate::reply::Reply;
use crate::sync::lock;
use crate::sys;

/// A reply being fetched on a worker thread: wait, poll, cancel, or `.await`
/// it in any executor; dropping it cancels the request and waits for the worker.
/// A panic on the worker (in a callback given to
/// [`stream_async`](crate::Client::stream_async), say) ends the request with
/// [`Error::Internal`].
#[derive(Debug)]
pub struct PendingReply {
    shared: Arc<Mutex<State>>,
    token: CancelToken,
    worker: Option<JoinHandle<()>>,
}

#[derive(Default, Debug)]
struct State {
    outcome: Option<Result<Reply>>,
    done: bool,
    waker: Option<Waker>,
}

impl PendingReply {
    /// Runs `work` on a new thread. `on_finish` runs there too, once the
    /// request counts as done (so [`is_done`](Self::is_done) is already true
    /// inside it) and before the outcome is handed to a waiter.
    pub(crate) fn spawn(
        stack: usize,
        work: impl FnOnce(&CancelToken) -> Result<Reply> + Send + 'static,
        on_finish: impl FnOnce(&Result<Reply>) + Send + 'static,
    ) -> Result<PendingReply> {
        let shared = Arc::<Mutex<State>>::default();
        let token = CancelToken::new();
        let (worker_shared, worker_token) = (shared.clone(), token.clone());
        // Boxed, so that std's frames around it on the worker's stack hold
        // a pointer rather than the whole request (see `http::stack`).
        let body: Box<dyn FnOnce() + Send> = Box::new(move || {
            stack::worker_started();
            // A panic (a bug, or one in a caller's callback) ends the
            // request like any failure, so that every waiter hears of it.
            let outcome = caught(|| work(&worker_token)).and_then(|outcome| outcome);
            lock(&worker_shared).done = true;
            if let Err(panic) = caught(|| on_finish(&outcome)) {
                // The outcome stands; the panic is only told.
                log::line(Level::Error, format_args!("{panic}"));
            }
            let waker = {
                let mut state = lock(&worker_shared);
                state.outcome = Some(outcome);
                state.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        });
        let worker = std::thread::Builder::new()
            .name("chatwire-send".into())
            // glibc carves the process's static TLS out of the stack it is
            // asked for: a host with much TLS would leave the worker short.
            .stack_size(stack.saturating_add(sys::thread_stack_reserve()))
            .spawn(body)
            .map_err(|source| Error::System {
                message: format!("could not start a worker thread: {source}"),
                source,
            })?;
        Ok(PendingReply {
            shared,
            token,
            worker: Some(worker),
        })
    }

    /// True once the request has finished, successfully or not.
    pub fn is_done(&self) -> bool {
        lock(&self.shared).done
    }

    /// Stops the request; [`wait`](Self::wait) then gives [`Error::Cancelled`]
    /// (unless it had already finished).
    pub fn cancel(&self) {
        self.token.cancel();
    }

    /// A token that cancels this request from anywhere.
    pub fn cancel_token(&self) -> CancelToken {
        self.token.clone()
    }

    /// Blocks until the request has finished and returns its outcome.
    pub fn wait(mut self) -> Result<Reply> {
        self.join();
        self.take_outcome()
    }

    /// The worker thread, while it has not been waited for.
    pub(super) fn worker_id(&self) -> Option<ThreadId> {
        self.worker.as_ref().map(|worker| worker.thread().id())
    }

    /// Waits for the worker thread to end; on the worker itself (a callback
    /// that drops its own request) it lets the thread go instead, as a
    /// thread cannot wait for itself.
    fn join(&mut self) {
        let own = self.worker_id() == Some(std::thread::current().id());
        if let Some(worker) = self.worker.take().filter(|_| !own) {
            // The worker catches its panics: it always ends with an outcome.
            let _ = worker.join();
        }
    }

    fn take_outcome(&self) -> Result<Reply> {
        let why = "the request's worker thread ended without an outcome (a panic in a callback?)";
        let outcome = lock(&self.shared).outcome.take();
        outcome.unwrap_or_else(|| Err(Error::Internal(why.into())))
    }
}

/// Runs `run`; a panic in it becomes [`Error::Internal`], with its message.
fn caught<T>(run: impl FnOnce() -> T) -> Result<T> {
    std::panic::catch_unwind(AssertUnwindSafe(run)).map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("no message");
        Error::Internal(format!(
            "a panic on the request's worker thread (a bug in chatwire or in a callback): {message}"
        ))
    })
}

impl Drop for PendingReply {
    fn drop(&mut self) {
        if self.worker.is_some() {
            self.token.cancel();
            self.join();
        }
    }
}

impl Future for PendingReply {
    type Output = Result<Reply>;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Result<Reply>> {
        let this = self.get_mut();
        {
            let mut state = lock(&this.shared);
            // `done` turns true before the outcome is stored; the join below
            // waits for that short step.
            if !state.done {
                state.waker = Some(context.waker().clone());
                return Poll::Pending;
            }
        }
        this.join();
        Poll::Ready(this.take_outcome())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_dropped_by_its_own_callback_lets_its_worker_end() {
        let slot: Arc<Mutex<Option<PendingReply>>> = Arc::default();
        let (ended, ended_seen) = std::sync::mpsc::channel();
        let in_callback = slot.clone();
        let pending = PendingReply::spawn(
            crate::DEFAULT_WORKER_STACK_BYTES,
            |_| Err(Error::Cancelled),
            move |_| {
                // Waits for the handle, then drops it on its own worker.
                let pending = loop {
                    if let Some(pending) = in_callback.lock().unwrap().take() {
                        break pending;
                    }
                    std::thread::yield_now();
                };
                drop(pending);
                ended.send(()).unwrap();
            },
        )
        .unwrap();
        *slot.lock().unwrap() = Some(pending);
        ended_seen
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the callback returned after dropping its own request");
    }
}
