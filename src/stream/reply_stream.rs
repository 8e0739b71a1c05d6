//! Streamed replies: the text as it arrives, and the whole reply at the end.

use std::collections::VecDeque;

use crate::config::Limits;
use crate::conversation::Conversation;
use crate::error::Result;
use crate::http::cancel::CancelToken;
use crate::http::transport::StreamReader;
use crate::reply::Reply;
use crate::secrets::Secrets;
use crate::stream::{StreamDecoder, StreamEvent, StreamResult};

const READ_BUFFER_BYTES: usize = 16 * 1024;

/// The deltas of one streamed reply, pulled from the connection as they
/// arrive; owns everything, so it can run on any thread.
pub(crate) struct DeltaStream {
    reader: StreamReader,
    decoder: StreamDecoder,
    pending: VecDeque<String>,
    buffer: Box<[u8]>,
    ended: bool,
    /// The reply of a server that answered with one JSON body instead of a stream.
    whole: Option<Reply>,
    /// Taken out of every error and of the reply (deltas pass as they come).
    secrets: Secrets,
}

impl DeltaStream {
    pub(crate) fn new(reader: StreamReader, limits: &Limits, secrets: Secrets) -> DeltaStream {
        DeltaStream {
            reader,
            decoder: StreamDecoder::with_limits(limits.event, limits.stream),
            secrets,
            pending: VecDeque::new(),
            buffer: vec![0; READ_BUFFER_BYTES].into_boxed_slice(),
            ended: false,
            whole: None,
        }
    }

    /// Some servers ignore `"stream": true` and send an ordinary completion:
    /// take it as a stream of one delta.
    fn read_whole(&mut self) -> Result<()> {
        let body = self.reader.read_all()?;
        let reply = crate::http::response::decode_completion(body, self.reader.request_id.clone())?;
        if !reply.content.is_empty() {
            self.pending.push_back(reply.content.clone());
        }
        self.whole = Some(reply);
        self.ended = true;
        Ok(())
    }

    /// The next piece of text, or `None` once the reply is complete.
    pub(crate) fn next_delta(&mut self) -> Result<Option<String>> {
        self.pull().map_err(|error| error.redact(&self.secrets))
    }

    fn pull(&mut self) -> Result<Option<String>> {
        loop {
            if let Some(delta) = self.pending.pop_front() {
                return Ok(Some(delta));
            }
            if self.ended {
                return Ok(None);
            }
            if self.reader.is_json {
                self.read_whole()?;
                continue;
            }
            let read = self.reader.read(&mut self.buffer)?;
            let events = if read == 0 {
                self.ended = true;
                self.decoder.finish()?
            } else {
                self.decoder.feed(&self.buffer[..read])?
            };
            for event in events {
                match event {
                    StreamEvent::Delta(text) => self.pending.push_back(text),
                    // Nothing more is coming: the connection is kept if
                    // the body's end follows at once.
                    StreamEvent::Done => {
                        self.ended = true;
                        self.reader.finish();
                    }
                }
            }
        }
    }

    /// The whole reply, once [`next_delta`](Self::next_delta) has returned `None`.
    pub(crate) fn into_reply(self) -> Result<Reply> {
        let secrets = self.secrets;
        let reply = match self.whole {
            Some(reply) => Ok(reply),
            None => {
                let request_id = self.reader.request_id.clone();
                self.decoder
                    .into_result()
                    .map(|result| reply_from_stream(result, request_id))
            }
        };
        reply
            .map(|reply| reply.redact(&secrets))
            .map_err(|error| error.redact(&secrets))
    }

    /// Reads the stream to its end, handing each delta to `on_delta`; a
    /// callback that returns `false` cancels the request.
    pub(crate) fn run(
        mut self,
        token: &CancelToken,
        mut on_delta: impl FnMut(&str) -> bool,
    ) -> Result<Reply> {
        while let Some(delta) = self.next_delta()? {
            if !on_delta(&delta) {
                token.cancel();
                return Err(crate::Error::Cancelled);
            }
        }
        self.into_reply()
    }
}

/// The reply a streamed request amounts to. Its `json` is the equivalent
/// non-streamed body, built from the chunks.
fn reply_from_stream(result: StreamResult, request_id: Option<String>) -> Reply {
    let content = if result.content.is_empty() {
        result.refusal.unwrap_or_default()
    } else {
        result.content
    };
    let mut message = serde_json::json!({"role": result.role, "content": content});
    if !result.tool_calls.is_empty() {
        message["tool_calls"] = serde_json::to_value(
            result
                .tool_calls
                .iter()
                .map(crate::conversation::message::WireToolCall::from)
                .collect::<Vec<_>>(),
        )
        .unwrap_or_default();
    }
    let json = serde_json::json!({
        "id": result.id,
        "object": "chat.completion",
        "model": result.model,
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": result.finish_reason,
        }],
        "usage": result.usage,
    })
    .to_string();
    Reply {
        content,
        finish_reason: result.finish_reason,
        usage: result.usage,
        id: result.id,
        model: result.model,
        request_id,
        tool_calls: result.tool_calls,
        json,
    }
}

/// The text of a streamed reply as it arrives: an iterator over deltas.
///
/// Made by [`Client::stream`](crate::Client::stream). Each item is the next
/// piece of text (whole UTF-8 characters). When the iterator ends without an
/// error, the whole reply has been appended to the conversation and
/// [`reply`](Self::reply) returns it. After an error, or when the stream is
/// dropped before its end, the conversation is unchanged and the connection
/// is closed, so the server stops generating.
pub struct ReplyStream<'c> {
    conversation: &'c mut Conversation,
    deltas: Option<DeltaStream>,
    reply: Option<Reply>,
}

impl<'c> ReplyStream<'c> {
    pub(crate) fn new(conversation: &'c mut Conversation, deltas: DeltaStream) -> ReplyStream<'c> {
        ReplyStream {
            conversation,
            deltas: Some(deltas),
            reply: None,
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
        self.reply.take().ok_or(crate::Error::Cancelled)
    }

    fn complete(&mut self, deltas: DeltaStream) -> Result<()> {
        let reply = deltas.into_reply()?;
        self.conversation.push_reply(&reply);
        self.reply = Some(reply);
        Ok(())
    }
}

impl Iterator for ReplyStream<'_> {
    type Item = Result<String>;

    fn next(&mut self) -> Option<Result<String>> {
        let deltas = self.deltas.as_mut()?;
        match deltas.next_delta() {
            Ok(Some(delta)) => Some(Ok(delta)),
            Ok(None) => {
                let deltas = self.deltas.take()?;
                self.complete(deltas).err().map(Err)
            }
            Err(error) => {
                self.deltas = None;
                Some(Err(error))
            }
        }
    }
}
