//! Sends that run in the background: a worker thread per request, and a
//! handle to wait on, poll, cancel, or await as a [`Future`]; and
//! [`BackgroundSend`], the manners of the C API's request (wait any number
//! of times, append once).

use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;

use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::http::cancel::CancelToken;
use crate::http::stack;
use crate::reply::Reply;
use crate::stream::reply_stream::{DeltaKind, StreamDelta};
use crate::wire;
use crate::wire::request::Delivery;

use super::{Client, DeltaHandler, Outgoing};

impl Client {
    /// Sends the conversation on a worker thread and returns at once; see
    /// [`PendingReply`]. The conversation is read now and not touched later:
    /// append the reply with [`Conversation::append_reply`].
    ///
    /// ```no_run
    /// # let client = chatwire::Client::from_env()?;
    /// # let mut conversation = chatwire::Conversation::new("m");
    /// conversation.user("Hello")?;
    /// let pending = client.send_async(&conversation)?;
    /// while !pending.is_done() {
    ///     // ... the program's own loop goes on ...
    /// #   std::thread::sleep(std::time::Duration::from_millis(10));
    /// }
    /// let reply = pending.wait()?;
    /// conversation.append_reply(&reply)?;
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn send_async(&self, conversation: &Conversation) -> Result<PendingReply> {
        self.spawn(conversation, None, |_| {})
    }

    /// Streams the reply on a worker thread, which also runs `on_delta`;
    /// returns at once. `on_delta` returning [`ControlFlow::Break`] cancels.
    pub fn stream_async(
        &self,
        conversation: &Conversation,
        mut on_delta: impl FnMut(&str) -> ControlFlow<()> + Send + 'static,
    ) -> Result<PendingReply> {
        self.stream_events_async(conversation, move |delta| match delta.kind {
            DeltaKind::Content => on_delta(&delta.text),
            _ => ControlFlow::Continue(()),
        })
    }

    /// Like [`stream_async`](Self::stream_async), with content, reasoning
    /// and refusal apart, as [`send_stream_events`](Self::send_stream_events)
    /// gives them.
    pub fn stream_events_async(
        &self,
        conversation: &Conversation,
        mut on_event: impl FnMut(&StreamDelta) -> ControlFlow<()> + Send + 'static,
    ) -> Result<PendingReply> {
        let on_event = Box::new(move |delta: &StreamDelta| on_event(delta).is_continue());
        self.spawn(conversation, Some(on_event), |_| {})
    }

    /// Starts a background send: streamed when `on_delta` is given; then
    /// `on_finish` on the worker thread.
    pub(crate) fn spawn(
        &self,
        conversation: &Conversation,
        on_delta: Option<DeltaHandler>,
        on_finish: impl FnOnce(&Result<Reply>) + Send + 'static,
    ) -> Result<PendingReply> {
        let outgoing = Outgoing::plan(conversation)?.into_owned();
        let delivery = match on_delta {
            Some(_) => self.stream_usage.delivery(),
            None => Delivery::Whole,
        };
        let client = self.clone();
        let stack = self.worker_stack;
        let mut on_delta = on_delta;
        let work = move |token: &CancelToken| {
            let _place = client.in_flight.enter(token)?;
            let (reply, trim) = outgoing.send(|sent| {
                let body = wire::request::encode(sent, delivery);
                client.run_background(&body, token, on_delta.as_mut())
            })?;
            Ok(reply.answering(trim))
        };
        PendingReply::spawn(CancelToken::new(), stack, work, on_finish)
    }

    /// The work of a background send, once it has its place.
    fn run_background(
        &self,
        body: &[u8],
        token: &CancelToken,
        on_delta: Option<&mut DeltaHandler>,
    ) -> Result<Reply> {
        match on_delta {
            Some(on_delta) => {
                // Once cancelled (also by freeing the request from inside a
                // callback), no delta reaches the caller any more.
                let on_delta = |delta: &StreamDelta| !token.is_cancelled() && on_delta(delta);
                super::stream::run(self.open_stream(body, token)?, token, on_delta)
            }
            None => self.fetch(body, Some(token)),
        }
    }
}

