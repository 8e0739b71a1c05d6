//! The C API's background request, kept in the core so that every caller
//! gets the same manners.

use std::sync::Arc;

use crate::conversation::Conversation;
use crate::error::{Error, Result};
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
            pending: Some(pending),
            outcome: None,
            inbox,
            refusal: None,
        })
    }
}

/// A background send as the C API's request behaves: its outcome is
/// collected by the first wait and kept for later ones, a successful reply
/// is appended once, and its text can be taken as it arrives ([`Inbox`]).
pub(crate) struct BackgroundSend {
    /// The send, while nobody has waited for it.
    pending: Option<PendingReply>,
    /// What the first wait collected.
    outcome: Option<Result<Reply>>,
    inbox: Arc<Inbox>,
    /// The error of a wait from the request's own callback, kept to be
    /// handed out by reference like an outcome.
    refusal: Option<Error>,
}

impl BackgroundSend {
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
    /// `conversation` (once), and gives the outcome. From the request's own
    /// callback it refuses: the worker thread cannot wait for itself.
    pub(crate) fn finish(&mut self, conversation: &mut Conversation) -> Result<&Reply, &Error> {
        let pending = self.pending.as_ref();
        if pending.is_some_and(PendingReply::on_own_worker) {
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
        let missing = || Err(Error::Internal("a background send has no outcome".into()));
        self.outcome.get_or_insert_with(missing).as_ref()
    }
}
