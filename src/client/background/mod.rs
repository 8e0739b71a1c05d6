//! Sends that run in the background: the calls that start them, and the C
//! API's request, kept in the core so that every caller gets the same
//! manners; the handle and the untaken text have files of their own.

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use crate::conversation::budget::LeftOut;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::http::cancel::CancelToken;
use crate::reply::Reply;
use crate::stream::reply_stream::StreamDelta;
use crate::sync::lock;
use crate::wire::request::{choices_asked, Delivery};

use super::{Client, DeltaHandler, Outgoing};

mod inbox;
mod pending;

use inbox::Inbox;
pub(crate) use inbox::Signal;
pub use pending::PendingReply;

impl Client {
    /// Sends the conversation on a worker thread and returns at once; append
    /// the reply with [`Conversation::append_reply`].
    pub fn send_async(&self, conversation: &Conversation) -> Result<PendingReply> {
        self.spawn(conversation, None, |_| {})
    }

    /// Streams the reply on a worker thread, which also runs `on_delta`
    /// with each piece of text, as [`send_stream`](Self::send_stream) gives
    /// them; returns at once. `on_delta` returning [`ControlFlow::Break`] cancels.
    pub fn stream_async(
        &self,
        conversation: &Conversation,
        mut on_delta: impl FnMut(&str) -> ControlFlow<()> + Send + 'static,
    ) -> Result<PendingReply> {
        self.stream_events_async(conversation, move |delta| {
            if delta.kind.is_text() {
                on_delta(&delta.text)
            } else {
                ControlFlow::Continue(())
            }
        })
    }

    /// Like [`stream_async`](Self::stream_async), each piece with its kind,
    /// as [`send_stream_events`](Self::send_stream_events) gives them.
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
        mut on_delta: Option<DeltaHandler>,
        on_finish: impl FnOnce(&Result<Reply>) + Send + 'static,
    ) -> Result<PendingReply> {
        let choices = choices_asked(conversation);
        let outgoing = Outgoing::plan(conversation)?.into_owned();
        let planned_len = conversation.len();
        let delivery = match on_delta {
            Some(_) => self.stream_usage.delivery(),
            None => Delivery::Whole,
        };
        let client = self.clone();
        let work = move |token: &CancelToken| {
            // Its turn may not come (all places held by requests that hang):
            // the wait is part of the request, under the request timeout.
            let _place = client.in_flight.enter(token, client.settings.timeout)?;
            let (reply, trim) =
                outgoing.send(client.api(), delivery, |body| match on_delta.as_mut() {
                    Some(on_delta) => {
                        // Once cancelled (also by freeing the request from inside
                        // a callback), no delta reaches the caller any more.
                        let on_delta =
                            |delta: &StreamDelta| !token.is_cancelled() && on_delta(delta);
                        super::stream::run(
                            client.open_stream(body, choices, token)?,
                            token,
                            on_delta,
                        )
                    }
                    None => client.fetch(body, Some(token)),
                })?;
            // For the append: what the request left out, a retry's drop too.
            Ok(reply.left_out(LeftOut::new(planned_len, trim)))
        };
        PendingReply::spawn(self.worker_stack, work, on_finish)
    }

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
                if delta.kind.is_text() {
                    inbox.push(&delta.text);
                }
                true
            })
        });
        let finished = inbox.clone();
        let pending = self.spawn(conversation, Some(on_delta), move |outcome| {
            finished.finish();
            on_finish(outcome);
        })?;
        Ok(BackgroundSend {
            token: pending.cancel_token(),
            worker: pending.worker_id(),
            collected: Mutex::new(Collected {
                pending: Some(pending),
                outcome: None,
            }),
            inbox,
        })
    }
}

/// A background send as the C API's request behaves: any thread may poll,
/// cancel or take its text, also while another waits for it; its outcome
/// is collected by the first wait and kept for later ones, a successful
/// reply is appended once, and its text can be taken as it arrives
/// ([`Inbox`]).
pub(crate) struct BackgroundSend {
    /// The send until a wait collects it, then its outcome. A wait holds
    /// the lock until then, so a second wait waits for the first.
    collected: Mutex<Collected>,
    /// Stops the send, also while a wait holds `collected`.
    token: CancelToken,
    /// The worker thread, which must not wait for itself.
    worker: Option<ThreadId>,
    inbox: Arc<Inbox>,
}

struct Collected {
    /// The send, while nobody has waited for it.
    pending: Option<PendingReply>,
    /// What the first wait collected.
    outcome: Option<Result<Reply>>,
}

impl BackgroundSend {
    /// True once the send has finished (the inbox is told before
    /// `on_finish`) or a wait has collected its outcome (also of a worker
    /// that ended without telling); never blocks on a wait in progress.
    pub(crate) fn is_done(&self) -> bool {
        let collected = || matches!(self.collected.try_lock(), Ok(c) if c.outcome.is_some());
        self.inbox.is_done() || collected()
    }

    /// Stops the send if it still runs; a finished one is left as it is.
    pub(crate) fn cancel(&self) {
        self.token.cancel();
    }

    /// The text that arrived since the last call; see [`Inbox::take_text`].
    pub(crate) fn take_text(&self) -> String {
        self.inbox.take_text()
    }

    /// Waits for text or the end, and takes the text; see [`Inbox::wait_text`].
    pub(crate) fn wait_text(&self) -> String {
        self.inbox.wait_text()
    }

    /// The request's signal for event loops, made by `make` the first time.
    pub(crate) fn signal(
        &self,
        make: impl FnOnce() -> Result<Arc<dyn Signal>>,
    ) -> Result<Arc<dyn Signal>> {
        self.inbox.signal(make)
    }

    /// Waits for the send (the first time), appends a successful reply to
    /// `conversation` (once), and hands the outcome to `read`. From the
    /// request's own callback it refuses: the worker cannot wait for itself.
    pub(crate) fn finish<T>(
        &self,
        conversation: &mut Conversation,
        read: impl FnOnce(Result<&Reply, &Error>) -> T,
    ) -> T {
        if self.worker == Some(std::thread::current().id()) {
            let why = "a request cannot be waited for from its own callback";
            return read(Err(&Error::InvalidArgument(why.into())));
        }
        let mut collected = lock(&self.collected);
        if let Some(pending) = collected.pending.take() {
            let outcome = pending
                .wait()
                .and_then(|reply| conversation.append_reply(&reply).map(|()| reply));
            collected.outcome = Some(outcome);
        }
        match &collected.outcome {
            Some(outcome) => read(outcome.as_ref()),
            // A wait that took the send has always stored an outcome.
            None => read(Err(&Error::Internal(
                "a background send has no outcome".into(),
            ))),
        }
    }
}

#[cfg(test)]
mod tests;
