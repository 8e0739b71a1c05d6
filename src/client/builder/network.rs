//! The settings of a [`ClientBuilder`] that decide how its connections are
//! made: whom TLS trusts, the client's own certificate, and the proxy.

use std::path::PathBuf;

use super::ClientBuilder;
use crate::config::{ClientCertFiles, ProxySetting};

impl ClientBuilder {
    /// Trusts the CA certificates in this PEM file as well as the system's
    /// roots: for a company CA, or a local server's own. By default
    /// chatwire trusts what the operating system trusts: its CA bundle, or
    /// the files named by `SSL_CERT_FILE` / `SSL_CERT_DIR` where set (as
    /// curl and OpenSSL read them); with no system bundle at all, the
    /// Mozilla roots built into chatwire.
    ///
    /// [`build`](Self::build) fails with [`Error::Config`](crate::Error::Config) when the file
    /// cannot be read, holds no PEM certificate, or is larger than
    /// [`MAX_CA_FILE_BYTES`](crate::MAX_CA_FILE_BYTES). A certificate the
    /// client refuses gives [`Error::Tls`](crate::Error::Tls), which says why.
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.network.ca_file = Some(path.into());
        self
    }

    /// Shows the certificate chain in the PEM file `cert_path` (the
    /// client's own certificate first, then any intermediates) and its
    /// private key in the PEM file `key_path` (PKCS#8, RSA or EC, not
    /// encrypted) to servers that ask for a client certificate: mutual TLS.
    /// Servers that do not ask never see it.
    ///
    /// [`build`](Self::build) reads both files and fails with
    /// [`Error::Config`](crate::Error::Config), naming the file, when one
    /// cannot be read, is larger than
    /// [`MAX_CA_FILE_BYTES`](crate::MAX_CA_FILE_BYTES), holds no
    /// certificate (`cert_path`) or not exactly one key (`key_path`), or
    /// when the key is not the first certificate's. The key's text never
    /// appears in an error, a log line, or `Debug` output, which show the
    /// paths only. A server that requires a certificate and gets none, or
    /// refuses the one given, gives [`Error::Tls`](crate::Error::Tls),
    /// which says so.
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
    /// `http://user:password@proxy:3128`, `socks5://...`; a URL without a
    /// scheme is `http://`), or through none when `url` is `""`.
    ///
    /// By default chatwire follows curl's conventions: an `https://`
    /// endpoint uses `https_proxy` / `HTTPS_PROXY`, a plain `http://` one
    /// `http_proxy` / `HTTP_PROXY`, either falls back to `all_proxy` /
    /// `ALL_PROXY`, and `no_proxy` / `NO_PROXY` lists hosts to reach
    /// directly (`host`, `.domain` or `domain` for the domain and every name
    /// under it, `host:port`, IP addresses and ranges like `10.0.0.0/8`,
    /// `*` for all). A proxy set here is used whatever `NO_PROXY` says.
    ///
    /// `https://` requests go through a CONNECT tunnel; plain `http://`
    /// requests go to the proxy in absolute form, as HTTP proxies expect.
    /// Credentials in the URL are sent as `Proxy-Authorization: Basic` and
    /// never shown in errors, logs or `Debug` output. [`build`](Self::build)
    /// fails with [`Error::Config`](crate::Error::Config) for an unusable proxy URL.
    pub fn proxy(mut self, url: &str) -> Self {
        self.network.proxy = ProxySetting::from_text(url);
        self
    }
}
