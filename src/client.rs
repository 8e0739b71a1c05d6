//! The client: configuration, the shared connection pool, and `send`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use std::ops::ControlFlow;

use crate::config;
use crate::config::{Limit, Limits, Network, ProxySetting, Settings};
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::http::body::{self, Delivery};
use crate::http::cancel::CancelToken;
use crate::http::pending::PendingReply;
use crate::http::response;
use crate::http::transport::{Transport, Tuning};
use crate::reply::Reply;
use crate::stream::reply_stream::{DeltaStream, ReplyStream};
use crate::structured::{self, JsonSettings, Schema, SchemaDelivery};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The whole-request timeout unless set otherwise: long enough for a long
/// reply from a slow model, short enough that a dead server is noticed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// The connect timeout unless set otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a stream may stay silent (no bytes, not even a keep-alive)
/// before it counts as stalled, unless set otherwise.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How many times a failed request is retried unless set otherwise.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The most retries accepted: with the longest pause between them (120 s,
/// when a server asks for it), ten retries already wait 20 minutes.
pub const MAX_RETRIES_CEILING: u32 = 10;
/// How many idle connections a client keeps for reuse unless set otherwise:
/// enough for as many threads sending at once through one client.
pub const DEFAULT_MAX_IDLE_CONNECTIONS: usize = 16;
/// The most idle connections a client may be asked to keep.
pub const MAX_IDLE_CONNECTIONS: usize = 1024;

/// A connection to one chat completions endpoint with one key.
///
/// Cheap to clone; clones share the connection pool, so connections are
/// reused across sends and threads, streamed and background sends included.
/// `Send + Sync`: one client can serve many threads at once, each with its
/// own [`Conversation`]; the pool keeps up to
/// [`max_idle_connections`](ClientBuilder::max_idle_connections) connections
/// between sends, one for each thread that was sending at the same time.
///
/// A request is retried (up to [`max_retries`](ClientBuilder::max_retries)
/// times) after a connection failure, a timeout, or HTTP 408, 409, 429 and
/// 5xx, waiting 0.5 s doubling up to 8 s with jitter, or as long as the
/// server's `retry-after-ms` / `retry-after` header asks, up to 120 s; a
/// longer requested pause, and a 429 for `insufficient_quota`, fail at once.
///
/// Only redirects that keep the request (307, 308) are followed, only
/// within the endpoint's origin, at most 3 in a row; any other is an
/// [`Error::Http`] naming the target. What is kept of an answer is bounded
/// by the [`Limit`]s.
#[derive(Clone)]
pub struct Client {
    transport: Arc<Transport>,
    settings: Settings,
    json: JsonSettings,
    max_idle_connections: usize,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.transport.endpoint())
            .field("api_key", &"[redacted]")
            .field("timeout", &self.settings.timeout)
            .field("connect_timeout", &self.settings.connect_timeout)
            .field("idle_timeout", &self.settings.idle_timeout)
            .field("max_retries", &self.settings.max_retries)
            .field("max_idle_connections", &self.max_idle_connections)
            .field("headers", &self.settings.headers)
            .field("limits", &self.settings.limits)
            .field("json_corrections", &self.json.corrections)
            .field("schema_delivery", &self.json.delivery)
            .field("proxy", &self.transport.network().proxy)
            .field("ca_file", &self.transport.network().ca_file)
            .finish()
    }
}

impl Client {
    /// Starts configuring a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client configured from the environment alone: `$OPENAI_BASE_URL` and
    /// `$OPENAI_API_KEY`, or their entries in `./.env`.
    pub fn from_env() -> Result<Client> {
        Client::builder().build()
    }

    /// Sends the conversation and appends the assistant's reply to it.
    ///
    /// The last message must be a user message. On any error the conversation
    /// is left exactly as it was, so the call can be repeated.
    pub fn send(&self, conversation: &mut Conversation) -> Result<String> {
        let reply = self.send_reply(conversation)?;
        Ok(reply.content)
    }

