//! Where a client's requests go and whom it trusts: the CA file, the
//! proxy, the endpoint URL, and the credential (where the key goes, or a
//! callback for short-lived tokens).

use std::ffi::{c_char, c_int, c_void};

use super::{chatwire_client, set};
use crate::client::provider_of;
use crate::ffi::boundary;
use crate::ffi::callback::{chatwire_credential_callback, CredentialSource};
use crate::ffi::error::FfiError;
use crate::ffi::status::{auth_from_c, chatwire_status};
use crate::ffi::text;

/// Trusts the CA certificates in the PEM file `pem_path`, read now, besides
/// the system's (its bundle, or $SSL_CERT_FILE / $SSL_CERT_DIR as curl reads
/// them): a company CA, a local server's own; without it such a server gives
/// CHATWIRE_ERR_TLS. An unreadable file, no PEM certificate or more than
/// 16 MiB: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_ca_file(
    client: *mut chatwire_client,
    pem_path: *const c_char,
) -> chatwire_status {
    // SAFETY: `pem_path` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            Ok::<_, FfiError>(s.set_ca_file(text::str_in(pem_path, "pem_path")?.as_ref())?)
        })
    })
}

/// Shows the certificate chain in the PEM file `cert_pem_file` (the client's
/// own first) and its key in `key_pem_file` (PKCS#8, RSA or EC, not
/// encrypted), both read now, to servers that ask for one (mutual TLS); one
/// that gets none or refuses it fails the send with CHATWIRE_ERR_TLS. An
/// unreadable file or one over 16 MiB, no certificate, not exactly one key,
/// or a key not the certificate's: CHATWIRE_ERR_CONFIG, naming the file. The
/// key never appears in the last error or log lines.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_client_certificate(
    client: *mut chatwire_client,
    cert_pem_file: *const c_char,
    key_pem_file: *const c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            let cert = text::str_in(cert_pem_file, "cert_pem_file")?;
            let key = text::str_in(key_pem_file, "key_pem_file")?;
            Ok::<_, FfiError>(s.set_client_certificate(cert.as_ref(), key.as_ref())?)
        })
    })
}

/// Sends through the proxy at `proxy_url` ("http://proxy:3128",
/// "http://user:password@proxy:3128", "socks5://..."; no scheme means
/// http://), or through none for "", whatever the environment and NO_PROXY
/// say. By default curl's variables are followed: $https_proxy or
/// $http_proxy by the endpoint's scheme, else $all_proxy, and $no_proxy
/// ("host", ".domain", "host:port", "10.0.0.0/8", "*"), each also in upper
/// case. Credentials in the URL go as Proxy-Authorization, never into the
/// last error or log lines. An unusable URL: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_proxy(
    client: *mut chatwire_client,
    proxy_url: *const c_char,
) -> chatwire_status {
    // SAFETY: `proxy_url` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            Ok::<_, FfiError>(s.set_proxy(text::str_in(proxy_url, "proxy_url")?)?)
        })
    })
}

/// Sends to `url`, the whole URL as given (path and query kept), for routes
/// other than {base}/v1/chat/completions, such as Gemini's
/// "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions";
/// the credential goes there too. Not http(s)://, a user name or password,
/// or a fragment: CHATWIRE_ERR_CONFIG.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_endpoint_url(
    client: *mut chatwire_client,
    url: *const c_char,
) -> chatwire_status {
    // SAFETY: `url` is NULL or NUL-terminated (the C conventions).
    boundary::status(|| unsafe {
        set(client, |s| {
            Ok::<_, FfiError>(s.set_endpoint_url(text::str_in(url, "url")?)?)
        })
    })
}

/// Sets where the key or a credential callback's token goes, a
/// chatwire_auth: CHATWIRE_AUTH_BEARER ("Authorization: Bearer KEY", the
/// default), CHATWIRE_AUTH_API_KEY ("api-key: KEY", the default for the key
/// of chatwire_client_new_azure()) or CHATWIRE_AUTH_NONE (none at all).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_auth(
    client: *mut chatwire_client,
    auth: c_int,
) -> chatwire_status {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| s.set_auth(auth_from_c(auth)?)) })
}

/// Asks `callback` (see chatwire_credential_callback) for the credential
/// before every attempt instead of sending the key: for short-lived tokens
/// such as Entra ID's, sent as "Authorization: Bearer TOKEN" unless
/// chatwire_client_set_auth() says otherwise. NULL goes back to the key.
/// Tokens are secrets: never in the last error or log lines, taken out of
/// what a server echoes. `userdata` and the callback stay valid until the
/// client is freed and its requests have finished. CHATWIRE_ERR_CONFIG when
/// ./.env named the endpoint (set it with chatwire_client_set_endpoint_url()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_credential_callback(
    client: *mut chatwire_client,
    callback: chatwire_credential_callback,
    userdata: *mut c_void,
) -> chatwire_status {
    let source = callback.map(|callback| CredentialSource::new(callback, userdata));
    let provider = source.map(|source| provider_of(move || source.token()));
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| s.set_credential_provider(provider)) })
}
