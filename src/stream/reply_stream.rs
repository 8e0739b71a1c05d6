//! Streamed replies: the text as it arrives, the whole reply at the end.

use std::collections::VecDeque;
use std::time::Duration;

use crate::config::{Limits, STREAM_END_GRACE};
use crate::conversation::budget::Trim;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::response_headers::ResponseHeaders;
use crate::secrets::Secrets;
use crate::stream::{StreamDecoder, StreamEvent};

const READ_BUFFER_BYTES: usize = 16 * 1024;

/// What kind of text a piece of a streamed reply is.
///
/// # Where a refusal goes
///
/// A refusal is not content. The same rule holds whether the server
/// streams or ignores `"stream": true` and answers with one body (then
/// each kind comes as one piece: reasoning, content, refusal), in the
/// foreground and in the background:
///
/// - a caller that takes pieces with their kind
///   ([`Client::send_stream_events`](crate::Client::send_stream_events),
///   [`Client::stream_events_async`](crate::Client::stream_events_async),
///   C's `chatwire_send_stream_events`) gets it as [`DeltaKind::Refusal`],
///   never as [`DeltaKind::Content`];
/// - a caller that takes text alone
///   ([`Client::send_stream`](crate::Client::send_stream),
///   [`Client::stream_async`](crate::Client::stream_async), the items of
///   [`ReplyStream`], C's delta callbacks and
///   `chatwire_request_take_text`) gets its pieces as text, as they come
///   ([`is_text`](Self::is_text)): such a caller has no other way to learn
///   why no answer came, and the text it gets adds up to [`Reply::content`],
///   in which the refusal stands in for missing content;
/// - the whole reply keeps it apart too, in [`Reply::refusal`].
///
/// (A server that sent both content and a refusal would give a text caller
/// both, in the order it sent them; none is known to.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeltaKind {
    /// The answer's text ([`Reply::content`]).
    Content,
    /// The model's reasoning ([`Reply::reasoning`]): from a reasoning field,
    /// or a leading `<think>` block, which never reaches the content.
    Reasoning,
    /// The model's refusal ([`Reply::refusal`]).
    Refusal,
}

impl DeltaKind {
    /// Whether a caller that takes text alone gets pieces of this kind: the
    /// content and the refusal, not the reasoning (see [where a refusal
    /// goes](Self#where-a-refusal-goes)).
    pub fn is_text(self) -> bool {
        matches!(self, DeltaKind::Content | DeltaKind::Refusal)
    }
}

/// One piece of a streamed reply's choice 0, with what kind of text it is;
/// given to [`Client::send_stream_events`](crate::Client::send_stream_events).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamDelta {
    /// What the text is.
    pub kind: DeltaKind,
    /// The text: whole UTF-8 characters, never empty.
    pub text: String,
}

/// Where a streamed body's bytes come from: the connection, or a test's slices.
pub(crate) trait ByteSource: Send {
    /// Reads the next bytes into `buffer`; 0 at the end of the body.
    fn read(&mut self, buffer: &mut [u8]) -> Result<usize>;

    /// Like [`read`](Self::read), waiting at most `patience` ([`Error::Timeout`]
    /// after it) where the source can wait less.
    fn read_within(&mut self, buffer: &mut [u8], _patience: Duration) -> Result<usize> {
        self.read(buffer)
    }

    /// The reply is complete: the rest of the body may be read, so that the
    /// connection can be used again.
    fn finish(&mut self) {}
}

/// The deltas of one streamed reply as they arrive; owns everything, so it
/// can run on any thread.
#[derive(Default)]
pub(crate) struct DeltaStream {
    source: Option<Box<dyn ByteSource>>,
    decoder: StreamDecoder,
    pending: VecDeque<StreamDelta>,
    buffer: Box<[u8]>,
    request_id: Option<String>,
    headers: ResponseHeaders,
    /// The reply of a server that answered with one JSON body instead of a stream.
    whole: Option<Reply>,
    /// Taken out of every error; the reply and its deltas are what the
    /// model wrote and pass as they came (docs/security.md).
    secrets: Secrets,
}

