//! Calls that change a conversation: its history (the system message,
//! appends, truncation and removal), the token budget, the request options
//! and the tools it offers (functions and free-form tools).

use std::ffi::{c_char, c_int};

use super::{chatwire_conversation, on};
use crate::conversation::message::ReasoningReplay;
use crate::conversation::message::Tool;
use crate::conversation::Conversation;
use crate::ffi::boundary;
use crate::ffi::status::{chatwire_status, refused, role_from_c, FfiError};
use crate::ffi::text;

/// Puts the system message (copied) at the start, or replaces the one there.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_system(
    conversation: *mut chatwire_conversation,
    text: *const c_char,
) -> chatwire_status {
    // SAFETY: `text` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let text = text::str_in(text, "text")?;
            held.change(|conversation| {
                conversation.set_system(text);
                Ok(())
            })
        })
    })
}

/// Appends a message (copied) of `role`, a chatwire_role. One that breaks the
/// ordering (one system message, first; then user and assistant alternate),
/// or CHATWIRE_ROLE_TOOL, gives CHATWIRE_ERR_INVALID_CONVERSATION, the last
/// error saying what was expected.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append(
    conversation: *mut chatwire_conversation,
    role: c_int,
    content: *const c_char,
) -> chatwire_status {
    // SAFETY: `content` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let content = text::str_in(content, "content")?;
            let role = role_from_c(role)?;
            held.change(|conversation| Ok(conversation.push(role, content)?))
        })
    })
}

/// Keeps the first `len` messages, e.g. to take back a question whose send
/// failed. `len` beyond the length: CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_truncate(
    conversation: *mut chatwire_conversation,
    len: usize,
) -> chatwire_status {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            held.change(|conversation| Ok(conversation.truncate(len)?))
        })
    })
}

/// Appends a tool's result (copied) for the call `tool_call_id`; each call of an assistant
/// message needs one before the next send (else CHATWIRE_ERR_INVALID_CONVERSATION, naming them).
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_tool_result(
    conversation: *mut chatwire_conversation,
    tool_call_id: *const c_char,
    content: *const c_char,
) -> chatwire_status {
    // SAFETY: `tool_call_id` and `content` are each NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let id = text::str_in(tool_call_id, "tool_call_id")?;
            let content = text::str_in(content, "content")?;
            held.change(|conversation| Ok(conversation.tool_result(id, content)?))
        })
    })
}

/// Appends a user message with text (may be "") and one image: an http(s) or data: URL,
/// or a local PNG, JPEG, GIF or WebP file of at most 20 MiB; else CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_user_image(
    conversation: *mut chatwire_conversation,
    text: *const c_char,
    image: *const c_char,
) -> chatwire_status {
    // SAFETY: `text` and `image` are each NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let (text, image) = (text::str_in(text, "text")?, text::str_in(image, "image")?);
            held.change(|conversation| Ok(conversation.user_image(text, image)?))
        })
    })
}

/// Appends a user message with text (may be "") and one local file of at most
/// 20 MiB, a PDF or WAV or MP3 audio, told by its bytes; another file:
/// CHATWIRE_ERR_INVALID_ARGUMENT, the last error naming the path and why.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_user_file(
    conversation: *mut chatwire_conversation,
    text: *const c_char,
    file: *const c_char,
) -> chatwire_status {
    // SAFETY: `text` and `file` are each NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let (text, file) = (text::str_in(text, "text")?, text::str_in(file, "file")?);
            held.change(|conversation| Ok(conversation.user_file(text, file)?))
        })
    })
}

/// Sets the token budget (0, the default: none; not saved by
/// chatwire_conversation_to_json()): before each send, the oldest whole
/// exchanges are left out of a conversation estimated over it
/// (docs/long-conversations.md), and leave it when the reply is appended.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_token_budget(
    conversation: *mut chatwire_conversation,
    max_prompt_tokens: u64,
) -> chatwire_status {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            held.change(|conversation| {
                conversation.set_token_budget(max_prompt_tokens);
                Ok(())
            })
        })
    })
}

/// How many messages the last send left out under the token budget.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_last_dropped(
    conversation: *const chatwire_conversation,
) -> usize {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::value(|| unsafe { on(conversation, |held| Ok(held.conversation().last_dropped())) })
}

/// Removes `count` messages from `index` on. What is left breaking the
/// ordering, or a tool call parted from its results:
/// CHATWIRE_ERR_INVALID_CONVERSATION; past the end: CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_remove(
    conversation: *mut chatwire_conversation,
    index: usize,
    count: usize,
) -> chatwire_status {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            held.change(|conversation| Ok(conversation.remove(index, count)?))
        })
    })
}

/// Appends an assistant message that calls tools, to rebuild a history by
/// hand: `content` (may be "") and `calls_json`, a non-empty JSON array of
/// calls as chatwire_conversation_to_json() writes them, with unique ids. Else
/// CHATWIRE_ERR_INVALID_ARGUMENT, or CHATWIRE_ERR_INVALID_CONVERSATION.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_append_tool_calls(
    conversation: *mut chatwire_conversation,
    content: *const c_char,
    calls_json: *const c_char,
) -> chatwire_status {
    // SAFETY: `content` and `calls_json` are each NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let content = text::str_in(content, "content")?;
            let calls_json = text::str_in(calls_json, "calls_json")?;
            let calls = crate::wire::message::tool_calls_from_json(calls_json)?;
            held.change(|conversation| Ok(conversation.assistant_tool_calls(content, calls)?))
        })
    })
}

