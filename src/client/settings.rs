//! What a client can be asked and told after it is built: its endpoint and
//! credential, timeouts, retries, limits, pool size, headers, trust and
//! proxy.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{checked_pool_size, checked_retries, checked_timeout, exact_endpoint_url};
use crate::config::{
    Auth, ClientCertFiles, Credential, Limit, Network, ProxySetting, Settings, Source,
};
use crate::error::Result;
use crate::http::pool::Tuning;

use super::builder::provider_of;
use super::Client;

impl Client {
    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.pool.endpoint()
    }

    /// Sends this client's requests (not its other clones') to `url`, used
    /// as given, path and query kept; see
    /// [`ClientBuilder::endpoint_url`](crate::ClientBuilder::endpoint_url).
    /// The client keeps its credential (an argument now names the
    /// endpoint, so any credential may go there) and gets a connection pool
    /// of its own. On error nothing changes.
    ///
    /// ```
    /// let mut client = chatwire::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("")
    ///     .build()?;
    /// client.set_endpoint_url("http://127.0.0.1:8080/tenant/7/chat?route=fast")?;
    /// assert_eq!(client.endpoint(), "http://127.0.0.1:8080/tenant/7/chat?route=fast");
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn set_endpoint_url(&mut self, url: &str) -> Result<()> {
        let endpoint = exact_endpoint_url(url)?;
        let credential = self.pool.credential().to(Source::Explicit);
        self.replace_target(endpoint, credential)
    }

    /// Sets where this client's credential goes (see
    /// [`ClientBuilder::auth`](crate::ClientBuilder::auth)); its other clones
    /// keep theirs.
    pub fn set_auth(&mut self, auth: Auth) -> Result<()> {
        let credential = self.pool.credential().with_auth(auth)?;
        self.replace_target(self.pool.endpoint().to_owned(), credential)
    }

    /// Asks `provider` for this client's credential before every attempt
    /// (see [`ClientBuilder::credential_provider`](crate::ClientBuilder::credential_provider));
    /// its other clones keep theirs. Refused with
    /// [`Error::Config`](crate::Error::Config) when `./.env` named the endpoint.
    pub fn set_credential_provider<F, E>(&mut self, provider: F) -> Result<()>
    where
        F: Fn() -> std::result::Result<String, E> + Send + Sync + 'static,
        E: std::fmt::Display,
    {
        let provider = provider_of(provider);
        let credential = self.pool.credential().with_provider(Some(provider))?;
        self.replace_target(self.pool.endpoint().to_owned(), credential)
    }

    /// Stops asking a credential provider: the client sends its key again
    /// (none, if it had none).
    pub fn clear_credential_provider(&mut self) -> Result<()> {
        let credential = self.pool.credential().with_provider(None)?;
        self.replace_target(self.pool.endpoint().to_owned(), credential)
    }

    /// Sets the endpoint and the credential at once, in a new pool.
    pub(crate) fn replace_target(
        &mut self,
        endpoint: String,
        credential: Credential,
    ) -> Result<()> {
        let network = self.pool.network().clone();
        self.pool = Arc::new(self.pool.with_target(endpoint, credential, network)?);
        Ok(())
    }

    /// The whole-request timeout (connecting, sending, and reading the reply).
    pub fn timeout(&self) -> Duration {
        self.settings.timeout
    }

    /// Sets the whole-request timeout of this client (not of its other clones);
    /// zero and more than [`MAX_TIMEOUT`](crate::MAX_TIMEOUT) are refused. A new timeout gives
    /// this client a new connection pool, so set it before sending.
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<()> {
        let timeout = checked_timeout(timeout, "timeout")?;
        self.change_settings(|settings| settings.timeout = timeout)
    }

    /// How long a stream may stay silent before it fails with [`Error::Timeout`](crate::Error::Timeout).
    pub fn idle_timeout(&self) -> Duration {
        self.settings.idle_timeout
    }

    /// Sets the idle timeout of streams; zero and more than [`MAX_TIMEOUT`](crate::MAX_TIMEOUT) are refused.
    pub fn set_idle_timeout(&mut self, timeout: Duration) -> Result<()> {
        self.settings.idle_timeout = checked_timeout(timeout, "idle timeout")?;
        Ok(())
    }

    /// How many times a failed request is retried.
    pub fn max_retries(&self) -> u32 {
        self.settings.max_retries
    }

    /// Sets how many times a failed request is retried (0: never); more
    /// than [`MAX_RETRIES_CEILING`](crate::MAX_RETRIES_CEILING) is refused with [`Error::InvalidArgument`](crate::Error::InvalidArgument).
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
    /// answer past a limit stops the request with [`Error::TooLarge`](crate::Error::TooLarge) and
    /// leaves the conversation unchanged. Less than [`MIN_LIMIT`](crate::MIN_LIMIT)
    /// or more than [`MAX_LIMIT`](crate::MAX_LIMIT) ([`MAX_HEADER_LIMIT`](crate::MAX_HEADER_LIMIT)
    /// for headers) is refused with [`Error::InvalidArgument`](crate::Error::InvalidArgument). A new
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
        if Tuning::of(&settings) != self.pool.tuning() {
            self.pool = Arc::new(self.pool.retuned(&settings)?);
        }
        self.settings = settings;
        Ok(())
    }

    /// How many idle connections this client keeps open for reuse.
    pub fn max_idle_connections(&self) -> usize {
        self.max_idle_connections
    }

    /// Sets how many idle connections this client keeps (see
    /// [`ClientBuilder::max_idle_connections`](crate::ClientBuilder::max_idle_connections)). This client gets a new pool;
    /// its other clones keep the old one, whose connections close once
    /// nothing uses them. More than [`MAX_IDLE_CONNECTIONS`](crate::MAX_IDLE_CONNECTIONS) is refused.
    pub fn set_max_idle_connections(&mut self, max_idle_connections: usize) -> Result<()> {
        let max_idle_connections = checked_pool_size(max_idle_connections)?;
        self.pool = Arc::new(self.pool.resized(max_idle_connections)?);
        self.max_idle_connections = max_idle_connections;
        Ok(())
    }

    /// How many background requests of this client and its clones run at
    /// once; see [`ClientBuilder::max_in_flight`](crate::ClientBuilder::max_in_flight).
    pub fn max_in_flight(&self) -> usize {
        self.in_flight.limit()
    }

    /// Sets how many background requests of this client and its clones
    /// (which share the cap, as they share the pool) run at once; requests
    /// waiting for their turn go on at once when it is raised. 0 and more
    /// than [`MAX_IN_FLIGHT`](crate::MAX_IN_FLIGHT) are refused.
    pub fn set_max_in_flight(&mut self, max_in_flight: usize) -> Result<()> {
        self.in_flight
            .set_limit(crate::config::checked_in_flight(max_in_flight)?);
        Ok(())
    }

    /// The stack size of a background request's worker thread.
    pub fn worker_stack_size(&self) -> usize {
        self.worker_stack
    }

    /// Sets the stack size of the worker threads of background requests
    /// started from now on (see [`ClientBuilder::worker_stack_size`](crate::ClientBuilder::worker_stack_size));
    /// out of range is refused.
    pub fn set_worker_stack_size(&mut self, bytes: usize) -> Result<()> {
        self.worker_stack = crate::config::checked_stack_size(bytes)?;
        Ok(())
    }

    /// Sets an extra header sent with every request of this client (not of
    /// its other clones), replacing one of the same name (names are
    /// case-insensitive); `None` removes it. See [`ClientBuilder::header`](crate::ClientBuilder::header)
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
    /// for this client (not its other clones); see [`ClientBuilder::ca_file`](crate::ClientBuilder::ca_file).
    /// The client gets a connection pool of its own. On error nothing changes.
    pub fn set_ca_file(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let network = Network {
            ca_file: Some(path.as_ref().to_path_buf()),
            ..self.pool.network().clone()
        };
        self.replace_network(network)
    }

    /// Shows the certificate chain in the PEM file `cert_path` and its
    /// private key in the PEM file `key_path` to servers that ask for a
    /// client certificate, for this client (not its other clones); see
    /// [`ClientBuilder::client_certificate`](crate::ClientBuilder::client_certificate).
    /// Both files are read now: [`Error::Config`](crate::Error::Config)
    /// names the file that is wrong. The client gets a connection pool of
    /// its own. On error nothing changes.
    pub fn set_client_certificate(
        &mut self,
        cert_path: impl AsRef<Path>,
        key_path: impl AsRef<Path>,
    ) -> Result<()> {
        let network = Network {
            client_cert: Some(ClientCertFiles {
                cert: cert_path.as_ref().to_path_buf(),
                key: key_path.as_ref().to_path_buf(),
            }),
            ..self.pool.network().clone()
        };
        self.replace_network(network)
    }

    /// Sends this client's requests (not its other clones') through the
    /// proxy at `url`, or through none when `url` is `""`, whatever the
    /// environment says; see [`ClientBuilder::proxy`](crate::ClientBuilder::proxy). The client gets a
    /// connection pool of its own. On error nothing changes.
    pub fn set_proxy(&mut self, url: &str) -> Result<()> {
        let network = Network {
            proxy: ProxySetting::from_text(url),
            ..self.pool.network().clone()
        };
        self.replace_network(network)
    }

    fn replace_network(&mut self, network: Network) -> Result<()> {
        self.pool = Arc::new(self.pool.with_network(network)?);
        Ok(())
    }
}
