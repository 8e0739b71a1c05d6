//! An emulated OpenAI Files and Batches API (with its chat completions, to
//! compare a batch's request lines with real sends), checked against the
//! official API reference (platform.openai.com/docs/api-reference/batch and
//! /files):
//!
//! - `POST /v1/files`: multipart/form-data with exactly the fields `purpose`
//!   ("batch") and `file` (with a filename), parsed strictly (RFC 7578:
//!   CRLF framing, the closing delimiter, nothing after it); the file at most
//!   200 MB and 50,000 lines ("The file can contain up to 50,000 requests,
//!   and can be up to 200 MB in size", `input_file_id` in "Create batch").
//! - `POST /v1/batches`: `input_file_id`, `endpoint` and `completion_window`
//!   ("Currently only 24h is supported"); the batch object comes back.
//! - `GET /v1/batches/{id}`: each read moves the batch one step along its
//!   life cycle: validating, then failed (with `errors.data`: code, message,
//!   line) or in_progress, finalizing, completed; or expired after its
//!   window; or, after a cancel, cancelling and cancelled.
//! - `POST /v1/batches/{id}/cancel`, `GET /v1/files/{id}/content`.
//!
//! Input lines are validated as the reference's "request input object":
//! `custom_id` (unique), `method` "POST", `url` the batch's endpoint, `body`
//! an object, one model per file. Output lines are the "request output
//! object": `id`, `custom_id`, `response` (`status_code`, `request_id`,
//! `body`), `error`; failed requests go to the error file, and requests an
//! expiry left unrun go there with the code `batch_expired`. Results are
//! written in reverse order: "the output line order may not match the input
//! line order". Azure's classic routes (`/openai/files?api-version=...`)
//! are the same API under another prefix.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::hostile::{respond, HostileServer, Request};

/// What one request of a batch (or a plain send) gets.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// A 200 with this chat completion body.
    Reply(Value),
    /// This status with this error body.
    Fail(u16, Value),
}

/// How a batch's life goes.
#[derive(Clone, Copy, Debug, Default)]
pub enum Life {
    /// validating, in_progress, finalizing, completed.
    #[default]
    Completes,
    /// validating, in_progress, then expired with only the first `ran` requests run.
    Expires { ran: usize },
}

type Responder = dyn Fn(&str, &Value) -> Outcome + Send + Sync;

/// The emulated server: start it, point a client at its `url`.
pub struct BatchServer {
    pub url: String,
    server: HostileServer,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    files: HashMap<String, Vec<u8>>,
    batches: HashMap<String, Batch>,
    next: usize,
    life: Life,
    /// How many requests run before a cancel takes effect.
    ran_before_cancel: usize,
    last_upload: Option<String>,
}

struct Batch {
    id: String,
    status: &'static str,
    endpoint: String,
    input_file_id: String,
    output_file_id: Option<String>,
    error_file_id: Option<String>,
    counts: (usize, usize, usize),
    errors: Vec<Value>,
}

impl BatchServer {
    /// A server whose requests (batched or sent) get what `answer` says for
    /// their custom_id ("" for a send) and body.
    pub fn start(
        life: Life,
        answer: impl Fn(&str, &Value) -> Outcome + Send + Sync + 'static,
    ) -> BatchServer {
        let state = Arc::new(Mutex::new(State {
            life,
            ran_before_cancel: 1,
            ..State::default()
        }));
        let answer: Arc<Responder> = Arc::new(answer);
        let server = {
            let state = state.clone();
            HostileServer::start(move |request, stream| {
                let (status, content_type, body) = handle(&state, &*answer, request);
                respond(stream, status, &[("content-type", content_type)], &body);
            })
        };
        BatchServer {
            url: server.url.clone(),
            server,
            state,
        }
    }

