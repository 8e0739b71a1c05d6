//! A conversation's token budget: before each send, the oldest exchanges are
//! left out until it is estimated to fit (`docs/long-conversations.md`).

use crate::config::{
    DEFAULT_BYTES_PER_TOKEN, IMAGE_TOKENS, MP3_BYTES_PER_TOKEN, PDF_BYTES_PER_TOKEN,
    WAV_BYTES_PER_TOKEN,
};
use crate::conversation::message::{Attachment, AttachmentKind, Message, Role, Tool, ToolCall};
use crate::conversation::Conversation;
use crate::error::{ApiError, Error, Result};

/// An image, counted as the tokens it typically costs at the default ratio.
const IMAGE_BYTES: u64 = (IMAGE_TOKENS as f64 * DEFAULT_BYTES_PER_TOKEN) as u64;

/// Bytes counted for each message besides its text: the role and the chat
/// template's markers take a few tokens in every template.
const MESSAGE_BYTES: u64 = 16;

/// The bytes per token a learned ratio is held within: a server's count
/// outside it (a proxy reporting 1 token, say) would make every estimate
/// absurd.
const RATIO_RANGE: (f64, f64) = (1.0, 16.0);

/// The share of the budget a conversation is cut down to once it is over
/// it: cutting to just under the budget would change the start of the
/// history on every turn, and servers cache a prompt's start.
const LOW_WATER: f64 = 0.75;

/// The share of its estimate a conversation is cut down to when the server
/// still says it is too long: the estimate was wrong by an unknown amount,
/// so the retry aims well under it.
const RETRY_SHARE: f64 = 0.75;

/// The budget, and what the conversation remembers for it. Not part of a
/// conversation's equality or of its JSON form: it is about sending, not
/// about what was said.
#[derive(Debug, Clone, Default)]
pub(crate) struct Budget {
    /// The most prompt tokens a send may be estimated at; 0: no budget.
    max_prompt_tokens: u64,
    /// The bytes per token of the server's last count, within [`RATIO_RANGE`].
    learned: Option<f64>,
    /// How many messages the last send left out.
    last_dropped: usize,
}

impl PartialEq for Budget {
    fn eq(&self, _: &Budget) -> bool {
        true
    }
}

impl Budget {
    /// The bytes per token estimates use: the server's last count, or the default.
    fn bytes_per_token(&self) -> f64 {
        self.learned.unwrap_or(DEFAULT_BYTES_PER_TOKEN)
    }
}

/// The oldest exchanges a send leaves out: messages `start..end` of a
/// conversation of `len` messages (`start` is 1 after a system message,
/// else 0). Planned on the conversation before a send; the conversation
/// takes it on when it appends the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Trim {
    start: usize,
    end: usize,
    /// The estimate of the whole conversation, and of what is sent.
    pub(crate) tokens_before: u64,
    pub(crate) tokens_after: u64,
}

impl Trim {
    pub(crate) fn dropped(&self) -> usize {
        self.end - self.start
    }

    /// This trim followed by `more`, a trim of what this one left: the two
    /// as one trim of the original conversation.
    pub(crate) fn then(first: Option<Trim>, more: Trim) -> Trim {
        let Some(first) = first else { return more };
        Trim {
            end: more.end + first.dropped(),
            tokens_after: more.tokens_after,
            ..first
        }
    }
}

/// What a request left out of the conversation it was planned on, as its
/// reply carries it to [`Conversation::append_reply`] (a reply fetched on a
/// worker, or by [`Client::complete`](crate::Client::complete)). Not part of
/// a reply's equality: it is about the sending, not the answer.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LeftOut {
    /// The length of the conversation the request was planned on, and what
    /// it left out of it; `None` for a reply no send of this crate made.
    planned: Option<(usize, Option<Trim>)>,
}

impl PartialEq for LeftOut {
    fn eq(&self, _: &LeftOut) -> bool {
        true
    }
}

impl LeftOut {
    /// What a request planned on a conversation of `len` messages left
    /// out of it (`trim`).
    pub(crate) fn new(len: usize, trim: Option<Trim>) -> LeftOut {
        LeftOut {
            planned: Some((len, trim)),
        }
    }

    /// How many messages the request left out.
    pub(crate) fn dropped(&self) -> usize {
        match self.planned {
            Some((_, Some(trim))) => trim.dropped(),
            _ => 0,
        }
    }
}

fn message_bytes(message: &Message) -> u64 {
    let call = |c: &ToolCall| c.id.len() + c.name.len() + c.arguments.len() + extra_bytes(&c.extra);
    let calls: usize = message.tool_calls.iter().map(call).sum();
    let answered = message.tool_call_id.as_ref().map_or(0, String::len);
    let images = message.images.len() as u64 * IMAGE_BYTES;
    let files: u64 = message.files.iter().map(file_bytes).sum();
    MESSAGE_BYTES * (1 + message.tool_calls.len() as u64)
        + (message.content.len() + calls + answered + extra_bytes(&message.extra)) as u64
        + images
        + files
}

