//! The proxy, the CA file and the client certificate.

use std::fmt;
use std::path::PathBuf;

/// Where a client's requests go, and whom it trusts: fixed when its
/// connection pool is made (a change makes a new pool).
#[derive(Debug, Clone, Default)]
pub(crate) struct Network {
    pub(crate) proxy: ProxySetting,
    /// A PEM bundle trusted besides the system's roots.
    pub(crate) ca_file: Option<PathBuf>,
    /// A certificate chain and its key (mutual TLS), read when a connection
    /// pool is made.
    pub(crate) client_cert: Option<ClientCertFiles>,
}

/// The two PEM files of a client certificate: `Debug` shows their paths,
/// never what they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientCertFiles {
    /// The certificate chain, the client's own first.
    pub(crate) cert: PathBuf,
    /// The private key of the first certificate.
    pub(crate) key: PathBuf,
}

/// Which proxy to use.
#[derive(Debug, Clone, Default)]
pub(crate) enum ProxySetting {
    /// The environment's, as curl reads it (`https_proxy`, `http_proxy`,
    /// `all_proxy`, `no_proxy`, and their upper-case forms).
    #[default]
    Environment,
    /// None, whatever the environment says.
    Off,
    /// This one, for every request of the client.
    Url(ProxyUrl),
}

impl ProxySetting {
    /// `""` means no proxy; any other text is the proxy's URL.
    pub(crate) fn from_text(text: &str) -> ProxySetting {
        if text.trim().is_empty() {
            ProxySetting::Off
        } else {
            ProxySetting::Url(text.into())
        }
    }
}

/// A proxy URL, which may hold a user name and password: `Debug` shows
/// neither.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ProxyUrl(String);

impl ProxyUrl {
    /// The URL as given, credentials included: for connecting, never for text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ProxyUrl {
    fn from(text: &str) -> ProxyUrl {
        ProxyUrl(text.to_owned())
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProxyUrl({})", crate::log::shown_url(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::network::*;

    #[test]
    fn empty_text_turns_the_proxy_off() {
        assert!(matches!(ProxySetting::from_text(" "), ProxySetting::Off));
        match ProxySetting::from_text("http://proxy:3128") {
            ProxySetting::Url(url) => assert_eq!(url.as_str(), "http://proxy:3128"),
            other => panic!("expected a URL, got {other:?}"),
        }
    }

    #[test]
    fn debug_hides_the_proxy_credentials() {
        let url = ProxyUrl::from("http://user:hunter2@proxy:3128/?token=t0k");
        assert_eq!(format!("{url:?}"), "ProxyUrl(http://proxy:3128/)");
        assert_eq!(url.as_str(), "http://user:hunter2@proxy:3128/?token=t0k");
    }
}
