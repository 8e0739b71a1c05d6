//! The settings of a [`ClientBuilder`] that decide how its connections are
//! made: whom TLS trusts, the client's own certificate, and the proxy.

use std::path::PathBuf;

use super::ClientBuilder;
use crate::config::{ClientCertFiles, ProxySetting};

impl ClientBuilder {
    /// Trusts the CA certificates in this PEM file as well as the system's
    /// roots (its CA bundle, or `SSL_CERT_FILE` / `SSL_CERT_DIR`; see
    /// `docs/configuration.md`). [`build`](Self::build) fails with
    /// [`Error::Config`](crate::Error::Config) when the file cannot be read,
    /// holds no PEM certificate, or is larger than
    /// [`MAX_CA_FILE_BYTES`](crate::MAX_CA_FILE_BYTES).
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.network.ca_file = Some(path.into());
        self
    }

    /// Mutual TLS: shows the certificate chain in the PEM file `cert_path`
    /// (the client's own first) and its private key in the PEM file
    /// `key_path` (PKCS#8, RSA or EC, not encrypted) to servers that ask.
    /// [`build`](Self::build) reads both and fails with
    /// [`Error::Config`](crate::Error::Config), naming the file, when one
    /// cannot be read or used, or when the key is not the certificate's.
    /// The key's text never appears in errors, logs or `Debug` output.
    ///
    /// ```no_run
    /// let client = chatwire::Client::builder()
    ///     .base_url("https://llm.internal.example")
    ///     .api_key("sk-internal")
    ///     .client_certificate("/etc/chatwire/client.pem", "/etc/chatwire/client.key")
    ///     .build()?;
    /// # Ok::<(), chatwire::Error>(())
    /// ```
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

    /// Sends requests through the proxy at `url` (`http://proxy:3128`,
    /// `http://user:password@proxy:3128`, `socks5://...`; no scheme means
    /// `http://`), or through none when `url` is `""`, whatever `NO_PROXY`
    /// says. By default the proxy comes from `https_proxy`, `http_proxy`,
    /// `all_proxy` and `no_proxy` as curl reads them (see
    /// `docs/configuration.md`). Credentials in the URL are never shown.
    /// [`build`](Self::build) fails with [`Error::Config`](crate::Error::Config)
    /// for an unusable proxy URL.
    pub fn proxy(mut self, url: &str) -> Self {
        self.network.proxy = ProxySetting::from_text(url);
        self
    }
}
