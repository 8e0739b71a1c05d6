//! The client: configuration, the shared connection pool, and `send`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::config;
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::request;
use crate::response;
use crate::transport::{Settings, Transport};

/// The whole-request timeout unless set otherwise: long enough for a long
/// reply from a slow model, short enough that a dead server is noticed.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// The connect timeout unless set otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times a failed request is retried unless set otherwise.
pub const DEFAULT_MAX_RETRIES: u32 = 2;

/// A connection to one chat completions endpoint with one key.
///
/// Cheap to clone; clones share the connection pool, so connections are
/// reused across sends and threads. `Send + Sync`: one client can serve many
/// threads at once, each with its own [`Conversation`].
///
/// A request is retried (up to [`max_retries`](ClientBuilder::max_retries)
/// times) after a connection failure, a timeout, or HTTP 408, 409, 429 and
/// 5xx, waiting 0.5 s doubling up to 8 s with jitter, or as long as the
/// server's `retry-after-ms` / `retry-after` header asks, up to 120 s; a
/// longer requested pause, and a 429 for `insufficient_quota`, fail at once.
#[derive(Clone)]
pub struct Client {
    transport: Arc<Transport>,
    settings: Settings,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.transport.endpoint())
            .field("api_key", &"[redacted]")
            .field("timeout", &self.settings.timeout)
            .field("connect_timeout", &self.settings.connect_timeout)
            .field("max_retries", &self.settings.max_retries)
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
        conversation.push_reply(reply.content.clone());
        Ok(reply)
    }

    /// Sends the conversation and returns the reply without appending it.
    pub fn complete(&self, conversation: &Conversation) -> Result<Reply> {
        conversation.check_ready_to_send()?;
        let body = request::body(conversation);
        let received = self.transport.post(&body, &self.settings)?;
        response::decode_completion(received.body, received.request_id)
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
    /// zero and more than [`MAX_TIMEOUT`] are refused.
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<()> {
        self.settings.timeout = checked_timeout(timeout, "timeout")?;
        Ok(())
    }

    /// How many times a failed request is retried.
    pub fn max_retries(&self) -> u32 {
        self.settings.max_retries
    }

    /// Sets how many times a failed request is retried (0: never).
    pub fn set_max_retries(&mut self, max_retries: u32) {
        self.settings.max_retries = max_retries;
    }
}

/// The longest timeout accepted: a day is more than any reply takes, and
/// far enough from the clock's limits that deadlines cannot overflow.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

fn checked_timeout(duration: Duration, what: &str) -> Result<Duration> {
    if duration.is_zero() || duration > MAX_TIMEOUT {
        return Err(Error::InvalidArgument(format!(
            "the {what} must be longer than zero and at most 24 hours, not {duration:?}"
        )));
    }
    Ok(duration)
}

/// Configures a [`Client`]; every setting is optional.
#[derive(Default)]
pub struct ClientBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    max_retries: Option<u32>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

impl ClientBuilder {
    /// The server's base URL, e.g. `https://api.openai.com`,
    /// `http://localhost:11434/v1` (Ollama) or `http://127.0.0.1:8080`
    /// (llama.cpp's server). Requests go to `{base_url}/v1/chat/completions`;
    /// a trailing `/v1` or `/` is not doubled. Default: `$OPENAI_BASE_URL`,
    /// then `OPENAI_BASE_URL` in `./.env`, then `https://api.openai.com`.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// The API key sent as `Authorization: Bearer <key>`. Default:
    /// `$OPENAI_API_KEY`, then `OPENAI_API_KEY` in `./.env`. Servers that
    /// check no key (a local llama.cpp server or Ollama) accept any text.
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

    /// How many times a failed request is retried; default [`DEFAULT_MAX_RETRIES`].
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = Some(max_retries);
        self
    }

    /// Builds the client, resolving the base URL and the key.
    ///
    /// Fails with [`Error::MissingApiKey`] when no key is found and
    /// [`Error::Config`] for an unusable base URL or key.
    pub fn build(self) -> Result<Client> {
        let endpoint = config::resolve_endpoint(self.base_url)?;
        let key = config::resolve_api_key(self.api_key)?;
        let settings = Settings {
            timeout: checked_timeout(self.timeout.unwrap_or(DEFAULT_TIMEOUT), "timeout")?,
            connect_timeout: checked_timeout(
                self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
                "connect timeout",
            )?,
            max_retries: self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES),
        };
        Ok(Client {
            transport: Arc::new(Transport::new(endpoint, key)),
            settings,
        })
    }
}
