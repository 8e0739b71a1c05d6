//! [`Batch`]: many conversations' requests as one job for a provider's Batch
//! API, and their results. The requests are added and the batch is
//! submitted, followed and fetched by a [`Client`](crate::Client)
//! (`client/batch.rs`); this module holds what a batch is and knows, with no
//! I/O: its input file, its state, and its results applied to conversations.

mod results;
mod state;

use std::collections::HashMap;
use std::fmt;

use crate::config::{MAX_BATCH_FILE_BYTES, MAX_BATCH_REQUESTS};
use crate::conversation::budget::LeftOut;
use crate::conversation::Conversation;
use crate::error::{Error, Result, BATCH_REQUESTS};
use crate::reply::Reply;
use crate::secrets::Secrets;
use crate::wire::batch::{self as wire_batch, BatchObject};

pub use state::{BatchCounts, BatchState};

/// Many conversations' requests as one job, run by the provider's Batch API
/// (`/v1/files` and `/v1/batches`) at its batch price, or by any engine that
/// reads the same input file (vLLM's `run-batch`); docs/batches.md says when
/// and how.
///
/// ```no_run
/// use chatwire::{Batch, BatchState, Client, Conversation};
/// let client = Client::from_env()?;
/// let mut questions = Vec::new();
/// let mut batch = Batch::new();
/// for (n, question) in ["Name a colour.", "Name a bird."].into_iter().enumerate() {
///     let mut conversation = Conversation::new("gpt-4o-mini");
///     conversation.user(question)?;
///     batch.add(&client, &format!("q{n}"), &conversation)?;
///     questions.push(conversation);
/// }
/// client.submit_batch(&mut batch)?;
/// println!("submitted {}", batch.id().unwrap_or_default());
/// while !client.refresh_batch(&mut batch)?.has_ended() {
///     std::thread::sleep(std::time::Duration::from_secs(60));
/// }
/// client.fetch_batch_results(&mut batch)?;
/// for (n, conversation) in questions.iter_mut().enumerate() {
///     match batch.apply(&format!("q{n}"), conversation) {
///         Ok(reply) => println!("q{n}: {}", reply.content()),
///         Err(error) => println!("q{n}: {error}"),
///     }
/// }
/// # Ok::<(), chatwire::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Batch {
    requests: Vec<Request>,
    /// Each request's place in `requests`, by its `custom_id`.
    by_id: HashMap<String, usize>,
    /// The `url` of every line, from the client of the first request.
    url: Option<&'static str>,
    /// The provider's id of the batch, once submitted or opened.
    id: Option<String>,
    /// The uploaded input file, kept so that a failed create is tried
    /// again without uploading twice.
    pub(crate) input_file_id: Option<String>,
    state: Option<BatchState>,
    counts: BatchCounts,
    pub(crate) output_file_id: Option<String>,
    pub(crate) error_file_id: Option<String>,
    errors: Vec<String>,
    results: results::Results,
    /// The secrets of the client that last fetched for the batch, taken out
    /// of the errors it gives, as a send's are.
    pub(crate) secrets: Secrets,
}

impl fmt::Debug for Batch {
    /// The batch's standing, without its requests' bodies or its results.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("id", &self.id)
            .field("requests", &self.requests.len())
            .field("url", &self.url)
            .field("state", &self.state)
            .field("counts", &self.counts)
            .field("results", &self.results.len())
            .finish_non_exhaustive()
    }
}

/// One request: its id, the body a send would post, and what that body
/// leaves out of its conversation (for the append).
#[derive(Debug, Clone)]
struct Request {
    custom_id: String,
    body: Box<[u8]>,
    left_out: LeftOut,
}

impl Batch {
    /// An empty batch, to [`add`](Self::add) requests to.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// A batch submitted earlier, perhaps by another run of the program, by
    /// its id (`batch_...`): [`Client::refresh_batch`](crate::Client::refresh_batch)
    /// and [`Client::fetch_batch_results`](crate::Client::fetch_batch_results)
    /// work on it; its results apply to conversations as they are now (one
    /// loaded with [`Conversation::from_json`], say). An empty id is an
    /// [`Error::InvalidArgument`].
    pub fn open(batch_id: &str) -> Result<Batch> {
        if batch_id.trim().is_empty() {
            return Err(Error::InvalidArgument("the batch id is empty".into()));
        }
        Ok(Batch {
            id: Some(batch_id.to_owned()),
            ..Batch::default()
        })
    }

    /// How many requests were added.
    pub fn len(&self) -> usize {
        self.requests.len()
    }

    /// Whether no request was added.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    /// The provider's id of the batch; `None` before it is submitted.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The state the last refresh found; `None` before any.
    pub fn state(&self) -> Option<BatchState> {
        self.state
    }

    /// The request counts of the last refresh (all 0 before any).
    pub fn counts(&self) -> BatchCounts {
        self.counts
    }

    /// Why the provider refused the input file, one text per error
    /// (`line 3: ... (code ...)`), when the last refresh found the batch
    /// [`Failed`](BatchState::Failed); empty otherwise.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// The batch input file: JSONL, one `{"custom_id", "method": "POST",
    /// "url", "body"}` line per request, in the order added. Past
    /// [`MAX_BATCH_REQUESTS`] requests or [`MAX_BATCH_FILE_BYTES`] bytes,
    /// OpenAI's limits, an [`Error::TooLarge`].
    pub fn to_jsonl(&self) -> Result<String> {
        let mut out = Vec::new();
        self.write_jsonl(&mut out)?;
        // Every line is JSON that serde_json wrote: UTF-8.
        String::from_utf8(out).map_err(|_| Error::Internal("a batch line is not UTF-8".into()))
    }

