//! Editing a history by hand: removing messages anywhere, and appending an
//! assistant message that calls tools.

use crate::conversation::message::{Message, Role, ToolCall};
use crate::conversation::ordering;
use crate::conversation::Conversation;
use crate::error::{Error, Result};

impl Conversation {
    /// Removes `count` messages from `index` on; [`Error::InvalidConversation`]
    /// (nothing removed) when what is left breaks the ordering rules.
    pub fn remove(&mut self, index: usize, count: usize) -> Result<()> {
        let len = self.messages.len();
        let end = index
            .checked_add(count)
            .filter(|end| *end <= len)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "cannot remove {count} messages from index {index}: the conversation has {len}"
                ))
            })?;
        if count == 0 {
            return Ok(());
        }
        // A removal may neither start on a tool result (its call stays before)
        // nor end right before one (its call goes, or some of its fellow results).
        let is_result = |at: usize| self.messages.get(at).is_some_and(|m| m.role == Role::Tool);
        if is_result(index) || is_result(end) {
            return Err(Error::InvalidConversation(format!(
                "removing messages {index} to {} would part a tool call from its results: \
                 remove the assistant message that calls tools together with all its results",
                end - 1
            )));
        }
        let removed: Vec<Message> = self.messages.drain(index..end).collect();
        // Each message from `index` on, against those before it.
        for at in index..self.messages.len() {
            if let Err(error) = ordering::check_next(&self.messages[..at], &self.messages[at]) {
                // Put back as it was: the refusal changes nothing.
                self.messages.splice(index..index, removed);
                return Err(match error {
                    Error::InvalidConversation(why) => Error::InvalidConversation(format!(
                        "the removal would leave message {at} out of order: {why}"
                    )),
                    other => other,
                });
            }
        }
        Ok(())
    }

    /// Appends an assistant message (its text often empty) that calls tools,
    /// each with an id unique in it; results follow with [`tool_result`](Self::tool_result).
    pub fn assistant_tool_calls(
        &mut self,
        content: impl Into<String>,
        calls: Vec<ToolCall>,
    ) -> Result<()> {
        if calls.is_empty() {
            return Err(Error::InvalidConversation(
                "an assistant message with tool calls needs at least one call".into(),
            ));
        }
        self.push_message(Message {
            tool_calls: calls,
            ..Message::new(Role::Assistant, content)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat() -> Conversation {
        let mut c = Conversation::new("m");
        c.set_system("s");
        c.user("q1").unwrap();
        c.assistant_tool_calls(
            "",
            vec![
                ToolCall::new("c1", "f", "{}"),
                ToolCall::new("c2", "f", "{}"),
            ],
        )
        .unwrap();
        c.tool_result("c1", "r1").unwrap();
        c.tool_result("c2", "r2").unwrap();
        c.assistant("a1").unwrap();
        c.user("q2").unwrap();
        c.assistant("a2").unwrap();
        c
    }

    #[test]
    fn removes_a_whole_exchange_with_its_tool_calls() {
        let mut c = chat();
        c.remove(1, 5).unwrap();
        let contents: Vec<&str> = c.messages().iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["s", "q2", "a2"]);
    }

    #[test]
    fn refuses_to_part_a_call_from_its_results_and_changes_nothing() {
        for (index, count) in [(2, 1), (2, 2), (3, 1), (4, 1), (3, 3), (1, 2)] {
            let mut c = chat();
            let before = c.clone();
            let err = c.remove(index, count).unwrap_err();
            assert!(
                matches!(err, Error::InvalidConversation(_)),
                "{index},{count}: {err}"
            );
            assert_eq!(c.messages(), before.messages(), "{index},{count}");
        }
    }

    #[test]
    fn refuses_broken_ordering_and_puts_everything_back() {
        let mut c = chat();
        let before = c.clone();
        // Leaves q1's tool results' exchange followed by q2 without a1: fine;
        // removing q2 alone leaves a1 then a2.
        let err = c.remove(6, 1).unwrap_err().to_string();
        assert!(err.contains("out of order"), "{err}");
        assert_eq!(c.messages(), before.messages());
        assert!(c.remove(7, 2).is_err());
        assert!(matches!(
            c.remove(usize::MAX, 2),
            Err(Error::InvalidArgument(_))
        ));
        c.remove(3, 0).unwrap();
        assert_eq!(c.messages(), before.messages());
    }

    #[test]
    fn tool_calls_need_at_least_one_call_and_an_assistant_turn() {
        let mut c = Conversation::new("m");
        assert!(c
            .assistant_tool_calls("", vec![ToolCall::new("c1", "f", "{}")])
            .is_err());
        c.user("q").unwrap();
        assert!(c.assistant_tool_calls("", Vec::new()).is_err());
        c.assistant_tool_calls("thinking", vec![ToolCall::new("c1", "f", "{}")])
            .unwrap();
        assert!(c.check_ready_to_send().is_err());
        c.tool_result("c1", "r").unwrap();
        assert!(c.check_ready_to_send().is_ok());
    }

    #[test]
    fn remove_takes_whole_exchanges() -> crate::Result<()> {
        let mut conversation = crate::Conversation::new("m");
        conversation.set_system("s");
        for turn in ["a", "b", "c"] {
            conversation.user(turn)?;
            conversation.assistant("ok")?;
        }
        conversation.remove(1, 2)?; // the oldest exchange
        assert_eq!(conversation.messages()[1].content, "b");
        assert!(conversation.remove(1, 1).is_err()); // an assistant message first
        Ok(())
    }
}
