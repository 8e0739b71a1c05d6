//! The C API's background request, kept in the core so that every caller
//! gets the same manners.

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use crate::conversation::Conversation;
use crate::error::{lock, Error, Result};
use crate::http::cancel::CancelToken;
use crate::reply::Reply;
use crate::stream::reply_stream::{DeltaKind, StreamDelta};

use super::inbox::{Inbox, Signal};
use super::pending::PendingReply;
use super::{Client, DeltaHandler};

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
    /// True once the send has finished (the inbox is told before `on_finish`).
    pub(crate) fn is_done(&self) -> bool {
        self.inbox.is_done()
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
