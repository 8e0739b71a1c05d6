//! A client's setters: timeouts, retries, limits, pool size, requests in
//! flight, extra headers, structured output, stream usage; and where its
//! requests go and whom it trusts: the CA file, the proxy, the endpoint URL,
//! the API, and the credential (where the key goes, or a callback for short-lived tokens).

use std::ffi::{c_char, c_int, c_void};
use std::time::Duration;

use super::{chatwire_client, set};
use crate::client::provider_of;
use crate::config::{Api, Auth};
use crate::error::Error;
use crate::ffi::boundary;
use crate::ffi::callback::{chatwire_credential_callback, CredentialSource};
use crate::ffi::status::{chatwire_status, limit_from_c, refused};
use crate::ffi::text;
use crate::structured::SchemaDelivery;

/// Sets the whole-request timeout in milliseconds (each retry gets its own);
/// default 600000, from 1 to 86400000 (a day).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_timeout_ms(
    client: *mut chatwire_client,
    timeout_ms: u64,
) -> chatwire_status {
    let timeout = Duration::from_millis(timeout_ms);
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            config.timeout = timeout;
            Ok(())
        })
    })
}

/// Sets how long one attempt may take to connect, in milliseconds: the name
/// lookup, TCP, TLS and a proxy's tunnel (ClientBuilder::connect_timeout);
/// default 10000, from 1 to 86400000. It fails as CHATWIRE_ERR_TIMEOUT,
/// retried as other timeouts are.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_connect_timeout_ms(
    client: *mut chatwire_client,
    timeout_ms: u64,
) -> chatwire_status {
    let timeout = Duration::from_millis(timeout_ms);
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            config.connect_timeout = timeout;
            Ok(())
        })
    })
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
    boundary::status(|| unsafe {
        set(client, |config| {
            config.idle_timeout = timeout;
            Ok(())
        })
    })
}

/// Sets how many times a failed request is retried (connection failures,
/// timeouts, HTTP 408, 409, 429 and 5xx); default 2, at most 10.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_max_retries(
    client: *mut chatwire_client,
    max_retries: u32,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            config.max_retries = max_retries;
            Ok(())
        })
    })
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
    boundary::status(|| unsafe {
        set(client, |config| {
            config.limits.put(limit_from_c(which)?, bytes);
            Ok(())
        })
    })
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
    boundary::status(|| unsafe {
        set(client, |config| {
            config.max_idle_connections = max;
            Ok(())
        })
    })
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
    boundary::status(|| unsafe {
        set(client, |config| {
            config.max_in_flight = max;
            Ok(())
        })
    })
}

/// Sets the stack size in bytes of the worker threads of later background
/// requests, which run their callbacks: from 65536 to 8388608 (default 262144).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_worker_stack_size(
    client: *mut chatwire_client,
    bytes: usize,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            config.worker_stack_size = bytes;
            Ok(())
        })
    })
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
        set(client, |config| {
            let name = text::str_in(name, "name")?;
            let value = text::opt_str_in(value, "value")?;
            config.set_header(name.to_owned(), value.map(str::to_owned));
            Ok(())
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
    boundary::status(|| unsafe {
        set(client, |config| {
            config.json.corrections = corrections;
            Ok(())
        })
    })
}

/// How chatwire_send_json() tells the model about the schema
/// (chatwire_client_set_schema_delivery()).
#[repr(C)]
pub enum chatwire_schema_delivery {
    /// In the prompt (the default; any server), as an instruction to reply
    /// with JSON only; the conversation keeps the question as asked.
    CHATWIRE_SCHEMA_IN_PROMPT = 0,
    /// As the request's "response_format", for servers that constrain the reply.
    CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT = 1,
    /// Not sent (the prompt describes the form); the schema only checks the reply.
    CHATWIRE_SCHEMA_CHECK_ONLY = 2,
}

/// The delivery for a chatwire_schema_delivery, checked: C may pass any integer.
fn schema_delivery_from_c(delivery: c_int) -> Result<SchemaDelivery, Error> {
    use chatwire_schema_delivery::*;
    match delivery {
        c if c == CHATWIRE_SCHEMA_IN_PROMPT as c_int => Ok(SchemaDelivery::Prompt),
        c if c == CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT as c_int => Ok(SchemaDelivery::ResponseFormat),
        c if c == CHATWIRE_SCHEMA_CHECK_ONLY as c_int => Ok(SchemaDelivery::CheckOnly),
        _ => {
            let what = "a chatwire_schema_delivery (0 prompt, 1 response format, 2 check only)";
            Err(refused(delivery, what))
        }
    }
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
        set(client, |config| {
            config.json.delivery = schema_delivery_from_c(delivery)?;
            Ok(())
        })
    })
}