    /// Every request the server read.
    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// The bodies of the sends made to it directly (chat completions or
    /// the Responses API).
    pub fn sent_bodies(&self) -> Vec<Vec<u8>> {
        let requests = self.requests().into_iter();
        let sends = requests.filter(|request| {
            let path = normal_path(&request.path).0;
            path == "/v1/chat/completions" || path == "/v1/responses"
        });
        sends.map(|request| request.body).collect()
    }

    /// The input file uploaded last, as the server keeps it.
    pub fn uploaded(&self) -> Vec<u8> {
        let state = self.state.lock().unwrap();
        let last = state.last_upload.as_ref();
        last.and_then(|id| state.files.get(id))
            .cloned()
            .unwrap_or_default()
    }

    /// How many requests run before a cancel takes effect (1 unless set).
    pub fn run_before_cancel(&self, ran: usize) {
        self.state.lock().unwrap().ran_before_cancel = ran;
    }
}

impl State {
    fn id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}-{}", self.next)
    }
}

/// The path without its query, Azure's `/openai` prefix read as `/v1`, and
/// whether it was Azure's.
fn normal_path(path: &str) -> (String, bool) {
    let path = path.split_once('?').map_or(path, |(path, _)| path);
    match path.strip_prefix("/openai/") {
        Some(rest) => (format!("/v1/{rest}"), true),
        None => (path.to_owned(), false),
    }
}

fn error(status: u16, message: &str) -> (&'static str, &'static str, Vec<u8>) {
    let body = json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}});
    (
        status_line(status),
        "application/json",
        body.to_string().into_bytes(),
    )
}

fn status_line(status: u16) -> &'static str {
    match status {
        200 => "200 OK",
        400 => "400 Bad Request",
        401 => "401 Unauthorized",
        404 => "404 Not Found",
        409 => "409 Conflict",
        429 => "429 Too Many Requests",
        _ => "500 Internal Server Error",
    }
}

fn json_ok(value: Value) -> (&'static str, &'static str, Vec<u8>) {
    ("200 OK", "application/json", value.to_string().into_bytes())
}

fn handle(
    state: &Mutex<State>,
    answer: &Responder,
    request: &Request,
) -> (&'static str, &'static str, Vec<u8>) {
    let key = format!("Bearer {}", super::KEY);
    let azure_key = request.header("api-key") == Some(super::KEY);
    if request.header("authorization") != Some(key.as_str()) && !azure_key {
        return error(401, "Incorrect API key provided");
    }
    let (path, azure) = normal_path(&request.path);
    let mut state = state.lock().unwrap();
    let segments: Vec<&str> = path.trim_start_matches("/v1/").split('/').collect();
    match (request.method.as_str(), segments.as_slice()) {
        ("POST", ["chat/completions"] | ["chat", "completions"] | ["responses"])
        | ("POST", ["deployments", _, "chat", "completions"]) => {
            let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
                return error(400, "the body is not JSON");
            };
            match answer("", &body) {
                Outcome::Reply(reply) => json_ok(reply),
                Outcome::Fail(status, body) => (
                    status_line(status),
                    "application/json",
                    body.to_string().into_bytes(),
                ),
            }
        }
        ("POST", ["files"]) => upload(&mut state, request),
        ("POST", ["batches"]) => create(&mut state, request, azure),
        ("GET", ["batches", id]) => {
            let id = id.to_string();
            advance(&mut state, &id, answer);
            match state.batches.get(&id) {
                Some(batch) => json_ok(object(batch)),
                None => error(404, "No batch found"),
            }
        }
        ("POST", ["batches", id, "cancel"]) => {
            let Some(batch) = state.batches.get_mut(*id) else {
                return error(404, "No batch found");
            };
            if !matches!(batch.status, "validating" | "in_progress" | "finalizing") {
                return error(
                    409,
                    &format!("Cannot cancel a batch with status {}", batch.status),
                );
            }
            batch.status = "cancelling";
            json_ok(object(batch))
        }
        ("GET", ["files", id, "content"]) => match state.files.get(*id) {
            Some(bytes) => ("200 OK", "application/octet-stream", bytes.clone()),
            None => error(404, "No such file"),
        },
        _ => error(
            404,
            &format!("no route {} {}", request.method, request.path),
        ),
    }
}

