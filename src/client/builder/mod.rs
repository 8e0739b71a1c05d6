//! [`ClientBuilder`]: every setting of a client, each optional, checked
//! when the client is built.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{self, Auth, CredentialChoice, Provider, Target};
use crate::config::{ClientCertFiles, Limit, Limits, Network, ProxySetting, Settings};
use crate::error::Result;
use crate::http::pool::Destination;
use crate::structured::{JsonSettings, SchemaDelivery};

use super::Client;

mod resolved;

use crate::config::{
    checked_corrections, checked_in_flight, checked_pool_size, checked_retries, checked_stack_size,
    checked_timeout, DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_JSON_CORRECTIONS,
    DEFAULT_MAX_IDLE_CONNECTIONS, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT,
    DEFAULT_WORKER_STACK_BYTES,
};
pub(crate) use resolved::Resolved;

/// Configures a [`Client`]; every setting is optional.
#[derive(Default)]
pub struct ClientBuilder {
    target: Target,
    api_version: Option<String>,
    /// The key, where it goes, and a credential callback.
    choice: CredentialChoice,
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
        let headers: Vec<_> = self.headers.iter().map(|(name, _)| name).collect();
        let api_key = self.choice.api_key.as_ref().map(|_| "[redacted]");
        f.debug_struct("ClientBuilder")
            .field("target", &self.target)
            .field("api_version", &self.api_version)
            .field("api_key", &api_key)
            .field("auth", &self.choice.auth)
            .field("credential_provider", &self.choice.provider.is_some())
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
            .field("headers", &headers)
            .field("proxy", &self.network.proxy)
            .field("ca_file", &self.network.ca_file)
            .field("client_cert", &self.network.client_cert)
            .finish()
    }
}

