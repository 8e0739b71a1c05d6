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

/// Sets a top-level request field sent with every request of this
/// conversation: `name` (e.g. "max_tokens", "temperature", "seed",
/// "response_format", or a server's own extension) and its value as JSON
/// text (e.g. "64", "0.2", "\"auto\"", "{\"type\":\"json_object\"}").
/// A NULL `json_value` removes the field. "model", "messages", "stream" and
/// "stream_options" and "tools" are refused, as is a value that is not JSON
/// (CHATWIRE_ERR_INVALID_ARGUMENT). A value the official schema rejects for a
/// field it defines (temperature 5, a stop list of 5, a response_format of
/// unknown type) also gives CHATWIRE_ERR_INVALID_ARGUMENT, and
/// chatwire_last_error() names the field, the value and the allowed range;
/// fields the schema does not define are sent as given; a server's own form
/// of a checked field can be set with chatwire_conversation_set_option_unchecked().
/// Options are kept by chatwire_conversation_to_json() and
/// chatwire_conversation_from_json().
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_option(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    json_value: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set_option_with(
            conversation,
            name,
            json_value,
            Conversation::set_option_json,
        )
    })
}

/// The body of both option setters: `set` gets the name and the value text.
///
/// # Safety
/// As chatwire_conversation_set_option().
unsafe fn set_option_with(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    json_value: *const c_char,
    set: fn(&mut Conversation, &str, Option<&str>) -> crate::Result<()>,
) -> Result<(), FfiError> {
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

/// Like chatwire_conversation_set_option(), without checking the value: for
/// a server's own form of a field the official schema defines, which
/// chatwire_conversation_set_option() refuses, such as llama.cpp's array
/// form of "logit_bias" ("[[15043,-1.0]]") or vLLM's "stop" list of more
/// than four strings. The value is sent exactly as given, so the request
/// may break the official schema and a strict server may refuse it. Only
/// the reserved names ("model", "messages", "stream", "stream_options",
/// "tools"), an empty name and a value that is not JSON are refused
/// (CHATWIRE_ERR_INVALID_ARGUMENT). A NULL `json_value` removes the field.
/// Kept by chatwire_conversation_to_json() and
/// chatwire_conversation_from_json(), which loads every option unchecked.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_set_option_unchecked(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    json_value: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set_option_with(
            conversation,
            name,
            json_value,
            Conversation::set_option_unchecked_json,
        )
    })
}

/// Offers a function to the model with every request of this conversation
/// (a tool of the same name is replaced). `name`: 1 to 64 letters, digits,
/// '_' or '-'. `description` may be NULL. `parameters_schema_json` is a JSON
/// Schema object for the arguments, e.g.
/// {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]};
/// NULL means no arguments. A bad name or schema: CHATWIRE_ERR_INVALID_ARGUMENT.
/// Choose how the model uses tools with the "tool_choice" option.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_add_tool(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    description: *const c_char,
    parameters_schema_json: *const c_char,
) -> chatwire_status {
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

/// Offers a free-form tool ({"type": "custom"}) to the model with every
/// request of this conversation (a tool of the same name is replaced): the
/// model calls it with free text instead of JSON arguments, and the call
/// comes back with chatwire_reply_tool_call_type() "custom", its input
/// handed out by chatwire_reply_tool_call() as the arguments; its result
/// goes back with chatwire_conversation_append_tool_result(), as for a
/// function. `name`: 1 to 64 letters, digits, '_' or '-'. `description`
/// may be NULL. `format_json`: NULL for unconstrained text, or the tool's
/// format object: {"type":"text"}, or a grammar,
/// {"type":"grammar","grammar":{"syntax":"lark","definition":"..."}}
/// (syntax "lark" or "regex"). A bad name, or a format that is not JSON or
/// not one of these: CHATWIRE_ERR_INVALID_ARGUMENT, nothing changed.
#[no_mangle]
pub unsafe extern "system" fn chatwire_conversation_add_custom_tool(
    conversation: *mut chatwire_conversation,
    name: *const c_char,
    description: *const c_char,
    format_json: *const c_char,
) -> chatwire_status {
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
