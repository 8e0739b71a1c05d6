//! Where a client's requests go and whom it trusts: the CA file, the
//! proxy, the endpoint URL, and the credential (where the key goes, or a
//! callback for short-lived tokens).

use std::ffi::{c_char, c_int, c_void};

use super::{chatwire_client, set};
use crate::client::provider_of;
use crate::config::Auth;
use crate::ffi::boundary;
use crate::ffi::callback::{chatwire_credential_callback, CredentialSource};
use crate::ffi::status::{chatwire_status, from_c};
use crate::ffi::text;

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
        set(client, |s| {
            Ok(s.set_ca_file(text::str_in(pem_path, "pem_path")?.as_ref())?)
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
        set(client, |s| {
            let cert = text::str_in(cert_pem_file, "cert_pem_file")?;
            let key = text::str_in(key_pem_file, "key_pem_file")?;
            Ok(s.set_client_certificate(cert.as_ref(), key.as_ref())?)
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
        set(client, |s| {
            Ok(s.set_proxy(text::str_in(proxy_url, "proxy_url")?)?)
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
        set(client, |s| {
            Ok(s.set_endpoint_url(text::str_in(url, "url")?)?)
        })
    })
}

/// Sets where the key or a callback's token goes: a chatwire_auth, default
/// CHATWIRE_AUTH_BEARER (CHATWIRE_AUTH_API_KEY for chatwire_client_new_azure()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_auth(
    client: *mut chatwire_client,
    auth: c_int,
) -> chatwire_status {
    let auths = [Auth::Bearer, Auth::ApiKey, Auth::None];
    let what = "a chatwire_auth (0 bearer, 1 api-key, 2 none)";
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_auth(from_c(auth, &auths, what)?)?)) })
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
    boundary::status(|| unsafe { set(client, |s| Ok(s.set_credential_provider(provider)?)) })
}
