//! [`ClientBuilder`]: every setting of a client, each optional, checked
//! when the client is built.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{self, Auth, CredentialChoice, Provider, Target};
use crate::config::{Limit, Limits, Network, Settings};
use crate::error::Result;
use crate::http::pool::Destination;
use crate::structured::{JsonSettings, SchemaDelivery};

use super::Client;

mod network;
mod resolved;

use crate::config::{
    checked_pool_size, checked_retries, checked_timeout, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_IDLE_CONNECTIONS, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT,
};
pub(crate) use resolved::Resolved;

/// Configures a [`Client`]; every setting is optional.
#[derive(Default)]
pub struct ClientBuilder {
    target: Target,
    api_version: Option<String>,
    api_key: Option<String>,
    auth: Option<Auth>,
    provider: Option<Provider>,
    timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    max_retries: Option<u32>,
    max_idle_connections: Option<usize>,
    max_in_flight: Option<usize>,
    worker_stack_size: Option<usize>,
    /// Each header given, in order; `None` removes it.
    headers: Vec<(String, Option<String>)>,
    limits: Vec<(Limit, u64)>,
    json_corrections: Option<u32>,
    schema_delivery: SchemaDelivery,
    network: Network,
    stream_usage: Option<bool>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("target", &self.target)
            .field("api_version", &self.api_version)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("auth", &self.auth)
            .field("credential_provider", &self.provider.is_some())
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .field("limits", &self.limits)
            .field("json_corrections", &self.json_corrections)
            .field("stream_usage", &self.stream_usage)
            .field("schema_delivery", &self.schema_delivery)
            .field("max_idle_connections", &self.max_idle_connections)
            .field("max_in_flight", &self.max_in_flight)
            .field("worker_stack_size", &self.worker_stack_size)
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
            .field("client_cert", &self.network.client_cert)
            .finish()
    }
}