    /// Like [`send`](Self::send), returning the whole [`Reply`] (finish
    /// reason, usage, request id, the body as received).
    pub fn send_reply(&self, conversation: &mut Conversation) -> Result<Reply> {
        let reply = self.complete(conversation)?;
        conversation.push_reply(&reply);
        Ok(reply)
    }

    /// Sends the conversation and returns the reply without appending it.
    pub fn complete(&self, conversation: &Conversation) -> Result<Reply> {
        conversation.check_ready_to_send()?;
        let body = body::encode(conversation, Delivery::Whole);
        self.fetch(&body, None)
    }

    /// Asks for JSON that matches a JSON Schema and returns it as a `T`:
    /// the reply is read with the tolerant extraction ([`extract_json`]),
    /// checked against `schema`, and when it does not match, the model gets
    /// a short correction turn naming each problem, up to
    /// [`json_corrections`](Self::json_corrections) times (default
    /// [`DEFAULT_JSON_CORRECTIONS`](crate::DEFAULT_JSON_CORRECTIONS)).
    /// How the model learns the schema is the client's
    /// [`schema_delivery`](Self::schema_delivery): in the prompt (default),
    /// as `response_format`, or not at all. A reply the token limit cut
    /// (`finish_reason` `"length"`) is named as such, first among the
    /// problems.
    ///
    /// The last message must be a user message (or the last tool result).
    /// On success the conversation holds the question as asked and the
    /// valid JSON (compact) as the assistant's answer, without the
    /// correction turns. On any failure it is unchanged.
    ///
    /// `T` can be [`serde_json::Value`] to take whatever the schema allows;
    /// JSON that matches the schema but does not fit `T` counts as a problem
    /// too, and is corrected the same way.
    ///
    /// # The schema check
    ///
    /// chatwire checks a subset of JSON Schema (draft 2020-12) with its own
    /// few hundred lines, not with a validator crate: the `jsonschema` crate
    /// (0.60, without default features) adds 46 crates to chatwire's 45 and
    /// about 135 s of CPU to a clean release build that takes 75 s without
    /// it, mostly for regular expressions and formats that structured output
    /// rarely needs. Checked: `type` (one or
    /// several; `2.0` is an integer), `enum`, `const` (numbers compared by
    /// value), `properties`, `required`, `additionalProperties`,
    /// `propertyNames`, `dependentRequired`, `minProperties`/`maxProperties`,
    /// `items`, `prefixItems`, `minItems`/`maxItems`, `uniqueItems`,
    /// `contains` (with `minContains`/`maxContains`), `minLength`/`maxLength`
    /// (in characters), `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`, `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`,
    /// `if`/`then`/`else`, boolean schemas, and `$ref` to `#` or a JSON
    /// Pointer inside the schema (`#/$defs/name`, `#/definitions/name`).
    /// Annotations (`title`, `description`, `default`, `examples`,
    /// `format`, ...) are not checked, as JSON Schema itself does not check
    /// them by default. A schema that uses `pattern`, `patternProperties`,
    /// `unevaluatedProperties`, `unevaluatedItems`, `dependentSchemas`,
    /// `dependencies`, `$dynamicRef` or a `$ref` outside itself is refused
    /// with [`Error::InvalidArgument`] before anything is sent, so that no
    /// check is silently skipped. At most 8 problems are reported per reply.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an unusable schema;
    /// [`Error::InvalidReply`] with the last problems and the last reply
    /// when no reply matched; any error of [`send`](Self::send).
    ///
    /// ```no_run
    /// #[derive(serde::Deserialize)]
    /// struct City {
    ///     name: String,
    ///     population: u64,
    /// }
    ///
    /// let client = chatwire::Client::from_env()?;
    /// let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
    /// conversation.user("Which is the largest city of France?")?;
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"name": {"type": "string"}, "population": {"type": "integer", "minimum": 0}},
    ///     "required": ["name", "population"]
    /// });
    /// let city: City = client.send_json(&mut conversation, &schema)?;
    /// println!("{} ({})", city.name, city.population);
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    ///
    /// [`extract_json`]: crate::extract_json
    pub fn send_json<T: DeserializeOwned>(
        &self,
        conversation: &mut Conversation,
        schema: &Value,
    ) -> Result<T> {
        let schema = Schema::new(schema.clone())?;
        structured::exchange(conversation, &schema, self.json, |work| self.complete(work))
    }

    /// Like [`send_json`](Self::send_json), with the schema derived from `T`
    /// by `schemars` (the optional `schemars` feature).
    ///
    /// ```ignore
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct City { name: String, population: u64 }
    /// let city: City = client.send_typed(&mut conversation)?;
    /// ```
    #[cfg(feature = "schemars")]
    pub fn send_typed<T: DeserializeOwned + schemars::JsonSchema>(
        &self,
        conversation: &mut Conversation,
    ) -> Result<T> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).map_err(|err| {
            Error::Internal(format!("the derived schema could not be written: {err}"))
        })?;
        self.send_json(conversation, &schema)
    }

    /// How many correction turns [`send_json`](Self::send_json) allows.
    pub fn json_corrections(&self) -> u32 {
        self.json.corrections
    }

    /// Sets how many correction turns [`send_json`](Self::send_json)
    /// allows (0: none); more than
    /// [`MAX_JSON_CORRECTIONS`](crate::MAX_JSON_CORRECTIONS) is refused.
    pub fn set_json_corrections(&mut self, corrections: u32) -> Result<()> {
        self.json.corrections = structured::checked_corrections(corrections)?;
        Ok(())
    }

    /// How [`send_json`](Self::send_json) tells the model about the schema.
    pub fn schema_delivery(&self) -> SchemaDelivery {
        self.json.delivery
    }

    /// Sets how [`send_json`](Self::send_json) tells the model about the
    /// schema; see [`SchemaDelivery`].
    pub fn set_schema_delivery(&mut self, delivery: SchemaDelivery) {
        self.json.delivery = delivery;
    }

    fn fetch(&self, body: &[u8], token: Option<&CancelToken>) -> Result<Reply> {
        let secrets = self.transport.secrets(&self.settings);
        self.transport
            .post(body, &self.settings, token)
            .and_then(|received| response::decode_completion(received.body, received.request_id))
            .map(|reply| reply.redact(&secrets))
            .map_err(|error| error.redact(&secrets))
    }

    fn open_stream(&self, body: &[u8], token: &CancelToken) -> Result<DeltaStream> {
        let secrets = self.transport.secrets(&self.settings);
        match self.transport.post_stream(body, &self.settings, token) {
            Ok(reader) => Ok(DeltaStream::new(reader, &self.settings.limits, secrets)),
            Err(error) => Err(error.redact(&secrets)),
        }
    }

    /// Streams the reply: `on_delta` gets each piece of text as it arrives
    /// (whole UTF-8 characters), on the calling thread. When the reply is
    /// complete it is appended to the conversation and returned.
    ///
    /// `on_delta` returning [`ControlFlow::Break`] stops the request: the
    /// connection is closed and the call fails with [`Error::Cancelled`]. On
    /// any failure the conversation is unchanged. A stream silent for longer
    /// than the idle timeout fails with [`Error::Timeout`].
    ///
    /// ```no_run
    /// use std::io::Write;
    /// use std::ops::ControlFlow;
    /// # let client = chatwire::Client::from_env()?;
    /// # let mut conversation = chatwire::Conversation::new("m");
    /// conversation.user("Tell me a story.")?;
    /// client.send_stream(&mut conversation, |delta| {
    ///     print!("{delta}");
    ///     let _ = std::io::stdout().flush();
    ///     ControlFlow::Continue(())
    /// })?;
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn send_stream(
        &self,
        conversation: &mut Conversation,
        mut on_delta: impl FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Reply> {
        let token = CancelToken::new();
        let reply = self
            .start_stream(conversation, &token)?
            .run(&token, |delta| on_delta(delta).is_continue())?;
        conversation.push_reply(&reply);
        Ok(reply)
    }

    /// Streams the reply as an iterator over its pieces of text; when the
    /// iterator ends, the reply has been appended to the conversation. See
    /// [`ReplyStream`].
    ///
    /// ```no_run
    /// # let client = chatwire::Client::from_env()?;
    /// # let mut conversation = chatwire::Conversation::new("m");
    /// conversation.user("Tell me a story.")?;
    /// let mut stream = client.stream(&mut conversation)?;
    /// for delta in &mut stream {
    ///     print!("{}", delta?);
    /// }
    /// let usage = stream.reply().and_then(|reply| reply.usage);
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn stream<'c>(&self, conversation: &'c mut Conversation) -> Result<ReplyStream<'c>> {
        let deltas = self.start_stream(conversation, &CancelToken::new())?;
        Ok(ReplyStream::new(conversation, deltas))
    }

    fn start_stream(
        &self,
        conversation: &Conversation,
        token: &CancelToken,
    ) -> Result<DeltaStream> {
        conversation.check_ready_to_send()?;
        let body = body::encode(conversation, Delivery::Streamed);
        self.open_stream(&body, token)
    }

    /// Sends the conversation on a worker thread and returns at once; see
    /// [`PendingReply`]. The conversation is read now and not touched later:
    /// append the reply with [`Conversation::append_reply`].
    ///
    /// ```no_run
    /// # let client = chatwire::Client::from_env()?;
    /// # let mut conversation = chatwire::Conversation::new("m");
    /// conversation.user("Hello")?;
    /// let pending = client.send_async(&conversation)?;
    /// while !pending.is_done() {
    ///     // ... the program's own loop goes on ...
    /// #   std::thread::sleep(std::time::Duration::from_millis(10));
    /// }
    /// let reply = pending.wait()?;
    /// conversation.append_reply(&reply)?;
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn send_async(&self, conversation: &Conversation) -> Result<PendingReply> {
        self.spawn(conversation, None, |_| {})
    }

    /// Streams the reply on a worker thread, which also runs `on_delta`;
    /// returns at once. `on_delta` returning [`ControlFlow::Break`] cancels.
    pub fn stream_async(
        &self,
        conversation: &Conversation,
        mut on_delta: impl FnMut(&str) -> ControlFlow<()> + Send + 'static,
    ) -> Result<PendingReply> {
        let on_delta = Box::new(move |delta: &str| on_delta(delta).is_continue());
        self.spawn(conversation, Some(on_delta), |_| {})
    }

    /// Starts a background send: streamed when `on_delta` is given; then
    /// `on_finish` on the worker thread.
    pub(crate) fn spawn(
        &self,
        conversation: &Conversation,
        on_delta: Option<DeltaHandler>,
        on_finish: impl FnOnce(&Result<Reply>) + Send + 'static,
    ) -> Result<PendingReply> {
        conversation.check_ready_to_send()?;
        let delivery = match on_delta {
            Some(_) => Delivery::Streamed,
            None => Delivery::Whole,
        };
        let body = body::encode(conversation, delivery);
        let client = self.clone();
        let work = move |token: &CancelToken| match on_delta {
            Some(on_delta) => client.open_stream(&body, token)?.run(token, on_delta),
            None => client.fetch(&body, Some(token)),
        };
        PendingReply::spawn(CancelToken::new(), work, on_finish)
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.transport.endpoint()
    }

    /// The whole-request timeout (connecting, sending, and reading the reply).
    pub fn timeout(&self) -> Duration {
        self.settings.timeout
    }

    /// Sets the whole-request timeout of this client (not of its other clones);
    /// zero and more than [`MAX_TIMEOUT`] are refused. A new timeout gives
    /// this client a new connection pool, so set it before sending.
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<()> {
        let timeout = checked_timeout(timeout, "timeout")?;
        self.change_settings(|settings| settings.timeout = timeout)
    }

    /// How long a stream may stay silent before it fails with [`Error::Timeout`].
    pub fn idle_timeout(&self) -> Duration {
        self.settings.idle_timeout
    }

    /// Sets the idle timeout of streams; zero and more than [`MAX_TIMEOUT`] are refused.
    pub fn set_idle_timeout(&mut self, timeout: Duration) -> Result<()> {
        self.settings.idle_timeout = checked_timeout(timeout, "idle timeout")?;
        Ok(())
    }

    /// How many times a failed request is retried.
    pub fn max_retries(&self) -> u32 {
        self.settings.max_retries
    }

    /// Sets how many times a failed request is retried (0: never); more
    /// than [`MAX_RETRIES_CEILING`] is refused with [`Error::InvalidArgument`].
    pub fn set_max_retries(&mut self, max_retries: u32) -> Result<()> {
        self.settings.max_retries = checked_retries(max_retries)?;
        Ok(())
    }

    /// The value of one of the limits on what chatwire keeps of an answer.
    pub fn limit(&self, limit: Limit) -> u64 {
        self.settings.limits.get(limit)
    }

    /// Sets one of the limits on what chatwire keeps of an answer, in bytes
    /// (after decompression), for this client (not its other clones). An
    /// answer past a limit stops the request with [`Error::TooLarge`] and
    /// leaves the conversation unchanged. Less than [`MIN_LIMIT`](crate::MIN_LIMIT)
    /// or more than [`MAX_LIMIT`](crate::MAX_LIMIT) ([`MAX_HEADER_LIMIT`](crate::MAX_HEADER_LIMIT)
    /// for headers) is refused with [`Error::InvalidArgument`]. A new
    /// header limit gives this client a new connection pool.
    ///
    /// ```
    /// use chatwire::Limit;
    /// let mut client = chatwire::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("sk-local")
    ///     .build()?;
    /// client.set_limit(Limit::Stream, 1024 * 1024)?;
    /// assert_eq!(client.limit(Limit::Stream), 1024 * 1024);
    /// assert!(client.set_limit(Limit::Body, 0).is_err());
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn set_limit(&mut self, limit: Limit, bytes: u64) -> Result<()> {
        let mut limits = self.settings.limits;
        limits.set(limit, bytes)?;
        self.change_settings(|settings| settings.limits = limits)
    }

    /// Changes the settings. Those that ureq's agent holds (the timeouts,
    /// the header limit) give this client a new pool built for them; its
    /// other clones keep the old one. On failure nothing changes.
    fn change_settings(&mut self, change: impl FnOnce(&mut Settings)) -> Result<()> {
        let mut settings = self.settings.clone();
        change(&mut settings);
        if Tuning::of(&settings) != self.transport.tuning() {
            self.transport = Arc::new(self.transport.retuned(&settings)?);
        }
        self.settings = settings;
        Ok(())
    }

    /// How many idle connections this client keeps open for reuse.
    pub fn max_idle_connections(&self) -> usize {
        self.max_idle_connections
    }

    /// Sets how many idle connections this client keeps (see
    /// [`ClientBuilder::max_idle_connections`]). This client gets a new pool;
    /// its other clones keep the old one, whose connections close once
    /// nothing uses them. More than [`MAX_IDLE_CONNECTIONS`] is refused.
    pub fn set_max_idle_connections(&mut self, max_idle_connections: usize) -> Result<()> {
        let max_idle_connections = checked_pool_size(max_idle_connections)?;
        self.transport = Arc::new(self.transport.resized(max_idle_connections)?);
        self.max_idle_connections = max_idle_connections;
        Ok(())
    }

    /// Sets an extra header sent with every request of this client (not of
    /// its other clones), replacing one of the same name (names are
    /// case-insensitive); `None` removes it. See [`ClientBuilder::header`]
    /// for what is refused.
    ///
    /// ```
    /// let mut client = chatwire::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("sk-local")
    ///     .build()?;
    /// client.set_header("X-Trace-Id", Some("run-42"))?;
    /// client.set_header("X-Trace-Id", None)?;
    /// assert!(client.set_header("Authorization", Some("Bearer x")).is_err());
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn set_header(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        self.settings.headers.set(name, value)
    }

    /// Trusts the CA certificates in a PEM file besides the system's roots,
    /// for this client (not its other clones); see [`ClientBuilder::ca_file`].
    /// The client gets a connection pool of its own. On error nothing changes.
    pub fn set_ca_file(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let network = Network {
            ca_file: Some(path.as_ref().to_path_buf()),
            ..self.transport.network().clone()
        };
        self.replace_network(network)
    }

    /// Sends this client's requests (not its other clones') through the
    /// proxy at `url`, or through none when `url` is `""`, whatever the
    /// environment says; see [`ClientBuilder::proxy`]. The client gets a
    /// connection pool of its own. On error nothing changes.
    pub fn set_proxy(&mut self, url: &str) -> Result<()> {
        let network = Network {
            proxy: ProxySetting::from_text(url),
            ..self.transport.network().clone()
        };
        self.replace_network(network)
    }

    fn replace_network(&mut self, network: Network) -> Result<()> {
        self.transport = Arc::new(self.transport.with_network(network)?);
        Ok(())
    }
}

