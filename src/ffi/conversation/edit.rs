//! Calls that change a conversation's history: the system message,
//! appends (text, tool results, images, tool calls), truncation and removal,
//! and the token budget.

use std::ffi::{c_char, c_int};

use super::{chatwire_conversation, forget, on, Lent};
use crate::ffi::boundary;
use crate::ffi::status::{chatwire_status, role_from_c};
use crate::ffi::text;
use crate::Role;

/// Puts the system message (copied) at the start, or replaces the one there
/// (whose borrowed texts then become invalid).
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_system(
    conversation: *mut chatwire_conversation,
    text: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let text = text::str_in(text, "text")?;
            let (conversation, lent) = held.parts();
            let replaces = conversation.messages().first().map(|m| m.role) == Some(Role::System);
            conversation.set_system(text);
            forget(lent, 0, usize::from(replaces));
            if !lent.is_empty() {
                lent.insert(0, Lent::default());
            }
            Ok(())
        })
    })
}

/// Appends a message (content copied). `role` is a chatwire_role; any other
/// value gives CHATWIRE_ERR_INVALID_ARGUMENT. A tool result needs the id of
/// its call: append it with chatwire_conversation_append_tool_result()
/// (CHATWIRE_ROLE_TOOL here gives CHATWIRE_ERR_INVALID_CONVERSATION). A message that breaks the
/// ordering (at most one system message, first; then user and assistant
/// alternate, starting with user) gives CHATWIRE_ERR_INVALID_CONVERSATION,
/// and chatwire_last_error() says what was expected. On failure nothing changes.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append(
    conversation: *mut chatwire_conversation,
    role: c_int,
    content: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let content = text::str_in(content, "content")?;
            Ok(held.conversation.push(role_from_c(role)?, content)?)
        })
    })
}

/// Keeps the first `len` messages and drops the rest, e.g. to take back a
/// question whose send failed: save chatwire_conversation_len() before
/// appending, truncate to it after the failure. `len` beyond the length gives
/// CHATWIRE_ERR_INVALID_ARGUMENT. Borrowed texts of the dropped messages
/// become invalid; the others stay valid.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_truncate(
    conversation: *mut chatwire_conversation,
    len: usize,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let (conversation, lent) = held.parts();
            conversation.truncate(len)?;
            lent.truncate(len);
            Ok(())
        })
    })
}

/// Appends a tool's result (copied) for the call `tool_call_id` (from
/// chatwire_reply_tool_call()). After an assistant message that calls tools,
/// each call needs one result before the next send; a result for a call
/// that is not waiting, or any other message while results are missing,
/// gives CHATWIRE_ERR_INVALID_CONVERSATION naming the missing calls.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_tool_result(
    conversation: *mut chatwire_conversation,
    tool_call_id: *const c_char,
    content: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let id = text::str_in(tool_call_id, "tool_call_id")?;
            Ok(held
                .conversation
                .tool_result(id, text::str_in(content, "content")?)?)
        })
    })
}

/// Appends a user message with text (may be "") and one image. `image` is an
/// http(s) URL or a data: URL (sent as it is), or a local file: read (PNG,
/// JPEG, GIF or WebP, told by its bytes; at most 20 MiB) and sent as a
/// base64 data: URL. A missing, empty, too large or non-image file gives
/// CHATWIRE_ERR_INVALID_ARGUMENT; ordering as for a user message.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_user_image(
    conversation: *mut chatwire_conversation,
    text: *const c_char,
    image: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let text = text::str_in(text, "text")?;
            Ok(held
                .conversation
                .user_image(text, text::str_in(image, "image")?)?)
        })
    })
}

