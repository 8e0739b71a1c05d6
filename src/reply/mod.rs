//! What came back from a successful request: the [`Reply`], one shape for
//! every road (a whole body or a stream, in the foreground or the
//! background). Each wire's decoder builds it: `wire/completion.rs` from a
//! whole body, `stream/accumulate.rs` from a stream's chunks; nothing is
//! copied from one choice into the reply, and the JSON of a streamed reply
//! is written only when [`Reply::json`] asks for it (`json.rs`).

use serde_json::{Map, Value};

use crate::conversation::budget::LeftOut;
use crate::conversation::message::{Message, Reasoning, Role, ToolCall};
use crate::conversation::Conversation;
use crate::error::Result;
use crate::response_headers::ResponseHeaders;

mod json;

/// Token counts the server reported for one request; a missing count is 0,
/// a missing total is the sum of the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens in the reply.
    pub completion_tokens: u64,
    /// Both together.
    pub total_tokens: u64,
    /// Prompt tokens the server had cached, when it said.
    pub cached_tokens: Option<u64>,
    /// Completion tokens spent on reasoning, when the server said.
    pub reasoning_tokens: Option<u64>,
}

/// One choice of a reply (a request for `n` > 1 answers gets several);
/// the [`Reply`]'s own accessors read choice 0.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ReplyChoice {
    pub(crate) index: u32,
    /// The content as the model wrote it, without a think block; a refusal
    /// stands in for it only in [`content`](Self::content).
    pub(crate) content: String,
    pub(crate) refusal: Option<String>,
    pub(crate) finish_reason: Option<String>,
    pub(crate) reasoning: Option<Reasoning>,
    pub(crate) tool_calls: Vec<ToolCall>,
    /// The message's unknown fields in the form they go back in.
    pub(crate) extra: Map<String, Value>,
    /// A streamed choice's wire fields that only its JSON writes.
    pub(crate) streamed: Option<Box<StreamedChoice>>,
}

/// What a streamed choice's JSON holds besides what the [`ReplyChoice`]
/// keeps: a whole body's JSON is the body itself and needs none of it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct StreamedChoice {
    /// The role the server gave, when it gave one.
    pub(crate) role: Option<String>,
    /// The log probabilities, each list of the chunks' joined.
    pub(crate) logprobs: Option<Value>,
    /// The `reasoning_details` parts as sent, fragments of one part joined.
    pub(crate) reasoning_details: Vec<Value>,
    /// The unknown fields that do not go back as they came (annotations,
    /// the audio's data), as they came.
    pub(crate) reply_only: Map<String, Value>,
}

/// A reply's JSON: the body as received, or what a stream's JSON needs
/// besides its choices.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    /// A whole body, never edited.
    Received(String),
    /// A stream's: the usage as sent and the chunks' own top-level fields.
    Streamed(Box<StreamedTop>),
}

/// A streamed reply's top-level fields that only its JSON writes.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct StreamedTop {
    /// The usage as the server sent it, details included.
    pub(crate) usage: Option<Value>,
    /// The chunks' top-level fields chatwire does not know (Perplexity's
    /// `citations`); one sent on several keeps its last value.
    pub(crate) extra: Map<String, Value>,
}

/// A decoded chat completion: every choice, in order of `index`, and what
/// came with them. The reply's own accessors ([`content`](Self::content),
/// [`tool_calls`](Self::tool_calls), ...) read choice 0, the one appended
/// to the conversation.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reply {
    /// Every choice, in order of `index`; never empty.
    pub(crate) choices: Vec<ReplyChoice>,
    /// Token counts, when the server sent them.
    pub usage: Option<Usage>,
    /// The completion's `id`, when the server sent one.
    pub id: Option<String>,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
    /// The request id the server or gateway sent: `x-request-id`, or one
    /// of the other headers that gateways use (listed in `docs/c-api.md`).
    pub request_id: Option<String>,
    /// Every response header; see [`header`](Self::header).
    pub headers: ResponseHeaders,
    pub(crate) body: Body,
    /// What the request left out of its conversation, for the append.
    pub(crate) left_out: LeftOut,
}

impl ReplyChoice {
    /// The choice's `index`.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Its text; without it (missing, `null` or `""`), the model's refusal
    /// when it refused, so that a caller who reads the text alone learns
    /// why; empty when the model sent neither.
    pub fn content(&self) -> &str {
        match &self.refusal {
            Some(refusal) if self.content.is_empty() => refusal,
            _ => &self.content,
        }
    }

