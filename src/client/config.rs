//! [`Config`]: every setting of a client in one value. It is made with its
//! defaults, changed field by field (by the builder's methods in Rust, by
//! the setters of the C handle, which owns one), and checked by
//! [`Config::validate`] whenever a client is made from it. [`PoolKey`]
//! names the fields a connection pool is made from.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::config::{self, Address, Api, Auth, CredentialChoice, Limit, Limits, Network, Provider};
use crate::config::{ClientCertFiles, ProxySetting, Settings, Source, Target};
use crate::config::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_JSON_CORRECTIONS,
    DEFAULT_MAX_IDLE_CONNECTIONS, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT,
    DEFAULT_WORKER_STACK_BYTES,
};
use crate::error::{Error, Result};
use crate::http::pool::Destination;
use crate::structured::{JsonSettings, SchemaDelivery};

/// Every setting of a client. A field holds its value as given, unchecked;
/// [`validate`](Self::validate) checks them all, so a refused value is
/// refused with the same words whoever gave it.
#[derive(Clone)]
pub(crate) struct Config {
    /// Where requests go, the credential, and whom the client trusts.
    pub(crate) place: Place,
    /// The whole-request timeout, per attempt.
    pub(crate) timeout: Duration,
    /// The connect timeout, per attempt (name lookup, TCP, TLS).
    pub(crate) connect_timeout: Duration,
    /// The longest silence of a stream.
    pub(crate) idle_timeout: Duration,
    pub(crate) max_retries: u32,
    /// The extra headers, in the order given; `None` removes one. Once the
    /// place is read, those of the environment are among them.
    pub(crate) headers: Vec<(String, Option<String>)>,
    pub(crate) limits: Limits,
    pub(crate) max_idle_connections: usize,
    pub(crate) max_in_flight: usize,
    pub(crate) worker_stack_size: usize,
    /// Correction turns and schema delivery of `send_json`.
    pub(crate) json: JsonSettings,
    /// Whether streamed requests ask for the token usage.
    pub(crate) stream_usage: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            place: Place::Described(Box::default()),
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            headers: Vec::new(),
            limits: Limits::default(),
            max_idle_connections: DEFAULT_MAX_IDLE_CONNECTIONS,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            worker_stack_size: DEFAULT_WORKER_STACK_BYTES,
            json: JsonSettings {
                corrections: DEFAULT_JSON_CORRECTIONS,
                delivery: SchemaDelivery::default(),
            },
            stream_usage: true,
        }
    }
}

/// Where requests go. The one part of the configuration read from outside
/// (the environment, `./.env`, the CA and certificate files), and read
/// once: a client's place is read when it is first made, and a change of
/// it (a C setter) reads it again at once.
#[derive(Clone)]
pub(crate) enum Place {
    /// As the builder's caller described it.
    Described(Box<Description>),
    /// Read: the endpoint, the credential, the route and the trust.
    Read(Arc<Destination>),
}

/// A place as described: anything left out is looked up when it is read.
#[derive(Clone, Default)]
pub(crate) struct Description {
    pub(crate) target: Target,
    /// The `api-version` of Azure's classic route.
    pub(crate) api_version: Option<String>,
    /// The key, where it goes, and a credential callback.
    pub(crate) credential: CredentialChoice,
    pub(crate) network: Network,
    /// The API requests speak, which the endpoint is derived for.
    pub(crate) api: Api,
}

impl Config {
    /// Checks every setting, reading the place first if it is not read yet.
    /// The order of the checks is the order in which a builder with several
    /// faults reports the first.
    pub(crate) fn validate(&mut self) -> Result<()> {
        self.read_place()?;
        config::checked_headers(&self.headers)?;
        self.limits.check()?;
        config::checked_timeout(self.timeout, "timeout")?;
        config::checked_timeout(self.connect_timeout, "connect timeout")?;
        config::checked_timeout(self.idle_timeout, "idle timeout")?;
        config::checked_retries(self.max_retries)?;
        config::checked_corrections(self.json.corrections)?;
        config::checked_pool_size(self.max_idle_connections)?;
        config::checked_in_flight(self.max_in_flight)?;
        config::checked_stack_size(self.worker_stack_size)?;
        Ok(())
    }

    /// What every request carries, for a validated configuration.
    pub(crate) fn settings(&self) -> Result<Settings> {
        Ok(Settings {
            timeout: self.timeout,
            connect_timeout: self.connect_timeout,
            idle_timeout: self.idle_timeout,
            max_retries: self.max_retries,
            headers: config::checked_headers(&self.headers)?,
            limits: self.limits,
        })
    }