/// Which earlier assistant messages send their reasoning back to the server
/// (chatwire_conversation_set_reasoning_replay(); docs/reasoning.md).
#[repr(C)]
pub enum chatwire_reasoning_replay {
    /// By the model's name: as CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS for
    /// a name holding "kimi" (any case), else as
    /// CHATWIRE_REASONING_REPLAY_CURRENT_LOOP. The default.
    CHATWIRE_REASONING_REPLAY_AUTO = 0,
    /// Only the assistant messages after the last user message (what
    /// DeepSeek requires, and every reasoning server accepts).
    CHATWIRE_REASONING_REPLAY_CURRENT_LOOP = 1,
    /// Those, and every earlier assistant message that called tools, with an
    /// empty reasoning where it has none (what Kimi requires): for a Kimi
    /// model that a gateway serves under another name.
    CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS = 2,
}

/// The replay for a chatwire_reasoning_replay, checked: C may pass any integer.
fn reasoning_replay_from_c(replay: c_int) -> Result<ReasoningReplay, crate::Error> {
    use chatwire_reasoning_replay::*;
    match replay {
        c if c == CHATWIRE_REASONING_REPLAY_AUTO as c_int => Ok(ReasoningReplay::Auto),
        c if c == CHATWIRE_REASONING_REPLAY_CURRENT_LOOP as c_int => {
            Ok(ReasoningReplay::CurrentLoop)
        }
        c if c == CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS as c_int => {
            Ok(ReasoningReplay::ToolCallTurns)
        }
        _ => {
            let what = "a chatwire_reasoning_replay (0 auto, 1 current loop, 2 tool-call turns)";
            Err(refused(replay, what))
        }
    }
}

/// Sets which earlier assistant messages send their reasoning back on
/// later sends: a chatwire_reasoning_replay, default
/// CHATWIRE_REASONING_REPLAY_AUTO. Not part of the JSON form.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_reasoning_replay(
    conversation: *mut chatwire_conversation,
    replay: c_int,
) -> chatwire_status {
    // SAFETY: `conversation` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let replay = reasoning_replay_from_c(replay)?;
            held.change(|conversation| {
                conversation.set_reasoning_replay(replay);
                Ok(())
            })
        })
    })
}

/// Sets a top-level field of every request (`name`, its value as JSON text;
/// NULL `json_value` removes it). CHATWIRE_ERR_INVALID_ARGUMENT for "model",
/// "messages", "stream", "stream_options" and "tools", text that is not JSON,
/// or a value the official schema rejects (temperature 5).
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_option(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    json_value: *const c_char,
) -> chatwire_status {
    let set = Conversation::set_option_json;
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe { set_option_with(conversation, name, json_value, set) })
}

/// The body of both option setters: `set` gets the name and the value text
/// (unsafe: the arguments as chatwire_conversation_set_option() takes them).
unsafe fn set_option_with(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    json_value: *const c_char,
    set: fn(&mut Conversation, &str, Option<&str>) -> crate::Result<()>,
) -> Result<(), FfiError> {
    // SAFETY: `name` and `json_value` are each NULL or NUL-terminated (the C conventions).
    unsafe {
        on(conversation, |held| {
            let name = text::str_in(name, "name")?;
            let value = text::opt_str_in(json_value, "json_value")?;
            held.change(|conversation| Ok(set(conversation, name, value)?))
        })
    }
}

/// Like chatwire_conversation_set_option(), without checking the value
/// against the schema, for a server's own form of a field.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_option_unchecked(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    json_value: *const c_char,
) -> chatwire_status {
    let set = Conversation::set_option_unchecked_json;
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe { set_option_with(conversation, name, json_value, set) })
}

/// Offers a function to the model with every request, replacing one of the
/// same name: `name` (1 to 64 letters, digits, '_' or '-'), `description`
/// (may be NULL) and `parameters_schema_json`, a JSON Schema object (NULL:
/// none). A bad name or schema: CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_add_tool(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    description: *const c_char,
    parameters_schema_json: *const c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let name = text::str_in(name, "name")?;
            let description = text::opt_str_in(description, "description")?;
            let parameters = text::opt_str_in(parameters_schema_json, "parameters_schema_json")?;
            let tool = Tool::from_schema_text(name, description, parameters)?;
            held.change(|conversation| {
                conversation.add_tool(tool);
                Ok(())
            })
        })
    })
}

/// Offers a free-form tool ({"type": "custom"}), called with free text;
/// `format_json` is NULL for any text, {"type":"text"} or a "grammar" (syntax
/// "lark" or "regex"); another value: CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_add_custom_tool(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    description: *const c_char,
    format_json: *const c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        on(conversation, |held| {
            let name = text::str_in(name, "name")?;
            let description = text::opt_str_in(description, "description")?;
            let format = text::opt_str_in(format_json, "format_json")?;
            let tool = Tool::custom_from_text(name, description, format)?;
            held.change(|conversation| {
                conversation.add_tool(tool);
                Ok(())
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatwire_reasoning_replay::*;

    #[test]
    fn each_reasoning_replay_constant_is_its_replay() {
        let pairs = [
            (
                CHATWIRE_REASONING_REPLAY_AUTO as c_int,
                ReasoningReplay::Auto,
            ),
            (
                CHATWIRE_REASONING_REPLAY_CURRENT_LOOP as c_int,
                ReasoningReplay::CurrentLoop,
            ),
            (
                CHATWIRE_REASONING_REPLAY_TOOL_CALL_TURNS as c_int,
                ReasoningReplay::ToolCallTurns,
            ),
        ];
        for (c, replay) in pairs {
            assert_eq!(reasoning_replay_from_c(c).unwrap(), replay);
        }
        for stranger in [-1, 3, c_int::MIN, c_int::MAX] {
            let error = reasoning_replay_from_c(stranger).unwrap_err();
            assert!(matches!(error, crate::Error::InvalidArgument(_)));
        }
    }
}