/// `POST /v1/files`: the strict multipart form.
fn upload(state: &mut State, request: &Request) -> (&'static str, &'static str, Vec<u8>) {
    let content_type = request.header("content-type").unwrap_or_default();
    let parts = match parse_multipart(content_type, &request.body) {
        Ok(parts) => parts,
        Err(why) => return error(400, &format!("malformed multipart form: {why}")),
    };
    let names: Vec<&str> = parts.iter().map(|part| part.name.as_str()).collect();
    if names != ["purpose", "file"] && names != ["file", "purpose"] {
        return error(
            400,
            &format!("expected the fields purpose and file, got {names:?}"),
        );
    }
    let field = |name: &str| parts.iter().find(|part| part.name == name).unwrap();
    if field("purpose").body != b"batch" || field("purpose").filename.is_some() {
        return error(400, "purpose must be \"batch\"");
    }
    let file = field("file");
    let Some(filename) = file.filename.clone() else {
        return error(400, "the file field has no filename");
    };
    if file.body.len() > 200_000_000 {
        return error(400, "a batch input file can be up to 200 MB");
    }
    let id = state.id("file");
    state.files.insert(id.clone(), file.body.clone());
    state.last_upload = Some(id.clone());
    json_ok(
        json!({"id": id, "object": "file", "bytes": file.body.len(), "created_at": 1,
                   "filename": filename, "purpose": "batch"}),
    )
}

struct Part {
    name: String,
    filename: Option<String>,
    body: Vec<u8>,
}