    /// The place as read, reading it now if it is still a description:
    /// the endpoint and the credential from the environment and `./.env`
    /// (see [`config::resolve_target`]), the environment's headers that no
    /// header given names, and the route and trust (the files read).
    pub(crate) fn read_place(&mut self) -> Result<&Arc<Destination>> {
        if let Place::Described(description) = &self.place {
            let description = Description::clone(description);
            let mut target = description.target;
            if let Target::Azure { api_version, .. } = &mut target {
                *api_version = description.api_version;
            }
            let (address, credential) = config::resolve_target(target, description.credential)?;
            let from_environment = config::environment_headers(&self.headers)?;
            let to = (address, description.api);
            let destination = Destination::read(to, credential, description.network)?;
            self.headers.extend(from_environment);
            self.place = Place::Read(Arc::new(destination));
        }
        match &self.place {
            Place::Read(destination) => Ok(destination),
            Place::Described(_) => Err(Error::Internal("the place was not read".into())),
        }
    }

    /// Sets (replaces) or, with `None`, removes an extra header; checked by
    /// [`validate`](Self::validate). An earlier one of the same name (in any
    /// case) is forgotten, so that a header set before every send does not
    /// make the list grow.
    pub(crate) fn set_header(&mut self, name: String, value: Option<String>) {
        self.headers
            .retain(|(old, _)| !old.eq_ignore_ascii_case(&name));
        self.headers.push((name, value));
    }

    /// The fields a connection pool is made from.
    pub(crate) fn pool_key(&self) -> PoolKey {
        PoolKey {
            destination: match &self.place {
                Place::Read(destination) => Arc::as_ptr(destination),
                Place::Described(_) => std::ptr::null(),
            },
            timeout: self.timeout,
            connect_timeout: self.connect_timeout,
            header_limit: self.limits.get(Limit::Headers),
            max_idle_connections: self.max_idle_connections,
        }
    }

    // What follows changes a place already read, as the C handle's setters
    // do: each reads the place again now, and on error changes nothing.

    /// A CA file trusted besides the system's roots, read now.
    pub(crate) fn set_ca_file(&mut self, path: &Path) -> Result<()> {
        self.change_place(|to| {
            to.network.ca_file = Some(path.to_path_buf());
            Ok(())
        })
    }

    /// A client certificate and its key, both read now.
    pub(crate) fn set_client_certificate(&mut self, cert: &Path, key: &Path) -> Result<()> {
        let files = ClientCertFiles {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
        };
        self.change_place(|to| {
            to.network.client_cert = Some(files);
            Ok(())
        })
    }

    pub(crate) fn set_proxy(&mut self, url: &str) -> Result<()> {
        self.change_place(|to| {
            to.network.proxy = ProxySetting::from_text(url);
            Ok(())
        })
    }

    /// The whole URL requests go to. The credential stays: an argument now
    /// names the endpoint, so any credential may go there.
    pub(crate) fn set_endpoint_url(&mut self, url: &str) -> Result<()> {
        let endpoint = config::exact_endpoint_url(url)?;
        self.change_place(|to| {
            to.address = Address::Exact(endpoint);
            to.credential = to.credential.to(Source::Explicit);
            Ok(())
        })
    }

    /// The API requests speak; the endpoint is derived for it again (an
    /// endpoint URL given whole stays as given).
    pub(crate) fn set_api(&mut self, api: Api) -> Result<()> {
        self.change_place(|to| {
            to.api = api;
            Ok(())
        })
    }

    pub(crate) fn set_auth(&mut self, auth: Auth) -> Result<()> {
        self.change_place(|to| {
            to.credential = to.credential.with_auth(auth)?;
            Ok(())
        })
    }

    /// A callback asked for the credential before every attempt, or
    /// (`None`) the key again; refused for an endpoint `./.env` named.
    pub(crate) fn set_credential_provider(&mut self, provider: Option<Provider>) -> Result<()> {
        self.change_place(|to| {
            to.credential = to.credential.with_provider(provider)?;
            Ok(())
        })
    }

    /// Changes where requests go and reads the route and trust for it
    /// again; on error nothing changes.
    fn change_place(&mut self, change: impl FnOnce(&mut Destination) -> Result<()>) -> Result<()> {
        let mut to = Destination::clone(self.read_place()?);
        change(&mut to)?;
        let read = Destination::read((to.address, to.api), to.credential, to.network)?;
        self.place = Place::Read(Arc::new(read));
        Ok(())
    }
}