/// A tool offered with every request, counted as a message is.
fn tool_bytes(tool: &Tool) -> u64 {
    let description = tool.description.as_ref().map_or(0, String::len);
    let format = tool.format.as_ref().map_or(0, |f| f.to_string().len());
    let schema = tool.parameters.to_string().len();
    MESSAGE_BYTES + (tool.name.len() + description + schema + format) as u64
}

/// A file, counted as the tokens its size typically costs for its kind, at
/// the default ratio (its base64 is a third larger than the file).
fn file_bytes(file: &Attachment) -> u64 {
    let padding = file.data.bytes().rev().take_while(|&b| b == b'=').count();
    let size = (file.data.len() / 4 * 3).saturating_sub(padding) as u64;
    let per_token = match file.kind {
        AttachmentKind::Pdf => PDF_BYTES_PER_TOKEN,
        AttachmentKind::Wav => WAV_BYTES_PER_TOKEN,
        AttachmentKind::Mp3 => MP3_BYTES_PER_TOKEN,
    };
    (size.div_ceil(per_token) as f64 * DEFAULT_BYTES_PER_TOKEN) as u64
}

/// The bytes of the fields a server put on a message that go back with it
/// (Gemini's thought signatures run to kilobytes, and count as input).
fn extra_bytes(extra: &serde_json::Map<String, serde_json::Value>) -> usize {
    if extra.is_empty() {
        // Nearly every message: no iterator set up over an empty map.
        return 0;
    }
    extra
        .iter()
        .map(|(name, value)| name.len() + value.to_string().len())
        .sum()
}

fn tokens(bytes: u64, bytes_per_token: f64) -> u64 {
    (bytes as f64 / bytes_per_token).ceil() as u64
}

impl Conversation {
    /// Sets the most prompt tokens a send of this conversation may be
    /// estimated at; 0 removes the budget (the default). Over it, a send
    /// leaves the oldest exchanges out, and the append drops them; see
    /// `docs/long-conversations.md`.
    pub fn set_token_budget(&mut self, max_prompt_tokens: u64) {
        self.budget.max_prompt_tokens = max_prompt_tokens;
    }

    /// The token budget, `None` when there is none.
    pub fn token_budget(&self) -> Option<u64> {
        Some(self.budget.max_prompt_tokens).filter(|max| *max > 0)
    }

    /// How many messages the last send left out to keep within the token
    /// budget (0 when it left out none); a failed send changes nothing.
    pub fn last_dropped(&self) -> usize {
        self.budget.last_dropped
    }

    /// The estimated prompt tokens of sending the conversation as it is
    /// now, by the rules of [`set_token_budget`](Self::set_token_budget).
    pub fn estimated_tokens(&self) -> u64 {
        tokens(self.bytes(), self.budget.bytes_per_token())
    }

    fn bytes(&self) -> u64 {
        let tools: u64 = self.tools.iter().map(tool_bytes).sum();
        tools + self.messages.iter().map(message_bytes).sum::<u64>()
    }

    /// What a send must leave out to keep within the budget: `None` when
    /// it fits (or there is no budget); [`Error::ContextLength`] when the
    /// last exchange alone is over the budget.
    pub(crate) fn plan_trim(&self) -> Result<Option<Trim>> {
        let Some(max) = self.token_budget() else {
            return Ok(None);
        };
        // Down to the low-water mark, so that the next turns grow on the
        // same prefix; when only the last exchange is that small, as much
        // as fits the budget itself.
        let low = (max as f64 * LOW_WATER) as u64;
        let most = match self.trim_to(low, max).or_else(|_| self.trim_to(max, max)) {
            Ok(trim) => return Ok(trim),
            Err(most) => most,
        };
        let (messages, estimate) = (self.messages.len() - most.end, most.tokens_after);
        Err(Error::ContextLength(Box::new(ApiError {
            message: format!(
                "the last exchange ({messages} messages) is estimated at {estimate} tokens, \
                 over the token budget of {max}: nothing older is left to drop"
            ),
            ..ApiError::default()
        })))
    }

    /// What to leave out, beyond what was already left out, after the
    /// server said this conversation (what was sent) is too long: enough to
    /// come to three quarters of the estimate, at least one exchange.
    /// `None` when only the last exchange is left.
    pub(crate) fn plan_retry(&self) -> Option<Trim> {
        let estimate = self.estimated_tokens();
        let aim = self.token_budget().unwrap_or(estimate).min(estimate);
        let target = (aim as f64 * RETRY_SHARE) as u64;
        // The estimate was too low to cut by a quarter: keep only the
        // last exchange, which is all a retry can still do.
        self.trim_to(target, target)
            .unwrap_or_else(|most| Some(most).filter(|most| most.dropped() > 0))
    }

