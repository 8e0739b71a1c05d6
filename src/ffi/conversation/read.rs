//! Calls that read a conversation: its length, and each message's role,
//! text and reasoning, lent as C strings.

use std::ffi::{c_char, c_int};

use super::{chatwire_conversation, on, reasoning};
use crate::ffi::boundary;
use crate::ffi::status::role_to_c;

/// The number of messages, the system message included.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_len(
    conversation: *const chatwire_conversation,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.conversation.len())) })
}

/// The role (a chatwire_role) of message `index`.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_role(
    conversation: *const chatwire_conversation,
    index: usize,
) -> c_int {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe {
        on(conversation, |held| {
            Ok(role_to_c(held.message(index)?.role))
        })
    })
}

/// The text of message `index`.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_content(
    conversation: *const chatwire_conversation,
    index: usize,
) -> *const c_char {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe {
        on(conversation, |held| {
            held.lend(index, |m| Some(&m.content), |l| &mut l.content)
        })
    })
}

/// The length in bytes of chatwire_conversation_content().
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_content_len(
    conversation: *const chatwire_conversation,
    index: usize,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.message(index)?.content.len())) })
}

/// The reasoning of message `index`; NULL when it has none.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_reasoning(
    conversation: *const chatwire_conversation,
    index: usize,
) -> *const c_char {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe {
        on(conversation, |held| {
            held.lend(index, reasoning, |l| &mut l.reasoning)
        })
    })
}

/// The length in bytes of chatwire_conversation_reasoning(); 0 when NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_reasoning_len(
    conversation: *const chatwire_conversation,
    index: usize,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe {
        on(conversation, |held| {
            Ok(reasoning(held.message(index)?).map_or(0, str::len))
        })
    })
}
