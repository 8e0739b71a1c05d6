//! `chatwire_reply`: a reply with what came with it (finish reason, token
//! usage, request id, tool calls, the body as received).

use std::ffi::{c_char, CStr, CString};
use std::sync::OnceLock;

use super::boundary;
use super::conversation::reasoning;
use super::handle::{self, required};
use super::status::{chatwire_status, FfiError};
use super::text::{self, borrowed, borrowed_len, CText};
use crate::reply::Reply;

/// A reply and its metadata as the server sent them, made by chatwire_send_reply(),
/// chatwire_send_stream_reply() or chatwire_request_wait_reply(); its strings are
/// borrowed until chatwire_reply_free(). May be read from any thread.
pub struct chatwire_reply {
    reply: Reply,
    // Texts from JSON strings may hold U+0000: kept whole, with a `_len`
    // accessor each; header values and JSON text cannot. Each is made when
    // C first asks for it, and then stays where it is until the free.
    content: OnceLock<CText>,
    finish_reason: OnceLock<Option<CText>>,
    tool_calls: OnceLock<Vec<ToolCallTexts>>,
    reasoning: OnceLock<Option<CText>>,
    refusal: OnceLock<Option<CText>>,
    /// The content of every choice.
    choices: OnceLock<Vec<CText>>,
    request_id: OnceLock<Option<CText>>,
    json: OnceLock<CString>,
}

impl chatwire_reply {
    pub(crate) fn new(reply: Reply) -> chatwire_reply {
        chatwire_reply {
            reply,
            content: OnceLock::new(),
            finish_reason: OnceLock::new(),
            tool_calls: OnceLock::new(),
            reasoning: OnceLock::new(),
            refusal: OnceLock::new(),
            choices: OnceLock::new(),
            request_id: OnceLock::new(),
            json: OnceLock::new(),
        }
    }

    fn content(&self) -> &CText {
        self.content
            .get_or_init(|| CText::new(self.reply.content()))
    }

    fn finish_reason(&self) -> &Option<CText> {
        let text = || self.reply.finish_reason().map(CText::new);
        self.finish_reason.get_or_init(text)
    }

    fn reasoning(&self) -> &Option<CText> {
        let text = || reasoning(&self.reply.first().reasoning).map(CText::new);
        self.reasoning.get_or_init(text)
    }

    fn refusal(&self) -> &Option<CText> {
        self.refusal
            .get_or_init(|| self.reply.refusal().map(CText::new))
    }

    fn request_id(&self) -> &Option<CText> {
        let text = || self.reply.request_id.as_deref().map(CText::new);
        self.request_id.get_or_init(text)
    }

    fn choices(&self) -> &[CText] {
        let texts = || {
            let choices = self.reply.choices().iter();
            choices.map(|choice| CText::new(choice.content())).collect()
        };
        self.choices.get_or_init(texts)
    }

    fn json(&self) -> &CString {
        self.json
            .get_or_init(|| text::c_string(self.reply.json().into_owned()))
    }

    fn tool_call(&self, index: usize) -> Result<&ToolCallTexts, FfiError> {
        let texts = || {
            let calls = self.reply.tool_calls().iter();
            calls.map(ToolCallTexts::new).collect()
        };
        handle::item(self.tool_calls.get_or_init(texts), index, "tool call")
    }
}

/// The texts of one tool call, as C reads them.
struct ToolCallTexts {
    id: CText,
    name: CText,
    arguments: CText,
    /// "function" or "custom".
    kind: CText,
}

impl ToolCallTexts {
    fn new(call: &crate::ToolCall) -> ToolCallTexts {
        ToolCallTexts {
            id: CText::new(&call.id),
            name: CText::new(&call.name),
            arguments: CText::new(&call.arguments),
            kind: CText::new(&call.kind),
        }
    }
}

/// Writes the counts that `counts` reads from the reply behind `reply`, each
/// made a `T` by `to`, where its out-parameter is not NULL (unsafe: each
/// out-parameter NULL or writable).
pub(super) unsafe fn write_counts<T, const N: usize>(
    reply: Option<&chatwire_reply>,
    counts: fn(&Reply) -> Result<[u64; N], FfiError>,
    outs: [*mut T; N],
    to: fn(u64) -> T,
) -> Result<(), FfiError> {
    // SAFETY: as the caller promises.
    unsafe { handle::write_optional(outs, counts(&required(reply, "reply")?.reply)?.map(to)) };
    Ok(())
}