/// The longest timeout accepted: a day is more than any reply takes, and
/// far enough from the clock's limits that deadlines cannot overflow.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

fn checked_retries(max_retries: u32) -> Result<u32> {
    if max_retries > MAX_RETRIES_CEILING {
        return Err(Error::InvalidArgument(format!(
            "max retries must be at most {MAX_RETRIES_CEILING}, not {max_retries}"
        )));
    }
    Ok(max_retries)
}

fn checked_timeout(duration: Duration, what: &str) -> Result<Duration> {
    if duration.is_zero() || duration > MAX_TIMEOUT {
        return Err(Error::InvalidArgument(format!(
            "the {what} must be longer than zero and at most 24 hours, not {} ms",
            duration.as_millis()
        )));
    }
    Ok(duration)
}

fn checked_pool_size(max_idle_connections: usize) -> Result<usize> {
    if max_idle_connections > MAX_IDLE_CONNECTIONS {
        return Err(Error::InvalidArgument(format!(
            "a client keeps at most {MAX_IDLE_CONNECTIONS} idle connections, not {max_idle_connections}"
        )));
    }
    Ok(max_idle_connections)
}

/// A delta callback for a background send: `false` stops the request.
pub(crate) type DeltaHandler = Box<dyn FnMut(&str) -> bool + Send>;

