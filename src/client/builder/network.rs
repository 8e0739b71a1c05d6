//! The settings of a [`ClientBuilder`] that decide how its connections are
//! made: whom TLS trusts, the client's own certificate, and the proxy.

use std::path::PathBuf;

use super::ClientBuilder;
use crate::config::{ClientCertFiles, ProxySetting};

impl ClientBuilder {
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
}
