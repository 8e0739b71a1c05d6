//! A client's settings: timeouts, retries, limits, pool size, requests
//! in flight, extra headers, structured output and stream usage.

use std::ffi::{c_char, c_int};
use std::time::Duration;

use super::{chatwire_client, set};
use crate::ffi::boundary;
use crate::ffi::status::{chatwire_status, from_c, limit_from_c};
use crate::ffi::text;
use crate::structured::SchemaDelivery::{CheckOnly, Prompt, ResponseFormat};

/// Sets the whole-request timeout in milliseconds (each retry gets its own);
/// default 600000, from 1 to 86400000 (a day).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_timeout_ms(
    client: *mut chatwire_client,
    timeout_ms: u64,
) -> chatwire_status {
    let timeout = Duration::from_millis(timeout_ms);
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_timeout(timeout)?)) })
}

/// Sets the longest silence of a streamed reply in milliseconds (keep-alives
/// count) before CHATWIRE_ERR_TIMEOUT; default 60000, from 1 to 86400000.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_idle_timeout_ms(
    client: *mut chatwire_client,
    timeout_ms: u64,
) -> chatwire_status {
    let timeout = Duration::from_millis(timeout_ms);
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_idle_timeout(timeout)?)) })
}

/// Sets how many times a failed request is retried (connection failures,
/// timeouts, HTTP 408, 409, 429 and 5xx); default 2, at most 10.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_retries(
    client: *mut chatwire_client,
    max_retries: u32,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_max_retries(max_retries)?)) })
}

/// Sets a limit in bytes on what chatwire keeps of an answer, after
/// decompression; `which` is a chatwire_limit (defaults: body 64 MiB, event
/// 16 MiB, stream 64 MiB, headers 64 KiB). From 1024 to 4 GiB (1 MiB for
/// headers). An answer past it stops the request: CHATWIRE_ERR_TOO_LARGE.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_limit(
    client: *mut chatwire_client,
    which: c_int,
    bytes: u64,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_limit(limit_from_c(which)?, bytes)?)) })
}

/// Sets how many idle connections the client keeps (each closes after 15 s); default
/// 16, at most 1024. Fewer than the sends at once: the surplus is reopened each time.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_idle_connections(
    client: *mut chatwire_client,
    max_idle_connections: u32,
) -> chatwire_status {
    let max = usize::try_from(max_idle_connections).unwrap_or(usize::MAX);
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_max_idle_connections(max)?)) })
}

/// Sets how many background requests of this client run at once, 1 to 65536 (default 1024),
/// the rest waiting in order; each holds a thread and a socket (mind RLIMIT_NOFILE).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_in_flight(
    client: *mut chatwire_client,
    max_in_flight: u32,
) -> chatwire_status {
    let max = usize::try_from(max_in_flight).unwrap_or(usize::MAX);
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_max_in_flight(max)?)) })
}

/// Sets the stack size in bytes of the worker threads of later background
/// requests, which run their callbacks: from 65536 to 8388608 (default 262144).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_worker_stack_size(
    client: *mut chatwire_client,
    bytes: usize,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_worker_stack_size(bytes)?)) })
}

/// Sets a header sent with every request, replacing one of the same name
/// (defaults too); a NULL `value` removes it. A reserved name (Authorization,
/// Content-Type, Content-Length, Transfer-Encoding, Host, Connection) or not a
/// header: CHATWIRE_ERR_INVALID_ARGUMENT, whose last error never quotes values.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_header(
    client: *mut chatwire_client,
    name: *const c_char,
    value: *const c_char,
) -> chatwire_status {
    // SAFETY: `name` and `value` are each NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            let name = text::str_in(name, "name")?;
            Ok(s.set_header(name, text::opt_str_in(value, "value")?)?)
        })
    })
}

/// Sets how many correction turns chatwire_send_json() allows (0: none);
/// default 2, at most 10.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_json_corrections(
    client: *mut chatwire_client,
    corrections: u32,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_json_corrections(corrections)?)) })
}

/// How chatwire_send_json() tells the model about the schema
/// (chatwire_client_set_schema_delivery()).
#[repr(C)]
#[allow(dead_code)]
pub enum chatwire_schema_delivery {
    /// In the prompt (the default; any server), as an instruction to reply
    /// with JSON only; the conversation keeps the question as asked.
    CHATWIRE_SCHEMA_IN_PROMPT = 0,
    /// As the request's "response_format", for servers that constrain the reply.
    CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT = 1,
    /// Not sent (the prompt describes the form); the schema only checks the reply.
    CHATWIRE_SCHEMA_CHECK_ONLY = 2,
}

/// Sets how chatwire_send_json() tells the model about the schema: a
/// chatwire_schema_delivery, default CHATWIRE_SCHEMA_IN_PROMPT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_schema_delivery(
    client: *mut chatwire_client,
    delivery: c_int,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            let what = "a chatwire_schema_delivery (0 prompt, 1 response format, 2 check only)";
            let deliveries = [Prompt, ResponseFormat, CheckOnly];
            s.set_schema_delivery(from_c(delivery, &deliveries, what)?);
            Ok(())
        })
    })
}

/// Whether streamed requests ask for token usage (stream_options include_usage):
/// 1, the default, or 0. A server that refuses it is asked again without it; the client remembers.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_stream_usage(
    client: *mut chatwire_client,
    enabled: c_int,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            s.set_stream_usage(from_c(enabled, &[false, true], "0 or 1 (stream usage)")?);
            Ok(())
        })
    })
}
