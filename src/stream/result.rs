//! What a stream adds up to, made into the completion a whole body gives.

use serde_json::{Map, Value};

use crate::conversation::message::{ReasoningField, ToolCall};
use crate::reply::Usage;
use crate::wire::completion::{AssistantMessage, Choice, Completion, ReplyContent};
use crate::wire::reasoning::{details_of_text, with_think_block};

/// The reply a complete stream adds up to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamResult {
    /// The completion's id, from the first chunk that had one.
    pub id: Option<String>,
    /// The model that answered, from the first chunk that named one.
    pub model: Option<String>,
    /// Token counts, if the server sent them.
    pub usage: Option<Usage>,
    /// The usage as the server sent it, details included.
    pub usage_json: Option<Value>,
    /// The chunks' top-level fields chatwire does not know (Perplexity's
    /// `citations`); one sent on several keeps its last value.
    pub extra: Map<String, Value>,
    /// Every choice, in order of index; choice 0 is always there.
    pub choices: Vec<StreamChoice>,
}

/// One choice of a stream, added up.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamChoice {
    /// The choice's index.
    pub index: u32,
    /// The reply's role; `assistant` unless the server said otherwise.
    pub role: String,
    /// The reply text: all content deltas, in order, without a think block.
    pub content: String,
    /// The refusal text, if the model refused.
    pub refusal: Option<String>,
    /// The reasoning text and the field it came in, if any.
    pub reasoning: Option<(String, ReasoningField)>,
    /// Why generation stopped (`stop`, `length`, `tool_calls`, ...).
    pub finish_reason: Option<String>,
    /// The tool calls the model made, in the order they began.
    pub tool_calls: Vec<ToolCall>,
    /// The log probabilities, each list of the chunks' joined.
    pub logprobs: Option<Value>,
    /// The `reasoning_details` parts as sent, fragments of one part joined.
    pub reasoning_details: Vec<Value>,
    /// The deltas' unknown fields; one sent on several keeps its last value.
    pub extra: Map<String, Value>,
}

impl StreamResult {
    /// The completion this stream adds up to, as a whole body would carry it.
    pub(crate) fn into_completion(self) -> Completion {
        Completion {
            id: self.id,
            object: Some("chat.completion".to_owned()),
            model: self.model,
            choices: self
                .choices
                .into_iter()
                .map(StreamChoice::into_choice)
                .collect(),
            usage: self.usage,
            usage_json: self.usage_json,
            extra: self.extra,
        }
    }
}

impl StreamChoice {
    fn into_choice(self) -> Choice {
        let details =
            (!self.reasoning_details.is_empty()).then_some(Value::Array(self.reasoning_details));
        let mut message = AssistantMessage {
            role: Some(self.role),
            refusal: self.refusal,
            tool_calls: self.tool_calls,
            reasoning_details: details,
            extra: self.extra,
            ..AssistantMessage::default()
        };
        let mut content = self.content;
        match self.reasoning {
            Some((text, ReasoningField::ReasoningContent)) => {
                message.reasoning_content = Some(text)
            }
            Some((text, ReasoningField::Reasoning)) => message.reasoning = Some(text),
            // Details the server sent hold the text already.
            Some((text, ReasoningField::ReasoningDetails)) => {
                (message.reasoning_details).get_or_insert_with(|| details_of_text(&text));
            }
            // As the server sent them: thinking chunks, or a think block, first.
            Some((text, ReasoningField::ContentChunks)) => {
                let chunks = ReplyContent::with_thinking(&text, std::mem::take(&mut content));
                message.content = Some(chunks);
            }
            Some((text, _)) => content = with_think_block(&text, &content),
            None => {}
        }
        message.content.get_or_insert(ReplyContent::Text(content));
        Choice {
            index: self.index,
            message: Some(message),
            finish_reason: self.finish_reason,
            logprobs: self.logprobs,
        }
    }
}
