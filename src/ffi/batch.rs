//! `chatwire_batch`: many conversations' requests as one job for a
//! provider's Batch API (the Rust API's `Batch`), and its results.

use std::ffi::{c_char, c_int};
use std::sync::{Mutex, MutexGuard, TryLockError};

use super::boundary;
use super::client::chatwire_client;
use super::conversation::chatwire_conversation;
use super::handle::{self, required};
use super::reply::chatwire_reply;
use super::status::{chatwire_status, FfiError};
use super::text::{self, CText};
use crate::batch::{Batch, BatchState};
use crate::error::Error;

/// Many conversations' requests as one job, run by the provider's Batch API
/// or any engine that reads the same input file (vLLM's run-batch). Made by
/// chatwire_batch_new() or chatwire_batch_open(), filled with
/// chatwire_batch_add(), run with chatwire_batch_submit(),
/// chatwire_batch_refresh(), chatwire_batch_cancel() and
/// chatwire_batch_fetch_results() (or chatwire_batch_read_results()), its
/// results given by chatwire_batch_apply(); freed by chatwire_batch_free().
/// One thread at a time: a call on it while another runs is refused with
/// CHATWIRE_ERR_INVALID_ARGUMENT.
pub struct chatwire_batch {
    held: Mutex<Held>,
}

/// The batch and the copy of its id that chatwire_batch_id() lends.
struct Held {
    batch: Batch,
    id: Option<CText>,
}

/// The state of a batch, as chatwire_batch_refresh() gives it.
#[repr(C)]
pub enum chatwire_batch_state {
    /// The input file is being checked.
    CHATWIRE_BATCH_VALIDATING = 0,
    /// The requests are running.
    CHATWIRE_BATCH_IN_PROGRESS = 1,
    /// Every request has run; the result files are being written.
    CHATWIRE_BATCH_FINALIZING = 2,
    /// Done: fetch the results.
    CHATWIRE_BATCH_COMPLETED = 3,
    /// The input file was refused (chatwire_batch_errors() says why); nothing ran.
    CHATWIRE_BATCH_FAILED = 4,
    /// The 24 hours ran out: what ran has results, the rest none.
    CHATWIRE_BATCH_EXPIRED = 5,
    /// Cancelled; the requests under way are finishing.
    CHATWIRE_BATCH_CANCELLING = 6,
    /// Cancelled: what ran has results, the rest none.
    CHATWIRE_BATCH_CANCELLED = 7,
}

/// The chatwire_batch_state of a state, as C reads it.
fn state_to_c(state: BatchState) -> c_int {
    use chatwire_batch_state::*;
    let state = match state {
        BatchState::Validating => CHATWIRE_BATCH_VALIDATING,
        BatchState::InProgress => CHATWIRE_BATCH_IN_PROGRESS,
        BatchState::Finalizing => CHATWIRE_BATCH_FINALIZING,
        BatchState::Completed => CHATWIRE_BATCH_COMPLETED,
        BatchState::Failed => CHATWIRE_BATCH_FAILED,
        BatchState::Expired => CHATWIRE_BATCH_EXPIRED,
        BatchState::Cancelling => CHATWIRE_BATCH_CANCELLING,
        BatchState::Cancelled => CHATWIRE_BATCH_CANCELLED,
    };
    state as c_int
}

impl chatwire_batch {
    fn into_c(batch: Batch) -> *mut chatwire_batch {
        let id = batch.id().map(CText::new);
        handle::into_c(chatwire_batch {
            held: Mutex::new(Held { batch, id }),
        })
    }

    /// The batch, unless another call holds it.
    fn lock(&self) -> Result<MutexGuard<'_, Held>, FfiError> {
        match self.held.try_lock() {
            Ok(held) => Ok(held),
            // The core changes a batch only once a call has succeeded.
            Err(TryLockError::Poisoned(poisoned)) => Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => Err(Error::InvalidArgument(
                "the batch is in use by a call that has not returned (on another thread)".into(),
            )
            .into()),
        }
    }
}