/// What a connection pool (one ureq agent) is made from: the place, read
/// (compared by identity: every change of it is read anew), and the agent's
/// own settings. A client made from a configuration whose key is the last
/// one's takes the last one's pool, and its connections; any other gets a
/// new pool. A setting that ureq's agent holds belongs here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PoolKey {
    destination: *const Destination,
    timeout: Duration,
    connect_timeout: Duration,
    header_limit: u64,
    max_idle_connections: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Client;

    fn config() -> Config {
        let description = Description {
            target: Target::Base(Some("http://127.0.0.1:9".into())),
            credential: CredentialChoice {
                api_key: Some(String::new()),
                ..CredentialChoice::default()
            },
            ..Description::default()
        };
        Config {
            place: Place::Described(Box::new(description)),
            ..Config::default()
        }
    }

    #[test]
    fn the_next_client_keeps_the_pool_unless_it_is_built_from_what_changed() {
        let mut config = config();
        let first = Client::from_config(&mut config, None).unwrap();
        config.max_retries = 1;
        config.limits.put(Limit::Body, 4096);
        let second = Client::from_config(&mut config, Some(&first)).unwrap();
        assert!(Arc::ptr_eq(&first.pool, &second.pool));
        assert_eq!(second.max_retries(), 1);
        config.timeout = Duration::from_secs(5);
        let third = Client::from_config(&mut config, Some(&second)).unwrap();
        assert!(!Arc::ptr_eq(&second.pool, &third.pool));
        assert_eq!(third.timeout(), Duration::from_secs(5));
        assert_eq!(third.limit(Limit::Body), 4096);
        // The clients already made keep what they were made with.
        assert_eq!(first.max_retries(), crate::DEFAULT_MAX_RETRIES);
    }

    #[test]
    fn the_next_client_shares_the_cap_on_requests_in_flight() {
        let mut config = config();
        let first = Client::from_config(&mut config, None).unwrap();
        config.max_in_flight = 3;
        let second = Client::from_config(&mut config, Some(&first)).unwrap();
        assert!(Arc::ptr_eq(&first.in_flight, &second.in_flight));
        // Requests of the first, waiting for their turn, see the new cap.
        assert_eq!(first.max_in_flight(), 3);
    }

    #[test]
    fn a_refused_setting_changes_nothing() {
        let mut config = config();
        let first = Client::from_config(&mut config, None).unwrap();
        let missing = Path::new("/nonexistent/chatwire-ca.pem");
        assert!(config.set_ca_file(missing).is_err());
        assert!(config.set_endpoint_url("http://host/chat#part").is_err());
        let read = config.read_place().unwrap();
        assert!(read.network.ca_file.is_none());
        assert_eq!(read.endpoint, first.endpoint());
        let second = Client::from_config(&mut config, Some(&first)).unwrap();
        assert!(Arc::ptr_eq(&first.pool, &second.pool));
    }

    #[test]
    fn the_api_set_after_the_place_is_read_derives_the_endpoint_again() {
        let mut config = config();
        let first = Client::from_config(&mut config, None).unwrap();
        assert_eq!(first.endpoint(), "http://127.0.0.1:9/v1/chat/completions");
        config.set_api(Api::Responses).unwrap();
        let second = Client::from_config(&mut config, Some(&first)).unwrap();
        assert_eq!(second.endpoint(), "http://127.0.0.1:9/v1/responses");
        assert_eq!(second.api(), Api::Responses);
        // An endpoint URL given whole stays as given, whatever the API.
        config
            .set_endpoint_url("http://127.0.0.1:9/gw/chat")
            .unwrap();
        config.set_api(Api::ChatCompletions).unwrap();
        let third = Client::from_config(&mut config, Some(&second)).unwrap();
        assert_eq!(third.endpoint(), "http://127.0.0.1:9/gw/chat");
        config.set_api(Api::Responses).unwrap();
        let fourth = Client::from_config(&mut config, Some(&third)).unwrap();
        assert_eq!(fourth.endpoint(), "http://127.0.0.1:9/gw/chat");
    }

    #[test]
    fn a_header_set_again_replaces_the_one_before() {
        let mut config = config();
        for trace in ["run-1", "run-2", "run-3"] {
            config.set_header("X-Trace-Id".into(), Some(trace.into()));
        }
        config.set_header("x-trace-id".into(), Some("run-4".into()));
        assert_eq!(
            config.headers,
            [("x-trace-id".to_owned(), Some("run-4".to_owned()))]
        );
    }

    #[test]
    fn a_refused_value_is_refused_whoever_gave_it() {
        let mut config = config();
        config.worker_stack_size = 1;
        let Err(Error::InvalidArgument(message)) = config.validate() else {
            panic!("a stack of one byte was taken");
        };
        assert!(message.contains("not 1"), "{message}");
    }
}