impl DeltaStream {
    /// The deltas of a stream of `api`'s events from `source`, for a
    /// request that asked for `choices` choices (its `n`).
    pub(crate) fn new(
        source: Box<dyn ByteSource>,
        (api, choices): (crate::Api, u32),
        request_id: Option<String>,
        headers: ResponseHeaders,
        limits: &Limits,
        secrets: Secrets,
    ) -> DeltaStream {
        DeltaStream {
            source: Some(source),
            decoder: StreamDecoder::with_limits(limits.event, limits.stream)
                .asking(choices)
                .speaking(api),
            pending: VecDeque::new(),
            buffer: vec![0; READ_BUFFER_BYTES].into_boxed_slice(),
            request_id,
            headers,
            whole: None,
            secrets,
        }
    }

    /// A server that ignored `"stream": true` and sent an ordinary
    /// completion: its reply, taken as a stream of one delta of each kind,
    /// as a stream would have sent them (the content without the refusal
    /// that stands in for it).
    pub(crate) fn whole(reply: Reply, secrets: Secrets) -> DeltaStream {
        let first = reply.first();
        let reasoning = first.reasoning.as_ref().map(|r| r.text.as_str());
        let pending = [
            (DeltaKind::Reasoning, reasoning.unwrap_or_default()),
            (DeltaKind::Content, first.content.as_str()),
            (
                DeltaKind::Refusal,
                first.refusal.as_deref().unwrap_or_default(),
            ),
        ]
        .into_iter()
        .filter(|(_, text)| !text.is_empty())
        .map(|(kind, text)| StreamDelta {
            kind,
            text: text.to_owned(),
        })
        .collect();
        DeltaStream {
            pending,
            request_id: reply.request_id.clone(),
            whole: Some(reply),
            secrets,
            ..DeltaStream::default()
        }
    }

    /// The next piece of the reply's text, for a caller that takes text
    /// alone ([`DeltaKind::is_text`]: reasoning passed over); `None` at the end.
    pub(crate) fn next_delta(&mut self) -> Result<Option<String>> {
        while let Some(delta) = self.next_event()? {
            if delta.kind.is_text() {
                return Ok(Some(delta.text));
            }
        }
        Ok(None)
    }

    /// The next piece of any kind; `None` at the end.
    pub(crate) fn next_event(&mut self) -> Result<Option<StreamDelta>> {
        self.pull().map_err(|error| error.redact(&self.secrets))
    }

    fn pull(&mut self) -> Result<Option<StreamDelta>> {
        loop {
            if let Some(delta) = self.pending.pop_front() {
                return Ok(Some(delta));
            }
            let Some(read) = self.read()? else {
                return Ok(None);
            };
            let events = if read == 0 {
                self.source = None;
                self.decoder.finish()?
            } else {
                self.decoder.feed(&self.buffer[..read])?
            };
            for event in events {
                let (kind, text) = match event {
                    StreamEvent::Delta(text) => (DeltaKind::Content, text),
                    StreamEvent::Reasoning(text) => (DeltaKind::Reasoning, text),
                    StreamEvent::Refusal(text) => (DeltaKind::Refusal, text),
                    // The connection is kept if the body's end follows at once.
                    StreamEvent::Done => {
                        if let Some(mut source) = self.source.take() {
                            source.finish();
                        }
                        continue;
                    }
                };
                self.pending.push_back(StreamDelta { kind, text });
            }
        }
    }

