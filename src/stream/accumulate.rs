//! Folds a stream's chunks straight into the [`Reply`], every choice by its
//! `index`: what a chunk adds to a choice goes into that choice of the
//! reply, and what only the reply's JSON writes goes beside it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::config::Limit;
use crate::error::{excerpt, Error, Keep, Result, EXCERPT_BYTES};

use super::think::ThinkSplitter;
use super::tool_calls::ToolCallAssembler;
use super::{Chunk, ChunkChoice, StreamEvent};
use crate::conversation::message::{Reasoning, ReasoningField};
use crate::reply::{Body, Reply, ReplyChoice, StreamedChoice, StreamedTop, Usage};
use crate::wire::completion::request_fields;
use crate::wire::reasoning::{details_text, first_text, merge_details};

/// What a new tool call costs besides its texts, so that a server cannot
/// grow memory with millions of empty calls.
const TOOL_CALL_OVERHEAD: u64 = 128;

/// One choice being added up: the reply's choice itself, and what is put
/// together before it goes in.
#[derive(Debug, Default)]
struct ChoiceState {
    choice: ReplyChoice,
    /// The fields only the reply's JSON writes.
    sent: StreamedChoice,
    tool_calls: ToolCallAssembler,
    think: ThinkSplitter,
}

/// Folds chunks into a [`Reply`], keeping at most a limit of bytes.
#[derive(Debug)]
pub struct Accumulator {
    /// The id and model, from the first chunk that had one.
    id: Option<String>,
    model: Option<String>,
    usage: Option<Usage>,
    /// The usage as sent and the other top-level fields, for the JSON.
    top: StreamedTop,
    /// A Responses API stream's final response object, which is then the
    /// reply's JSON in place of one written from `top` and the choices.
    response: Option<String>,
    choices: BTreeMap<u32, ChoiceState>,
    done: bool,
    /// Bytes kept so far: every text taken in, and [`TOOL_CALL_OVERHEAD`] per call.
    kept: u64,
    limit: u64,
}

impl Accumulator {
    /// An accumulator that fails once the reply adds up to more than
    /// `limit` bytes (content, refusal, reasoning, log probabilities,
    /// tool-call ids, names and arguments, of every choice).
    pub fn with_limit(limit: u64) -> Self {
        Self {
            id: None,
            model: None,
            usage: None,
            top: StreamedTop::default(),
            response: None,
            choices: BTreeMap::new(),
            done: false,
            kept: 0,
            limit,
        }
    }

    /// Adds a chunk; what it gives choice 0 goes to `pieces`, in order
    /// (never an empty text). Other choices (`n` > 1) add up silently.
    /// [`Error::TooLarge`](crate::Error::TooLarge) once the reply adds up
    /// to more than the limit.
    pub fn push_chunk_into(&mut self, chunk: Chunk, pieces: &mut Vec<StreamEvent>) -> Result<()> {
        fill_once(&mut self.id, chunk.id);
        fill_once(&mut self.model, chunk.model);
        if chunk.usage.is_some() {
            // Sent once, at the end; should it come more often, the last covers the most.
            self.usage = chunk.usage;
            self.top.usage = chunk.usage_json;
        }
        if let Some(extra) = chunk.extra {
            self.count(fields_bytes(&extra))?;
            self.top.extra.extend(*extra);
        }
        for choice in chunk.choices {
            self.count(choice_bytes(&choice))?;
            let index = choice.index;
            let state = self.choices.entry(index).or_default();
            state.choice.index = index;
            if index == 0 {
                state.push(choice, pieces);
            } else {
                state.push(choice, &mut Vec::new());
            }
        }
        Ok(())
    }

    /// Keeps a Responses API stream's final response object, as it came,
    /// for the reply's JSON; counted against the limit as the rest is.
    pub fn keep_response(&mut self, response: String) -> Result<()> {
        self.count(response.len() as u64)?;
        self.response = Some(response);
        Ok(())
    }

    fn count(&mut self, bytes: u64) -> Result<()> {
        self.kept = self.kept.saturating_add(bytes);
        if self.kept > self.limit {
            return Err(Limit::Stream.exceeded(self.limit));
        }
        Ok(())
    }

    /// Records `data: [DONE]`.
    pub fn mark_done(&mut self) {
        self.done = true;
    }

    /// Whether the stream has said it is complete: `[DONE]`, or a finish
    /// reason on every choice (some servers end the body without `[DONE]`).
    pub fn is_complete(&self) -> bool {
        self.done || self.has_finished()
    }

    /// Whether `asked` choices (the request's `n`) have come and every one
    /// has a finish reason: only `[DONE]` and the usage may follow. Until
    /// then a choice may still begin, whenever choice 0 ended.
    pub fn has_finished_all(&self, asked: u32) -> bool {
        self.choices.len() >= asked as usize && self.has_finished()
    }