    /// The smallest trim that brings the estimate to `target` tokens, or
    /// `None` when the estimate is `within` tokens already: one pass from
    /// the oldest message, stopping at the first user message (the start
    /// of an exchange) from which on everything fits. `Err`: even the last
    /// exchange alone is over `target`; the trim that keeps only it.
    fn trim_to(&self, target: u64, within: u64) -> Result<Option<Trim>, Trim> {
        let ratio = self.budget.bytes_per_token();
        let start = self.droppable_start();
        let mut bytes = self.bytes();
        let before = tokens(bytes, ratio);
        let last_user = self.messages.iter().rposition(|m| m.role == Role::User);
        let Some(last_user) = last_user.filter(|last| *last >= start && before > within) else {
            return Ok(None);
        };
        let trim = |end, bytes| Trim {
            start,
            end,
            tokens_before: before,
            tokens_after: tokens(bytes, ratio),
        };
        for (index, message) in self.messages[..=last_user].iter().enumerate().skip(start) {
            if index > start && message.role == Role::User && tokens(bytes, ratio) <= target {
                return Ok(Some(trim(index, bytes)));
            }
            if index < last_user {
                bytes -= message_bytes(message);
            }
        }
        Err(trim(last_user, bytes))
    }

    /// Where the messages a trim may leave out start: after a system message.
    fn droppable_start(&self) -> usize {
        usize::from(matches!(self.messages.first(), Some(m) if m.role == Role::System))
    }

    /// What appending a reply leaves out: what its request left out
    /// (`left_out`), when the request was planned on this conversation as
    /// it is now; else what a send of it now would leave out.
    pub(crate) fn left_out_by(&self, left_out: LeftOut) -> Option<Trim> {
        let fits = |trim: &Trim| {
            trim.start == self.droppable_start()
                && matches!(self.messages.get(trim.end), Some(m) if m.role == Role::User)
        };
        match left_out.planned {
            Some((len, trim)) if len == self.len() && trim.as_ref().is_none_or(fits) => trim,
            _ => self.plan_trim().unwrap_or(None),
        }
    }

    /// The trim that leaves out this conversation's `count` oldest messages
    /// after its system message, or fewer, so that it still starts with a
    /// user message and keeps the last one: what a request made from a
    /// copy of it (a structured exchange's, which may have gained a system
    /// message and correction turns) left out of it, counted in the copy.
    pub(crate) fn trim_oldest(&self, count: usize) -> Option<Trim> {
        if count == 0 {
            return None;
        }
        let start = self.droppable_start();
        let last_user = self.messages.iter().rposition(|m| m.role == Role::User)?;
        // At most `count` go, never the last user message; what is kept
        // starts at the first user message from there on.
        let most = count.min(last_user.saturating_sub(start));
        let end = (start + most..=last_user).find(|&at| self.messages[at].role == Role::User)?;
        let ratio = self.budget.bytes_per_token();
        let left: u64 = self.messages[start..end].iter().map(message_bytes).sum();
        let bytes = self.bytes();
        let trim = Trim {
            start,
            end,
            tokens_before: tokens(bytes, ratio),
            tokens_after: tokens(bytes - left, ratio),
        };
        if trim.dropped() == 0 {
            return None;
        }
        Some(trim)
    }

    /// The conversation as a send under `trim` sends it: the same model,
    /// options and tools, the messages `trim` keeps.
    pub(crate) fn selection(&self, trim: &Trim) -> Conversation {
        let messages = [&self.messages[..trim.start], &self.messages[trim.end..]].concat();
        Conversation {
            model: self.model.clone(),
            messages,
            tools: self.tools.clone(),
            options: self.options.clone(),
            reasoning_replay: self.reasoning_replay,
            budget: self.budget.clone(),
        }
    }

    /// The one way an answer enters the conversation (a reply of any kind
    /// of send, or a structured answer): leaves out what `trim` says (what
    /// the request left out, planned on this conversation before the send),
    /// appends `message`, and learns the bytes per token from `tokens`, the
    /// server's count of the request and the answer. An answer that breaks
    /// the ordering rules is refused and nothing changes.
    pub(crate) fn append_answer(
        &mut self,
        message: Message,
        trim: Option<Trim>,
        tokens: Option<u64>,
    ) -> Result<()> {
        // A trim keeps everything from a user message on, so the answer
        // fits after it exactly when it fits now.
        crate::conversation::ordering::check_next(&self.messages, &message)?;
        let mut dropped = 0;
        if let Some(trim) = trim {
            self.messages.drain(trim.start..trim.end);
            dropped = trim.dropped();
        }
        self.budget.last_dropped = dropped;
        self.messages.push(message);
        if let Some(tokens) = tokens.filter(|tokens| *tokens > 0) {
            let ratio = self.bytes() as f64 / tokens as f64;
            self.budget.learned = Some(ratio.clamp(RATIO_RANGE.0, RATIO_RANGE.1));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
