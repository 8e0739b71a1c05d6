//! A [`Batch`] through a client: its requests made as the client's sends
//! would be ([`Batch::add`]), and the Files and Batches APIs that run it
//! (`POST /v1/files`, `POST /v1/batches`, `GET /v1/batches/{id}`,
//! `POST /v1/batches/{id}/cancel`, `GET /v1/files/{id}/content`), as
//! OpenAI's API reference describes them (Azure: the same beside its
//! endpoint). Each request travels as a send does; the errors are a send's.

use crate::batch::{Batch, BatchState};
use crate::config::{self, Settings, MAX_BATCH_OBJECT_BYTES, MAX_BATCH_RESULTS_BYTES};
use crate::conversation::budget::LeftOut;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::http::post::Received;
use crate::http::upload::{self, FilePart};
use crate::wire::batch::{self as wire_batch, BatchObject, CreateBatch, FileObject};
use crate::wire::request::Delivery;

use super::{Client, Outgoing};

/// The input file's part of the upload form.
const INPUT_FILE: FilePart<'static> = FilePart {
    name: "file",
    filename: "batch.jsonl",
    content_type: "application/jsonl",
};

/// The only completion window the providers take.
const COMPLETION_WINDOW: &str = "24h";

impl Batch {
    /// Adds, under `custom_id` (unique within the batch), the request that a
    /// send of `conversation` through `client` would make now: the same
    /// body, byte for byte (options, tools, attachments, what the token
    /// budget leaves out, reasoning sent back), to the URL of the client's
    /// API (Azure's for an Azure client). The conversation is not changed.
    /// A conversation that cannot be sent fails as a send would; an empty or
    /// repeated `custom_id`, a batch already submitted, or a client whose
    /// requests go to another URL than the batch's, with
    /// [`Error::InvalidArgument`].
    pub fn add(
        &mut self,
        client: &Client,
        custom_id: &str,
        conversation: &Conversation,
    ) -> Result<()> {
        let api = client.api();
        let (body, trim) = Outgoing::plan(conversation)?.encoded(api, Delivery::Whole)?;
        let url = config::batch_line_url(client.endpoint(), api);
        self.push(custom_id, url, body, LeftOut::new(conversation.len(), trim))
    }
}

impl Client {
    /// Uploads the batch's input file (`POST /v1/files`, a multipart form
    /// with purpose `batch`) and creates the batch (`POST /v1/batches`,
    /// completion window `24h`); the batch then has its [`id`](Batch::id)
    /// and state. The input file is checked first ([`Batch::to_jsonl`]'s
    /// limits). The upload is retried as a send is (a retry after a lost
    /// answer leaves an unused file); the create is not (it could start the
    /// batch twice): after a failure, calling this again creates the batch
    /// from the file already uploaded. The whole-request timeout covers the
    /// upload: set one long enough for the file.
    pub fn submit_batch(&self, batch: &mut Batch) -> Result<()> {
        if let Some(id) = batch.id() {
            let why = format!("the batch was submitted already, as {id}");
            return Err(Error::InvalidArgument(why));
        }
        let endpoint = batch
            .url()
            .ok_or_else(|| Error::InvalidArgument("the batch has no requests".into()))?;
        let input_file_id = match batch.input_file_id.clone() {
            Some(id) => id,
            None => {
                let id = self.upload_input(batch)?;
                batch.input_file_id = Some(id.clone());
                id
            }
        };
        let create = CreateBatch {
            input_file_id: &input_file_id,
            endpoint,
            completion_window: COMPLETION_WINDOW,
        };
        let body = serde_json::to_vec(&create).unwrap_or_default();
        let mut once = self.object_settings();
        once.max_retries = 0;
        let received = self.batch_post("batches", &body, &once)?;
        self.lend_secrets(batch);
        batch.update(wire_batch::decode(&received.body, "a batch object")?)?;
        Ok(())
    }

    /// Uploads the input file, written straight into the form; its file id.
    fn upload_input(&self, batch: &Batch) -> Result<String> {
        let form = upload::file_form(&[("purpose", "batch")], &INPUT_FILE, |out| {
            batch.write_jsonl(out)
        })?;
        let url = config::batch_api_url(self.endpoint(), "files")?;
        let received = self.redacted(self.pool.post_to(
            &url,
            &form.bytes,
            Some(&form.content_type),
            &self.object_settings(),
        ))?;
        let file: FileObject = wire_batch::decode(&received.body, "a file object")?;
        Ok(file.id)
    }

