//! What came back from a successful request, besides the text.

use crate::conversation::budget::LeftOut;
use crate::conversation::message::{Message, Reasoning, Role, ToolCall};
use crate::conversation::Conversation;
use crate::error::Result;
use crate::response_headers::ResponseHeaders;

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
/// choice 0 is the [`Reply`] itself.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReplyChoice {
    /// The choice's `index`.
    pub index: u32,
    /// Its text (or its refusal, as for the reply).
    pub content: String,
    /// Its refusal, when the model refused (as for the reply).
    pub refusal: Option<String>,
    /// Why its generation stopped.
    pub finish_reason: Option<String>,
    /// Its reasoning, when the server sent any.
    pub reasoning: Option<Reasoning>,
    /// The calls it asks for.
    pub tool_calls: Vec<ToolCall>,
    /// Its message's fields that chatwire does not know ([`Message::extra`]).
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// A decoded chat completion.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reply {
    /// The assistant's text; without it (missing, `null` or `""`), the
    /// model's refusal when it refused, so that a caller who reads the text
    /// alone learns why; empty when the model sent neither.
    pub content: String,
    /// The model's refusal (OpenAI's `refusal` field), whole or streamed;
    /// `None` when it did not refuse. A refusal is not content: see
    /// [`DeltaKind::Refusal`](crate::DeltaKind::Refusal) for where its
    /// pieces go while it streams.
    pub refusal: Option<String>,
    /// Why the model stopped: `stop`, `length`, `content_filter`, ...
    pub finish_reason: Option<String>,
    /// Token counts, when the server sent them.
    pub usage: Option<Usage>,
    /// The completion's `id`, when the server sent one.
    pub id: Option<String>,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
    /// The request id the server or gateway sent: `x-request-id`, or one
    /// of the other headers that gateways use (listed in `docs/c-api.md`).
    pub request_id: Option<String>,
    /// The calls the model asked for; one sent without an id gets a unique one.
    pub tool_calls: Vec<ToolCall>,
    /// The model's reasoning ("thinking"), from whichever field the server
    /// used or a leading `<think>` block (see [`Reasoning`]).
    pub reasoning: Option<Reasoning>,
    /// The fields of the reply's message that chatwire does not know, sent
    /// back with the appended message (see [`Message::extra`]).
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// Every choice, in order of `index`; choice 0 is this reply.
    pub choices: Vec<ReplyChoice>,
    /// Every response header; see [`header`](Self::header).
    pub headers: ResponseHeaders,
    /// The response body as received, never edited; for a streamed reply,
    /// the equivalent body built from the chunks, with their other
    /// top-level fields (Perplexity's `citations`).
    pub json: String,
    /// What the request left out of its conversation, for the append.
    pub(crate) left_out: LeftOut,
}

impl Reply {
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

    /// The assistant message this reply amounts to, with its reasoning.
    pub fn to_message(&self) -> Message {
        let mut message = Message::new(Role::Assistant, self.content.clone());
        message.tool_calls = self.tool_calls.clone();
        message.reasoning = self.reasoning.clone();
        message.extra = self.extra.clone();
        message
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