/// Parses a multipart/form-data body strictly: the boundary of the content
/// type, `--boundary CRLF` first, each part's headers (a Content-Disposition
/// of form-data with a name) and a blank line, `CRLF --boundary` between
/// parts, `--boundary--` CRLF last and nothing after.
fn parse_multipart(content_type: &str, body: &[u8]) -> Result<Vec<Part>, String> {
    let boundary = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .ok_or_else(|| format!("content type {content_type:?}"))?;
    if boundary.is_empty() || boundary.len() > 70 {
        return Err(format!("boundary {boundary:?}"));
    }
    let opening = format!("--{boundary}\r\n");
    let mut rest = body
        .strip_prefix(opening.as_bytes())
        .ok_or("the body does not open with the boundary")?;
    let delimiter = format!("\r\n--{boundary}");
    let mut parts = Vec::new();
    loop {
        let end = find(rest, delimiter.as_bytes()).ok_or("a part without a closing delimiter")?;
        parts.push(parse_part(&rest[..end])?);
        rest = &rest[end + delimiter.len()..];
        if let Some(after) = rest.strip_prefix(b"--") {
            if after != b"\r\n" && !after.is_empty() {
                return Err("bytes after the closing delimiter".into());
            }
            return Ok(parts);
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .ok_or("no CRLF after a delimiter")?;
    }
}

fn parse_part(part: &[u8]) -> Result<Part, String> {
    let split = find(part, b"\r\n\r\n").ok_or("a part without a blank line")?;
    let head = std::str::from_utf8(&part[..split]).map_err(|_| "a part's headers are not UTF-8")?;
    let mut name = None;
    let mut filename = None;
    for line in head.split("\r\n") {
        let (header, value) = line
            .split_once(": ")
            .ok_or(format!("header line {line:?}"))?;
        match header.to_ascii_lowercase().as_str() {
            "content-disposition" => {
                let mut params = value.split("; ");
                if params.next() != Some("form-data") {
                    return Err(format!("disposition {value:?}"));
                }
                for param in params {
                    let (key, quoted) = param.split_once('=').ok_or(format!("param {param:?}"))?;
                    let unquoted = quoted
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .ok_or(format!("unquoted {param:?}"))?;
                    match key {
                        "name" => name = Some(unquoted.to_owned()),
                        "filename" => filename = Some(unquoted.to_owned()),
                        _ => return Err(format!("param {key:?}")),
                    }
                }
            }
            "content-type" => {}
            other => return Err(format!("a part header {other:?}")),
        }
    }
    Ok(Part {
        name: name.ok_or("a part without a name")?,
        filename,
        body: part[split + 4..].to_vec(),
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// `POST /v1/batches`.
fn create(
    state: &mut State,
    request: &Request,
    azure: bool,
) -> (&'static str, &'static str, Vec<u8>) {
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        return error(400, "the body is not JSON");
    };
    let known = ["input_file_id", "endpoint", "completion_window", "metadata"];
    if let Some(key) = body
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
        .find(|k| !known.contains(&k.as_str()))
    {
        return error(
            400,
            &format!("Unrecognized request argument supplied: {key}"),
        );
    }
    let endpoints: &[&str] = if azure {
        &["/chat/completions", "/v1/chat/completions"]
    } else {
        &[
            "/v1/responses",
            "/v1/chat/completions",
            "/v1/embeddings",
            "/v1/completions",
        ]
    };
    let endpoint = body["endpoint"].as_str().unwrap_or_default();
    if !endpoints.contains(&endpoint) {
        return error(400, &format!("Invalid endpoint {endpoint:?}"));
    }
    if body["completion_window"] != "24h" {
        return error(400, "completion_window must be 24h");
    }
    let input = body["input_file_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if !state.files.contains_key(&input) {
        return error(404, &format!("No such File object: {input}"));
    }
    let id = state.id("batch");
    let batch = Batch {
        id: id.clone(),
        status: "validating",
        endpoint: endpoint.to_owned(),
        input_file_id: input,
        output_file_id: None,
        error_file_id: None,
        counts: (0, 0, 0),
        errors: Vec::new(),
    };
    let answer = object(&batch);
    state.batches.insert(id, batch);
    json_ok(answer)
}

/// The batch object of the reference.
fn object(batch: &Batch) -> Value {
    let errors =
        (!batch.errors.is_empty()).then(|| json!({"object": "list", "data": batch.errors}));
    json!({
        "id": batch.id, "object": "batch", "endpoint": batch.endpoint, "errors": errors,
        "input_file_id": batch.input_file_id, "completion_window": "24h", "status": batch.status,
        "output_file_id": batch.output_file_id, "error_file_id": batch.error_file_id,
        "created_at": 1, "metadata": null,
        "request_counts": {"total": batch.counts.0, "completed": batch.counts.1, "failed": batch.counts.2},
    })
}

/// One step along the batch's life, as one read of it sees.
fn advance(state: &mut State, id: &str, answer: &Responder) {
    let life = state.life;
    let ran_before_cancel = state.ran_before_cancel;
    let Some(status) = state.batches.get(id).map(|batch| batch.status) else {
        return;
    };
    let next = match (status, life) {
        ("validating", _) => {
            let input = state.batches[id].input_file_id.clone();
            let endpoint = state.batches[id].endpoint.clone();
            let (lines, errors) = validate(&state.files[&input], &endpoint);
            let batch = state.batches.get_mut(id).unwrap();
            batch.counts.0 = lines;
            if errors.is_empty() {
                "in_progress"
            } else {
                batch.errors = errors;
                "failed"
            }
        }
        ("in_progress", Life::Completes) => "finalizing",
        ("in_progress", Life::Expires { ran }) => {
            run(state, id, answer, ran, Some("batch_expired"));
            "expired"
        }
        ("finalizing", _) => {
            run(state, id, answer, usize::MAX, None);
            "completed"
        }
        ("cancelling", _) => {
            run(state, id, answer, ran_before_cancel, None);
            "cancelled"
        }
        (status, _) => status,
    };
    state.batches.get_mut(id).unwrap().status = next;
}

/// The reference's checks of each input line; the number of lines and the errors.
fn validate(file: &[u8], endpoint: &str) -> (usize, Vec<Value>) {
    let text = String::from_utf8_lossy(file);
    let mut errors = Vec::new();
    let mut ids = std::collections::HashSet::new();
    let mut model = None;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > 50_000 {
        errors.push(json!({"code": "too_many_requests", "message": "The batch input file can contain up to 50,000 requests", "line": null}));
    }
    for (at, line) in lines.iter().enumerate() {
        let number = at + 1;
        let mut refuse = |code: &str, message: String| {
            errors.push(json!({"code": code, "message": message, "param": null, "line": number}));
        };
        let Ok(Value::Object(object)) = serde_json::from_str::<Value>(line) else {
            refuse(
                "invalid_json_line",
                "This line is not parseable as valid JSON.".into(),
            );
            continue;
        };
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        if sorted != ["body", "custom_id", "method", "url"] {
            refuse(
                "invalid_request",
                format!("a request line has the keys {keys:?}"),
            );
            continue;
        }
        match object["custom_id"].as_str() {
            Some(id) if ids.insert(id.to_owned()) => {}
            _ => refuse(
                "duplicate_custom_id",
                "The custom_id for this request is a duplicate of another request.".into(),
            ),
        }
        if object["method"] != "POST" {
            refuse("invalid_method", "The method must be POST".into());
        }
        if object["url"] != endpoint {
            refuse(
                "mismatched_endpoint",
                format!(
                    "The url {} does not match the batch's endpoint {endpoint}",
                    object["url"]
                ),
            );
        }
        let this_model = object["body"]["model"].clone();
        match &model {
            None => model = Some(this_model),
            Some(first) if *first != this_model => refuse(
                "mismatched_model",
                "Each input file can only include requests to a single model".into(),
            ),
            Some(_) => {}
        }
    }
    (lines.len(), errors)
}

/// Runs the first `ran` requests and writes the result files: replies to
/// the output file, failures (and with `unrun`, the requests left) to the
/// error file, each in reverse order.
fn run(state: &mut State, id: &str, answer: &Responder, ran: usize, unrun: Option<&str>) {
    let input = state.batches[id].input_file_id.clone();
    let text = String::from_utf8_lossy(&state.files[&input]).into_owned();
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let (mut completed, mut failed) = (0, 0);
    for (at, line) in text.lines().enumerate() {
        let request: Value = serde_json::from_str(line).unwrap();
        let custom_id = request["custom_id"].as_str().unwrap_or_default().to_owned();
        let line_id = format!("batch_req_{at}");
        if at >= ran {
            if let Some(code) = unrun {
                errors.push(json!({"id": line_id, "custom_id": custom_id, "response": null,
                    "error": {"code": code, "message": "This request could not be executed before the completion window expired."}}));
            }
            continue;
        }
        let (status, body) = match answer(&custom_id, &request["body"]) {
            Outcome::Reply(body) => (200, body),
            Outcome::Fail(status, body) => (status, body),
        };
        let result = json!({"id": line_id, "custom_id": custom_id,
            "response": {"status_code": status, "request_id": format!("req_{at}"), "body": body},
            "error": null});
        if status == 200 {
            completed += 1;
            output.push(result);
        } else {
            failed += 1;
            errors.push(result);
        }
    }
    let mut file = |results: Vec<Value>| -> Option<String> {
        if results.is_empty() {
            return None;
        }
        let text: String = results
            .iter()
            .rev()
            .map(|result| format!("{result}\n"))
            .collect();
        let file_id = state.id("file");
        state.files.insert(file_id.clone(), text.into_bytes());
        Some(file_id)
    };
    let (output_file, error_file) = (file(output), file(errors));
    let batch = state.batches.get_mut(id).unwrap();
    batch.output_file_id = output_file;
    batch.error_file_id = error_file;
    batch.counts.1 = completed;
    batch.counts.2 = failed;
}
