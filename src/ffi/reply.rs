//! `chatwire_reply`: a reply with what came with it (finish reason, token
//! usage, request id, tool calls, the body as received).

use std::ffi::{c_char, CString};

use super::boundary;
use super::error::FfiError;
use super::handle::{self, Out};
use super::status::chatwire_status;
use super::text::{self, CText};
use crate::reply::Reply;

/// A reply and its metadata, made by chatwire_send_reply(),
/// chatwire_send_stream_reply() or chatwire_request_wait_reply(), freed by
/// chatwire_reply_free(). Every string it hands out is borrowed from it and
/// valid until it is freed. It does not depend on the client or the
/// conversation, and may be read from any thread.
pub struct chatwire_reply {
    reply: Reply,
    // What the server wrote in JSON strings may hold U+0000: kept whole,
    // with a `_len` accessor each.
    content: CText,
    finish_reason: Option<CText>,
    /// id, name, arguments and type of each tool call.
    tool_calls: Vec<[CText; 4]>,
    reasoning: Option<CText>,
    /// The content of every choice.
    choices: Vec<CText>,
    // HTTP header values cannot hold U+0000, nor can JSON text raw: no
    // `_len` accessor.
    request_id: Option<CText>,
    json: CString,
    /// Every header's value, in the order of the reply's headers.
    headers: Vec<CString>,
}

impl chatwire_reply {
    pub(crate) fn new(reply: Reply) -> chatwire_reply {
        chatwire_reply {
            content: CText::new(&reply.content),
            finish_reason: reply.finish_reason.as_deref().map(CText::new),
            request_id: reply.request_id.as_deref().map(CText::new),
            json: text::c_string(reply.json.as_str()),
            tool_calls: reply
                .tool_calls
                .iter()
                .map(|call| {
                    [
                        CText::new(&call.id),
                        CText::new(&call.name),
                        CText::new(&call.arguments),
                        CText::new(&call.kind),
                    ]
                })
                .collect(),
            // Details without text (encrypted reasoning) have nothing to read.
            reasoning: reply
                .reasoning
                .as_ref()
                .filter(|reasoning| !reasoning.text.is_empty())
                .map(|reasoning| CText::new(&reasoning.text)),
            choices: reply
                .choices
                .iter()
                .map(|choice| CText::new(&choice.content))
                .collect(),
            headers: reply
                .headers
                .iter()
                .map(|(_, value)| text::c_string(value.as_str()))
                .collect(),
            reply,
        }
    }

    /// Hands a reply to C through an out-parameter.
    pub(crate) fn hand_out(reply: Reply, out: Out<'_, *mut chatwire_reply>) {
        out.write(handle::into_c(chatwire_reply::new(reply)));
    }
}

fn borrowed(text: &Option<CText>) -> *const c_char {
    text.as_ref().map_or(std::ptr::null(), CText::as_ptr)
}

fn borrowed_len(text: &Option<CText>) -> usize {
    text.as_ref().map_or(0, CText::len)
}

/// Choice `index` of the reply behind a handle.
///
/// # Safety
/// `reply` is NULL or live.
unsafe fn choice<'a>(reply: *const chatwire_reply, index: usize) -> Result<&'a CText, FfiError> {
    handle::item(
        &unsafe { handle::borrow(reply, "reply")? }.choices,
        index,
        "choice",
    )
}

/// The texts of tool call `index` of the reply behind a handle.
///
/// # Safety
/// `reply` is NULL or live.
unsafe fn tool_call<'a>(
    reply: *const chatwire_reply,
    index: usize,
) -> Result<&'a [CText; 4], FfiError> {
    handle::item(
        &unsafe { handle::borrow(reply, "reply")? }.tool_calls,
        index,
        "tool call",
    )
}

/// The reply's text; "" when the model only called tools. NULL for a NULL
/// reply. Borrowed until the reply is freed. A text holding U+0000 goes on
/// past it: chatwire_reply_content_len() gives its whole length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_content(
    reply: *const chatwire_reply,
) -> *const c_char {
    boundary::value(|| Ok(unsafe { handle::borrow(reply, "reply")? }.content.as_ptr()))
}

/// The length in bytes of the reply's text (without the final NUL), which
/// is more than strlen(chatwire_reply_content(reply)) when the text holds
/// U+0000; 0 for a NULL reply.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_content_len(reply: *const chatwire_reply) -> usize {
    boundary::value(|| Ok(unsafe { handle::borrow(reply, "reply")? }.content.len()))
}

