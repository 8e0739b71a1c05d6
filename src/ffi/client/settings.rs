//! A client's settings: timeouts, retries, limits, pool size, requests
//! in flight, extra headers, structured output and stream usage.

use std::ffi::{c_char, c_int};
use std::time::Duration;

use super::{chatwire_client, set};
use crate::ffi::boundary;
use crate::ffi::error::FfiError;
use crate::ffi::status::{chatwire_status, limit_from_c};
use crate::ffi::text;
use crate::structured::SchemaDelivery;

/// Sets the whole-request timeout in milliseconds (connecting, sending and
/// reading the reply; each retry gets its own). Default 600000 (10 minutes).
/// 0 and more than a day (86400000) give CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_timeout_ms(
    client: *mut chatwire_client,
    timeout_ms: u64,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| s.set_timeout(Duration::from_millis(timeout_ms)))
    })
}

/// Sets the idle timeout of streamed replies in milliseconds: the longest
/// silence (keep-alive comments count as activity) before a stream fails
/// with CHATWIRE_ERR_TIMEOUT. Default 60000. 0 and more than a day give
/// CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_idle_timeout_ms(
    client: *mut chatwire_client,
    timeout_ms: u64,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            s.set_idle_timeout(Duration::from_millis(timeout_ms))
        })
    })
}

/// Sets how many times a failed request is retried (0: never); default 2,
/// at most 10 (more gives CHATWIRE_ERR_INVALID_ARGUMENT).
/// Retried: connection failures, timeouts, HTTP 408, 409, 429 and 5xx.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_retries(
    client: *mut chatwire_client,
    max_retries: u32,
) -> chatwire_status {
    boundary::status(|| unsafe { set(client, |s| s.set_max_retries(max_retries)) })
}

/// Sets one of the limits on what chatwire keeps of a server's answer, in
/// bytes counted after decompression; `which` is a chatwire_limit:
///
/// | limit | bounds | default |
/// |---|---|---|
/// | CHATWIRE_LIMIT_BODY | a whole response body (also an error body) | 64 MiB |
/// | CHATWIRE_LIMIT_EVENT | one line or event of a stream | 16 MiB |
/// | CHATWIRE_LIMIT_STREAM | all a streamed reply adds up to (text, tool calls) | 64 MiB |
/// | CHATWIRE_LIMIT_HEADERS | the status line and headers | 64 KiB |
///
/// An answer past a limit stops the request with CHATWIRE_ERR_TOO_LARGE and
/// the conversation unchanged; a stream's callbacks that already had deltas
/// learn it from the send's status (or the done callback). Values from 1024
/// to 4 GiB (1 MiB for headers) are accepted; others, and an unknown
/// `which`, give CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_limit(
    client: *mut chatwire_client,
    which: c_int,
    bytes: u64,
) -> chatwire_status {
    boundary::status(|| unsafe { set(client, |s| s.set_limit(limit_from_c(which)?, bytes)) })
}

/// Sets how many idle connections the client keeps open between sends for
/// later sends to reuse; default 16, at most 1024, 0 keeps none.
///
/// Set it to at least the number of threads (and background sends) that use
/// the client at once: each of them needs a connection of its own, and with
/// fewer kept the surplus are closed after every send and opened again for
/// the next. Idle connections close after 15 seconds. The client gets a new
/// pool: sends running now finish on their connections, which then close.
/// More than 1024 gives CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_idle_connections(
    client: *mut chatwire_client,
    max_idle_connections: u32,
) -> chatwire_status {
    let max = usize::try_from(max_idle_connections).unwrap_or(usize::MAX);
    boundary::status(|| unsafe { set(client, |s| s.set_max_idle_connections(max)) })
}

/// Sets how many background requests (chatwire_send_async()) of this
/// client run at once; more wait their turn, in order, instead of failing
/// (chatwire_request_cancel() ends the wait at once). Default 1024, from 1
/// to 65536 (else CHATWIRE_ERR_INVALID_ARGUMENT). Each request running
/// holds a thread and a socket: keep the cap below the process's limit on
/// descriptors (RLIMIT_NOFILE, often 1024). Raising it lets waiting
/// requests go on at once.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_in_flight(
    client: *mut chatwire_client,
    max_in_flight: u32,
) -> chatwire_status {
    let max = usize::try_from(max_in_flight).unwrap_or(usize::MAX);
    boundary::status(|| unsafe { set(client, |s| s.set_max_in_flight(max)) })
}