/// A reply being fetched on a worker thread.
///
/// Made by [`Client::send_async`](crate::Client::send_async) and
/// [`Client::stream_async`](crate::Client::stream_async). The request runs
/// on its own thread (which also runs the delta callback, if any), over the
/// client's pooled connections like any other send. The conversation it was
/// made from is not touched: append the reply with
/// [`Conversation::append_reply`](crate::Conversation::append_reply).
///
/// Wait with [`wait`](Self::wait), poll with [`is_done`](Self::is_done),
/// stop with [`cancel`](Self::cancel) (within milliseconds, also while the
/// server is silent), or `.await` it in any executor: the worker wakes the
/// task, no runtime is needed. Dropping the handle cancels the request and
/// waits for the worker to end.
#[derive(Debug)]
pub struct PendingReply {
    shared: Arc<Shared>,
    token: CancelToken,
    worker: Option<JoinHandle<()>>,
}

#[derive(Default, Debug)]
struct Shared {
    state: Mutex<State>,
}

#[derive(Default, Debug)]
struct State {
    outcome: Option<Result<Reply>>,
    done: bool,
    waker: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl PendingReply {
    /// Runs `work` on a new thread. `on_finish` runs there too, once the
    /// request counts as done (so [`is_done`](Self::is_done) is already true
    /// inside it) and before the outcome is handed to a waiter.
    pub(crate) fn spawn(
        token: CancelToken,
        stack: usize,
        work: impl FnOnce(&CancelToken) -> Result<Reply> + Send + 'static,
        on_finish: impl FnOnce(&Result<Reply>) + Send + 'static,
    ) -> Result<PendingReply> {
        let shared = Arc::new(Shared::default());
        let worker_shared = shared.clone();
        let worker_token = token.clone();
        // Boxed, so that std's frames around it on the worker's stack hold
        // a pointer rather than the whole request (see `http::stack`).
        let body: Box<dyn FnOnce() + Send> = Box::new(move || {
            stack::worker_started();
            let outcome = work(&worker_token);
            worker_shared.lock().done = true;
            on_finish(&outcome);
            let waker = {
                let mut state = worker_shared.lock();
                state.outcome = Some(outcome);
                state.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        });
        let worker = std::thread::Builder::new()
            .name("chatwire-send".into())
            .stack_size(stack)
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
        self.shared.lock().done
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

    /// Waits for the worker thread to end. Called on the worker itself
    /// (a callback that drops its own request), it lets the thread go
    /// instead: it ends by itself once the callback returns, and a thread
    /// cannot wait for itself.
    /// True when called on this request's own worker thread (from one of
    /// its callbacks).
    fn on_own_worker(&self) -> bool {
        self.worker
            .as_ref()
            .is_some_and(|worker| worker.thread().id() == std::thread::current().id())
    }

    fn join(&mut self) {
        if let Some(worker) = self.worker.take() {
            if worker.thread().id() == std::thread::current().id() {
                return;
            }
            // The worker catches nothing; a panic in it surfaces as a missing outcome.
            let _ = worker.join();
        }
    }

    fn take_outcome(&self) -> Result<Reply> {
        self.shared.lock().outcome.take().unwrap_or_else(|| {
            Err(Error::Internal(
                "the request's worker thread ended without an outcome (a panic in a callback?)"
                    .into(),
            ))
        })
    }
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
            let mut state = this.shared.lock();
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

/// Where a waitable request shows an event loop that it has something to
/// take: a descriptor (POSIX) or an event object (Windows), made and
/// operated by the C API, raised and lowered by [`Inbox`] alone, so that it
/// is up exactly while there is text to take or the request is done.
pub(crate) trait Signal: Send + Sync {
    /// Makes the descriptor readable (the event set); called only while it is down.
    fn raise(&self);
    /// Makes it unreadable again (the event reset); called only while it is up.
    fn lower(&self);
    /// The descriptor or handle a caller waits on, as a number.
    fn waitable(&self) -> isize;
}

/// The text of a background request that its caller has not taken yet,
/// and the [`Signal`] that says so to an event loop.
///
/// The buffer holds at most what the stream limit lets through (every
/// delta counts towards [`Limit::Stream`](crate::Limit::Stream) before it
/// gets here), and is emptied by every [`take_text`](Self::take_text).
/// Reasoning text, when requests carry it, gets a second buffer of the same
/// shape beside this one and its own `take_`.
#[derive(Default)]
pub(crate) struct Inbox {
    state: Mutex<InboxState>,
}

#[derive(Default)]
struct InboxState {
    text: String,
    done: bool,
    signal: Option<Arc<dyn Signal>>,
    /// Whether the signal is up now, so that it is raised and lowered only
    /// on a change (an eventfd's count or a pipe never fills up).
    raised: bool,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("Inbox")
            .field("untaken", &state.text.len())
            .field("done", &state.done)
            .field("raised", &state.raised)
            .finish()
    }
}

impl Inbox {
    fn lock(&self) -> MutexGuard<'_, InboxState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds text that arrived.
    pub(crate) fn push(&self, delta: &str) {
        let mut state = self.lock();
        state.text.push_str(delta);
        state.update();
    }

    /// Marks the request done: the signal stays up from now on.
    pub(crate) fn finish(&self) {
        let mut state = self.lock();
        state.done = true;
        state.update();
    }

    /// The text that arrived since the last call ("" when none).
    pub(crate) fn take_text(&self) -> String {
        let mut state = self.lock();
        let text = std::mem::take(&mut state.text);
        state.update();
        text
    }

    /// The signal of this inbox: the one made before, or the one `make`
    /// makes now, raised at once when there is already something to take.
    pub(crate) fn signal(
        &self,
        make: impl FnOnce() -> Result<Arc<dyn Signal>>,
    ) -> Result<Arc<dyn Signal>> {
        let mut state = self.lock();
        if let Some(signal) = &state.signal {
            return Ok(signal.clone());
        }
        let signal = make()?;
        state.signal = Some(signal.clone());
        state.update();
        Ok(signal)
    }
}

impl InboxState {
    /// Brings the signal in line with the state: up exactly while there is
    /// text to take or the request is done. Called with the lock held, so
    /// raising and lowering never cross.
    fn update(&mut self) {
        let ready = self.done || !self.text.is_empty();
        if ready == self.raised {
            return;
        }
        if let Some(signal) = &self.signal {
            if ready {
                signal.raise();
            } else {
                signal.lower();
            }
            self.raised = ready;
        }
    }
}

impl Client {
    /// Starts the C API's background request: always streamed, its text
    /// going to `on_delta` or, without one, to the request's [`Inbox`];
    /// the inbox is marked done before `on_finish` runs.
    pub(crate) fn start_background(
        &self,
        conversation: &Conversation,
        on_delta: Option<DeltaHandler>,
        on_finish: impl FnOnce(&Result<Reply>) + Send + 'static,
    ) -> Result<BackgroundSend> {
        let inbox = Arc::new(Inbox::default());
        let on_delta = on_delta.unwrap_or_else(|| {
            let inbox = inbox.clone();
            // The text for take_text; reasoning waits for a call of its own.
            Box::new(move |delta: &StreamDelta| {
                if delta.kind == DeltaKind::Content {
                    inbox.push(&delta.text);
                }
                true
            })
        });
        let finished = inbox.clone();
        let on_finish = move |outcome: &Result<Reply>| {
            finished.finish();
            on_finish(outcome);
        };
        let pending = self.spawn(conversation, Some(on_delta), on_finish)?;
        Ok(BackgroundSend {
            pending: Some(pending),
            outcome: None,
            inbox,
            refusal: None,
        })
    }
}

/// A background send as the C API's request behaves, kept in the core so
/// that every caller gets the same: its outcome is collected by the first
/// wait and kept, later waits report it again, and a successful reply is
/// appended to the conversation once, however often it is waited for. Its
/// text can also be taken piece by piece as it arrives ([`Inbox`]).
#[derive(Debug)]
pub(crate) struct BackgroundSend {
    /// The send, while nobody has waited for it.
    pending: Option<PendingReply>,
    /// What the first wait collected.
    outcome: Option<Result<Reply>>,
    /// The text not yet taken, and the signal for event loops.
    inbox: Arc<Inbox>,
    /// The error of a wait from the request's own callback, kept to be
    /// handed out by reference like an outcome.
    refusal: Option<Error>,
}

impl BackgroundSend {
    /// True once the send has finished, successfully or not.
    pub(crate) fn is_done(&self) -> bool {
        self.pending.as_ref().is_none_or(PendingReply::is_done)
    }

    /// Stops the send if it still runs; a finished one is left as it is.
    pub(crate) fn cancel(&self) {
        if let Some(pending) = &self.pending {
            pending.cancel();
        }
    }

    /// The text that arrived since the last call; see [`Inbox::take_text`].
    pub(crate) fn take_text(&self) -> String {
        self.inbox.take_text()
    }

    /// The request's signal for event loops, made by `make` the first time.
    pub(crate) fn signal(
        &self,
        make: impl FnOnce() -> Result<Arc<dyn Signal>>,
    ) -> Result<Arc<dyn Signal>> {
        self.inbox.signal(make)
    }

    /// Waits for the send (the first time), appends a successful reply to
    /// `conversation` (once; a reply that no longer fits the conversation's
    /// order is an error instead), and gives the outcome. Called from the
    /// request's own callback, on its worker thread, it refuses: the thread
    /// cannot wait for itself.
    pub(crate) fn finish(&mut self, conversation: &mut Conversation) -> Result<&Reply, &Error> {
        if self
            .pending
            .as_ref()
            .is_some_and(PendingReply::on_own_worker)
        {
            return Err(self.refusal.get_or_insert_with(|| {
                Error::InvalidArgument(
                    "a request cannot be waited for from its own callback".into(),
                )
            }));
        }
        if let Some(pending) = self.pending.take() {
            let outcome = pending
                .wait()
                .and_then(|reply| conversation.append_reply(&reply).map(|()| reply));
            self.outcome = Some(outcome);
        }
        // Without a send, a wait has always stored an outcome first.
        let outcome = self
            .outcome
            .get_or_insert_with(|| Err(Error::Internal("a background send has no outcome".into())));
        outcome.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// A signal that records its level and how often it changed.
    #[derive(Default)]
    struct Recorded {
        up: AtomicBool,
        changes: AtomicUsize,
    }

    impl Signal for Recorded {
        fn raise(&self) {
            assert!(!self.up.swap(true, Ordering::SeqCst), "raised twice");
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        fn lower(&self) {
            assert!(self.up.swap(false, Ordering::SeqCst), "lowered twice");
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
        fn waitable(&self) -> isize {
            7
        }
    }

    fn attach(inbox: &Inbox) -> Arc<Recorded> {
        let recorded = Arc::new(Recorded::default());
        let given = recorded.clone();
        let signal = inbox.signal(|| Ok(given)).unwrap();
        assert_eq!(signal.waitable(), 7);
        recorded
    }

    fn is_up(signal: &Recorded) -> bool {
        signal.up.load(Ordering::SeqCst)
    }

    #[test]
    fn the_signal_is_up_exactly_while_there_is_text_to_take() {
        let inbox = Inbox::default();
        let signal = attach(&inbox);
        assert!(!is_up(&signal));
        inbox.push("Hel");
        inbox.push("lo");
        assert!(is_up(&signal));
        assert_eq!(
            signal.changes.load(Ordering::SeqCst),
            1,
            "one raise for two pieces"
        );
        assert_eq!(inbox.take_text(), "Hello");
        assert!(!is_up(&signal));
        assert_eq!(inbox.take_text(), "");
        assert_eq!(signal.changes.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_done_request_keeps_the_signal_up_after_the_text_is_taken() {
        let inbox = Inbox::default();
        let signal = attach(&inbox);
        inbox.push("last");
        inbox.finish();
        assert_eq!(inbox.take_text(), "last");
        assert!(is_up(&signal));
        assert_eq!(inbox.take_text(), "");
        assert!(is_up(&signal));
        assert_eq!(signal.changes.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_signal_made_late_starts_up_when_text_is_waiting_and_is_made_once() {
        let inbox = Inbox::default();
        inbox.push("early");
        let signal = attach(&inbox);
        assert!(is_up(&signal));
        let again = inbox
            .signal(|| panic!("the signal is made only once"))
            .unwrap();
        assert_eq!(again.waitable(), 7);
        assert_eq!(inbox.take_text(), "early");
        assert!(!is_up(&signal));
    }

    #[test]
    fn a_request_dropped_by_its_own_callback_lets_its_worker_end() {
        let slot: Arc<Mutex<Option<PendingReply>>> = Arc::default();
        let (ended, ended_seen) = std::sync::mpsc::channel();
        let in_callback = slot.clone();
        let pending = PendingReply::spawn(
            CancelToken::new(),
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