    /// Appends the input file to `out`, after checking it against the limits.
    pub(crate) fn write_jsonl(&self, out: &mut Vec<u8>) -> Result<()> {
        let bytes = self.check_limits()?;
        let url = self.url.unwrap_or_default();
        out.reserve(bytes);
        for request in &self.requests {
            wire_batch::write_line(out, &request.custom_id, url, &request.body);
        }
        Ok(())
    }

    /// The size of the input file, or the error of one past a provider's limits.
    fn check_limits(&self) -> Result<usize> {
        if self.requests.len() > MAX_BATCH_REQUESTS {
            return Err(Error::TooLarge {
                what: BATCH_REQUESTS.to_owned(),
                limit: MAX_BATCH_REQUESTS as u64,
            });
        }
        let url = self.url.unwrap_or_default();
        let bytes = self
            .requests
            .iter()
            .map(|request| wire_batch::line_len(&request.custom_id, url, &request.body))
            .sum::<usize>();
        if bytes as u64 > MAX_BATCH_FILE_BYTES {
            return Err(Error::TooLarge {
                what: "one batch input file".to_owned(),
                limit: MAX_BATCH_FILE_BYTES,
            });
        }
        Ok(bytes)
    }

    /// Adds one request, made by a client (`Batch::add`, `client/batch.rs`).
    pub(crate) fn push(
        &mut self,
        custom_id: &str,
        url: &'static str,
        body: Vec<u8>,
        left_out: LeftOut,
    ) -> Result<()> {
        if custom_id.is_empty() {
            return Err(Error::InvalidArgument("the custom_id is empty".into()));
        }
        if self.by_id.contains_key(custom_id) {
            let why = format!("the batch already has a request with the custom_id {custom_id:?}");
            return Err(Error::InvalidArgument(why));
        }
        if self.id.is_some() {
            let why = "the batch was submitted: a request can no longer be added";
            return Err(Error::InvalidArgument(why.into()));
        }
        match self.url {
            Some(theirs) if theirs != url => {
                return Err(Error::InvalidArgument(format!(
                    "every request of a batch goes to one URL: this client's is {url}, \
                     the batch's {theirs}"
                )))
            }
            _ => self.url = Some(url),
        }
        self.by_id.insert(custom_id.to_owned(), self.requests.len());
        self.requests.push(Request {
            custom_id: custom_id.to_owned(),
            body: body.into_boxed_slice(),
            left_out,
        });
        Ok(())
    }

    /// The `url` of the batch's lines (its `endpoint` when it is created).
    pub(crate) fn url(&self) -> Option<&'static str> {
        self.url
    }

    /// Takes on what the provider says of the batch.
    pub(crate) fn update(&mut self, object: BatchObject) -> Result<BatchState> {
        let state = BatchState::from_wire(&object.status)?;
        self.id = Some(object.id);
        self.state = Some(state);
        if let Some(counts) = object.request_counts {
            self.counts = BatchCounts {
                completed: counts.completed,
                failed: counts.failed,
                total: counts.total,
            };
        }
        self.input_file_id = object.input_file_id.or(self.input_file_id.take());
        self.output_file_id = object.output_file_id;
        self.error_file_id = object.error_file_id;
        let text = |error: &wire_batch::BatchError| self.secrets.redact(&error.text());
        let errors = object
            .errors
            .map(|errors| errors.data.iter().map(text).collect());
        self.errors = errors.unwrap_or_default();
        Ok(state)
    }

    /// Forgets the results read so far: a fetch replaces them.
    pub(crate) fn clear_results(&mut self) {
        self.results = results::Results::default();
    }

    /// Reads a result file got another way: a provider's console, or the
    /// output of vLLM's `run-batch` (the same format). Results may come in
    /// any order, and several files may be read (output and error files);
    /// a request keeps its first result. A line that is not a result is an
    /// [`Error::Decode`] naming its number, and the other lines' results are
    /// kept all the same.
    pub fn read_results(&mut self, output_jsonl: impl Into<String>) -> Result<()> {
        self.results.read(output_jsonl.into())
    }

    /// The result for `custom_id`, appended to `conversation` exactly as a
    /// send would have appended its reply (tool calls, reasoning, unknown
    /// fields, usage; under a token budget, leaving out what the request
    /// left out), and returned. A request that failed gives the error a send
    /// would have given; one without a result (never run, expired,
    /// cancelled, or no results read) gives [`Error::Unavailable`]. Either
    /// way the conversation is unchanged.
    pub fn apply(&self, custom_id: &str, conversation: &mut Conversation) -> Result<Reply> {
        let outcome = self.results.outcome(custom_id);
        let reply = outcome.map_err(|error| error.redact(&self.secrets))?;
        // A batch opened by id knows no plan: the append plans anew.
        let left_out = self
            .by_id
            .get(custom_id)
            .map(|&at| self.requests[at].left_out)
            .unwrap_or_default();
        let reply = reply.left_out(left_out);
        conversation.append_reply(&reply)?;
        Ok(reply)
    }
}