/// Configures a [`Client`]; every setting is optional.
#[derive(Default)]
pub struct ClientBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    max_retries: Option<u32>,
    max_idle_connections: Option<usize>,
    headers: Vec<(String, String)>,
    limits: Vec<(Limit, u64)>,
    json_corrections: Option<u32>,
    schema_delivery: SchemaDelivery,
    network: Network,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .field("limits", &self.limits)
            .field("json_corrections", &self.json_corrections)
            .field("schema_delivery", &self.schema_delivery)
            .field("max_idle_connections", &self.max_idle_connections)
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("proxy", &self.network.proxy)
            .field("ca_file", &self.network.ca_file)
            .finish()
    }
}

impl ClientBuilder {
    /// The server's base URL, e.g. `https://api.openai.com`,
    /// `http://localhost:11434/v1` (Ollama) or `http://127.0.0.1:8080`
    /// (llama.cpp's server). Requests go to `{base_url}/v1/chat/completions`;
    /// a trailing `/v1` or `/` is not doubled. Default: `$OPENAI_BASE_URL`,
    /// then `OPENAI_BASE_URL` in `./.env`, then `https://api.openai.com`.
    ///
    /// The key is only sent to a base URL from the same place or a more
    /// trusted one (argument or default > environment > `./.env`):
    /// [`build`](Self::build) refuses a key given here with a base URL from
    /// the environment, and a key from the environment with a base URL from
    /// `./.env`.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// The API key sent as `Authorization: Bearer <key>`. Default:
    /// `$OPENAI_API_KEY`, then `OPENAI_API_KEY` in `./.env`. Servers that
    /// check no key (a local llama.cpp server or Ollama) accept any text.
    ///
    /// chatwire never prints the key, and takes it out of anything a server
    /// echoes. The HTTP layer's own trace logs do show it: at the `log`
    /// crate's trace level, the `ureq_proto` target writes every byte of
    /// every request. chatwire installs no logger; a program that installs
    /// one should keep `ureq_proto` below trace (`RUST_LOG=info,ureq_proto=off`).
    pub fn api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }

    /// The whole-request timeout, per attempt; default [`DEFAULT_TIMEOUT`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The connect timeout, per attempt; default [`DEFAULT_CONNECT_TIMEOUT`].
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// How long a streamed reply may stay silent (keep-alives count as
    /// activity) before it fails with [`Error::Timeout`]; default
    /// [`DEFAULT_IDLE_TIMEOUT`]. The whole-request timeout bounds streams too.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = Some(timeout);
        self
    }

    /// How many times a failed request is retried; default
    /// [`DEFAULT_MAX_RETRIES`], at most [`MAX_RETRIES_CEILING`] (more makes
    /// [`build`](Self::build) fail with [`Error::InvalidArgument`]).
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = Some(max_retries);
        self
    }

    /// How many idle connections the client keeps open between sends, for
    /// the next send to reuse instead of connecting again; default
    /// [`DEFAULT_MAX_IDLE_CONNECTIONS`], at most [`MAX_IDLE_CONNECTIONS`].
    ///
    /// A client keeps one connection per send that was running at the same
    /// time as others, so set it to at least the number of threads (and
    /// background sends) that use the client at once: with fewer, the
    /// surplus connections are closed after each send and new ones opened
    /// for the next, which costs a handshake and leaves closed sockets
    /// behind. 0 keeps none. Idle connections are closed after 15 seconds.
    pub fn max_idle_connections(mut self, max_idle_connections: usize) -> Self {
        self.max_idle_connections = Some(max_idle_connections);
        self
    }

    /// One of the limits on what chatwire keeps of an answer, in bytes; see
    /// [`Client::set_limit`]. A value out of range makes
    /// [`build`](Self::build) fail with [`Error::InvalidArgument`].
    pub fn limit(mut self, limit: Limit, bytes: u64) -> Self {
        self.limits.push((limit, bytes));
        self
    }

    /// How many correction turns [`Client::send_json`] allows; default
    /// [`DEFAULT_JSON_CORRECTIONS`](crate::DEFAULT_JSON_CORRECTIONS); more
    /// than [`MAX_JSON_CORRECTIONS`](crate::MAX_JSON_CORRECTIONS) makes
    /// [`build`](Self::build) fail.
    pub fn json_corrections(mut self, corrections: u32) -> Self {
        self.json_corrections = Some(corrections);
        self
    }

    /// How [`Client::send_json`] tells the model about the schema; default
    /// [`SchemaDelivery::Prompt`].
    pub fn schema_delivery(mut self, delivery: SchemaDelivery) -> Self {
        self.schema_delivery = delivery;
        self
    }

    /// An extra header sent with every request, such as a gateway's own
    /// key or a tracing id; a later call with the same name (in any case)
    /// replaces the value. Default: `OpenAI-Organization` from
    /// `$OPENAI_ORG_ID` and `OpenAI-Project` from `$OPENAI_PROJECT_ID` (or
    /// their entries in `./.env`), each unless given here.
    ///
    /// [`build`](Self::build) fails with [`Error::InvalidArgument`] for a name
    /// that is not an HTTP header name, a value that is not a header value
    /// (a newline, say), and for `Authorization`, `Content-Type`,
    /// `Content-Length`, `Transfer-Encoding`, `Host` and `Connection`, which
    /// chatwire or the HTTP layer sets. Values may be secrets: they never
    /// appear in `Debug` output or in errors.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Trusts the CA certificates in this PEM file as well as the system's
    /// roots: for a company CA, or a local server's own. By default
    /// chatwire trusts what the operating system trusts: its CA bundle, or
    /// the files named by `SSL_CERT_FILE` / `SSL_CERT_DIR` where set (as
    /// curl and OpenSSL read them); with no system bundle at all, the
    /// Mozilla roots built into chatwire.
    ///
    /// [`build`](Self::build) fails with [`Error::Config`] when the file
    /// cannot be read, holds no PEM certificate, or is larger than
    /// [`MAX_CA_FILE_BYTES`](crate::MAX_CA_FILE_BYTES). A certificate the
    /// client refuses gives [`Error::Tls`], which says why.
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.network.ca_file = Some(path.into());
        self
    }

    /// Sends requests through the proxy at `url` (`http://proxy:3128`,
    /// `http://user:password@proxy:3128`, `socks5://...`; a URL without a
    /// scheme is `http://`), or through none when `url` is `""`.
    ///
    /// By default chatwire follows curl's conventions: an `https://`
    /// endpoint uses `https_proxy` / `HTTPS_PROXY`, a plain `http://` one
    /// `http_proxy` / `HTTP_PROXY`, either falls back to `all_proxy` /
    /// `ALL_PROXY`, and `no_proxy` / `NO_PROXY` lists hosts to reach
    /// directly (`host`, `.domain` or `domain` for the domain and every name
    /// under it, `host:port`, IP addresses and ranges like `10.0.0.0/8`,
    /// `*` for all). A proxy set here is used whatever `NO_PROXY` says.
    ///
    /// `https://` requests go through a CONNECT tunnel; plain `http://`
    /// requests go to the proxy in absolute form, as HTTP proxies expect.
    /// Credentials in the URL are sent as `Proxy-Authorization: Basic` and
    /// never shown in errors, logs or `Debug` output. [`build`](Self::build)
    /// fails with [`Error::Config`] for an unusable proxy URL.
    pub fn proxy(mut self, url: &str) -> Self {
        self.network.proxy = ProxySetting::from_text(url);
        self
    }

    /// Builds the client, resolving the base URL, the key and the headers.
    ///
    /// Fails with [`Error::MissingApiKey`] when no key is found,
    /// [`Error::Config`] for an unusable base URL, key, `$OPENAI_ORG_ID` or
    /// `$OPENAI_PROJECT_ID`, an unusable proxy or CA file, and for a key
    /// that would go to a base URL from a less trusted place (a key from the
    /// environment and a base URL from `./.env`, say: see the README's lookup
    /// table), and [`Error::InvalidArgument`] for a refused
    /// [`header`](Self::header), limit or number of retries.
    pub fn build(self) -> Result<Client> {
        let (endpoint, key) = config::resolve_target(self.base_url, self.api_key)?;
        let headers = config::resolve_headers(self.headers)?;
        let mut limits = Limits::default();
        for (limit, bytes) in self.limits {
            limits.set(limit, bytes)?;
        }
        let settings = Settings {
            timeout: checked_timeout(self.timeout.unwrap_or(DEFAULT_TIMEOUT), "timeout")?,
            connect_timeout: checked_timeout(
                self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
                "connect timeout",
            )?,
            idle_timeout: checked_timeout(
                self.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT),
                "idle timeout",
            )?,
            max_retries: checked_retries(self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES))?,
            headers,
            limits,
        };
        let json = JsonSettings {
            corrections: structured::checked_corrections(
                self.json_corrections
                    .unwrap_or(structured::DEFAULT_JSON_CORRECTIONS),
            )?,
            delivery: self.schema_delivery,
        };
        let max_idle_connections = checked_pool_size(
            self.max_idle_connections
                .unwrap_or(DEFAULT_MAX_IDLE_CONNECTIONS),
        )?;
        Ok(Client {
            transport: Arc::new(Transport::new(
                endpoint,
                key,
                self.network,
                max_idle_connections,
                Tuning::of(&settings),
            )?),
            settings,
            json,
            max_idle_connections,
        })
    }
}