    /// Whether every choice that came has a finish reason.
    pub fn has_finished(&self) -> bool {
        !self.choices.is_empty()
            && self
                .choices
                .values()
                .all(|state| state.choice.finish_reason.is_some())
    }

    /// The reply text of choice 0 received so far.
    #[cfg(test)]
    pub fn content(&self) -> &str {
        self.choices
            .get(&0)
            .map_or("", |state| state.choice.content.as_str())
    }

    /// Hands out what choice 0 still holds back (a part of a think tag);
    /// called once, at the end.
    pub fn flush(&mut self) -> Vec<StreamEvent> {
        let mut pieces = Vec::new();
        for (index, state) in &mut self.choices {
            let (reasoning, content) = state.think.finish();
            let kept = if *index == 0 {
                &mut pieces
            } else {
                &mut Vec::new()
            };
            state.split_out(reasoning, content, kept);
        }
        pieces
    }

    /// The final reply; [`Error::Decode`](crate::Error::Decode) (quoting the
    /// end of the text) if the stream ended before it said it was complete.
    pub fn finish(mut self) -> Result<Reply> {
        if !self.is_complete() {
            let text = self
                .choices
                .get(&0)
                .map_or("", |state| &state.choice.content);
            return Err(Error::Decode {
                message: "stream ended before the reply was complete".into(),
                excerpt: excerpt(text, EXCERPT_BYTES, Keep::End).to_owned(),
            });
        }
        self.flush();
        self.choices.entry(0).or_default();
        let choices = self.choices.into_values();
        let choices = choices.map(ChoiceState::finish).collect();
        let body = match self.response {
            Some(response) => Body::Received(response),
            None => Body::Streamed(Box::new(self.top)),
        };
        let mut reply = Reply::new(choices, body);
        reply.id = self.id;
        reply.model = self.model;
        reply.usage = self.usage;
        Ok(reply)
    }
}

impl ChoiceState {
    /// Adds one choice's part of a chunk; `pieces` gets what it adds, in order.
    fn push(&mut self, choice: ChunkChoice, pieces: &mut Vec<StreamEvent>) {
        let (kept, sent, delta) = (&mut self.choice, &mut self.sent, choice.delta);
        let reason = choice.finish_reason.filter(|reason| !reason.is_empty());
        kept.finish_reason = reason.or(kept.finish_reason.take());
        merge_logprobs(&mut sent.logprobs, choice.logprobs);
        if let Some(role) = delta.role.filter(|role| !role.is_empty()) {
            sent.role = Some(role);
        }
        if !delta.extra.is_empty() {
            kept.extra.extend(delta.extra);
        }
        // Nearly every delta has no details: nothing to read or merge then.
        let details = match delta.reasoning_details {
            details if details.is_empty() => None,
            details => {
                let text = details_text(&details);
                merge_details(&mut sent.reasoning_details, details);
                text
            }
        };
        // One field per delta: a server that fills two fills them alike.
        let reasoning = first_text([
            (delta.reasoning_content, ReasoningField::ReasoningContent),
            (delta.reasoning, ReasoningField::Reasoning),
            (details, ReasoningField::ReasoningDetails),
            (delta.thinking, ReasoningField::ContentChunks),
        ]);
        if let Some((text, field)) = reasoning {
            self.add_reasoning(text, field, pieces);
        }
        if let Some(refusal) = delta.refusal.filter(|refusal| !refusal.is_empty()) {
            let text = self.choice.refusal.get_or_insert_with(String::new);
            text.push_str(&refusal);
            pieces.push(StreamEvent::Refusal(refusal));
        }
        for fragment in delta.tool_calls {
            self.tool_calls.push(fragment);
        }
        if let Some(content) = delta.content.filter(|content| !content.is_empty()) {
            self.add_content(content, pieces);
        }
    }

    fn add_reasoning(
        &mut self,
        text: String,
        field: ReasoningField,
        pieces: &mut Vec<StreamEvent>,
    ) {
        let kept = self
            .choice
            .reasoning
            .get_or_insert_with(|| Reasoning::new(String::new(), field));
        kept.text.push_str(&text);
        pieces.push(StreamEvent::Reasoning(text));
    }

    /// Content, a leading think block taken out (unless the reasoning came
    /// in a field of its own, or the content is past any think block).
    fn add_content(&mut self, content: String, pieces: &mut Vec<StreamEvent>) {
        let parsed_apart = self
            .choice
            .reasoning
            .as_ref()
            .is_some_and(|reasoning| reasoning.field != ReasoningField::ThinkTags);
        if (parsed_apart && !self.think.found()) || self.think.passes_through() {
            // Nearly every delta: its text goes out as it came.
            self.choice.content.push_str(&content);
            pieces.push(StreamEvent::Delta(content));
            return;
        }
        let (reasoning, content) = self.think.push(&content);
        self.split_out(reasoning, content, pieces);
    }

