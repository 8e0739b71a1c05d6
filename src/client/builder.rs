//! [`ClientBuilder`]: the Rust way to make a client's [`Config`], each
//! method setting one of its fields; [`build`](ClientBuilder::build)
//! checks them all.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{Api, Auth, ClientCertFiles, Limit, Provider, ProxySetting, Target};
use crate::error::Result;
use crate::structured::SchemaDelivery;

use super::config::{Config, Description, Place};
use super::Client;

/// Configures a [`Client`]; every setting is optional.
#[derive(Default)]
pub struct ClientBuilder {
    /// Every setting, each with its default until a method sets it.
    config: Config,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.config;
        let mut f = f.debug_struct("ClientBuilder");
        if let Place::Described(place) = &config.place {
            let api_key = place.credential.api_key.as_ref().map(|_| "[redacted]");
            f.field("target", &place.target)
                .field("api", &place.api)
                .field("api_version", &place.api_version)
                .field("api_key", &api_key)
                .field("auth", &place.credential.auth)
                .field("credential_provider", &place.credential.provider.is_some())
                .field("proxy", &place.network.proxy)
                .field("ca_file", &place.network.ca_file)
                .field("client_cert", &place.network.client_cert);
        }
        let headers: Vec<_> = config.headers.iter().map(|(name, _)| name).collect();
        f.field("timeout", &config.timeout)
            .field("connect_timeout", &config.connect_timeout)
            .field("idle_timeout", &config.idle_timeout)
            .field("max_retries", &config.max_retries)
            .field("limits", &config.limits)
            .field("json_corrections", &config.json.corrections)
            .field("stream_usage", &config.stream_usage)
            .field("schema_delivery", &config.json.delivery)
            .field("max_idle_connections", &config.max_idle_connections)
            .field("max_in_flight", &config.max_in_flight)
            .field("worker_stack_size", &config.worker_stack_size)
            .field("headers", &headers)
            .finish()
    }
}

impl ClientBuilder {
    /// Changes the description of the place. A builder's place is read
    /// only by [`build`](Self::build), which consumes the builder: here it
    /// is always a description.
    fn describe(mut self, change: impl FnOnce(&mut Description)) -> Self {
        if let Place::Described(description) = &mut self.config.place {
            change(description);
        }
        self
    }

    /// The server's base URL; requests go to `{base_url}/v1/chat/completions`
    /// (a trailing `/v1` or `/` is not doubled). Replaces any target set
    /// before; the default and `.env`'s rules are in `docs/configuration.md`.
    pub fn base_url(self, base_url: impl Into<String>) -> Self {
        self.describe(|place| place.target = Target::Base(Some(base_url.into())))
    }

    /// The whole URL requests go to, used as given (path and query kept);
    /// replaces any target set before. [`build`](Self::build) refuses one that
    /// is not `http(s)://` or holds credentials or a fragment.
    pub fn endpoint_url(self, url: impl Into<String>) -> Self {
        self.describe(|place| place.target = Target::Exact(url.into()))
    }

    /// The API requests speak, default [`Api::ChatCompletions`]. With
    /// [`Api::Responses`] they go to `{base_url}/v1/responses` (Azure:
    /// `{endpoint}/openai/v1/responses`; an
    /// [`endpoint_url`](Self::endpoint_url) is used as given); see
    /// `docs/responses.md` for what maps to what and what is refused.
    pub fn api(self, api: Api) -> Self {
        self.describe(|place| place.api = api)
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

    fn azure_target(self, endpoint: Option<String>, deployment: String) -> Self {
        // The api-version is a setting of its own, put in when the place is read.
        let api_version = None;
        self.describe(|place| {
            place.target = Target::Azure {
                endpoint,
                deployment,
                api_version,
            }
        })
    }

    /// The `api-version` of Azure's classic route; default
    /// `$OPENAI_API_VERSION`, then `./.env`, then
    /// [`DEFAULT_AZURE_API_VERSION`](crate::DEFAULT_AZURE_API_VERSION).
    pub fn api_version(self, api_version: impl Into<String>) -> Self {
        self.describe(|place| place.api_version = Some(api_version.into()))
    }

    /// The API key, sent as [`auth`](Self::auth) says; `""` sends no
    /// credential. Default and secrecy: `docs/configuration.md`, `docs/security.md`.
    pub fn api_key(self, api_key: impl Into<String>) -> Self {
        self.describe(|place| place.credential.api_key = Some(api_key.into()))
    }

    /// Where the key or a provider's token goes; default [`Auth::Bearer`]
    /// ([`Auth::ApiKey`] for Azure's classic route).
    pub fn auth(self, auth: Auth) -> Self {
        self.describe(|place| place.credential.auth = Some(auth))
    }

    /// A function asked for the credential before every attempt (short-lived
    /// tokens such as Entra ID's), on whatever thread sends; an `Err` or an
    /// empty token fails the send with [`Error::Auth`](crate::Error::Auth).
    /// See `docs/providers.md`.
    pub fn credential_provider<F, E>(self, provider: F) -> Self
    where
        F: Fn() -> std::result::Result<String, E> + Send + Sync + 'static,
        E: std::fmt::Display,
    {
        self.describe(|place| place.credential.provider = Some(provider_of(provider)))
    }

    /// Trusts the CA certificates in this PEM file as well as the system's
    /// roots; [`build`](Self::build) reads it. See `docs/configuration.md`.
    pub fn ca_file(self, path: impl Into<PathBuf>) -> Self {
        self.describe(|place| place.network.ca_file = Some(path.into()))
    }

    /// Mutual TLS: the certificate chain in the PEM file `cert_path` (the
    /// client's own first) and its unencrypted private key in `key_path`,
    /// both read by [`build`](Self::build). See `docs/configuration.md`.
    pub fn client_certificate(
        self,
        cert_path: impl Into<PathBuf>,
        key_path: impl Into<PathBuf>,
    ) -> Self {
        let files = ClientCertFiles {
            cert: cert_path.into(),
            key: key_path.into(),
        };
        self.describe(|place| place.network.client_cert = Some(files))
    }

    /// Sends requests through the proxy at `url` (`http://`, `socks5://`;
    /// no scheme means `http://`), or through none for `""`, instead of the
    /// proxy variables. See `docs/configuration.md`.
    pub fn proxy(self, url: &str) -> Self {
        self.describe(|place| place.network.proxy = ProxySetting::from_text(url))
    }

    /// The whole-request timeout, per attempt; default [`DEFAULT_TIMEOUT`](crate::DEFAULT_TIMEOUT).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.config.timeout = timeout;
        self
    }

