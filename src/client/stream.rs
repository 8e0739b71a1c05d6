//! Streamed sends: the reply's text as it arrives.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::conversation::budget::Trim;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::http::cancel::CancelToken;
use crate::http::reader::StreamReader;
use crate::log;
use crate::reply::Reply;
use crate::response_headers::ResponseHeaders;
use crate::secrets::Secrets;
use crate::stream::reply_stream::{ByteSource, DeltaStream, ReplyStream, StreamDelta};
use crate::wire;
use crate::wire::request::Delivery;

use super::{Client, Outgoing};

/// Whether streamed requests ask for usage (`stream_options`), and whether
/// the server refused it; the refusal is shared by the client's clones.
#[derive(Debug, Clone, Default)]
pub(super) struct StreamUsage {
    pub(super) asked: bool,
    refused: Arc<AtomicBool>,
}

impl StreamUsage {
    pub(super) fn delivery(&self) -> Delivery {
        Delivery::Streamed {
            usage: self.asked && !self.refused.load(Ordering::Relaxed),
        }
    }
}

impl Client {
    /// Streams the reply, each piece of text (of the content, or of a
    /// refusal: [where a refusal goes](crate::DeltaKind#where-a-refusal-goes))
    /// to `on_delta` on the calling thread, then appends it;
    /// [`ControlFlow::Break`] stops with [`Error::Cancelled`].
    pub fn send_stream(
        &self,
        conversation: &mut Conversation,
        mut on_delta: impl FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Reply> {
        self.send_stream_events(conversation, |delta| {
            if delta.kind.is_text() {
                on_delta(&delta.text)
            } else {
                ControlFlow::Continue(())
            }
        })
    }

    /// Like [`send_stream`](Self::send_stream), each piece with its
    /// [`DeltaKind`](crate::DeltaKind) (content, reasoning or refusal).
    pub fn send_stream_events(
        &self,
        conversation: &mut Conversation,
        mut on_event: impl FnMut(&StreamDelta) -> ControlFlow<()>,
    ) -> Result<Reply> {
        let token = CancelToken::new();
        let (deltas, trim) = self.start_stream(conversation, &token)?;
        let reply = run(deltas, &token, |delta| on_event(delta).is_continue())?;
        conversation.append_answer(reply.to_message(), trim, reply.tokens())?;
        Ok(reply)
    }

    /// Streams the reply as an iterator ([`ReplyStream`]) that appends it at its end.
    pub fn stream<'c>(&self, conversation: &'c mut Conversation) -> Result<ReplyStream<'c>> {
        let (deltas, trim) = self.start_stream(conversation, &CancelToken::new())?;
        Ok(ReplyStream::new(conversation, deltas, trim))
    }

    /// Whether streamed requests ask for the token usage; see
    /// [`ClientBuilder::stream_usage`](crate::ClientBuilder::stream_usage).
    pub fn stream_usage(&self) -> bool {
        self.stream_usage.asked
    }

    /// Opens the stream of a conversation, within its token budget.
    fn start_stream(
        &self,
        conversation: &Conversation,
        token: &CancelToken,
    ) -> Result<(DeltaStream, Option<Trim>)> {
        let delivery = self.stream_usage.delivery();
        let choices = wire::request::choices_asked(conversation);
        let outgoing = Outgoing::plan(conversation)?;
        outgoing.send(self.api(), delivery, |body| {
            self.open_stream(body, choices, token)
        })
    }

    /// Posts a body for a streamed reply of `choices` choices (its `n`) and
    /// returns its deltas; a server that answers with one JSON body instead
    /// is read whole, one that refuses `stream_options` gets the body again
    /// without it.
    pub(super) fn open_stream(
        &self,
        body: &[u8],
        choices: u32,
        token: &CancelToken,
    ) -> Result<DeltaStream> {
        let mut posted = self.pool.post_stream(body, &self.settings, token);
        if posted.as_ref().is_err_and(refuses_stream_options) {
            if let Some(again) = self.post_without_stream_options(body, token) {
                posted = again;
            }
        }
        // Read after the post: a credential callback's tokens are among them.
        let secrets = self.pool.secrets(&self.settings);
        let opened = posted.and_then(|mut reader| {
            let request_id = reader.head.request_id.clone();
            let headers = std::mem::take(&mut reader.head.headers);
            if reader.head.is_json {
                return read_whole(self.api(), reader, request_id, headers, secrets.clone());
            }
            let (limits, source) = (&self.settings.limits, Box::new(reader));
            let secrets = secrets.clone();
            let asked = (self.api(), choices);
            Ok(DeltaStream::new(
                source, asked, request_id, headers, limits, secrets,
            ))
        });
        opened.map_err(|error| error.redact(&secrets))
    }

    /// The body posted again without `stream_options`, for a server that
    /// refused them (None when the body has none). Out of line, as the rare
    /// roads of `open_stream` are, so that a background worker's frame,
    /// under which it waits for the answer, holds only the common road.
    #[inline(never)]
    fn post_without_stream_options(
        &self,
        body: &[u8],
        token: &CancelToken,
    ) -> Option<Result<StreamReader>> {
        let body = wire::request::without_stream_options(body)?;
        // Recorded for the clones too; said once.
        if !self.stream_usage.refused.swap(true, Ordering::Relaxed) {
            log::warn(format_args!(
                "POST {}: the server refused stream_options; \
                 streaming without token usage from now on",
                log::shown_url(&self.pool.destination.endpoint)
            ));
        }
        Some(self.pool.post_stream(&body, &self.settings, token))
    }
}

/// A server that answered a streamed request with one JSON body: the
/// whole reply, read and decoded, as a stream of it.
#[inline(never)]
fn read_whole(
    api: crate::Api,
    mut reader: StreamReader,
    request_id: Option<String>,
    headers: ResponseHeaders,
    secrets: Secrets,
) -> Result<DeltaStream> {
    let mut reply = wire::api::decode(api, reader.read_all()?, request_id)?;
    reply.headers = headers;
    Ok(DeltaStream::whole(reply, secrets))
}

/// Whether an error is a server refusing `stream_options`: a 400 or 422
/// (Mistral) whose error names the field.
fn refuses_stream_options(error: &Error) -> bool {
    let names_it = |text: &str| text.contains("stream_options");
    error.api_error().is_some_and(|api| {
        matches!(api.status, Some(400 | 422))
            && (names_it(&api.message) || api.code.as_deref().is_some_and(names_it))
    })
}

/// Reads a stream to its end, handing each piece to `on_event`; a callback
/// that returns `false` cancels the request.
pub(super) fn run(
    deltas: DeltaStream,
    token: &CancelToken,
    on_event: impl FnMut(&StreamDelta) -> bool,
) -> Result<Reply> {
    let outcome = deltas.run(on_event);
    if let Err(Error::Cancelled) = outcome {
        token.cancel();
    }
    outcome
}

impl ByteSource for StreamReader {
    fn read(&mut self, buffer: &mut [u8]) -> Result<usize> {
        StreamReader::read(self, buffer)
    }

    fn read_within(&mut self, buffer: &mut [u8], patience: Duration) -> Result<usize> {
        StreamReader::read_within(self, buffer, patience)
    }

    fn finish(&mut self) {
        StreamReader::finish(self);
    }
}