    /// Asks the provider where the batch stands (`GET /v1/batches/{id}`):
    /// its state, its [`counts`](Batch::counts), its result files, and, when
    /// it [`Failed`](BatchState::Failed), the validation
    /// [`errors`](Batch::errors). A batch neither submitted nor opened is an
    /// [`Error::InvalidArgument`].
    pub fn refresh_batch(&self, batch: &mut Batch) -> Result<BatchState> {
        let route = format!("batches/{}", Self::batch_id(batch)?);
        let url = config::batch_api_url(self.endpoint(), &route)?;
        let received = self.redacted(self.pool.get(&url, &self.object_settings()))?;
        self.lend_secrets(batch);
        batch.update(Self::batch_object(&received)?)
    }

    /// Cancels the batch (`POST /v1/batches/{id}/cancel`); the state comes
    /// back [`Cancelling`](BatchState::Cancelling), then
    /// [`Cancelled`](BatchState::Cancelled), with the results of what ran.
    pub fn cancel_batch(&self, batch: &mut Batch) -> Result<BatchState> {
        let route = format!("batches/{}/cancel", Self::batch_id(batch)?);
        let received = self.batch_post(&route, b"", &self.object_settings())?;
        self.lend_secrets(batch);
        batch.update(Self::batch_object(&received)?)
    }

    /// Refreshes the batch and, once it has ended (completed, expired,
    /// cancelled: whatever ran), downloads its output and error files
    /// (`GET /v1/files/{id}/content`, each up to [`MAX_BATCH_RESULTS_BYTES`])
    /// and reads them as [`Batch::read_results`] does, in place of the
    /// results read before; then [`Batch::apply`] gives each result. A
    /// batch still running is an [`Error::InvalidArgument`] naming its state.
    pub fn fetch_batch_results(&self, batch: &mut Batch) -> Result<()> {
        let state = self.refresh_batch(batch)?;
        if !state.has_ended() {
            return Err(Error::InvalidArgument(format!(
                "the batch is {}: its results come once it has ended",
                state.as_str()
            )));
        }
        let mut settings = self.settings.clone();
        settings.limits.body = MAX_BATCH_RESULTS_BYTES;
        let files = [batch.output_file_id.clone(), batch.error_file_id.clone()];
        batch.clear_results();
        let mut first_error = None;
        for file in files.into_iter().flatten() {
            let route = format!("files/{}/content", config::path_segment(&file));
            let url = config::batch_api_url(self.endpoint(), &route)?;
            let received = self.redacted(self.pool.get(&url, &settings))?;
            // A malformed line spoils neither the other lines nor the other file.
            if let Err(error) = batch.read_results(received.body) {
                first_error.get_or_insert(error.redact(&self.pool.secrets(&self.settings)));
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// POSTs a JSON body to a route of the Batches API.
    fn batch_post(&self, route: &str, body: &[u8], settings: &Settings) -> Result<Received> {
        let url = config::batch_api_url(self.endpoint(), route)?;
        self.redacted(self.pool.post_to(&url, body, None, settings))
    }

    /// The settings of a request for a file or batch object: a send's, with
    /// at most [`MAX_BATCH_OBJECT_BYTES`] of body.
    fn object_settings(&self) -> Settings {
        let mut settings = self.settings.clone();
        settings.limits.body = settings.limits.body.min(MAX_BATCH_OBJECT_BYTES);
        settings
    }

    /// The batch's id as a segment of a URL path.
    fn batch_id(batch: &Batch) -> Result<String> {
        let id = batch.id().ok_or_else(|| {
            Error::InvalidArgument("the batch was neither submitted nor opened".into())
        })?;
        Ok(config::path_segment(id))
    }

    fn batch_object(received: &Received) -> Result<BatchObject> {
        wire_batch::decode(&received.body, "a batch object")
    }

    /// Gives the batch this client's secrets (read after a request, since a
    /// credential callback's tokens are among them), for the errors of its
    /// results and its validation.
    fn lend_secrets(&self, batch: &mut Batch) {
        batch.secrets = self.pool.secrets(&self.settings);
    }

    /// The outcome, an error cleaned of secrets, as a send's is.
    fn redacted<T>(&self, outcome: Result<T>) -> Result<T> {
        outcome.map_err(|error| error.redact(&self.pool.secrets(&self.settings)))
    }
}
