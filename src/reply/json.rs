//! A reply's JSON, written only when asked for: a whole body's is the body
//! as received; a streamed reply's is the body a server that did not
//! stream would have sent, built from the reply's choices and the fields
//! of the chunks that only the JSON keeps.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Body, Reply, ReplyChoice, StreamedTop};
use crate::conversation::message::{ReasoningField, ToolCall};
use crate::wire::reasoning::{details_of_text, with_think_block};

impl Reply {
    /// The response body as received, never edited; for a streamed reply,
    /// the equivalent body built from the chunks, with their other
    /// top-level fields (Perplexity's `citations`), written on each call.
    /// A streamed reply over the Responses API is the response object of
    /// its final event, as received, when that lists the output.
    pub fn json(&self) -> Cow<'_, str> {
        match &self.body {
            Body::Received(body) => Cow::Borrowed(body),
            Body::Streamed(top) => Cow::Owned(self.streamed_json(top)),
        }
    }

    fn streamed_json(&self, top: &StreamedTop) -> String {
        let completion = CompletionOut {
            id: &self.id,
            object: "chat.completion",
            model: &self.model,
            choices: self.choices.iter().map(ChoiceOut::new).collect(),
            usage: &top.usage,
            extra: &top.extra,
        };
        serde_json::to_string(&completion).unwrap_or_default()
    }
}

/// A chat completion as a whole body carries it.
#[derive(Serialize)]
struct CompletionOut<'a> {
    id: &'a Option<String>,
    object: &'static str,
    model: &'a Option<String>,
    choices: Vec<ChoiceOut<'a>>,
    usage: &'a Option<Value>,
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
}

#[derive(Serialize)]
struct ChoiceOut<'a> {
    index: u32,
    message: MessageOut<'a>,
    finish_reason: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<&'a Value>,
}

#[derive(Serialize)]
struct MessageOut<'a> {
    role: &'a str,
    content: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<&'a str>,
    #[serde(
        skip_serializing_if = "<[ToolCall]>::is_empty",
        serialize_with = "crate::wire::message::tool_calls"
    )]
    tool_calls: &'a [ToolCall],
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_details: Option<Value>,
    /// The unknown fields as they came: those that go back, and those that
    /// describe the reply only.
    #[serde(flatten)]
    extra: Cow<'a, Map<String, Value>>,
}

impl<'a> ChoiceOut<'a> {
    fn new(choice: &'a ReplyChoice) -> ChoiceOut<'a> {
        let streamed = choice.streamed.as_deref();
        let mut message = MessageOut {
            role: streamed
                .and_then(|streamed| streamed.role.as_deref())
                .unwrap_or("assistant"),
            content: Value::Null,
            refusal: choice.refusal.as_deref(),
            tool_calls: &choice.tool_calls,
            reasoning_content: None,
            reasoning: None,
            reasoning_details: streamed
                .filter(|streamed| !streamed.reasoning_details.is_empty())
                .map(|streamed| Value::Array(streamed.reasoning_details.clone())),
            extra: Cow::Borrowed(&choice.extra),
        };
        if let Some(reply_only) = streamed.map(|streamed| &streamed.reply_only) {
            if !reply_only.is_empty() {
                let extra = message.extra.to_mut();
                extra.extend(reply_only.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        let content = choice.content.as_str();
        message.content = match &choice.reasoning {
            Some(reasoning) => {
                let text = reasoning.text.as_str();
                match reasoning.field {
                    ReasoningField::ReasoningContent => {
                        message.reasoning_content = Some(text);
                        Value::from(content)
                    }
                    ReasoningField::Reasoning => {
                        message.reasoning = Some(text);
                        Value::from(content)
                    }
                    // Details the server sent hold the text already.
                    ReasoningField::ReasoningDetails => {
                        let details = message.reasoning_details.take();
                        message.reasoning_details = details.or_else(|| Some(details_of_text(text)));
                        Value::from(content)
                    }
                    // As the server sent them: thinking chunks, or a think block, first.
                    ReasoningField::ContentChunks => thinking_chunks(text, content),
                    ReasoningField::ThinkTags => Value::from(with_think_block(text, content)),
                }
            }
            None => Value::from(content),
        };
        ChoiceOut {
            index: choice.index,
            message,
            finish_reason: &choice.finish_reason,
            logprobs: streamed.and_then(|streamed| streamed.logprobs.as_ref()),
        }
    }
}

/// Content as Mistral sends it: a thinking chunk, then a text chunk.
fn thinking_chunks(thinking: &str, text: &str) -> Value {
    let mut chunks = vec![serde_json::json!({"type": "thinking",
        "thinking": [{"type": "text", "text": thinking}]})];
    if !text.is_empty() {
        chunks.push(serde_json::json!({"type": "text", "text": text}));
    }
    Value::Array(chunks)
}
