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

/// Trusts the CA certificates in the PEM file at `pem_path` besides the
/// system's roots, for the sends that start afterwards: a company CA, or a
/// local server's own. The file is read now; the path is copied.
///
/// By default a client trusts what the operating system trusts: its CA
/// bundle, or the files named by $SSL_CERT_FILE / $SSL_CERT_DIR when set (as
/// curl and OpenSSL read them). A certificate that is not trusted makes a
/// send fail with CHATWIRE_ERR_TLS, whose chatwire_last_error() says why.
///
/// Errors: CHATWIRE_ERR_CONFIG (the file cannot be read, holds no PEM
/// certificate, or is larger than 16 MiB; the client is unchanged),
/// CHATWIRE_ERR_NULL_ARGUMENT, CHATWIRE_ERR_INVALID_UTF8.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_ca_file(
    client: *mut chatwire_client,
    pem_path: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            Ok::<_, FfiError>(s.set_ca_file(text::str_in(pem_path, "pem_path")?.as_ref())?)
        })
    })
}

/// Shows the certificate chain in the PEM file `cert_pem_file` (the
/// client's own certificate first, then any intermediates) and its private
/// key in the PEM file `key_pem_file` (PKCS#8, RSA or EC, not encrypted) to
/// servers that ask for a client certificate (mutual TLS), for the sends
/// that start afterwards. Both files are read now; the paths are copied.
/// Servers that do not ask never see the certificate.
///
/// A server that requires a certificate and gets none, or refuses the one
/// given, makes a send fail with CHATWIRE_ERR_TLS, whose
/// chatwire_last_error() says so. The key's text never appears in
/// chatwire_last_error() or in log lines, which name the files only.
///
/// Errors: CHATWIRE_ERR_CONFIG (a file cannot be read or is larger than
/// 16 MiB, `cert_pem_file` holds no PEM certificate, `key_pem_file` holds
/// not exactly one PEM private key, or the key is not the first
/// certificate's; chatwire_last_error() names the file; the client is
/// unchanged), CHATWIRE_ERR_NULL_ARGUMENT, CHATWIRE_ERR_INVALID_UTF8.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_client_certificate(
    client: *mut chatwire_client,
    cert_pem_file: *const c_char,
    key_pem_file: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            let cert = text::str_in(cert_pem_file, "cert_pem_file")?;
            let key = text::str_in(key_pem_file, "key_pem_file")?;
            Ok::<_, FfiError>(s.set_client_certificate(cert.as_ref(), key.as_ref())?)
        })
    })
}

/// Sends the requests that start afterwards through the proxy at
/// `proxy_url` ("http://proxy:3128", "http://user:password@proxy:3128",
/// "socks5://..."; without a scheme, http:// is meant), or through none when
/// `proxy_url` is "", whatever the environment says.
///
/// By default a client follows curl's conventions: an https:// endpoint
/// uses $https_proxy / $HTTPS_PROXY, a plain http:// one $http_proxy /
/// $HTTP_PROXY, either falls back to $all_proxy / $ALL_PROXY, and
/// $no_proxy / $NO_PROXY lists hosts reached directly ("host", ".domain"
/// or "domain" for the domain and the names under it, "host:port", IP
/// addresses and ranges such as "10.0.0.0/8", "*" for all). A proxy set
/// here is used whatever NO_PROXY says. https:// goes through a CONNECT
/// tunnel, http:// to the proxy in absolute form. Credentials in the URL
/// are sent as Proxy-Authorization and never appear in chatwire_last_error()
/// or log lines.
///
/// Errors: CHATWIRE_ERR_CONFIG (an unusable URL; the client is unchanged),
/// CHATWIRE_ERR_NULL_ARGUMENT, CHATWIRE_ERR_INVALID_UTF8.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_proxy(
    client: *mut chatwire_client,
    proxy_url: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            Ok::<_, FfiError>(s.set_proxy(text::str_in(proxy_url, "proxy_url")?)?)
        })
    })
}

/// Sends the requests that start afterwards to `url`, the whole URL, used
/// as given: path and query kept, nothing added. For routes other than
/// {base}/v1/chat/completions: Gemini's
/// "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
/// a gateway's own path ("https://gw.example/tenant/7/chat?route=fast").
/// The client keeps its credential: the URL is the caller's own choice, so
/// any key may go there. The string is copied.
///
/// Errors: CHATWIRE_ERR_CONFIG (not http(s)://, a user name or password in
/// it, a fragment; the client is unchanged), CHATWIRE_ERR_NULL_ARGUMENT,
/// CHATWIRE_ERR_INVALID_UTF8.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_endpoint_url(
    client: *mut chatwire_client,
    url: *const c_char,
) -> chatwire_status {
    boundary::status(|| unsafe {
        set(client, |s| {
            Ok::<_, FfiError>(s.set_endpoint_url(text::str_in(url, "url")?)?)
        })
    })
}

/// Sets where the credential goes, for the sends that start afterwards:
/// CHATWIRE_AUTH_BEARER ("Authorization: Bearer KEY", the default),
/// CHATWIRE_AUTH_API_KEY ("api-key: KEY", the default for the key of
/// chatwire_client_new_azure()) or CHATWIRE_AUTH_NONE (no credential at
/// all), passed as an int. It applies to the key and to a credential
/// callback's tokens alike. Another value gives
/// CHATWIRE_ERR_INVALID_ARGUMENT and changes nothing.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_auth(
    client: *mut chatwire_client,
    auth: c_int,
) -> chatwire_status {
    boundary::status(|| unsafe { set(client, |s| s.set_auth(auth_from_c(auth)?)) })
}

/// Asks `callback` for the credential before every attempt of the sends
/// that start afterwards (retries included), instead of sending the key:
/// for short-lived tokens such as Entra ID's. The token goes as
/// "Authorization: Bearer TOKEN" unless chatwire_client_set_auth() said
/// otherwise (also on a client from chatwire_client_new_azure(), as
/// Entra ID expects). A NULL `callback` goes back to the key (none if the
/// client was made with "").
///
/// See chatwire_credential_callback for how it gives the token, which
/// threads call it, and what a failure does. Every token it gives is a
/// secret: never in chatwire_last_error() or log lines, and taken out of
/// whatever a server echoes. `userdata` must stay valid, and the callback
/// callable, until the client is freed and every request started from it
/// has finished.
///
/// Errors: CHATWIRE_ERR_CONFIG when ./.env named the endpoint (a
/// credential of the program's own is never sent to a host from ./.env; set
/// the URL with chatwire_client_set_endpoint_url() first),
/// CHATWIRE_ERR_NULL_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_set_credential_callback(
    client: *mut chatwire_client,
    callback: chatwire_credential_callback,
    userdata: *mut c_void,
) -> chatwire_status {
    let source = callback.map(|callback| CredentialSource::new(callback, userdata));
    let provider = source.map(|source| provider_of(move || source.token()));
    boundary::status(|| unsafe { set(client, |s| s.set_credential_provider(provider)) })
}
