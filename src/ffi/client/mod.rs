//! `chatwire_client`; its setters in [`settings`].

pub(super) mod settings;

use std::ffi::c_char;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::client::{Client, ClientBuilder, Config};
use crate::ffi::boundary;
use crate::ffi::handle;
use crate::ffi::status::{chatwire_status, FfiError};
use crate::ffi::text;

/// A connection to one chat completions endpoint with one API key, made by
/// chatwire_client_new(), freed by chatwire_client_free(). Several threads may
/// use one client at once (with a conversation each); connections are pooled.
/// Setters affect the sends that start after them.
pub struct chatwire_client {
    /// The configuration the setters change; held while a setter makes the
    /// next client from it, so that no setter loses another's change.
    config: Mutex<Config>,
    /// The client sends use; a send takes a copy and holds no lock while it runs.
    client: RwLock<Arc<Client>>,
}

impl chatwire_client {
    /// The client as it is now, for one send.
    pub(crate) fn snapshot(&self) -> Arc<Client> {
        Arc::clone(&self.client.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What every setter does: the client behind `client` (unsafe: NULL or
/// live) is checked for NULL first, then `change` changes a copy of its
/// configuration, the copy is validated and made the client that sends
/// starting afterwards use; on failure nothing changes.
pub(super) unsafe fn set(
    client: *const chatwire_client,
    change: impl FnOnce(&mut Config) -> Result<(), FfiError>,
) -> Result<(), FfiError> {
    // SAFETY: `client` is NULL or a live handle (the C conventions).
    let client = unsafe { handle::from_ptr(client, "client")? };
    let mut config = client.config.lock().unwrap_or_else(PoisonError::into_inner);
    let mut next = config.clone();
    change(&mut next)?;
    let new = Client::from_config(&mut next, Some(&client.snapshot()))?;
    *config = next;
    *client
        .client
        .write()
        .unwrap_or_else(PoisonError::into_inner) = Arc::new(new);
    Ok(())
}

/// Creates a client in `*client_out` for {base_url}/v1/chat/completions.
/// NULL `base_url` or `api_key`: $OPENAI_BASE_URL or $OPENAI_API_KEY, then
/// ./.env, else "https://api.openai.com" or CHATWIRE_ERR_MISSING_API_KEY; an
/// `api_key` of "" means none. A key from an argument or the environment never
/// goes to a base URL from ./.env: CHATWIRE_ERR_CONFIG (docs/configuration.md).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_new(
    base_url: *const c_char,
    api_key: *const c_char,
    client_out: *mut *mut chatwire_client,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let base_url = text::opt_str_in(base_url, "base_url")?;
        let api_key = text::opt_str_in(api_key, "api_key")?;
        let out = handle::out(client_out, "client_out")?;
        let builder = base_url.map_or_else(Client::builder, |url| Client::builder().base_url(url));
        build_into(builder, api_key, out)
    })
}

/// Builds the client, with the key when one was passed, and hands it to C.
fn build_into(
    mut builder: ClientBuilder,
    api_key: Option<&str>,
    out: &mut *mut chatwire_client,
) -> Result<(), FfiError> {
    if let Some(api_key) = api_key {
        builder = builder.api_key(api_key);
    }
    let mut config = builder.into_config();
    let client = RwLock::new(Arc::new(Client::from_config(&mut config, None)?));
    let config = Mutex::new(config);
    *out = handle::into_c(chatwire_client { config, client });
    Ok(())
}

/// Frees a client, once no call that uses it runs.
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_free(client: *mut chatwire_client) {
    // SAFETY: `client` is NULL or a live handle the caller gives up (the C conventions).
    boundary::release(|| unsafe { handle::free(client) })
}

/// Creates in `*client_out` a client for Azure OpenAI's classic route
/// (deployment required, the key in "api-key"). NULL `endpoint`, `api_version`
/// or `api_key`: $AZURE_OPENAI_ENDPOINT, $OPENAI_API_VERSION (else
/// "2024-10-21"), $AZURE_OPENAI_API_KEY, then ./.env, as chatwire_client_new()
/// reads it (docs/providers.md; the /openai/v1 route needs chatwire_client_new()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_client_new_azure(
    endpoint: *const c_char,
    deployment: *const c_char,
    api_version: *const c_char,
    api_key: *const c_char,
    client_out: *mut *mut chatwire_client,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let endpoint = text::opt_str_in(endpoint, "endpoint")?;
        let deployment = text::str_in(deployment, "deployment")?;
        let api_version = text::opt_str_in(api_version, "api_version")?;
        let api_key = text::opt_str_in(api_key, "api_key")?;
        let out = handle::out(client_out, "client_out")?;
        let mut builder = match endpoint {
            Some(endpoint) => Client::builder().azure(endpoint, deployment),
            None => Client::builder().azure_from_env(deployment),
        };
        if let Some(api_version) = api_version {
            builder = builder.api_version(api_version);
        }
        build_into(builder, api_key, out)
    })
}