/// Whether to ask for stream usage, for C's 1 or 0, checked.
fn stream_usage_from_c(enabled: c_int) -> Result<bool, Error> {
    match enabled {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(refused(enabled, "0 or 1 (stream usage)")),
    }
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
        set(client, |config| {
            config.stream_usage = stream_usage_from_c(enabled)?;
            Ok(())
        })
    })
}

/// Trusts the CA certificates in the PEM file `pem_path`, read now, besides
/// the system's (docs/configuration.md). An unreadable file, no PEM
/// certificate or more than 16 MiB: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_ca_file(
    client: *mut chatwire_client,
    pem_path: *const c_char,
) -> chatwire_status {
    // SAFETY: `pem_path` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            Ok(config.set_ca_file(text::str_in(pem_path, "pem_path")?.as_ref())?)
        })
    })
}

/// Shows the certificate chain in `cert_pem_file` and its key (PKCS#8, RSA
/// or EC, not encrypted) in `key_pem_file`, both read now, to servers that ask
/// (mutual TLS). A file unreadable or over 16 MiB, no certificate, not exactly
/// one key, or a key not the certificate's: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_client_certificate(
    client: *mut chatwire_client,
    cert_pem_file: *const c_char,
    key_pem_file: *const c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            let cert = text::str_in(cert_pem_file, "cert_pem_file")?;
            let key = text::str_in(key_pem_file, "key_pem_file")?;
            Ok(config.set_client_certificate(cert.as_ref(), key.as_ref())?)
        })
    })
}

/// Sends through the proxy at `proxy_url` ("http://user:password@proxy:3128",
/// "socks5://..."; no scheme means http://), or through none for "", whatever
/// the environment says (by default $https_proxy, $http_proxy, $all_proxy and
/// $no_proxy, as curl reads them). An unusable URL: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_proxy(
    client: *mut chatwire_client,
    proxy_url: *const c_char,
) -> chatwire_status {
    // SAFETY: `proxy_url` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            Ok(config.set_proxy(text::str_in(proxy_url, "proxy_url")?)?)
        })
    })
}

/// Sends to `url`, whole (path and query kept), for routes other than
/// {base}/v1/chat/completions; the credential goes there too. Not http(s)://,
/// a user name or password, or a fragment: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_endpoint_url(
    client: *mut chatwire_client,
    url: *const c_char,
) -> chatwire_status {
    // SAFETY: `url` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            Ok(config.set_endpoint_url(text::str_in(url, "url")?)?)
        })
    })
}

/// The API a client speaks (chatwire_client_set_api()).
#[repr(C)]
pub enum chatwire_api {
    /// POST {base}/v1/chat/completions (the default).
    CHATWIRE_API_CHAT_COMPLETIONS = 0,
    /// POST {base}/v1/responses, stateless ("store": false): the whole history
    /// sent as input items on every send (docs/responses.md).
    CHATWIRE_API_RESPONSES = 1,
}

/// The API for a chatwire_api, checked: C may pass any integer.
fn api_from_c(api: c_int) -> Result<Api, Error> {
    use chatwire_api::*;
    match api {
        c if c == CHATWIRE_API_CHAT_COMPLETIONS as c_int => Ok(Api::ChatCompletions),
        c if c == CHATWIRE_API_RESPONSES as c_int => Ok(Api::Responses),
        _ => Err(refused(
            api,
            "a chatwire_api (0 chat completions, 1 responses)",
        )),
    }
}

/// Sets the API requests speak: a chatwire_api, default
/// CHATWIRE_API_CHAT_COMPLETIONS. CHATWIRE_API_RESPONSES sends to
/// {base}/v1/responses (chatwire_client_new_azure(): {endpoint}/openai/v1/responses);
/// a URL given to chatwire_client_set_endpoint_url() is used as given whatever
/// the API. The conversation and the reply accessors are the same over both.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_api(
    client: *mut chatwire_client,
    api: c_int,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |config| Ok(config.set_api(api_from_c(api)?)?)) })
}