    /// The model's refusal (OpenAI's `refusal` field), whole or streamed;
    /// `None` when it did not refuse. A refusal is not content: see
    /// [`DeltaKind::Refusal`](crate::DeltaKind::Refusal) for where its
    /// pieces go while it streams.
    pub fn refusal(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    /// Why the model stopped: `stop`, `length`, `content_filter`, ...
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    /// The model's reasoning ("thinking"), from whichever field the server
    /// used or a leading `<think>` block (see [`Reasoning`]).
    pub fn reasoning(&self) -> Option<&Reasoning> {
        self.reasoning.as_ref()
    }

    /// The calls the model asked for; one sent without an id gets a unique one.
    pub fn tool_calls(&self) -> &[ToolCall] {
        &self.tool_calls
    }

    /// The fields of the message that chatwire does not know, sent back
    /// with the appended message (see [`Message::extra`]).
    pub fn extra(&self) -> &Map<String, Value> {
        &self.extra
    }

    /// The assistant message this choice amounts to, with its reasoning.
    pub fn to_message(&self) -> Message {
        let mut message = Message::new(Role::Assistant, self.content());
        message.tool_calls = self.tool_calls.clone();
        message.reasoning = self.reasoning.clone();
        message.extra = self.extra.clone();
        message
    }
}

impl Reply {
    /// A reply of `choices` (never empty: the decoders say why not) and
    /// the JSON they came in.
    pub(crate) fn new(choices: Vec<ReplyChoice>, body: Body) -> Reply {
        debug_assert!(!choices.is_empty(), "a reply without a choice");
        Reply {
            choices,
            usage: None,
            id: None,
            model: None,
            request_id: None,
            headers: ResponseHeaders::default(),
            body,
            left_out: LeftOut::default(),
        }
    }

    /// Every choice, in order of `index`; choice 0 is the reply's own.
    pub fn choices(&self) -> &[ReplyChoice] {
        &self.choices
    }

    /// Choice 0, which the reply's accessors read and the append appends.
    pub fn first(&self) -> &ReplyChoice {
        // Never empty: both decoders refuse or fill an empty list.
        &self.choices[0]
    }

    /// The assistant's text of choice 0; see [`ReplyChoice::content`].
    pub fn content(&self) -> &str {
        self.first().content()
    }

    /// The refusal of choice 0; see [`ReplyChoice::refusal`].
    pub fn refusal(&self) -> Option<&str> {
        self.first().refusal()
    }

    /// Why choice 0 stopped: `stop`, `length`, `content_filter`, ...
    pub fn finish_reason(&self) -> Option<&str> {
        self.first().finish_reason()
    }

    /// The reasoning of choice 0; see [`ReplyChoice::reasoning`].
    pub fn reasoning(&self) -> Option<&Reasoning> {
        self.first().reasoning()
    }

    /// The calls choice 0 asks for; one sent without an id gets a unique one.
    pub fn tool_calls(&self) -> &[ToolCall] {
        self.first().tool_calls()
    }

    /// The unknown fields of choice 0's message; see [`ReplyChoice::extra`].
    pub fn extra(&self) -> &Map<String, Value> {
        self.first().extra()
    }

    /// The server's count of the request and the reply together.
    pub(crate) fn tokens(&self) -> Option<u64> {
        self.usage
            .map(|usage| usage.prompt_tokens.saturating_add(usage.completion_tokens))
    }

    /// The value of the response header `name` (case-insensitive), such as
    /// `x-ratelimit-remaining-requests`; the first one when it came twice.
    ///
    /// ```
    /// # fn show(reply: &chatwire::Reply) {
    /// if let Some(left) = reply.header("X-RateLimit-Remaining-Requests") {
    ///     println!("{left} requests left");
    /// }
    /// # }
    /// ```
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)
    }

    /// The reply, carrying what its request left out to the append.
    pub(crate) fn left_out(self, left_out: LeftOut) -> Reply {
        Reply { left_out, ..self }
    }

    /// The assistant message this reply amounts to (choice 0's), with its
    /// reasoning.
    pub fn to_message(&self) -> Message {
        self.first().to_message()
    }

    /// The text of choice 0 ([`content`](Self::content)), taken out of the reply.
    pub(crate) fn into_content(mut self) -> String {
        let first = self.choices.swap_remove(0);
        match first.refusal {
            Some(refusal) if first.content.is_empty() => refusal,
            _ => first.content,
        }
    }
}

impl Conversation {
    /// Appends a reply fetched with [`Client::send_async`](crate::Client::send_async)
    /// or [`Client::complete`](crate::Client::complete) as the assistant
    /// message. Under a token budget it leaves out what the request left out
    /// (a context-length retry's drop too), when the reply was fetched for
    /// this conversation as it is now; else what a send would leave out now.
    pub fn append_reply(&mut self, reply: &Reply) -> Result<()> {
        let trim = self.left_out_by(reply.left_out);
        self.append_answer(reply.to_message(), trim, reply.tokens())
    }
}
