//! Sends that run in the background: the calls that start them; the handle,
//! the untaken text and the C API's request have files of their own.

use std::ops::ControlFlow;

use crate::conversation::Conversation;
use crate::error::Result;
use crate::http::cancel::CancelToken;
use crate::reply::Reply;
use crate::stream::reply_stream::{DeltaKind, StreamDelta};
use crate::wire::request::Delivery;

use super::{Client, DeltaHandler, Outgoing};

mod inbox;
mod pending;
mod request;

pub(crate) use inbox::Signal;
pub use pending::PendingReply;
pub(crate) use request::BackgroundSend;

impl Client {
    /// Sends the conversation on a worker thread and returns at once; append
    /// the reply with [`Conversation::append_reply`].
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
        let outgoing = Outgoing::plan(conversation)?.into_owned();
        let delivery = match on_delta {
            Some(_) => self.stream_usage.delivery(),
            None => Delivery::Whole,
        };
        let client = self.clone();
        let work = move |token: &CancelToken| {
            let _place = client.in_flight.enter(token)?;
            let (reply, _) = outgoing.send(delivery, |body| match on_delta.as_mut() {
                Some(on_delta) => {
                    // Once cancelled (also by freeing the request from inside
                    // a callback), no delta reaches the caller any more.
                    let on_delta = |delta: &StreamDelta| !token.is_cancelled() && on_delta(delta);
                    super::stream::run(client.open_stream(body, token)?, token, on_delta)
                }
                None => client.fetch(body, Some(token)),
            })?;
            Ok(reply)
        };
        PendingReply::spawn(self.worker_stack, work, on_finish)
    }
}
