//! Calls that read a conversation: its length, and each message's role,
//! text and reasoning, lent as C strings.

use std::ffi::{c_char, c_int};

use super::{chatwire_conversation, on};
use crate::ffi::boundary;
use crate::ffi::status::role_to_c;

/// The number of messages, the system message included; 0 for NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_len(
    conversation: *const chatwire_conversation,
) -> usize {
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.conversation.len())) })
}

/// The role (a chatwire_role value) of message `index`, or -1 when `index`
/// is out of range or `conversation` is NULL (with a last error).
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_role(
    conversation: *const chatwire_conversation,
    index: usize,
) -> c_int {
    boundary::value(|| unsafe {
        on(conversation, |held| {
            Ok(role_to_c(held.message(index)?.role))
        })
    })
}

/// The text of message `index`, or NULL when `index` is out of range or
/// `conversation` is NULL (with a last error). Borrowed, do not free: valid
/// as long as its message is in the conversation, until the message goes
/// (chatwire_conversation_truncate(), chatwire_conversation_remove(), a
/// send leaving it out under the token budget, a system message replaced
/// by chatwire_conversation_set_system()) or the conversation is freed;
/// other changes keep it valid. A text holding U+0000 (a reply can) goes on past it:
/// chatwire_conversation_content_len() gives its whole length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_content(
    conversation: *const chatwire_conversation,
    index: usize,
) -> *const c_char {
    boundary::value(|| unsafe { on(conversation, |held| held.content_view(index)) })
}

/// The length in bytes of the text of message `index` (without the final
/// NUL), which is more than strlen() of chatwire_conversation_content() when
/// the text holds U+0000; 0 when `index` is out of range or `conversation`
/// is NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_content_len(
    conversation: *const chatwire_conversation,
    index: usize,
) -> usize {
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.message(index)?.content.len())) })
}

/// The reasoning of message `index` (an assistant message whose server
/// sent any: reasoning_content, reasoning, reasoning_details or a leading
/// <think> block); NULL when it has none (last error ""), when `index` is
/// out of range or `conversation` is NULL (each with a last error).
/// Borrowed as chatwire_conversation_content() is;
/// chatwire_conversation_reasoning_len() gives its length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_reasoning(
    conversation: *const chatwire_conversation,
    index: usize,
) -> *const c_char {
    boundary::value(|| unsafe { on(conversation, |held| held.reasoning_view(index)) })
}

/// The length in bytes of the reasoning of message `index` (without the
/// final NUL; U+0000 inside counts): 0 when it has none, when `index` is out
/// of range (then with a last error) or `conversation` is NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_reasoning_len(
    conversation: *const chatwire_conversation,
    index: usize,
) -> usize {
    boundary::value(|| unsafe {
        on(conversation, |held| {
            let reasoning = held.message(index)?.reasoning.as_ref();
            Ok(reasoning.map_or(0, |reasoning| reasoning.text.len()))
        })
    })
}