/// Why the model stopped: "stop", "length", "tool_calls", "content_filter",
/// ...; NULL when the server did not say (or for a NULL reply). Borrowed
/// until the reply is freed; chatwire_reply_finish_reason_len() gives its
/// length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_finish_reason(
    reply: *const chatwire_reply,
) -> *const c_char {
    boundary::value(|| {
        Ok(borrowed(
            &unsafe { handle::borrow(reply, "reply")? }.finish_reason,
        ))
    })
}

/// The length in bytes of chatwire_reply_finish_reason() (without the
/// final NUL; U+0000 inside counts): 0 when the server did not say, or for
/// a NULL reply.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_finish_reason_len(
    reply: *const chatwire_reply,
) -> usize {
    boundary::value(|| {
        Ok(borrowed_len(
            &unsafe { handle::borrow(reply, "reply")? }.finish_reason,
        ))
    })
}

/// The token counts of the request. Each out-parameter may be NULL when that
/// count is not wanted. When the server reported no usage:
/// CHATWIRE_ERR_UNAVAILABLE, and nothing is written.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage(
    reply: *const chatwire_reply,
    prompt_tokens: *mut u64,
    completion_tokens: *mut u64,
    total_tokens: *mut u64,
) -> chatwire_status {
    boundary::status(|| {
        let reply = unsafe { handle::borrow(reply, "reply")? };
        let usage = reply
            .reply
            .usage
            .ok_or(FfiError::Unavailable("token usage"))?;
        let counts = [
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens,
        ];
        unsafe { handle::write_optional([prompt_tokens, completion_tokens, total_tokens], counts) };
        Ok(())
    })
}

/// The request id the server or gateway sent (the x-request-id header,
/// else the first of request-id, apim-request-id, x-ms-request-id,
/// x-amzn-requestid, x-litellm-call-id, x-kong-request-id and cf-ray), to
/// quote when asking the provider for help; NULL when it sent none.
/// Borrowed until the reply is freed.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_request_id(
    reply: *const chatwire_reply,
) -> *const c_char {
    boundary::value(|| {
        Ok(borrowed(
            &unsafe { handle::borrow(reply, "reply")? }.request_id,
        ))
    })
}

/// The response body as received (for a streamed reply: the equivalent
/// non-streamed body, built from the chunks). Borrowed until the reply is
/// freed; NULL for a NULL reply. Like every text of a reply, what the server
/// sent, never edited (only chatwire_last_error() and chatwire's other own
/// texts are cleaned of the client's secrets).
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_json(reply: *const chatwire_reply) -> *const c_char {
    boundary::value(|| Ok(unsafe { handle::borrow(reply, "reply")? }.json.as_ptr()))
}

/// How many tools the model called; 0 for a NULL reply.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call_count(
    reply: *const chatwire_reply,
) -> usize {
    boundary::value(|| Ok(unsafe { handle::borrow(reply, "reply")? }.tool_calls.len()))
}

/// Tool call `index`: its id (to quote in the result), the function's name,
/// and its arguments exactly as the model wrote them (JSON text, unchecked;
/// chatwire_extract_json() reads sloppy arguments leniently). For a call of
/// a free-form tool (chatwire_reply_tool_call_type() "custom"), the tool's
/// name and the free text the model wrote as its input. Each
/// out-parameter may be NULL; the strings are borrowed until the reply is
/// freed; chatwire_reply_tool_call_len() gives their lengths (a model may
/// write U+0000 in any of them). `index` out of range:
/// CHATWIRE_ERR_INVALID_ARGUMENT, and nothing is written. The arguments are
/// the JSON text the model wrote, byte for byte.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call(
    reply: *const chatwire_reply,
    index: usize,
    id_out: *mut *const c_char,
    name_out: *mut *const c_char,
    arguments_out: *mut *const c_char,
) -> chatwire_status {
    boundary::status(|| {
        let [id, name, arguments, _] = unsafe { tool_call(reply, index)? };
        let texts = [id.as_ptr(), name.as_ptr(), arguments.as_ptr()];
        unsafe { handle::write_optional([id_out, name_out, arguments_out], texts) };
        Ok(())
    })
}

/// The lengths in bytes of the id, the name and the arguments of tool call
/// `index` (without the final NUL; U+0000 inside counts), as
/// chatwire_reply_tool_call() hands them out. Each out-parameter may be
/// NULL. `index` out of range: CHATWIRE_ERR_INVALID_ARGUMENT, and nothing is
/// written.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call_len(
    reply: *const chatwire_reply,
    index: usize,
    id_len: *mut usize,
    name_len: *mut usize,
    arguments_len: *mut usize,
) -> chatwire_status {
    boundary::status(|| {
        let [id, name, arguments, _] = unsafe { tool_call(reply, index)? };
        let lens = [id.len(), name.len(), arguments.len()];
        unsafe { handle::write_optional([id_len, name_len, arguments_len], lens) };
        Ok(())
    })
}