/// Runs `change` on the batch behind `batch` (unsafe: NULL or live), then
/// lends the batch's id once it has one.
unsafe fn changing<T>(
    batch: *mut chatwire_batch,
    change: impl FnOnce(&mut Batch) -> Result<T, FfiError>,
) -> Result<T, FfiError> {
    // SAFETY: `batch` is NULL or a live handle (the C conventions).
    let mut held = unsafe { handle::from_ptr(batch, "batch")? }.lock()?;
    let outcome = change(&mut held.batch);
    // A batch's id is given once (by the submit) and never changes.
    if held.id.is_none() {
        held.id = held.batch.id().map(CText::new);
    }
    outcome
}

/// Makes an empty batch; `*batch_out` owns it (free with chatwire_batch_free()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_new(
    batch_out: *mut *mut chatwire_batch,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let out = handle::out(batch_out, "batch_out")?;
        *out = chatwire_batch::into_c(Batch::new());
        Ok(())
    })
}

/// Adds, under `custom_id` (unique within the batch), the request that a
/// send of this conversation through this client would make now: the same
/// body, byte for byte, and the same API (an Azure client's batch uses
/// Azure's routes). The conversation is not changed. A conversation that
/// cannot be sent fails as a send would; an empty or repeated `custom_id`, a
/// submitted batch, or a client whose requests go elsewhere than the batch's
/// give CHATWIRE_ERR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_add(
    batch: *mut chatwire_batch,
    client: *const chatwire_client,
    custom_id: *const c_char,
    conversation: *const chatwire_conversation,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        changing(batch, |batch| {
            let client = handle::from_ptr(client, "client")?.snapshot();
            let custom_id = text::str_in(custom_id, "custom_id")?;
            let held = chatwire_conversation::hold(conversation)?;
            Ok(batch.add(&client, custom_id, held.guard.conversation())?)
        })
    })
}

/// The number of requests added; 0 for NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_len(batch: Option<&chatwire_batch>) -> usize {
    boundary::value(|| Ok(required(batch, "batch")?.lock()?.batch.len()))
}

/// The batch input file: JSONL, one {"custom_id", "method": "POST", "url",
/// "body"} line per request, in the order added; `*jsonl_out` owns it (free
/// with chatwire_string_free()). Past OpenAI's limits of 50,000 requests or
/// 200 MB (200,000,000 bytes) per file: CHATWIRE_ERR_TOO_LARGE.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_to_jsonl(
    batch: Option<&chatwire_batch>,
    jsonl_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let held = required(batch, "batch")?.lock()?;
        let out = handle::out(jsonl_out, "jsonl_out")?;
        *out = text::string_out(&held.batch.to_jsonl()?);
        Ok(())
    })
}

/// Uploads the input file (POST /v1/files, purpose "batch") and creates the
/// batch (POST /v1/batches, completion window "24h"); the batch keeps its
/// id. The upload is retried as a send is, the create is not: after a
/// failure, calling this again creates the batch from the file uploaded.
/// The client's timeout covers the whole upload.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_submit(
    client: *mut chatwire_client,
    batch: *mut chatwire_batch,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let client = handle::from_ptr(client, "client")?.snapshot();
        changing(batch, |batch| Ok(client.submit_batch(batch)?))
    })
}

/// A batch submitted earlier, perhaps by another run of the program, by its
/// id; `*batch_out` owns it (free with chatwire_batch_free()). Its results
/// apply to conversations as they are now.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_open(
    batch_id: *const c_char,
    batch_out: *mut *mut chatwire_batch,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let id = text::str_in(batch_id, "batch_id")?;
        let out = handle::out(batch_out, "batch_out")?;
        *out = chatwire_batch::into_c(Batch::open(id)?);
        Ok(())
    })
}

/// The provider's id of the batch; NULL before it is submitted (the last
/// error is then ""). Borrowed until the batch changes or is freed.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_id(batch: Option<&chatwire_batch>) -> *const c_char {
    boundary::value(|| Ok(text::borrowed(&required(batch, "batch")?.lock()?.id)))
}

/// Asks the provider where the batch stands (GET /v1/batches/{id}):
/// `*state_out` is one of the CHATWIRE_BATCH_* states; the counts, the result
/// files and the validation errors (chatwire_batch_errors()) are updated.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_refresh(
    client: *mut chatwire_client,
    batch: *mut chatwire_batch,
    state_out: *mut c_int,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let client = handle::from_ptr(client, "client")?.snapshot();
        let out = handle::out(state_out, "state_out")?;
        let state = changing(batch, |batch| Ok(client.refresh_batch(batch)?))?;
        *out = state_to_c(state);
        Ok(())
    })
}