/// The prompt, completion and total token counts.
pub(super) fn usage(reply: &Reply) -> Result<[u64; 3], FfiError> {
    let u = reply.usage.ok_or(FfiError::Unavailable("token usage"))?;
    Ok([u.prompt_tokens, u.completion_tokens, u.total_tokens])
}

/// The cached and reasoning token counts, when the server sent either.
pub(super) fn usage_details(reply: &Reply) -> Result<[u64; 2], FfiError> {
    let details = reply.usage.map(|u| [u.cached_tokens, u.reasoning_tokens]);
    let details = details.filter(|details| details.iter().any(Option::is_some));
    Ok(details
        .ok_or(FfiError::Unavailable("usage details"))?
        .map(|n| n.unwrap_or(0)))
}

/// The reply's text; "" when the model only called tools.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_content(
    reply: Option<&chatwire_reply>,
) -> *const c_char {
    boundary::value(|| Ok(required(reply, "reply")?.content().as_ptr()))
}

/// The length in bytes of chatwire_reply_content().
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_content_len(reply: Option<&chatwire_reply>) -> usize {
    boundary::value(|| Ok(required(reply, "reply")?.content().len()))
}

/// Why the model stopped: "stop", "length", "tool_calls", "content_filter",
/// ...; NULL when the server did not say.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_finish_reason(
    reply: Option<&chatwire_reply>,
) -> *const c_char {
    boundary::value(|| Ok(borrowed(required(reply, "reply")?.finish_reason())))
}

/// The length in bytes of chatwire_reply_finish_reason(); 0 when NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_finish_reason_len(
    reply: Option<&chatwire_reply>,
) -> usize {
    boundary::value(|| Ok(borrowed_len(required(reply, "reply")?.finish_reason())))
}

/// The token counts of the request, each out-parameter NULL when not
/// wanted. No usage from the server: CHATWIRE_ERR_UNAVAILABLE.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage(
    reply: Option<&chatwire_reply>,
    prompt_tokens: *mut u64,
    completion_tokens: *mut u64,
    total_tokens: *mut u64,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let outs = [prompt_tokens, completion_tokens, total_tokens];
        write_counts(reply, usage, outs, |count| count)
    })
}

/// The request id the server or gateway sent (x-request-id, else the first
/// of the others docs/providers.md lists); NULL when none came.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_request_id(
    reply: Option<&chatwire_reply>,
) -> *const c_char {
    boundary::value(|| Ok(borrowed(required(reply, "reply")?.request_id())))
}

/// The response body as received (for a streamed reply, the equivalent
/// body built from the chunks, with their top-level fields such as
/// Perplexity's `citations`; over the Responses API, the response object
/// of the stream's final event as received).
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_json(reply: Option<&chatwire_reply>) -> *const c_char {
    boundary::value(|| Ok(required(reply, "reply")?.json().as_ptr()))
}

/// How many tools the model called.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call_count(
    reply: Option<&chatwire_reply>,
) -> usize {
    boundary::value(|| Ok(required(reply, "reply")?.reply.tool_calls().len()))
}

/// Tool call `index`: its id (to quote in the result), the function's name
/// and its arguments as the model wrote them, unchecked; for a free-form tool,
/// its name and the model's text. Each out-parameter may be NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call(
    reply: Option<&chatwire_reply>,
    index: usize,
    id_out: *mut *const c_char,
    name_out: *mut *const c_char,
    arguments_out: *mut *const c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let call = required(reply, "reply")?.tool_call(index)?;
        let texts = [
            call.id.as_ptr(),
            call.name.as_ptr(),
            call.arguments.as_ptr(),
        ];
        handle::write_optional([id_out, name_out, arguments_out], texts);
        Ok(())
    })
}