    /// The connect timeout, per attempt: it bounds the name lookup, the
    /// TCP connect and the TLS handshake together; default
    /// [`DEFAULT_CONNECT_TIMEOUT`](crate::DEFAULT_CONNECT_TIMEOUT).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.config.connect_timeout = timeout;
        self
    }

    /// How long a stream may stay silent (keep-alives count); default
    /// [`DEFAULT_IDLE_TIMEOUT`](crate::DEFAULT_IDLE_TIMEOUT).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.config.idle_timeout = timeout;
        self
    }

    /// How many times a failed request is retried; default
    /// [`DEFAULT_MAX_RETRIES`](crate::DEFAULT_MAX_RETRIES), at most
    /// [`MAX_RETRIES_CEILING`](crate::MAX_RETRIES_CEILING).
    pub fn max_retries(mut self, max_retries: u32) -> Self {
        self.config.max_retries = max_retries;
        self
    }

    /// An extra header sent with every request, replacing one of the same
    /// name (in any case); [`build`](Self::build) refuses a name or value
    /// HTTP does not allow and the headers chatwire sets itself. Values are
    /// secrets. The defaults: `docs/configuration.md`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.config.set_header(name.into(), Some(value.into()));
        self
    }

    /// Sends no header of this name (in any case), given before or taken
    /// from the environment.
    pub fn remove_header(mut self, name: impl Into<String>) -> Self {
        self.config.set_header(name.into(), None);
        self
    }

    /// One of the limits on what chatwire keeps of an answer, in bytes (after
    /// decompression); past it, [`Error::TooLarge`](crate::Error::TooLarge).
    /// See `docs/security.md`.
    pub fn limit(mut self, limit: Limit, bytes: u64) -> Self {
        self.config.limits.put(limit, bytes);
        self
    }

    /// How many idle connections are kept for reuse (0: none); default
    /// [`DEFAULT_MAX_IDLE_CONNECTIONS`](crate::DEFAULT_MAX_IDLE_CONNECTIONS), at most
    /// [`MAX_IDLE_CONNECTIONS`](crate::MAX_IDLE_CONNECTIONS). Set it to at least the
    /// number of threads sending at once.
    pub fn max_idle_connections(mut self, max_idle_connections: usize) -> Self {
        self.config.max_idle_connections = max_idle_connections;
        self
    }

    /// How many background requests of this client and its clones run at
    /// once (more wait their turn, each for at most the request
    /// [`timeout`](Self::timeout); a forked child counts its own); default [`DEFAULT_MAX_IN_FLIGHT`](crate::DEFAULT_MAX_IN_FLIGHT),
    /// from 1 to [`MAX_IN_FLIGHT`](crate::MAX_IN_FLIGHT).
    pub fn max_in_flight(mut self, max_in_flight: usize) -> Self {
        self.config.max_in_flight = max_in_flight;
        self
    }

    /// The stack size of a background request's worker thread (which runs
    /// its callbacks); default [`DEFAULT_WORKER_STACK_BYTES`](crate::DEFAULT_WORKER_STACK_BYTES).
    pub fn worker_stack_size(mut self, bytes: usize) -> Self {
        self.config.worker_stack_size = bytes;
        self
    }

    /// How many correction turns [`Client::send_json`] allows; default
    /// [`DEFAULT_JSON_CORRECTIONS`](crate::DEFAULT_JSON_CORRECTIONS).
    pub fn json_corrections(mut self, corrections: u32) -> Self {
        self.config.json.corrections = corrections;
        self
    }

    /// How [`Client::send_json`] tells the model about the schema; default
    /// [`SchemaDelivery::Prompt`].
    pub fn schema_delivery(mut self, delivery: SchemaDelivery) -> Self {
        self.config.json.delivery = delivery;
        self
    }

    /// Whether streamed requests ask for the token usage with
    /// `stream_options` (default: yes); a server that refuses it is asked
    /// again without it, and the client remembers.
    pub fn stream_usage(mut self, enabled: bool) -> Self {
        self.config.stream_usage = enabled;
        self
    }

    /// Builds the client, resolving the endpoint, the key and the headers:
    /// [`Error::MissingApiKey`](crate::Error::MissingApiKey) without a key,
    /// [`Error::Config`](crate::Error::Config) for what the environment,
    /// a URL or a file gets wrong, [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for a setting out of its range.
    pub fn build(self) -> Result<Client> {
        let mut config = self.config;
        Client::from_config(&mut config, None)
    }

    /// The configuration as described so far: what the C API's handle
    /// starts from.
    pub(crate) fn into_config(self) -> Config {
        self.config
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
