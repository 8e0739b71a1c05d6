//! What a call holding a conversation works on: the conversation, and the
//! texts it lent since it last changed, behind methods so that no change
//! can keep them.

use std::ffi::c_char;

use crate::conversation::Conversation;
use crate::ffi::handle;
use crate::ffi::status::FfiError;
use crate::ffi::text;

/// What a call holding a conversation works on: the conversation, and the
/// texts it lent since it last changed. Its fields are reached only through
/// its methods, so every change lets those texts go (the rule of
/// docs/c-api.md, "Ownership").
pub(crate) struct Held {
    conversation: Conversation,
    /// What chatwire_conversation_content() and
    /// chatwire_conversation_reasoning() lent, one entry per message index,
    /// each made on first request: at most one copy of each text of the
    /// conversation as it is now.
    lent: Vec<Lent>,
}

/// The copies of one message's texts, each in a buffer that does not move
/// while it lives.
#[derive(Default)]
struct Lent {
    content: Option<text::CText>,
    reasoning: Option<text::CText>,
}

/// A text of a message that C borrows.
#[derive(Clone, Copy)]
pub(super) enum Lendable {
    Content,
    Reasoning,
}

impl Lendable {
    /// The message's text; none for a message without reasoning.
    fn of(self, message: &crate::Message) -> Option<&str> {
        match self {
            Lendable::Content => Some(&message.content),
            Lendable::Reasoning => reasoning(&message.reasoning),
        }
    }

    /// Where its copy is kept.
    fn copy_in(self, lent: &mut Lent) -> &mut Option<text::CText> {
        match self {
            Lendable::Content => &mut lent.content,
            Lendable::Reasoning => &mut lent.reasoning,
        }
    }
}

impl Held {
    pub(super) fn new(conversation: Conversation) -> Held {
        Held {
            conversation,
            lent: Vec::new(),
        }
    }

    /// The conversation, to read.
    pub(crate) fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Runs `change` on the conversation. Once it succeeds the conversation
    /// has changed, and the texts lent from it as it was go: after `change`
    /// returns, so a lent text passed in as its argument was copied first.
    /// A failed change left the conversation as it was (the core's rule), so
    /// what it lent stays.
    pub(crate) fn change<T, E>(
        &mut self,
        change: impl FnOnce(&mut Conversation) -> Result<T, E>,
    ) -> Result<T, E> {
        self.change_if(true, change)
    }

    /// As [`Self::change`] when `changes` holds; else `call` is one that
    /// leaves the conversation as it is although it is handed it (a later
    /// wait of a background request, which appends nothing), and what was
    /// lent stays.
    pub(crate) fn change_if<T, E>(
        &mut self,
        changes: bool,
        call: impl FnOnce(&mut Conversation) -> Result<T, E>,
    ) -> Result<T, E> {
        let done = call(&mut self.conversation)?;
        if changes {
            self.lent = Vec::new();
        }
        Ok(done)
    }

    /// The `which` text of message `index`, as a C string lent until the
    /// conversation changes; NULL when the message has none. Lending the same
    /// text again gives the same pointer.
    pub(super) fn lend(
        &mut self,
        index: usize,
        which: Lendable,
    ) -> Result<*const c_char, FfiError> {
        let message = handle::item(self.conversation.messages(), index, "message")?;
        let Some(text) = which.of(message) else {
            return Ok(std::ptr::null());
        };
        if self.lent.len() <= index {
            self.lent.resize_with(index + 1, Lent::default);
        }
        let copy = which.copy_in(&mut self.lent[index]);
        Ok(copy.get_or_insert_with(|| text::CText::new(text)).as_ptr())
    }
}

/// The text of reasoning details; none without text (encrypted reasoning,
/// which has nothing to read).
pub(crate) fn reasoning(details: &Option<crate::Reasoning>) -> Option<&str> {
    Some(details.as_ref()?.text.as_str()).filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held() -> Held {
        let mut conversation = Conversation::with_model("m").unwrap();
        conversation.set_system("be brief");
        conversation.user("hello").unwrap();
        Held::new(conversation)
    }

    /// The content of message `index`, lent.
    fn content(held: &mut Held, index: usize) -> *const c_char {
        let lent = held.lend(index, Lendable::Content);
        lent.unwrap_or_else(|_| panic!("message {index} has content"))
    }

    /// A copy of the C string at `ptr`, lent by a `Held` that still lives.
    fn read(ptr: *const c_char) -> String {
        // SAFETY: lent, NUL-terminated, and alive while it is copied.
        let text = unsafe { std::ffi::CStr::from_ptr(ptr) };
        text.to_str().unwrap().to_owned()
    }

    #[test]
    fn a_text_is_lent_once_until_the_conversation_changes() {
        let mut held = held();
        let system = content(&mut held, 0);
        assert_eq!(content(&mut held, 0), system);
        assert!(held.lend(1, Lendable::Reasoning).is_ok_and(|p| p.is_null()));
        assert!(held.lend(2, Lendable::Content).is_err());
        assert_eq!(read(system), "be brief");
        // A failed change changed nothing: what was lent stays.
        let refused = held.change(|c| c.user("again"));
        assert!(refused.is_err());
        assert_eq!(content(&mut held, 0), system);
        assert!(held.change(|c| c.truncate(2)).is_ok());
        assert!(held.lent.is_empty());
        assert_eq!(read(content(&mut held, 1)), "hello");
    }

    #[test]
    fn a_call_that_changes_nothing_keeps_what_was_lent() {
        let mut held = held();
        let hello = content(&mut held, 1);
        let kept = held.change_if(false, |_| Ok::<_, FfiError>(()));
        assert!(kept.is_ok());
        assert_eq!(content(&mut held, 1), hello);
        assert_eq!(read(hello), "hello");
    }
}