    /// Reads the next bytes; `None` without a source. The stream ends when
    /// the server ends it (`[DONE]`, the body's end), or when it falls
    /// silent after a complete reply (0):
    ///
    /// - once every choice asked for has finished, what follows gets
    ///   [`STREAM_END_GRACE`]: a server that keeps the connection open
    ///   without `[DONE]` (TGI, OCI, some gateways) has sent it all;
    /// - while fewer have come (`n` > 1), a choice may still begin, however
    ///   long after choice 0 ended: the read waits as any read of a stream
    ///   does, and a server that sent fewer choices than asked and then says
    ///   nothing for the idle timeout has ended its reply.
    ///
    /// Silence in the middle of a choice is [`Error::Timeout`].
    fn read(&mut self) -> Result<Option<usize>> {
        let all_finished = self.decoder.has_finished();
        let complete = self.decoder.is_complete();
        let Some(source) = self.source.as_mut() else {
            return Ok(None);
        };
        let read = if all_finished {
            source.read_within(&mut self.buffer, STREAM_END_GRACE)
        } else {
            source.read(&mut self.buffer)
        };
        match read {
            Err(Error::Timeout { .. }) if complete => Ok(Some(0)),
            other => other.map(Some),
        }
    }

    /// The whole reply, once [`next_delta`](Self::next_delta) has returned `None`.
    pub(crate) fn into_reply(self) -> Result<Reply> {
        let reply = match self.whole {
            Some(reply) => Ok(reply),
            None => self.decoder.into_reply().map(|mut reply| {
                reply.request_id = self.request_id;
                reply.headers = self.headers;
                reply
            }),
        };
        reply.map_err(|error| error.redact(&self.secrets))
    }

    /// Reads the stream to its end, handing each piece to `on_event`;
    /// `false` from it stops with [`Error::Cancelled`].
    pub(crate) fn run(mut self, mut on_event: impl FnMut(&StreamDelta) -> bool) -> Result<Reply> {
        while let Some(delta) = self.next_event()? {
            if !on_event(&delta) {
                return Err(Error::Cancelled);
            }
        }
        self.into_reply()
    }
}

/// The text of a streamed reply as it arrives, from
/// [`Client::stream`](crate::Client::stream): each item is the next piece
/// (whole UTF-8 characters) of the content or, when the model refuses, of
/// its refusal ([where a refusal goes](DeltaKind#where-a-refusal-goes)).
/// When it ends without an error, the reply has been appended to the
/// conversation and [`reply`](Self::reply) returns it.
/// After an error, or dropped before its end, the conversation is unchanged
/// and the connection closed, so the server stops generating.
pub struct ReplyStream<'c> {
    conversation: &'c mut Conversation,
    deltas: Option<DeltaStream>,
    reply: Option<Reply>,
    /// What the request left out under the token budget.
    trim: Option<Trim>,
}

impl<'c> ReplyStream<'c> {
    pub(crate) fn new(
        conversation: &'c mut Conversation,
        deltas: DeltaStream,
        trim: Option<Trim>,
    ) -> ReplyStream<'c> {
        ReplyStream {
            conversation,
            deltas: Some(deltas),
            reply: None,
            trim,
        }
    }

    /// The whole reply, once the iterator has ended without an error.
    pub fn reply(&self) -> Option<&Reply> {
        self.reply.as_ref()
    }

    /// Reads the rest of the stream and returns the whole reply (appended to the conversation).
    pub fn finish(mut self) -> Result<Reply> {
        for delta in self.by_ref() {
            delta?;
        }
        self.reply.take().ok_or(Error::Cancelled)
    }
}

impl Iterator for ReplyStream<'_> {
    type Item = Result<String>;

    fn next(&mut self) -> Option<Result<String>> {
        let deltas = self.deltas.as_mut()?;
        match deltas.next_delta() {
            Ok(Some(delta)) => Some(Ok(delta)),
            Ok(None) => {
                let reply = self.deltas.take()?.into_reply().and_then(|reply| {
                    let message = reply.to_message();
                    (self.conversation).append_answer(message, self.trim, reply.tokens())?;
                    Ok(reply)
                });
                reply.map(|reply| self.reply = Some(reply)).err().map(Err)
            }
            Err(error) => {
                self.deltas = None;
                Some(Err(error))
            }
        }
    }
}
