//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{json, Value};

pub const KEY: &str = "sk-test-4f9a1c";
pub const PATH: &str = "/v1/chat/completions";

/// A file under tests/data.
pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

pub fn read_data(path: &str) -> String {
    std::fs::read_to_string(data(path)).unwrap_or_else(|err| panic!("{path}: {err}"))
}

/// A chat completion body with the given reply text.
pub fn completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    })
    .to_string()
}

pub fn error_body(message: &str, kind: &str, code: Value) -> String {
    json!({"error": {"message": message, "type": kind, "code": code}}).to_string()
}

/// A client for a mock server, failing fast by default.
pub fn client(url: &str) -> chatwire::Client {
    builder(url).build().expect("client")
}

/// The builder of [`client`], for a test that sets more.
pub fn builder(url: &str) -> chatwire::ClientBuilder {
    chatwire::Client::builder()
        .base_url(url)
        .api_key(KEY)
        .timeout(Duration::from_secs(10))
        .max_retries(0)
}

/// A conversation ready to send.
pub fn conversation() -> chatwire::Conversation {
    let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
    conversation.set_system("You are terse.");
    conversation.user("Name three colours.").unwrap();
    conversation
}

fn request_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let mut schema: Value =
            serde_json::from_str(&read_data("spec/chat-completions.schema.json")).unwrap();
        schema["$ref"] = json!("#/$defs/CreateChatCompletionRequest");
        jsonschema::validator_for(&schema).expect("schema compiles")
    })
}

/// Panics unless `body` is a valid `CreateChatCompletionRequest`.
pub fn assert_valid_request(body: &[u8]) {
    let value: Value = serde_json::from_slice(body).expect("request body is JSON");
    let errors: Vec<String> = request_validator()
        .iter_errors(&value)
        .map(|err| format!("{} at {}", err, err.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "request body {value} breaks the schema: {errors:?}"
    );
}

/// True when `body` is a valid `CreateChatCompletionRequest`.
pub fn is_valid_request(value: &Value) -> bool {
    request_validator().is_valid(value)
}

/// Bodies of the requests a mock saw.
#[derive(Clone, Default)]
pub struct Bodies(Arc<Mutex<Vec<Vec<u8>>>>);

impl Bodies {
    /// A request matcher that records each body and matches everything.
    pub fn recorder(&self) -> impl Fn(&mockito::Request) -> bool + Send + Sync + 'static {
        let bodies = self.0.clone();
        move |request| {
            let body = request.body().cloned().unwrap_or_default();
            bodies.lock().unwrap().push(body);
            true
        }
    }

    pub fn all(&self) -> Vec<Vec<u8>> {
        self.0.lock().unwrap().clone()
    }
}
/// Cancels a running background request now and checks that its wait
/// says cancelled, quickly. The caller first waits for the event that
/// puts the request where the test means to stop it (a server that holds
/// until told, a log line, a handshake under way).
///
/// "Quickly" is what only the clock can tell: the product's target is
/// 100 ms (docs/performance.md), and a second is allowed, so that only a
/// cancel that waits for the server, a timeout or a retry pause (ten
/// seconds and more away in every caller) fails, however busy the machine.
pub fn cancel_now(pending: chatwire::PendingReply) {
    assert!(!pending.is_done(), "finished before the cancel");
    let started = std::time::Instant::now();
    pending.cancel();
    let err = pending.wait().unwrap_err();
    assert!(matches!(err, chatwire::Error::Cancelled), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

/// Waits until `condition` holds, polling it; panics after ten seconds
/// with `what`, so that an event that never comes fails the test instead
/// of hanging it. For events nothing can announce (a socket's state, a
/// request finishing in the background); where a server or a callback can
/// say so, a channel is better.
pub fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "waited ten seconds for {what}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

pub mod batches;
pub mod cprog;
pub mod hostile;
pub mod keepalive;
pub mod log_lines;
pub mod model_output;
pub mod paced;
pub mod providers;
pub mod providers_2026;
pub mod refusal;
pub mod slow;
pub mod sockets;
pub mod stuck;
pub mod tinyproxy;
pub mod tls_server;