/// Where the credential goes for a chatwire_auth, checked: C may pass any integer.
fn auth_from_c(auth: c_int) -> Result<Auth, Error> {
    use crate::ffi::status::chatwire_auth::*;
    match auth {
        c if c == CHATWIRE_AUTH_BEARER as c_int => Ok(Auth::Bearer),
        c if c == CHATWIRE_AUTH_API_KEY as c_int => Ok(Auth::ApiKey),
        c if c == CHATWIRE_AUTH_NONE as c_int => Ok(Auth::None),
        _ => Err(refused(
            auth,
            "a chatwire_auth (0 bearer, 1 api-key, 2 none)",
        )),
    }
}

/// Sets where the key or a callback's token goes: a chatwire_auth, default
/// CHATWIRE_AUTH_BEARER (CHATWIRE_AUTH_API_KEY for chatwire_client_new_azure()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_auth(
    client: *mut chatwire_client,
    auth: c_int,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |config| Ok(config.set_auth(auth_from_c(auth)?)?)) })
}

/// Asks `callback` for the credential before every attempt instead of
/// sending the key; NULL goes back to the key. It and `userdata` stay valid
/// until the client is freed and its requests have finished.
/// CHATWIRE_ERR_CONFIG when ./.env named the endpoint.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_credential_callback(
    client: *mut chatwire_client,
    callback: chatwire_credential_callback,
    userdata: *mut c_void,
) -> chatwire_status {
    let source = callback.map(|callback| CredentialSource::new(callback, userdata));
    let provider = source.map(|source| provider_of(move || source.token()));
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe {
        set(client, |config| {
            Ok(config.set_credential_provider(provider)?)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::status::chatwire_auth::*;
    use chatwire_schema_delivery::*;

    /// Integers that none of these C enums has as a constant.
    const STRANGERS: [c_int; 4] = [-1, 3, c_int::MIN, c_int::MAX];

    fn refused(error: Error) -> bool {
        matches!(error, Error::InvalidArgument(_))
    }

    #[test]
    fn each_auth_constant_is_its_auth() {
        assert_eq!(
            auth_from_c(CHATWIRE_AUTH_BEARER as c_int).unwrap(),
            Auth::Bearer
        );
        assert_eq!(
            auth_from_c(CHATWIRE_AUTH_API_KEY as c_int).unwrap(),
            Auth::ApiKey
        );
        assert_eq!(
            auth_from_c(CHATWIRE_AUTH_NONE as c_int).unwrap(),
            Auth::None
        );
        for stranger in STRANGERS {
            assert!(refused(auth_from_c(stranger).unwrap_err()));
        }
    }

    #[test]
    fn each_schema_delivery_constant_is_its_delivery() {
        let pairs = [
            (CHATWIRE_SCHEMA_IN_PROMPT as c_int, SchemaDelivery::Prompt),
            (
                CHATWIRE_SCHEMA_IN_RESPONSE_FORMAT as c_int,
                SchemaDelivery::ResponseFormat,
            ),
            (
                CHATWIRE_SCHEMA_CHECK_ONLY as c_int,
                SchemaDelivery::CheckOnly,
            ),
        ];
        for (c, delivery) in pairs {
            assert_eq!(schema_delivery_from_c(c).unwrap(), delivery);
        }
        for stranger in STRANGERS {
            assert!(refused(schema_delivery_from_c(stranger).unwrap_err()));
        }
    }

    #[test]
    fn each_api_constant_is_its_api() {
        use chatwire_api::*;
        let pairs = [
            (CHATWIRE_API_CHAT_COMPLETIONS as c_int, Api::ChatCompletions),
            (CHATWIRE_API_RESPONSES as c_int, Api::Responses),
        ];
        for (c, api) in pairs {
            assert_eq!(api_from_c(c).unwrap(), api);
        }
        for stranger in STRANGERS {
            assert!(refused(api_from_c(stranger).unwrap_err()));
        }
    }

    #[test]
    fn stream_usage_is_1_or_0() {
        assert!(stream_usage_from_c(1).unwrap());
        assert!(!stream_usage_from_c(0).unwrap());
        for stranger in [-1, 2, c_int::MIN, c_int::MAX] {
            assert!(refused(stream_usage_from_c(stranger).unwrap_err()));
        }
    }
}