/// The lengths in bytes of the texts of chatwire_reply_tool_call(); each
/// out-parameter may be NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call_len(
    reply: Option<&chatwire_reply>,
    index: usize,
    id_len: *mut usize,
    name_len: *mut usize,
    arguments_len: *mut usize,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let call = required(reply, "reply")?.tool_call(index)?;
        let lens = [call.id.len(), call.name.len(), call.arguments.len()];
        handle::write_optional([id_len, name_len, arguments_len], lens);
        Ok(())
    })
}

/// Tool call `index`'s type: "function", or "custom" for a free-form tool
/// (chatwire_conversation_add_custom_tool()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_tool_call_type(
    reply: Option<&chatwire_reply>,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(required(reply, "reply")?.tool_call(index)?.kind.as_ptr()))
}

/// The model's reasoning ("thinking"), from whichever field the server used
/// or a leading <think>...</think> block, which the content then never holds
/// (docs/reasoning.md). NULL when there is no text of it.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_reasoning(
    reply: Option<&chatwire_reply>,
) -> *const c_char {
    boundary::value(|| Ok(borrowed(required(reply, "reply")?.reasoning())))
}

/// The length in bytes of chatwire_reply_reasoning(); 0 when NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_reasoning_len(
    reply: Option<&chatwire_reply>,
) -> usize {
    boundary::value(|| Ok(borrowed_len(required(reply, "reply")?.reasoning())))
}

/// The model's refusal (OpenAI's "refusal" field), whether the reply was
/// streamed or not; NULL when the model did not refuse. Borrowed until
/// chatwire_reply_free(). chatwire_reply_content() holds it too when the
/// model sent no content; a streamed refusal reaches the event callback as
/// CHATWIRE_STREAM_REFUSAL and the delta callback as text (docs/c-api.md,
/// "Where a refusal goes").
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_refusal(
    reply: Option<&chatwire_reply>,
) -> *const c_char {
    boundary::value(|| Ok(borrowed(required(reply, "reply")?.refusal())))
}

/// The length in bytes of chatwire_reply_refusal(); 0 when NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_refusal_len(reply: Option<&chatwire_reply>) -> usize {
    boundary::value(|| Ok(borrowed_len(required(reply, "reply")?.refusal())))
}

/// How many choices the reply has: 1 unless the option "n" asked for more;
/// choice 0 is the one appended to the conversation.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_choice_count(reply: Option<&chatwire_reply>) -> usize {
    boundary::value(|| Ok(required(reply, "reply")?.reply.choices().len()))
}

/// The text of choice `index`, without its reasoning.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_choice_content(
    reply: Option<&chatwire_reply>,
    index: usize,
) -> *const c_char {
    boundary::value(|| {
        Ok(handle::item(required(reply, "reply")?.choices(), index, "choice")?.as_ptr())
    })
}

/// The length in bytes of chatwire_reply_choice_content().
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_choice_content_len(
    reply: Option<&chatwire_reply>,
    index: usize,
) -> usize {
    boundary::value(|| {
        Ok(handle::item(required(reply, "reply")?.choices(), index, "choice")?.len())
    })
}

/// Prompt tokens the server had cached and completion tokens spent on reasoning, 0 when left
/// out; each out-parameter may be NULL. Neither sent: CHATWIRE_ERR_UNAVAILABLE.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_usage_details(
    reply: Option<&chatwire_reply>,
    cached_tokens: *mut u64,
    reasoning_tokens: *mut u64,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let outs = [cached_tokens, reasoning_tokens];
        write_counts(reply, usage_details, outs, |count| count)
    })
}

/// The value of the response header `name`, case-insensitive (the first when
/// it came twice); NULL when the response had none.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_header(
    reply: Option<&chatwire_reply>,
    name: *const c_char,
) -> *const c_char {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::value(|| unsafe {
        let headers = &required(reply, "reply")?.reply.headers;
        let value = headers.get_c(text::str_in(name, "name")?);
        Ok(value.map_or(std::ptr::null(), CStr::as_ptr))
    })
}

/// Frees a reply and every string borrowed from it.
#[no_mangle]
pub unsafe extern "system" fn chatwire_reply_free(reply: *mut chatwire_reply) {
    // SAFETY: `reply` is NULL or a live handle the caller gives up (the C conventions).
    boundary::release(|| unsafe { handle::free(reply) })
}