/// Setters that store a value as `Some`.
macro_rules! setters {
    ($(
        $(#[$doc:meta])*
        $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $value:expr;
    )*) => {$(
        $(#[$doc])*
        pub fn $name(mut self, $arg: $ty) -> Self {
            self.$($field).+ = Some($value);
            self
        }
    )*};
}

impl ClientBuilder {
    /// The server's base URL; requests go to `{base_url}/v1/chat/completions`
    /// (a trailing `/v1` or `/` is not doubled). Replaces any target set
    /// before; the default and `.env`'s rules are in `docs/configuration.md`.
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.target = Target::Base(Some(base_url.into()));
        self
    }

    /// The whole URL requests go to, used as given (path and query kept);
    /// replaces any target set before. [`build`](Self::build) refuses one that
    /// is not `http(s)://` or holds credentials or a fragment.
    pub fn endpoint_url(mut self, url: impl Into<String>) -> Self {
        self.target = Target::Exact(url.into());
        self
    }

    /// Azure OpenAI's classic route (`{endpoint}/openai/deployments/{deployment}/...`),
    /// the key in the `api-key` header; replaces any target set before. See
    /// `docs/providers.md` (Azure's `/openai/v1` route is a [`base_url`](Self::base_url)).
    pub fn azure(self, endpoint: impl Into<String>, deployment: impl Into<String>) -> Self {
        self.azure_target(Some(endpoint.into()), deployment.into())
    }

    /// As [`azure`](Self::azure), with the endpoint from
    /// `$AZURE_OPENAI_ENDPOINT`, then `./.env`.
    pub fn azure_from_env(self, deployment: impl Into<String>) -> Self {
        self.azure_target(None, deployment.into())
    }

    fn azure_target(mut self, endpoint: Option<String>, deployment: String) -> Self {
        let api_version = None;
        self.target = Target::Azure {
            endpoint,
            deployment,
            api_version,
        };
        self
    }

    setters! {
        /// The `api-version` of Azure's classic route; default
        /// `$OPENAI_API_VERSION`, then `./.env`, then
        /// [`DEFAULT_AZURE_API_VERSION`](crate::DEFAULT_AZURE_API_VERSION).
        api_version(api_version: impl Into<String>) => api_version = api_version.into();

        /// The API key, sent as [`auth`](Self::auth) says; `""` sends no
        /// credential. Default and secrecy: `docs/configuration.md`, `docs/security.md`.
        api_key(api_key: impl Into<String>) => choice.api_key = api_key.into();

        /// Where the key or a provider's token goes; default [`Auth::Bearer`]
        /// ([`Auth::ApiKey`] for Azure's classic route).
        auth(auth: Auth) => choice.auth = auth;

        /// The whole-request timeout, per attempt; default [`DEFAULT_TIMEOUT`](crate::DEFAULT_TIMEOUT).
        timeout(timeout: Duration) => timeout = timeout;

        /// The connect timeout, per attempt: it bounds the name lookup, the
        /// TCP connect and the TLS handshake together; default
        /// [`DEFAULT_CONNECT_TIMEOUT`](crate::DEFAULT_CONNECT_TIMEOUT).
        connect_timeout(timeout: Duration) => connect_timeout = timeout;

        /// How long a stream may stay silent (keep-alives count); default
        /// [`DEFAULT_IDLE_TIMEOUT`](crate::DEFAULT_IDLE_TIMEOUT).
        idle_timeout(timeout: Duration) => idle_timeout = timeout;

        /// How many times a failed request is retried; default
        /// [`DEFAULT_MAX_RETRIES`](crate::DEFAULT_MAX_RETRIES), at most
        /// [`MAX_RETRIES_CEILING`](crate::MAX_RETRIES_CEILING).
        max_retries(max_retries: u32) => max_retries = max_retries;

        /// How many idle connections are kept for reuse (0: none); default
        /// [`DEFAULT_MAX_IDLE_CONNECTIONS`](crate::DEFAULT_MAX_IDLE_CONNECTIONS), at most
        /// [`MAX_IDLE_CONNECTIONS`](crate::MAX_IDLE_CONNECTIONS). Set it to at least the
        /// number of threads sending at once.
        max_idle_connections(max_idle_connections: usize) => max_idle_connections = max_idle_connections;

        /// How many background requests of this client and its clones run at
        /// once (more wait their turn, each for at most the request
        /// [`timeout`](Self::timeout); a forked child counts its own); default [`DEFAULT_MAX_IN_FLIGHT`](crate::DEFAULT_MAX_IN_FLIGHT),
        /// from 1 to [`MAX_IN_FLIGHT`](crate::MAX_IN_FLIGHT).
        max_in_flight(max_in_flight: usize) => max_in_flight = max_in_flight;

        /// The stack size of a background request's worker thread (which runs
        /// its callbacks); default [`DEFAULT_WORKER_STACK_BYTES`](crate::DEFAULT_WORKER_STACK_BYTES).
        worker_stack_size(bytes: usize) => worker_stack_size = bytes;

        /// How many correction turns [`Client::send_json`] allows; default
        /// [`DEFAULT_JSON_CORRECTIONS`](crate::DEFAULT_JSON_CORRECTIONS).
        json_corrections(corrections: u32) => json_corrections = corrections;

        /// Whether streamed requests ask for the token usage with
        /// `stream_options` (default: yes); a server that refuses it is asked
        /// again without it, and the client remembers.
        stream_usage(enabled: bool) => stream_usage = enabled;
    }

    /// A function asked for the credential before every attempt (short-lived
    /// tokens such as Entra ID's), on whatever thread sends; an `Err` or an
    /// empty token fails the send with [`Error::Auth`](crate::Error::Auth).
    /// See `docs/providers.md`.
    pub fn credential_provider<F, E>(mut self, provider: F) -> Self
    where
        F: Fn() -> std::result::Result<String, E> + Send + Sync + 'static,
        E: std::fmt::Display,
    {
        self.choice.provider = Some(provider_of(provider));
        self
    }

    /// One of the limits on what chatwire keeps of an answer, in bytes (after
    /// decompression); past it, [`Error::TooLarge`](crate::Error::TooLarge).
    /// See `docs/security.md`.
    pub fn limit(mut self, limit: Limit, bytes: u64) -> Self {
        self.limits.push((limit, bytes));
        self
    }

    /// How [`Client::send_json`] tells the model about the schema; default
    /// [`SchemaDelivery::Prompt`].
    pub fn schema_delivery(mut self, delivery: SchemaDelivery) -> Self {
        self.schema_delivery = delivery;
        self
    }

    /// An extra header sent with every request, replacing one of the same
    /// name (in any case); [`build`](Self::build) refuses a name or value
    /// HTTP does not allow and the headers chatwire sets itself. Values are
    /// secrets. The defaults: `docs/configuration.md`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), Some(value.into())));
        self
    }

    /// Sends no header of this name (in any case), given before or taken
    /// from the environment.
    pub fn remove_header(mut self, name: impl Into<String>) -> Self {
        self.headers.push((name.into(), None));
        self
    }

    /// Trusts the CA certificates in this PEM file as well as the system's
    /// roots; [`build`](Self::build) reads it. See `docs/configuration.md`.
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.network.ca_file = Some(path.into());
        self
    }

    /// Mutual TLS: the certificate chain in the PEM file `cert_path` (the
    /// client's own first) and its unencrypted private key in `key_path`,
    /// both read by [`build`](Self::build). See `docs/configuration.md`.
    pub fn client_certificate(
        mut self,
        cert_path: impl Into<PathBuf>,
        key_path: impl Into<PathBuf>,
    ) -> Self {
        self.network.client_cert = Some(ClientCertFiles {
            cert: cert_path.into(),
            key: key_path.into(),
        });
        self
    }

    /// Sends requests through the proxy at `url` (`http://`, `socks5://`;
    /// no scheme means `http://`), or through none for `""`, instead of the
    /// proxy variables. See `docs/configuration.md`.
    pub fn proxy(mut self, url: &str) -> Self {
        self.network.proxy = ProxySetting::from_text(url);
        self
    }

    /// Builds the client, resolving the endpoint, the key and the headers:
    /// [`Error::MissingApiKey`](crate::Error::MissingApiKey) without a key,
    /// [`Error::Config`](crate::Error::Config) for what the environment,
    /// a URL or a file gets wrong, [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for a setting out of its range.
    pub fn build(self) -> Result<Client> {
        Ok(self.resolve()?.client(None))
    }

    /// Everything [`build`](Self::build) reads and checks, before the
    /// client is made: what the C API's handle keeps for its setters.
    pub(crate) fn resolve(self) -> Result<Resolved> {
        let mut target = self.target;
        if let Target::Azure { api_version, .. } = &mut target {
            *api_version = self.api_version;
        }
        let (endpoint, credential) = config::resolve_target(target, self.choice)?;
        let headers = config::resolve_headers(self.headers)?;
        let mut limits = Limits::default();
        for (limit, bytes) in self.limits {
            limits.set(limit, bytes)?;
        }
        let timeout = |given: Option<Duration>, default, what| {
            checked_timeout(given.unwrap_or(default), what)
        };
        let settings = Settings {
            timeout: timeout(self.timeout, DEFAULT_TIMEOUT, "timeout")?,
            connect_timeout: timeout(
                self.connect_timeout,
                DEFAULT_CONNECT_TIMEOUT,
                "connect timeout",
            )?,
            idle_timeout: timeout(self.idle_timeout, DEFAULT_IDLE_TIMEOUT, "idle timeout")?,
            max_retries: checked_retries(self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES))?,
            headers,
            limits,
        };
        let json = JsonSettings {
            corrections: checked_corrections(
                self.json_corrections.unwrap_or(DEFAULT_JSON_CORRECTIONS),
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
            max_in_flight: checked_in_flight(self.max_in_flight.unwrap_or(DEFAULT_MAX_IN_FLIGHT))?,
            worker_stack: checked_stack_size(
                self.worker_stack_size.unwrap_or(DEFAULT_WORKER_STACK_BYTES),
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

#[cfg(test)]
mod tests {
    #[test]
    fn remove_header_sends_none_of_that_name() -> crate::Result<()> {
        let client = crate::Client::builder()
            .base_url("http://127.0.0.1:8080")
            .api_key("sk-local")
            .header("X-Trace-Id", "run-42")
            .remove_header("x-trace-id")
            .remove_header("OpenAI-Organization")
            .build()?;
        assert!(!format!("{client:?}").contains("x-trace-id"));
        Ok(())
    }

    #[test]
    fn a_credential_provider_is_taken_for_azure() -> crate::Result<()> {
        let _client = crate::Client::builder()
            .azure("https://my-resource.openai.azure.com", "gpt-4o")
            .credential_provider(|| Ok::<_, std::io::Error>("entra-token".to_owned()))
            .build()?;
        Ok(())
    }

    #[test]
    fn azure_builds_the_classic_route() -> crate::Result<()> {
        let client = crate::Client::builder()
            .azure("https://my-resource.openai.azure.com", "gpt-4o")
            .api_version("2024-10-21")
            .api_key("azure-key")
            .build()?;
        assert_eq!(
            client.endpoint(),
            "https://my-resource.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
        );
        Ok(())
    }

    #[test]
    fn endpoint_url_is_used_as_given() -> crate::Result<()> {
        let client = crate::Client::builder()
            .endpoint_url(
                "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
            )
            .api_key("gemini-key")
            .build()?;
        assert!(client
            .endpoint()
            .ends_with("/v1beta/openai/chat/completions"));
        Ok(())
    }
}