/// Sets the stack size, in bytes, of the worker threads that run this
/// client's background requests (chatwire_send_async()) started from now
/// on; requests already running keep theirs. Default 262144 (256 KiB), from
/// 65536 (64 KiB) to 8388608 (8 MiB), else CHATWIRE_ERR_INVALID_ARGUMENT
/// and nothing changes.
///
/// The callbacks of a background request (`on_delta`, `on_done`, and the
/// credential and log callbacks when that thread calls them) run on that
/// stack: raise it for a callback that needs a deep stack of its own (large
/// local arrays, deep recursion, a script interpreter). Only the pages a
/// request touches take memory, so a large stack costs address space, not
/// memory; a small one lets thousands of requests run at once.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_worker_stack_size(
    client: *mut chatwire_client,
    bytes: usize,
) -> chatwire_status {
    boundary::status(|| unsafe { set(client, |s| s.set_worker_stack_size(bytes)) })
}

/// Sets an extra header sent with every request of this client, such as a
/// gateway's key or a tracing id, replacing one of the same name (names are
/// case-insensitive); a NULL `value` removes it (removing a header that is
/// not set is not an error). Sends that start afterwards carry it.
///
/// By default a client sends OpenAI-Organization from $OPENAI_ORG_ID and
/// OpenAI-Project from $OPENAI_PROJECT_ID (or their entries in ./.env) when
/// they are set; this function replaces or removes those too. Every request
/// also asks for "Accept-Encoding: gzip" (chatwire decompresses gzip
/// answers); setting Accept-Encoding replaces that.
///
/// Errors: CHATWIRE_ERR_INVALID_ARGUMENT for a name that is not an HTTP
/// header name, a value that is not a header value (a newline, say), and for
/// "Authorization", "Content-Type", "Content-Length", "Transfer-Encoding",
/// "Host" and "Connection", which chatwire or the HTTP layer sets;
/// CHATWIRE_ERR_NULL_ARGUMENT (`client` or `name` NULL);
/// CHATWIRE_ERR_INVALID_UTF8. Values may be secrets: chatwire_last_error()
/// never quotes them. Both strings are copied.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_header(
    client: *mut chatwire_client,
    name: *const c_char,
    value: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            let name = text::str_in(name, "name")?;
            Ok::<_, FfiError>(s.set_header(name, text::opt_str_in(value, "value")?)?)
        })
    })
}

/// Sets how many correction turns chatwire_send_json() allows: when a reply
/// does not match the schema, the model is told what is wrong and asked
/// again, up to this many times (0: never). Default 2; more than 10 gives
/// CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_json_corrections(
    client: *mut chatwire_client,
    corrections: u32,
) -> chatwire_status {
    boundary::status(|| unsafe { set(client, |s| s.set_json_corrections(corrections)) })
}

/// How chatwire_send_json() tells the model about the schema; set with
/// chatwire_client_set_schema_delivery().
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
pub enum chatwire_schema_delivery {
    /// In the prompt (the default; any server): the question is sent with
    /// an instruction to reply with JSON only, in a fenced json block,
    /// matching the schema that follows. The conversation keeps the
    /// question as asked.
    CHATWIRE_SCHEMA_IN_PROMPT = 0,
    /// As the request's "response_format" (type "json_schema"), for servers
    /// that constrain the reply to it (OpenAI, llama.cpp's server, vLLM).
    CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT = 1,
    /// Not sent: the prompt already describes the form (as
    /// chatwire_ingredients_prompt() does); the schema only checks the reply.
    CHATWIRE_SCHEMA_CHECK_ONLY = 2,
}

/// Sets how chatwire_send_json() tells the model about the schema: one of
/// chatwire_schema_delivery, passed as an int (another value gives
/// CHATWIRE_ERR_INVALID_ARGUMENT). Default CHATWIRE_SCHEMA_IN_PROMPT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_schema_delivery(
    client: *mut chatwire_client,
    delivery: c_int,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            let delivery = match delivery {
                0 => SchemaDelivery::Prompt,
                1 => SchemaDelivery::ResponseFormat,
                2 => SchemaDelivery::CheckOnly,
                other => {
                    let message = format!("{other} is not a chatwire_schema_delivery (0 prompt, 1 response format, 2 check only)");
                    return Err(crate::Error::InvalidArgument(message));
                }
            };
            s.set_schema_delivery(delivery);
            Ok(())
        })
    })
}

/// Whether streamed requests ask for the token usage with stream_options
/// (`include_usage`): 1 (the default) asks, 0 sends no stream_options, for
/// servers that refuse the field. Without being told, a server that
/// answers 400 or 422 naming stream_options (Mistral, Databricks, Bedrock)
/// is asked again once without it, and this client and its copies remember
/// (one log line). Any other value: CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_stream_usage(
    client: *mut chatwire_client,
    enabled: c_int,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            if !matches!(enabled, 0 | 1) {
                let message = format!("stream usage must be 0 or 1, not {enabled}");
                return Err(crate::Error::InvalidArgument(message));
            }
            s.set_stream_usage(enabled == 1);
            Ok(())
        })
    })
}