/// Appends a user message with text (may be "") and one local file, told by
/// its bytes, never by its name: a PDF (`%PDF-`), sent as a "file" content
/// part with its base64 bytes as file_data and the last part of the path as
/// its file name; or audio, WAV (`RIFF....WAVE`) or MP3 (an `ID3` tag or an
/// MPEG layer III frame), sent as an "input_audio" part with format "wav" or
/// "mp3". Limits as for images: a regular file of at most 20 MiB
/// (`chatwire::MAX_FILE_BYTES` in Rust), never waiting on a FIFO or reading
/// a device. A missing, empty, too large or other file, a directory, a FIFO
/// or a device gives CHATWIRE_ERR_INVALID_ARGUMENT (chatwire_last_error()
/// names the path and why) and leaves the conversation unchanged; ordering
/// as for a user message. Whether a model takes PDFs or audio is the
/// server's to say.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_user_file(
    conversation: *mut chatwire_conversation,
    text: *const c_char,
    file: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let text = text::str_in(text, "text")?;
            Ok(held
                .conversation
                .user_file(text, text::str_in(file, "file")?)?)
        })
    })
}

/// Sets the token budget: before each send (every chatwire_send*
/// function), when the conversation is estimated over `max_prompt_tokens`
/// prompt tokens, the oldest exchanges are left out until it is down to
/// three quarters of it (so that the next turns keep the same start, which
/// servers cache): never
/// the system message, never the last user message and what follows it, a
/// tool call always with its results, whole exchanges only. They are
/// dropped from the conversation when the reply is appended (a failed send
/// changes nothing); chatwire_conversation_last_dropped() says how many,
/// and a log line why. If the server still answers
/// CHATWIRE_ERR_CONTEXT_LENGTH, more is left out and the request is made
/// once more. A last exchange estimated over the budget alone gives
/// CHATWIRE_ERR_CONTEXT_LENGTH. The estimate starts from the server's own
/// count in the last reply (its usage) and learns the bytes per token from
/// it; 4 bytes per token until the first reply. 0: no budget (the
/// default). The budget is not part of chatwire_conversation_to_json().
/// Borrowed texts of messages left out become invalid; the others stay
/// valid.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_token_budget(
    conversation: *mut chatwire_conversation,
    max_prompt_tokens: u64,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            held.conversation.set_token_budget(max_prompt_tokens);
            Ok(())
        })
    })
}

/// How many messages the last send left out to keep within the token
/// budget (0 when none, or for NULL); a failed send changes nothing.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_last_dropped(
    conversation: *const chatwire_conversation,
) -> usize {
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.conversation.last_dropped())) })
}

/// Removes `count` messages from `index` on (a count of 0 changes nothing).
/// Refused with CHATWIRE_ERR_INVALID_CONVERSATION, and nothing removed,
/// when what is left would break the ordering rules or part a tool call
/// from its results (remove an assistant message that calls tools together
/// with all its results); `index + count` past the end gives
/// CHATWIRE_ERR_INVALID_ARGUMENT. Borrowed texts of the removed messages
/// become invalid; the others stay valid.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_remove(
    conversation: *mut chatwire_conversation,
    index: usize,
    count: usize,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let (conversation, lent) = held.parts();
            conversation.remove(index, count)?;
            forget(lent, index, count);
            Ok(())
        })
    })
}

/// Appends an assistant message that calls tools, to rebuild a history by
/// hand: `content` (copied; may be "") and `calls_json`, a JSON array of
/// calls as the API writes them and chatwire_conversation_to_json() keeps
/// them, e.g.
/// [{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}].
/// A call of a free-form tool is {"id","type":"custom","custom":{"name","input"}};
/// any other field of a call (Gemini's "extra_content") is kept and sent
/// back with it.
/// Each call needs an id, unique in the message; append one result per
/// call with chatwire_conversation_append_tool_result(). Text that is not
/// such an array, or an empty one: CHATWIRE_ERR_INVALID_ARGUMENT; where an
/// assistant message may not come: CHATWIRE_ERR_INVALID_CONVERSATION. On
/// failure nothing changes.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_tool_calls(
    conversation: *mut chatwire_conversation,
    content: *const c_char,
    calls_json: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let content = text::str_in(content, "content")?;
            let calls_json = text::str_in(calls_json, "calls_json")?;
            let calls = crate::wire::message::tool_calls_from_json(calls_json)?;
            Ok(held.conversation.assistant_tool_calls(content, calls)?)
        })
    })
}
