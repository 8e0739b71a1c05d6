//! The request body: the conversation as the server wants it, serialized
//! straight from the conversation's own messages without copying them.

use serde::Serialize;

use crate::conversation::Conversation;
use crate::message::Message;

/// The JSON body of `POST /v1/chat/completions`.
#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
}

/// Serializes the request body for a conversation.
pub(crate) fn body(conversation: &Conversation) -> Vec<u8> {
    let request = ChatRequest {
        model: conversation.model(),
        messages: conversation.messages(),
    };
    // Serializing strings and plain structs into a Vec cannot fail.
    serde_json::to_vec(&request).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_is_model_and_messages() {
        let mut c = Conversation::new("m");
        c.set_system("s");
        c.user("u").unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body(&c)).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"model": "m", "messages": [
                {"role": "system", "content": "s"},
                {"role": "user", "content": "u"}
            ]})
        );
    }
}
