//! `chatwire_models`: the server's list of models (chatwire_list_models()).

use std::ffi::c_char;

use super::boundary;
use super::client::chatwire_client;
use super::handle::{self, required};
use super::status::{chatwire_status, FfiError};
use super::text::{self, borrowed, borrowed_len, CText};
use crate::wire::models::Model;

/// The models a server offers, in its order, made by chatwire_list_models()
/// and read with chatwire_models_len(), chatwire_models_id(),
/// chatwire_models_owned_by() and chatwire_models_json(); its strings are
/// borrowed until chatwire_models_free(). It never changes: several threads
/// may read it at once.
pub struct chatwire_models {
    items: Vec<ModelView>,
}

/// One model, with its texts already NUL-terminated for C.
struct ModelView {
    // From JSON strings, which may hold U+0000: kept whole, with a `_len`
    // accessor each.
    id: CText,
    owned_by: Option<CText>,
    model: Model,
}

fn item(models: Option<&chatwire_models>, index: usize) -> Result<&ModelView, FfiError> {
    handle::item(&required(models, "models")?.items, index, "model")
}

/// Asks the server for its models: GET {base_url}/v1/models (Azure's classic
/// route: {endpoint}/openai/models?api-version=...; an endpoint URL ending in
/// /chat/completions: the same URL ending in /models, any other gives
/// CHATWIRE_ERR_CONFIG). `*models_out` owns the list (free with
/// chatwire_models_free()). Retries, timeouts, the credential, headers, proxy
/// and trust are a send's, and so are the error statuses; a body that is no
/// list gives CHATWIRE_ERR_DECODE, one over the body limit (or over 8 MiB)
/// CHATWIRE_ERR_TOO_LARGE.
#[no_mangle]
pub unsafe extern "system" fn chatwire_list_models(
    client: *mut chatwire_client,
    models_out: *mut *mut chatwire_models,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let client = handle::from_ptr(client, "client")?;
        let out = handle::out(models_out, "models_out")?;
        let items = client.snapshot().models()?.into_iter();
        let items = items.map(|model| ModelView {
            id: CText::new(&model.id),
            owned_by: model.owned_by.as_deref().map(CText::new),
            model,
        });
        *out = handle::into_c(chatwire_models {
            items: items.collect(),
        });
        Ok(())
    })
}

/// The number of models in the list.
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_len(models: Option<&chatwire_models>) -> usize {
    boundary::value(|| Ok(required(models, "models")?.items.len()))
}

/// The id of model `index`: its name, for chatwire_conversation_new();
/// borrowed until chatwire_models_free(). NULL when `index` is out of range.
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_id(
    models: Option<&chatwire_models>,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(item(models, index)?.id.as_ptr()))
}

/// The length in bytes of chatwire_models_id().
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_id_len(
    models: Option<&chatwire_models>,
    index: usize,
) -> usize {
    boundary::value(|| Ok(item(models, index)?.id.len()))
}

/// Who owns model `index` ("openai", "llamacpp", ...), borrowed until
/// chatwire_models_free(); NULL when `index` is out of range (the last error
/// says so) or when the server did not say (the last error is "").
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_owned_by(
    models: Option<&chatwire_models>,
    index: usize,
) -> *const c_char {
    boundary::value(|| Ok(borrowed(&item(models, index)?.owned_by)))
}

/// The length in bytes of chatwire_models_owned_by(); 0 when it is NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_owned_by_len(
    models: Option<&chatwire_models>,
    index: usize,
) -> usize {
    boundary::value(|| Ok(borrowed_len(&item(models, index)?.owned_by)))
}

/// The server's whole object for model `index` as JSON text (its "created",
/// and every other field it sent, keys in alphabetical order); `*json_out`
/// owns it (free with chatwire_string_free()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_json(
    models: Option<&chatwire_models>,
    index: usize,
    json_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let model = &item(models, index)?.model;
        let out = handle::out(json_out, "json_out")?;
        *out = text::string_out(&model.to_json());
        Ok(())
    })
}

/// Frees a list and every string borrowed from it.
#[no_mangle]
pub unsafe extern "system" fn chatwire_models_free(models: *mut chatwire_models) {
    // SAFETY: `models` is NULL or a live handle the caller gives up (the C conventions).
    boundary::release(|| unsafe { handle::free(models) })
}