/// Tool call `index`'s type: "function", or "custom" for a call of a
/// free-form tool (offered with chatwire_conversation_add_custom_tool()),
/// whose input chatwire_reply_tool_call() hands out as the arguments.
/// NULL when `index` is out of range (or for a NULL reply). Borrowed until
/// the reply is freed.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call_type(
    reply: *const chatwire_reply,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(unsafe { tool_call(reply, index)? }[3].as_ptr()))
}

/// The model's reasoning ("thinking"): from reasoning_content, reasoning,
/// the text parts of reasoning_details, Mistral's thinking chunks, or a
/// leading <think>...</think> block taken out of the content
/// (chatwire_reply_content() never holds it). NULL when there is none, or
/// no text of it (only encrypted reasoning, still sent back), or for a
/// NULL reply. Borrowed until the reply is freed;
/// chatwire_reply_reasoning_len() gives its length. As the model wrote it.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_reasoning(
    reply: *const chatwire_reply,
) -> *const c_char {
    boundary::value(|| {
        Ok(borrowed(
            &unsafe { handle::borrow(reply, "reply")? }.reasoning,
        ))
    })
}

/// The length in bytes of chatwire_reply_reasoning() (without the final
/// NUL; U+0000 inside counts): 0 when there is none, or for a NULL reply.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_reasoning_len(reply: *const chatwire_reply) -> usize {
    boundary::value(|| {
        Ok(borrowed_len(
            &unsafe { handle::borrow(reply, "reply")? }.reasoning,
        ))
    })
}

/// How many choices the reply has: 1 unless the request asked for more
/// with the option "n"; 0 for a NULL reply. Choice 0 is the reply itself,
/// the one appended to the conversation.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_choice_count(reply: *const chatwire_reply) -> usize {
    boundary::value(|| Ok(unsafe { handle::borrow(reply, "reply")? }.choices.len()))
}

/// The text of choice `index` (in order of the choices' index; choice 0 is
/// chatwire_reply_content()), without its reasoning; NULL when `index` is
/// out of range (with chatwire_last_error() saying so) or for a NULL reply.
/// Borrowed until the reply is freed; chatwire_reply_choice_content_len()
/// gives its length.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_choice_content(
    reply: *const chatwire_reply,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(unsafe { choice(reply, index)? }.as_ptr()))
}

/// The length in bytes of the text of choice `index` (without the final
/// NUL; U+0000 inside counts); 0 when `index` is out of range (with
/// chatwire_last_error() saying so) or for a NULL reply.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_choice_content_len(
    reply: *const chatwire_reply,
    index: usize,
) -> usize {
    boundary::value(|| Ok(unsafe { choice(reply, index)? }.len()))
}

/// The usage details: prompt tokens the server had cached
/// (prompt_tokens_details.cached_tokens) and completion tokens spent on
/// reasoning (completion_tokens_details.reasoning_tokens); a detail the
/// server left out while it sent the other is 0. Each out-parameter may be
/// NULL. When the server sent neither (or no usage at all):
/// CHATWIRE_ERR_UNAVAILABLE, and nothing is written. Groq's stream usage
/// (under x_groq.usage) counts.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage_details(
    reply: *const chatwire_reply,
    cached_tokens: *mut u64,
    reasoning_tokens: *mut u64,
) -> chatwire_status {
    boundary::status(|| {
        let reply = unsafe { handle::borrow(reply, "reply")? };
        let usage = reply
            .reply
            .usage
            .filter(|usage| usage.cached_tokens.is_some() || usage.reasoning_tokens.is_some())
            .ok_or(FfiError::Unavailable("usage details"))?;
        let counts = [usage.cached_tokens, usage.reasoning_tokens].map(|n| n.unwrap_or(0));
        unsafe { handle::write_optional([cached_tokens, reasoning_tokens], counts) };
        Ok(())
    })
}

/// The value of the response header `name`, case-insensitive (such as
/// "x-ratelimit-remaining-requests"); the first when it came twice; NULL
/// when the response had none (or for a NULL argument, with last error).
/// Borrowed until the reply is freed; as the server sent it, like every
/// other text of a reply.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_header(
    reply: *const chatwire_reply,
    name: *const c_char,
) -> *const c_char {
    boundary::value(|| {
        let reply = unsafe { handle::borrow(reply, "reply")? };
        let position = reply
            .reply
            .header_position(unsafe { text::str_in(name, "name")? });
        Ok(position
            .and_then(|position| reply.headers.get(position))
            .map_or(std::ptr::null(), |value| value.as_ptr()))
    })
}

/// Frees a reply and every string borrowed from it. NULL is ignored.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_free(reply: *mut chatwire_reply) {
    boundary::release(|| unsafe { handle::free(reply) })
}