impl ClientBuilder {
    /// The server's base URL, e.g. `https://api.openai.com`,
    /// `http://localhost:11434/v1` (Ollama), `http://127.0.0.1:8080`
    /// (llama.cpp's server) or `https://RESOURCE.openai.azure.com/openai/v1`
    /// (Azure's v1 route). Requests go to `{base_url}/v1/chat/completions`;
    /// a trailing `/v1` or `/` is not doubled. Default: `$OPENAI_BASE_URL`,
    /// then `OPENAI_BASE_URL` in `./.env`, then `https://api.openai.com`.
    /// Replaces an [`endpoint_url`](Self::endpoint_url) or
    /// [`azure`](Self::azure) target set before.
    ///
    /// Arguments and the environment combine freely. Only `./.env`, which
    /// comes with whatever directory the program runs in, is less trusted:
    /// [`build`](Self::build) refuses to send a key given here or found in
    /// the environment to a base URL that `./.env` names.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.target = Target::Base(Some(base_url.into()));
        self
    }

    /// The whole URL requests go to, used as given: path and query kept,
    /// nothing added. For servers whose route is not
    /// `{base}/v1/chat/completions`: Gemini's
    /// `https://generativelanguage.googleapis.com/v1beta/openai/chat/completions`,
    /// a gateway's own path. [`build`](Self::build) fails with
    /// [`Error::Config`](crate::Error::Config) for a URL that is not
    /// `http(s)://`, holds a user name or password, or has a fragment.
    /// Replaces a [`base_url`](Self::base_url) or [`azure`](Self::azure)
    /// target set before.
    ///
    /// ```
    /// let client = chatwire::Client::builder()
    ///     .endpoint_url("https://generativelanguage.googleapis.com/v1beta/openai/chat/completions")
    ///     .api_key("gemini-key")
    ///     .build()?;
    /// assert!(client.endpoint().ends_with("/v1beta/openai/chat/completions"));
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn endpoint_url(mut self, url: impl Into<String>) -> Self {
        self.target = Target::Exact(url.into());
        self
    }

    /// Azure OpenAI's classic route: requests go to
    /// `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...`
    /// (see [`api_version`](Self::api_version)), with the key in the
    /// `api-key` header and no `Authorization` header. `endpoint` is the
    /// resource's, e.g. `https://RESOURCE.openai.azure.com`; `deployment` is
    /// the name of the model deployment. The key defaults to
    /// `$AZURE_OPENAI_API_KEY`, then its entry in `./.env`. For Entra ID
    /// tokens give a [`credential_provider`](Self::credential_provider):
    /// its tokens go as `Authorization: Bearer`. Replaces a
    /// [`base_url`](Self::base_url) or [`endpoint_url`](Self::endpoint_url)
    /// target set before.
    ///
    /// Azure's newer `/openai/v1` route needs none of this: give
    /// `https://RESOURCE.openai.azure.com/openai/v1` as the
    /// [`base_url`](Self::base_url), the deployment name as the model.
    ///
    /// ```
    /// let client = chatwire::Client::builder()
    ///     .azure("https://my-resource.openai.azure.com", "gpt-4o")
    ///     .api_version("2024-10-21")
    ///     .api_key("azure-key")
    ///     .build()?;
    /// assert_eq!(
    ///     client.endpoint(),
    ///     "https://my-resource.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
    /// );
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn azure(mut self, endpoint: impl Into<String>, deployment: impl Into<String>) -> Self {
        self.target = Target::Azure {
            endpoint: Some(endpoint.into()),
            deployment: deployment.into(),
            api_version: None,
        };
        self
    }

    /// As [`azure`](Self::azure), with the resource's endpoint from
    /// `$AZURE_OPENAI_ENDPOINT`, then its entry in `./.env` (the names
    /// openai-python reads). [`build`](Self::build) fails with
    /// [`Error::Config`](crate::Error::Config) when neither has it.
    pub fn azure_from_env(mut self, deployment: impl Into<String>) -> Self {
        self.target = Target::Azure {
            endpoint: None,
            deployment: deployment.into(),
            api_version: None,
        };
        self
    }

    /// The `api-version` of Azure's classic route ([`azure`](Self::azure));
    /// ignored for other targets. Default: `$OPENAI_API_VERSION`, then its
    /// entry in `./.env`, then [`DEFAULT_AZURE_API_VERSION`](crate::DEFAULT_AZURE_API_VERSION).
    pub fn api_version(mut self, api_version: impl Into<String>) -> Self {
        self.api_version = Some(api_version.into());
        self
    }

    /// The API key, sent as `Authorization: Bearer <key>` (Azure's classic
    /// route: `api-key: <key>`; see [`auth`](Self::auth)). Default:
    /// `$OPENAI_API_KEY` (`$AZURE_OPENAI_API_KEY` for [`azure`](Self::azure)),
    /// then its entry in `./.env`. `""` sends no credential at all, for
    /// servers started without a key (llama.cpp, Ollama, vLLM), and looks
    /// nothing up.
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

    /// Where the credential goes: [`Auth::Bearer`] (the default),
    /// [`Auth::ApiKey`] (the default for the key of Azure's classic route)
    /// or [`Auth::None`]. Applies to the key and to a
    /// [`credential_provider`](Self::credential_provider)'s tokens alike.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// A function asked for the credential before every attempt (retries
    /// included), instead of a fixed key: for short-lived tokens such as
    /// Entra ID's. Its token goes as `Authorization: Bearer <token>` unless
    /// [`auth`](Self::auth) says otherwise; with a provider, no key is
    /// looked up.
    ///
    /// It is called on whatever thread sends, background workers included,
    /// possibly on several at once: keep it quick (hand out a cached token
    /// and refresh it before it expires). An `Err` (or an empty token) fails
    /// the send with [`Error::Auth`](crate::Error::Auth), which has no HTTP
    /// status and is not retried; the error's text is included in the
    /// message. Every token it gives is a secret: never printed, and taken
    /// out of whatever a server echoes. [`build`](Self::build) refuses a
    /// provider for an endpoint that `./.env` names.
    ///
    /// ```
    /// let client = chatwire::Client::builder()
    ///     .azure("https://my-resource.openai.azure.com", "gpt-4o")
    ///     .credential_provider(|| Ok::<_, std::io::Error>("entra-token".to_owned()))
    ///     .build()?;
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn credential_provider<F, E>(mut self, provider: F) -> Self
    where
        F: Fn() -> std::result::Result<String, E> + Send + Sync + 'static,
        E: std::fmt::Display,
    {
        self.provider = Some(provider_of(provider));
        self
    }

    /// The whole-request timeout, per attempt; default [`DEFAULT_TIMEOUT`](crate::DEFAULT_TIMEOUT).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The connect timeout, per attempt; default [`DEFAULT_CONNECT_TIMEOUT`](crate::DEFAULT_CONNECT_TIMEOUT).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// How long a streamed reply may stay silent (keep-alives count as
    /// activity) before it fails with [`Error::Timeout`](crate::Error::Timeout); default
    /// [`DEFAULT_IDLE_TIMEOUT`](crate::DEFAULT_IDLE_TIMEOUT). The whole-request timeout bounds streams too.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = Some(timeout);
        self
    }

    /// How many times a failed request is retried; default
    /// [`DEFAULT_MAX_RETRIES`](crate::DEFAULT_MAX_RETRIES), at most [`MAX_RETRIES_CEILING`](crate::MAX_RETRIES_CEILING) (more makes
    /// [`build`](Self::build) fail with [`Error::InvalidArgument`](crate::Error::InvalidArgument)).
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = Some(max_retries);
        self
    }

    /// How many idle connections the client keeps open between sends, for
    /// the next send to reuse instead of connecting again; default
    /// [`DEFAULT_MAX_IDLE_CONNECTIONS`](crate::DEFAULT_MAX_IDLE_CONNECTIONS), at most [`MAX_IDLE_CONNECTIONS`](crate::MAX_IDLE_CONNECTIONS).
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

    /// How many background requests ([`Client::send_async`],
    /// [`Client::stream_async`], the C API's `chatwire_send_async`) of this
    /// client and its clones run at once; more wait their turn, in order,
    /// instead of failing (a cancel ends the wait at once). Default
    /// [`DEFAULT_MAX_IN_FLIGHT`](crate::DEFAULT_MAX_IN_FLIGHT), from 1 to
    /// [`MAX_IN_FLIGHT`](crate::MAX_IN_FLIGHT) (else [`build`](Self::build)
    /// fails with [`Error::InvalidArgument`](crate::Error::InvalidArgument)).
    /// Each request running holds a thread and a socket: keep the cap below
    /// the process's limit on descriptors.
    pub fn max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.max_in_flight = Some(max_in_flight);
        self
    }

    /// The stack size of a background request's worker thread, in bytes;
    /// default [`DEFAULT_WORKER_STACK_BYTES`](crate::DEFAULT_WORKER_STACK_BYTES),
    /// from [`MIN_WORKER_STACK_BYTES`](crate::MIN_WORKER_STACK_BYTES) to
    /// [`MAX_WORKER_STACK_BYTES`](crate::MAX_WORKER_STACK_BYTES). A callback
    /// that needs a deep stack of its own (it runs on that thread) may need
    /// more.
    pub fn worker_stack_size(mut self, bytes: usize) -> Self {
        self.worker_stack_size = Some(bytes);
        self
    }

    /// One of the limits on what chatwire keeps of an answer, in bytes
    /// (after decompression). An answer past a limit stops the request with
    /// [`Error::TooLarge`](crate::Error::TooLarge) and leaves the
    /// conversation unchanged. Less than [`MIN_LIMIT`](crate::MIN_LIMIT) or
    /// more than [`MAX_LIMIT`](crate::MAX_LIMIT)
    /// ([`MAX_HEADER_LIMIT`](crate::MAX_HEADER_LIMIT) for headers) makes
    /// [`build`](Self::build) fail with [`Error::InvalidArgument`](crate::Error::InvalidArgument).
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

    /// Whether streamed requests ask for the token usage with
    /// `stream_options` (default: yes). Servers that refuse the field
    /// (Mistral answers 422, Databricks and Bedrock 400) are asked again
    /// without it anyway, once, and the client and its clones remember;
    /// turning it off saves that first refusal.
    pub fn stream_usage(mut self, enabled: bool) -> Self {
        self.stream_usage = Some(enabled);
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
    /// their entries in `./.env`), each unless given here. Every request
    /// also asks for `Accept-Encoding: gzip` (chatwire decompresses gzip
    /// answers); an `Accept-Encoding` given here replaces that.
    ///
    /// [`build`](Self::build) fails with [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a name
    /// that is not an HTTP header name, a value that is not a header value
    /// (a newline, say), and for `Authorization`, `Content-Type`,
    /// `Content-Length`, `Transfer-Encoding`, `Host` and `Connection`, which
    /// chatwire or the HTTP layer sets. Values may be secrets: they never
    /// appear in `Debug` output or in errors.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), Some(value.into())));
        self
    }

    /// Sends no header of this name (in any case): removes one given
    /// before with [`header`](Self::header), or one chatwire would add
    /// from the environment (`OpenAI-Organization`, `OpenAI-Project`).
    /// Removing a header that is not there is not an error;
    /// [`build`](Self::build) refuses the same names as for
    /// [`header`](Self::header).
    ///
    /// ```
    /// let client = chatwire::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("sk-local")
    ///     .header("X-Trace-Id", "run-42")
    ///     .remove_header("x-trace-id")
    ///     .remove_header("OpenAI-Organization")
    ///     .build()?;
    /// assert!(!format!("{client:?}").contains("x-trace-id"));
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn remove_header(mut self, name: impl Into<String>) -> Self {
        self.headers.push((name.into(), None));
        self
    }

    /// Builds the client, resolving the endpoint, the key and the headers.
    ///
    /// Fails with [`Error::MissingApiKey`](crate::Error::MissingApiKey) when no key is found,
    /// [`Error::Config`](crate::Error::Config) for an unusable URL, key, `$OPENAI_ORG_ID` or
    /// `$OPENAI_PROJECT_ID`, an unusable proxy or CA file, and for a key
    /// from an argument or the environment that would go to an endpoint
    /// named by `./.env` (see the lookup table in
    /// `docs/configuration.md`), and
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a refused
    /// [`header`](Self::header), limit or number of retries, or an empty
    /// Azure deployment.
    pub fn build(self) -> Result<Client> {
        Ok(self.resolve()?.client(None))
    }

    /// Everything [`build`](Self::build) reads and checks, before the
    /// client is made: what the C API's handle keeps for its setters.
    pub(crate) fn resolve(self) -> Result<Resolved> {
        let target = match self.target {
            Target::Azure {
                endpoint,
                deployment,
                ..
            } => Target::Azure {
                endpoint,
                deployment,
                api_version: self.api_version,
            },
            other => other,
        };
        let choice = CredentialChoice {
            api_key: self.api_key,
            auth: self.auth,
            provider: self.provider,
        };
        let (endpoint, credential) = config::resolve_target(target, choice)?;
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
            corrections: config::checked_corrections(
                self.json_corrections
                    .unwrap_or(config::DEFAULT_JSON_CORRECTIONS),
            )?,
            delivery: self.schema_delivery,
        };
        Ok(Resolved {
            destination: Destination::read(endpoint, credential, self.network)?,
            settings,
            json,
            max_idle_connections: checked_pool_size(
                self.max_idle_connections
                    .unwrap_or(DEFAULT_MAX_IDLE_CONNECTIONS),
            )?,
            stream_usage: self.stream_usage.unwrap_or(true),
            max_in_flight: config::checked_in_flight(
                self.max_in_flight.unwrap_or(config::DEFAULT_MAX_IN_FLIGHT),
            )?,
            worker_stack: config::checked_stack_size(
                self.worker_stack_size
                    .unwrap_or(config::DEFAULT_WORKER_STACK_BYTES),
            )?,
            pool: None,
        })
    }
}

/// A credential provider as chatwire keeps it: the caller's error turned
/// into its text.
pub(crate) fn provider_of<F, E>(provider: F) -> Provider
where
    F: Fn() -> std::result::Result<String, E> + Send + Sync + 'static,
    E: std::fmt::Display,
{
    Provider::new(Arc::new(move || {
        provider().map_err(|error| error.to_string())
    }))
}
