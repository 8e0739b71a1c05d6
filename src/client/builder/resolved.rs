//! A client's settings once resolved and checked: what a [`Client`] is made
//! from, kept by the C API's handle so that its setters make its next client.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{self, Auth, ClientCertFiles, Limit, ProxySetting};
use crate::config::{Provider, Settings, Source};
use crate::error::Result;
use crate::http::pool::{Destination, Pool};
use crate::structured::{JsonSettings, SchemaDelivery};

use super::super::in_flight::Gate;
use super::super::stream::StreamUsage;
use super::super::Client;

/// Setters of a checked value; those marked `new pool` change what the
/// pool is built from.
macro_rules! checked_setters {
    ($(
        $(#[$doc:meta])*
        $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $check:expr $(, new $pool:ident)?;
    )*) => {$(
        $(#[$doc])*
        pub(crate) fn $name(&mut self, $arg: $ty) -> Result<()> {
            self.$($field).+ = $check?;
            $(self.$pool = None;)?
            Ok(())
        }
    )*};
}

/// Every setting of a client, resolved (the environment read) and checked.
#[derive(Clone)]
pub(crate) struct Resolved {
    /// Where requests go, with the route and trust read for it.
    pub(super) destination: Destination,
    pub(super) settings: Settings,
    pub(super) json: JsonSettings,
    pub(super) max_idle_connections: usize,
    pub(super) stream_usage: bool,
    pub(super) max_in_flight: usize,
    pub(super) worker_stack: usize,
    /// The pool made from the settings above, until a change of what it is
    /// built from sets it to `None`.
    pub(super) pool: Option<Arc<Pool>>,
}

impl Resolved {
    /// The client these settings make. `previous`, the client it replaces,
    /// lends what running requests hold: the cap on requests in flight (set to
    /// the new value, which lets waiting requests go on) and a refused `stream_options`.
    pub(crate) fn client(&mut self, previous: Option<&Client>) -> Client {
        let (destination, size) = (&self.destination, self.max_idle_connections);
        let settings = &self.settings;
        let pool = Arc::clone(
            self.pool
                .get_or_insert_with(|| Arc::new(Pool::new(destination.clone(), size, settings))),
        );
        let (in_flight, mut stream_usage) = match previous {
            Some(previous) => {
                previous.in_flight.set_limit(self.max_in_flight);
                (
                    Arc::clone(&previous.in_flight),
                    previous.stream_usage.clone(),
                )
            }
            None => (Gate::new(self.max_in_flight), StreamUsage::default()),
        };
        stream_usage.asked = self.stream_usage;
        Client {
            pool,
            settings: self.settings.clone(),
            json: self.json,
            max_idle_connections: self.max_idle_connections,
            stream_usage,
            in_flight,
            worker_stack: self.worker_stack,
        }
    }

    checked_setters! {
        /// The whole-request timeout; zero and more than
        /// [`MAX_TIMEOUT`](crate::MAX_TIMEOUT) are refused.
        set_timeout(timeout: Duration) =>
            settings.timeout = config::checked_timeout(timeout, "timeout"), new pool;
        /// The connect timeout, checked as the timeout is.
        set_connect_timeout(timeout: Duration) =>
            settings.connect_timeout = config::checked_timeout(timeout, "connect timeout"), new pool;
        /// The idle timeout of streams, checked as the timeout is.
        set_idle_timeout(timeout: Duration) =>
            settings.idle_timeout = config::checked_timeout(timeout, "idle timeout");
        set_max_retries(max_retries: u32) =>
            settings.max_retries = config::checked_retries(max_retries);
        set_max_idle_connections(count: usize) =>
            max_idle_connections = config::checked_pool_size(count), new pool;
        set_max_in_flight(max_in_flight: usize) =>
            max_in_flight = config::checked_in_flight(max_in_flight);
        set_worker_stack_size(bytes: usize) => worker_stack = config::checked_stack_size(bytes);
        set_json_corrections(corrections: u32) =>
            json.corrections = config::checked_corrections(corrections);
    }

    /// One of the limits on what is kept of an answer; the header limit is
    /// ureq's agent's.
    pub(crate) fn set_limit(&mut self, limit: Limit, bytes: u64) -> Result<()> {
        self.settings.limits.set(limit, bytes)?;
        if limit == Limit::Headers {
            self.pool = None;
        }
        Ok(())
    }

    /// Sets (replaces) or, with `None`, removes an extra header.
    pub(crate) fn set_header(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        self.settings.headers.set(name, value)
    }

    pub(crate) fn set_schema_delivery(&mut self, delivery: SchemaDelivery) {
        self.json.delivery = delivery;
    }

    pub(crate) fn set_stream_usage(&mut self, enabled: bool) {
        self.stream_usage = enabled;
    }

    /// A CA file trusted besides the system's roots, read now.
    pub(crate) fn set_ca_file(&mut self, path: &Path) -> Result<()> {
        self.change_destination(|to| to.network.ca_file = Some(path.to_path_buf()))
    }

    /// A client certificate and its key, both read now.
    pub(crate) fn set_client_certificate(&mut self, cert: &Path, key: &Path) -> Result<()> {
        let files = ClientCertFiles {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
        };
        self.change_destination(|to| to.network.client_cert = Some(files))
    }

    pub(crate) fn set_proxy(&mut self, url: &str) -> Result<()> {
        self.change_destination(|to| to.network.proxy = ProxySetting::from_text(url))
    }

    /// The whole URL requests go to. The credential stays: an argument now
    /// names the endpoint, so any credential may go there.
    pub(crate) fn set_endpoint_url(&mut self, url: &str) -> Result<()> {
        let endpoint = config::exact_endpoint_url(url)?;
        self.change_destination(|to| {
            to.endpoint = endpoint;
            to.credential = to.credential.to(Source::Explicit);
        })
    }

    pub(crate) fn set_auth(&mut self, auth: Auth) -> Result<()> {
        let credential = self.destination.credential.with_auth(auth)?;
        self.change_destination(|to| to.credential = credential)
    }

    /// A callback asked for the credential before every attempt, or
    /// (`None`) the key again; refused for an endpoint `./.env` named.
    pub(crate) fn set_credential_provider(&mut self, provider: Option<Provider>) -> Result<()> {
        let credential = self.destination.credential.with_provider(provider)?;
        self.change_destination(|to| to.credential = credential)
    }

    /// Changes where requests go and reads the route and trust for it
    /// again; on error nothing changes.
    fn change_destination(&mut self, change: impl FnOnce(&mut Destination)) -> Result<()> {
        let mut to = self.destination.clone();
        change(&mut to);
        self.destination = Destination::read(to.endpoint, to.credential, to.network)?;
        self.pool = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClientBuilder;

    fn resolved() -> Resolved {
        ClientBuilder::default()
            .base_url("http://127.0.0.1:9")
            .api_key("")
            .resolve()
            .unwrap()
    }

    #[test]
    fn the_next_client_keeps_the_pool_unless_it_is_built_from_what_changed() {
        let mut settings = resolved();
        let first = settings.client(None);
        settings.set_max_retries(1).unwrap();
        settings.set_limit(Limit::Body, 4096).unwrap();
        let second = settings.client(Some(&first));
        assert!(Arc::ptr_eq(&first.pool, &second.pool));
        assert_eq!(second.max_retries(), 1);
        settings.set_timeout(Duration::from_secs(5)).unwrap();
        let third = settings.client(Some(&second));
        assert!(!Arc::ptr_eq(&second.pool, &third.pool));
        assert_eq!(third.timeout(), Duration::from_secs(5));
        assert_eq!(third.limit(Limit::Body), 4096);
        // The clients already made keep what they were made with.
        assert_eq!(first.max_retries(), crate::DEFAULT_MAX_RETRIES);
    }

    #[test]
    fn the_next_client_shares_the_cap_on_requests_in_flight() {
        let mut settings = resolved();
        let first = settings.client(None);
        settings.set_max_in_flight(3).unwrap();
        let second = settings.client(Some(&first));
        assert!(Arc::ptr_eq(&first.in_flight, &second.in_flight));
        // Requests of the first, waiting for their turn, see the new cap.
        assert_eq!(first.max_in_flight(), 3);
    }

    #[test]
    fn a_refused_setting_changes_nothing() {
        let mut settings = resolved();
        let first = settings.client(None);
        let missing = Path::new("/nonexistent/chatwire-ca.pem");
        assert!(settings.set_ca_file(missing).is_err());
        assert!(settings.set_endpoint_url("http://host/chat#part").is_err());
        assert!(settings.destination.network.ca_file.is_none());
        assert_eq!(settings.destination.endpoint, first.endpoint());
        let second = settings.client(Some(&first));
        assert!(Arc::ptr_eq(&first.pool, &second.pool));
    }
}
