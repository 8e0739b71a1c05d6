//! A conversation's request options and the tools it offers (functions and
//! free-form tools).

use std::ffi::c_char;

use super::{chatwire_conversation, on};
use crate::conversation::message::Tool;
use crate::conversation::Conversation;
use crate::ffi::boundary;
use crate::ffi::error::FfiError;
use crate::ffi::status::chatwire_status;
use crate::ffi::text;

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
            Ok(set(
                &mut held.conversation,
                name,
                text::opt_str_in(json_value, "json_value")?,
            )?)
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
            held.conversation.add_tool(tool);
            Ok(())
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
            held.conversation
                .add_tool(Tool::custom_from_text(name, description, format)?);
            Ok(())
        })
    })
}