/// The request counts of the last refresh (0 before one); each
/// out-parameter may be NULL.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_counts(
    batch: Option<&chatwire_batch>,
    completed: *mut u64,
    failed: *mut u64,
    total: *mut u64,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        handle::write_optional([completed, failed, total], counts(batch)?);
        Ok(())
    })
}

/// The counts of chatwire_batch_counts(): completed, failed, total.
pub(super) fn counts(batch: Option<&chatwire_batch>) -> Result<[u64; 3], FfiError> {
    let counts = required(batch, "batch")?.lock()?.batch.counts();
    Ok([counts.completed, counts.failed, counts.total])
}

/// Why the provider refused the input file when the last refresh found the
/// batch CHATWIRE_BATCH_FAILED, one error a line ("line 3: ... (code ...)");
/// "" otherwise. `*errors_out` owns it (free with chatwire_string_free()).
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_errors(
    batch: Option<&chatwire_batch>,
    errors_out: *mut *mut c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let held = required(batch, "batch")?.lock()?;
        let out = handle::out(errors_out, "errors_out")?;
        *out = text::string_out(&held.batch.errors().join("\n"));
        Ok(())
    })
}

/// Cancels the batch (POST /v1/batches/{id}/cancel); refresh until
/// CHATWIRE_BATCH_CANCELLED, then fetch what ran.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_cancel(
    client: *mut chatwire_client,
    batch: *mut chatwire_batch,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let client = handle::from_ptr(client, "client")?.snapshot();
        changing(batch, |batch| Ok(client.cancel_batch(batch).map(drop)?))
    })
}

/// Refreshes the batch and, once it has ended (completed, expired,
/// cancelled: whatever ran), downloads its output and error files (GET
/// /v1/files/{id}/content, each up to 1 GiB), in place of the results read
/// before. A batch still running gives
/// CHATWIRE_ERR_INVALID_ARGUMENT; a malformed line CHATWIRE_ERR_DECODE
/// naming it, the other results kept.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_fetch_results(
    client: *mut chatwire_client,
    batch: *mut chatwire_batch,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let client = handle::from_ptr(client, "client")?.snapshot();
        changing(batch, |batch| Ok(client.fetch_batch_results(batch)?))
    })
}

/// Reads an output (or error) file obtained another way (vllm run-batch, a
/// provider's console); results may come in any order. A malformed line
/// gives CHATWIRE_ERR_DECODE naming it, and the other results are kept.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_read_results(
    batch: *mut chatwire_batch,
    output_jsonl: *const c_char,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        changing(batch, |batch| {
            let jsonl = text::str_in(output_jsonl, "output_jsonl")?;
            Ok(batch.read_results(jsonl)?)
        })
    })
}

/// The result for `custom_id`, appended to the conversation exactly as a
/// send would have appended it; `*reply_out` (may be NULL) owns the reply as
/// chatwire_send_reply() gives it. A request that failed gives the status a
/// send would have given, with the last error; one without a result (never
/// run, expired) gives CHATWIRE_ERR_UNAVAILABLE. Either way the conversation
/// is unchanged.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_apply(
    batch: Option<&chatwire_batch>,
    custom_id: *const c_char,
    conversation: *mut chatwire_conversation,
    reply_out: *mut *mut chatwire_reply,
) -> chatwire_status {
    // SAFETY: each pointer is NULL or valid (the C conventions).
    boundary::status(|| unsafe {
        let held = required(batch, "batch")?.lock()?;
        let custom_id = text::str_in(custom_id, "custom_id")?;
        let mut conversation = chatwire_conversation::hold(conversation)?;
        let apply = |conversation: &mut _| held.batch.apply(custom_id, conversation);
        let reply = conversation.guard.change(apply)?;
        if let Some(out) = reply_out.as_mut() {
            *out = handle::into_c(chatwire_reply::new(reply));
        }
        Ok(())
    })
}

/// Frees a batch and its results; NULL is ignored.
#[no_mangle]
pub unsafe extern "system" fn chatwire_batch_free(batch: *mut chatwire_batch) {
    // SAFETY: `batch` is NULL or a live handle the caller gives up (the C conventions).
    boundary::release(|| unsafe { handle::free(batch) })
}