    fn split_out(&mut self, reasoning: String, content: String, pieces: &mut Vec<StreamEvent>) {
        if !reasoning.is_empty() {
            self.add_reasoning(reasoning, ReasoningField::ThinkTags, pieces);
        }
        if !content.is_empty() {
            self.choice.content.push_str(&content);
            pieces.push(StreamEvent::Delta(content));
        }
    }

    /// The choice as a whole body would have given it: its reasoning with
    /// the details as sent, its unknown fields in the form they go back in
    /// (those that do not go back kept for the JSON), its tool calls put
    /// together.
    fn finish(self) -> ReplyChoice {
        let (mut choice, mut sent) = (self.choice, self.sent);
        choice.tool_calls = self.tool_calls.finish();
        let details = (!sent.reasoning_details.is_empty())
            .then(|| serde_json::to_string(&sent.reasoning_details).unwrap_or_default());
        match &mut choice.reasoning {
            // A think block is the reasoning whatever details came without text.
            Some(reasoning) if reasoning.field == ReasoningField::ThinkTags => {
                trim_think_block(reasoning, &mut choice.content)
            }
            Some(reasoning) => reasoning.details = details,
            // Details without text (only encrypted or summarised parts) are
            // still the server's, to send back: a reasoning with no text.
            None => {
                choice.reasoning = details.map(|details| Reasoning {
                    details: Some(details),
                    ..Reasoning::new(String::new(), ReasoningField::ReasoningDetails)
                })
            }
        }
        let extra = std::mem::take(&mut choice.extra);
        choice.extra = request_fields(extra, Some(&mut sent.reply_only));
        choice.streamed = Some(Box::new(sent));
        choice
    }
}

/// A think block's reasoning and the content after it, blanks around them
/// taken off as a whole body's are: held-back blanks of a block that never
/// closed are not reasoning.
fn trim_think_block(reasoning: &mut Reasoning, content: &mut String) {
    let kept = reasoning.text.trim_end().len();
    reasoning.text.truncate(kept);
    let blanks = content.len() - content.trim_start().len();
    content.drain(..blanks);
}

/// Joins a chunk's log probabilities to those so far: lists (`content`,
/// `refusal`) are extended, anything else replaced.
fn merge_logprobs(kept: &mut Option<Value>, more: Option<Value>) {
    let Some(Value::Object(more)) = more else {
        return;
    };
    let Value::Object(kept) = kept.get_or_insert_with(|| Value::Object(Default::default())) else {
        return;
    };
    for (key, value) in more {
        match (kept.get_mut(&key), value) {
            (Some(Value::Array(list)), Value::Array(items)) => list.extend(items),
            (_, Value::Null) => {}
            (_, value) => _ = kept.insert(key, value),
        }
    }
}

/// The bytes of fields kept as sent: their names and their JSON.
#[inline]
fn fields_bytes(fields: &Map<String, Value>) -> u64 {
    fields
        .iter()
        .map(|(name, value)| (name.len() + value.to_string().len()) as u64)
        .sum()
}

/// The bytes a choice may add to the reply: its texts, and
/// [`TOOL_CALL_OVERHEAD`] per tool-call fragment.
fn choice_bytes(choice: &ChunkChoice) -> u64 {
    let delta = &choice.delta;
    let text = |value: &Option<String>| value.as_ref().map_or(0, String::len) as u64;
    let json = |value: &Value| value.to_string().len() as u64;
    let calls: u64 = delta
        .tool_calls
        .iter()
        .map(|call| {
            TOOL_CALL_OVERHEAD
                + text(&call.id)
                + text(&call.kind)
                + text(&call.function.name)
                + text(&call.function.arguments)
                + text(&call.custom.name)
                + text(&call.custom.input)
                + fields_bytes(&call.extra)
        })
        .sum();
    let details: u64 = delta.reasoning_details.iter().map(json).sum();
    let logprobs = choice.logprobs.as_ref().map_or(0, json);
    text(&delta.content)
        + text(&delta.thinking)
        + fields_bytes(&delta.extra)
        + text(&delta.refusal)
        + text(&delta.reasoning_content)
        + text(&delta.reasoning)
        + details
        + logprobs
        + calls
}

/// Sets `slot` from the first non-empty value: later chunks repeat it.
fn fill_once(slot: &mut Option<String>, value: Option<String>) {
    if slot.is_none() {
        *slot = value.filter(|value| !value.is_empty());
    }
}
