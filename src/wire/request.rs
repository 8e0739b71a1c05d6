//! The request body: the conversation as the server wants it, serialized
//! straight from the conversation's own messages without copying them.

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;

use crate::conversation::message::{Message, ReasoningReplay, Role, Tool};
use crate::conversation::Conversation;
use crate::wire::message::{MessageOut, Replay};

/// The JSON body of `POST /v1/chat/completions`.
#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "<[Tool]>::is_empty")]
    tools: &'a [Tool],
    #[serde(flatten)]
    options: &'a serde_json::Map<String, serde_json::Value>,
}

/// Asks for a last chunk with the token usage, which streams otherwise lack.
#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// The messages of a request. Reasoning goes back on the assistant
/// messages after the last user message (the tool loop under way), which
/// DeepSeek's thinking mode requires ("Missing `reasoning_content` field in
/// the assistant message" otherwise) and every reasoning server accepts;
/// earlier turns go without it, as the providers' own docs ask, except
/// under [`ReasoningReplay::ToolCallTurns`] (Kimi), where every assistant
/// message that called tools carries it ("thinking is enabled but
/// reasoning_content is missing in assistant tool call message" otherwise).
struct Messages<'a> {
    messages: &'a [Message],
    replay: ReasoningReplay,
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let loop_starts = self
            .messages
            .iter()
            .rposition(|message| message.role == Role::User)
            .map_or(0, |last_user| last_user + 1);
        let every_call = self.replay == ReasoningReplay::ToolCallTurns;
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for (index, message) in self.messages.iter().enumerate() {
            let calls = message.role == Role::Assistant && !message.tool_calls.is_empty();
            let reasoning = match (every_call && calls, index >= loop_starts) {
                (true, _) => Replay::WithOrEmpty,
                (false, true) => Replay::With,
                (false, false) => Replay::Without,
            };
            seq.serialize_element(&MessageOut { message, reasoning })?;
        }
        seq.end()
    }
}

/// How the reply should come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// One JSON body.
    Whole,
    /// Server-sent events; with `usage`, `stream_options.include_usage` asks
    /// for a last chunk with the token counts (some servers refuse the field).
    Streamed { usage: bool },
}

/// How many choices a request of `conversation` asks for: its option `n`,
/// 1 without it.
pub(crate) fn choices_asked(conversation: &Conversation) -> u32 {
    let n = conversation
        .options()
        .get("n")
        .and_then(serde_json::Value::as_u64);
    n.map_or(1, |n| u32::try_from(n).unwrap_or(u32::MAX)).max(1)
}

pub(crate) fn encode(conversation: &Conversation, delivery: Delivery) -> Vec<u8> {
    let request = ChatRequest {
        model: conversation.model(),
        messages: Messages {
            messages: conversation.messages(),
            replay: conversation.reasoning_replay(),
        },
        stream: delivery != Delivery::Whole,
        stream_options: (delivery == Delivery::Streamed { usage: true }).then_some(StreamOptions {
            include_usage: true,
        }),
        tools: conversation.tools(),
        options: conversation.options(),
    };
    // Serializing strings and plain structs into a Vec cannot fail.
    serde_json::to_vec(&request).unwrap_or_default()
}

/// The same body without `stream_options`, for a server that refused it;
/// `None` when the body has none (or is not a JSON object).
pub(crate) fn without_stream_options(body: &[u8]) -> Option<Vec<u8>> {
    let mut value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value.as_object_mut()?.remove("stream_options")?;
    serde_json::to_vec(&value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_is_model_and_messages() {
        let mut c = Conversation::new("m");
        c.set_system("s");
        c.user("u").unwrap();
        let body: serde_json::Value = serde_json::from_slice(&encode(&c, Delivery::Whole)).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"model": "m", "messages": [
                {"role": "system", "content": "s"},
                {"role": "user", "content": "u"}
            ]})
        );
    }

    #[test]
    fn streamed_body_asks_for_usage() {
        let mut c = Conversation::new("m");
        c.user("u").unwrap();
        let body: serde_json::Value =
            serde_json::from_slice(&encode(&c, Delivery::Streamed { usage: true })).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        let body: serde_json::Value =
            serde_json::from_slice(&encode(&c, Delivery::Streamed { usage: false })).unwrap();
        assert_eq!(body["stream"], true);
        assert!(body.get("stream_options").is_none());
    }

    #[test]
    fn reasoning_goes_back_only_in_the_current_tool_loop() {
        use crate::conversation::message::{Reasoning, ReasoningField, ToolCall};
        let mut c = Conversation::new("m");
        c.user("first").unwrap();
        let mut earlier = Message::new(Role::Assistant, "answer");
        earlier.reasoning = Some(Reasoning::new("old", ReasoningField::ReasoningContent));
        c.push_message(earlier).unwrap();
        c.user("second").unwrap();
        let mut calling = Message::new(Role::Assistant, "");
        calling.tool_calls.push(ToolCall::new("call_1", "f", "{}"));
        calling.reasoning = Some(Reasoning::new("new", ReasoningField::ReasoningContent));
        c.push_message(calling).unwrap();
        c.push_message(Message::tool_result("call_1", "42"))
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&encode(&c, Delivery::Whole)).unwrap();
        let messages = body["messages"].as_array().unwrap();
        assert!(messages[1].get("reasoning_content").is_none(), "{body}");
        assert_eq!(messages[3]["reasoning_content"], "new");
        // The conversation's own JSON keeps every turn's reasoning.
        assert!(c.to_json().contains("\"old\""));
    }

    #[test]
    fn kimi_gets_reasoning_on_every_tool_call_turn() {
        use crate::conversation::message::{Reasoning, ReasoningField, ToolCall};
        let mut c = Conversation::new("kimi-k2.5");
        c.user("first").unwrap();
        let mut earlier = Message::new(Role::Assistant, "");
        earlier.tool_calls.push(ToolCall::new("call_1", "f", "{}"));
        earlier.reasoning = Some(Reasoning::new("old", ReasoningField::ReasoningContent));
        c.push_message(earlier).unwrap();
        c.tool_result("call_1", "42").unwrap();
        let mut answer = Message::new(Role::Assistant, "done");
        answer.reasoning = Some(Reasoning::new("plain", ReasoningField::ReasoningContent));
        c.push_message(answer).unwrap();
        c.user("second").unwrap();
        c.assistant_tool_calls("", vec![ToolCall::new("call_2", "f", "{}")])
            .unwrap();
        c.tool_result("call_2", "43").unwrap();
        let messages = |c: &Conversation| {
            let body: serde_json::Value =
                serde_json::from_slice(&encode(c, Delivery::Whole)).unwrap();
            body["messages"].clone()
        };
        let sent = messages(&c);
        assert_eq!(sent[1]["reasoning_content"], "old");
        // An answer without tool calls from an earlier turn stays home.
        assert!(sent[3].get("reasoning_content").is_none(), "{sent}");
        // A calling turn without reasoning goes with an empty one.
        assert_eq!(sent[5]["reasoning_content"], "");
        c.set_reasoning_replay(ReasoningReplay::CurrentLoop);
        let sent = messages(&c);
        assert!(sent[1].get("reasoning_content").is_none(), "{sent}");
        assert!(sent[5].get("reasoning_content").is_none(), "{sent}");
        assert_eq!(
            ReasoningReplay::Auto.resolved("moonshotai/Kimi-K2-Thinking"),
            ReasoningReplay::ToolCallTurns
        );
        assert_eq!(
            ReasoningReplay::Auto.resolved("deepseek-reasoner"),
            ReasoningReplay::CurrentLoop
        );
    }
}
