//! Whose certificates are trusted: what the operating system trusts (its
//! CA bundle, or `SSL_CERT_FILE` / `SSL_CERT_DIR` where set, as curl and
//! OpenSSL read them), plus a PEM file the caller names; and which
//! certificate the client shows a server that asks for one (mutual TLS).
//!
//! The system's roots are read once per process (and again when
//! `SSL_CERT_FILE` or `SSL_CERT_DIR` change): reading the bundle and the
//! certificate folder takes milliseconds, too long for every client.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

use crate::config::{ClientCertFiles, Network, MAX_CA_FILE_BYTES};
use crate::error::{Error, Result};

/// The environment variables that replace the system's bundle.
const CERT_VARIABLES: [&str; 2] = ["SSL_CERT_FILE", "SSL_CERT_DIR"];

/// The TLS settings for a client: the system's roots plus those in
/// its CA file, and its client certificate if it has one. With no system roots at all (a container without a CA
/// bundle) and no file, the Mozilla roots compiled into chatwire.
///
/// A client of a plain `http://` endpoint never speaks TLS (redirects stay
/// on the same origin, and a proxy for it is reached in plain text), so
/// the system's roots are not read for it: that read is most of a new
/// process's first send. A CA file is still read, so that a wrong one is
/// refused where it is set; so is a client certificate.
pub(crate) fn config(network: &Network, speaks_tls: bool) -> Result<TlsConfig> {
    let ca_file = network.ca_file.as_deref();
    let client_cert = network
        .client_cert
        .as_ref()
        .map(read_client_cert)
        .transpose()?;
    if !speaks_tls {
        if let Some(path) = ca_file {
            read_ca_file(path)?;
        }
        return Ok(TlsConfig::builder()
            .root_certs(RootCerts::WebPki)
            .client_cert(client_cert)
            .build());
    }
    let system_roots = system_roots()?;
    let system = system_roots.len();
    let roots = match ca_file {
        Some(path) => {
            let mut roots = Vec::clone(&system_roots);
            roots.extend(read_ca_file(path)?);
            Arc::new(roots)
        }
        None => system_roots,
    };
    let root_certs = if roots.is_empty() {
        crate::log::debug(format_args!(
            "trust: no system CA bundle found; using the Mozilla roots built into chatwire"
        ));
        RootCerts::WebPki
    } else {
        crate::log::debug(format_args!(
            "trust: {system} system roots, {} from the CA file",
            roots.len() - system
        ));
        RootCerts::Specific(roots)
    };
    Ok(TlsConfig::builder()
        .root_certs(root_certs)
        .client_cert(client_cert)
        .build())
}

/// The system's roots as last read, and the variables they were read under.
type Cached = (Vec<Option<OsString>>, Arc<Vec<Certificate<'static>>>);

/// The system's roots, read once per process and again when the
/// variables change.
fn system_roots() -> Result<Arc<Vec<Certificate<'static>>>> {
    static CACHE: Mutex<Option<Cached>> = Mutex::new(None);
    let variables: Vec<Option<OsString>> = CERT_VARIABLES.iter().map(std::env::var_os).collect();
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((read_under, roots)) = cache.as_ref() {
        if *read_under == variables {
            return Ok(roots.clone());
        }
    }
    let roots = Arc::new(read_system_roots()?);
    *cache = Some((variables, roots.clone()));
    Ok(roots)
}

/// Reads the operating system's roots, or those named by `SSL_CERT_FILE` /
/// `SSL_CERT_DIR`. A variable that is set but yields no certificate is a
/// configuration error (curl refuses it too), not a silent fallback.
fn read_system_roots() -> Result<Vec<Certificate<'static>>> {
    let loaded = rustls_native_certs::load_native_certs();
    for error in &loaded.errors {
        crate::log::warn(format_args!(
            "trust: skipped part of the system's roots: {error}"
        ));
    }
    let set: Vec<&str> = CERT_VARIABLES
        .into_iter()
        .filter(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()))
        .collect();
    if loaded.certs.is_empty() && !set.is_empty() {
        let why = loaded.errors.first().map_or(
            "it holds no PEM certificate".to_owned(),
            ToString::to_string,
        );
        return Err(Error::Config(format!(
            "{} set, but no CA certificate could be read from it: {why}",
            set.join(" and ")
        )));
    }
    Ok(loaded
        .certs
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()).to_owned())
        .collect())
}

/// The certificates in a PEM file; a file without one is an error, so that
/// a wrong path or a key file is noticed when it is set.
fn read_ca_file(path: &Path) -> Result<Vec<Certificate<'static>>> {
    let (certs, _) = read_pem("CA file", path)?;
    if certs.is_empty() {
        return Err(pem_error(
            "CA file",
            path,
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
        ));
    }
    Ok(certs)
}

/// The certificate chain and key of a client certificate, checked as the
/// TLS library will use them (a key of a kind it cannot sign with, or one
/// that is not the first certificate's, is refused here rather than when
/// the first connection is made).
fn read_client_cert(files: &ClientCertFiles) -> Result<ClientCert> {
    const CERT: &str = "client certificate file";
    const KEY: &str = "client key file";
    let (chain, _) = read_pem(CERT, &files.cert)?;
    if chain.is_empty() {
        return Err(pem_error(
            CERT,
            &files.cert,
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
        ));
    }
    let (_, mut keys) = read_pem(KEY, &files.key)?;
    if keys.len() != 1 {
        let why = if keys.is_empty() {
            "holds no PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)"
        } else {
            "holds more than one private key"
        };
        return Err(pem_error(KEY, &files.key, why));
    }
    let key = keys.remove(0);
    check_pair(&chain, &key).map_err(|why| {
        Error::Config(format!(
            "client certificate {} and key {}: {why}",
            files.cert.display(),
            files.key.display()
        ))
    })?;
    Ok(ClientCert::new_with_certs(&chain, key))
}

/// Whether the TLS library accepts this chain and key together: the check
/// its client configuration makes, which would otherwise fail at the first
/// connection. The words say what is wrong, never what the key holds.
fn check_pair(
    chain: &[Certificate<'static>],
    key: &PrivateKey<'static>,
) -> std::result::Result<(), String> {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    // The DER says which kind of key it is (PKCS#1, PKCS#8 or SEC1), as
    // its PEM label did.
    let der = PrivateKeyDer::try_from(key.der())
        .map_err(|_| "the key is of a kind chatwire cannot read".to_owned())?
        .clone_key();
    let chain = chain
        .iter()
        .map(|cert| CertificateDer::from(cert.der()).into_owned())
        .collect();
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| err.to_string())?
        .with_root_certificates(rustls::RootCertStore::empty());
    match builder.with_client_auth_cert(chain, der) {
        Ok(_) => Ok(()),
        Err(rustls::Error::InconsistentKeys(_)) => {
            Err("the key is not the first certificate's".into())
        }
        Err(err) => Err(format!("the key or certificate cannot be used ({err})")),
    }
}

/// An error about the PEM file `path`, named as `what`.
fn pem_error(what: &str, path: &Path, why: &str) -> Error {
    Error::Config(format!("{what} {}: {why}", path.display()))
}

/// The certificates and private keys in a PEM file of at most
/// [`MAX_CA_FILE_BYTES`]. A PEM error names the file, never its text.
type PemItems = (Vec<Certificate<'static>>, Vec<PrivateKey<'static>>);

fn read_pem(what: &str, path: &Path) -> Result<PemItems> {
    let unreadable = |why: String| pem_error(what, path, &why);
    let file = std::fs::File::open(path).map_err(|err| unreadable(err.to_string()))?;
    let mut pem = Vec::new();
    file.take(MAX_CA_FILE_BYTES + 1)
        .read_to_end(&mut pem)
        .map_err(|err| unreadable(err.to_string()))?;
    if pem.len() as u64 > MAX_CA_FILE_BYTES {
        return Err(unreadable(format!("larger than {MAX_CA_FILE_BYTES} bytes")));
    }
    let mut certs = Vec::new();
    let mut keys = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => certs.push(cert),
            Ok(PemItem::PrivateKey(key)) => keys.push(key),
            Ok(_) => {}
            Err(err) => return Err(unreadable(format!("not valid PEM ({err})"))),
        }
    }
    Ok((certs, keys))
}

/// What a failed TLS handshake says about the certificate, in words a
/// caller can act on; `None` when the error is not about TLS.
pub(crate) fn certificate_failure(error: &ureq::Error) -> Option<String> {
    let rustls = find_rustls_error(error)?;
    let detail = match rustls {
        rustls::Error::InvalidCertificate(cert) => describe(cert),
        rustls::Error::AlertReceived(alert) => refused_alert(*alert),
        other => format!("the TLS handshake failed: {other}"),
    };
    Some(detail)
}

/// What a server's alert says: most ask for, or refuse, the client's own
/// certificate.
fn refused_alert(alert: rustls::AlertDescription) -> String {
    use rustls::AlertDescription as A;
    let what = match alert {
        A::CertificateRequired => {
            "the server requires a client certificate and none was given (set one with a client certificate and key)"
        }
        A::BadCertificate
        | A::UnsupportedCertificate
        | A::CertificateRevoked
        | A::CertificateExpired
        | A::CertificateUnknown
        | A::UnknownCA => "the server refused the client certificate",
        A::HandshakeFailure => {
            "the server ended the handshake (it may require a client certificate)"
        }
        _ => "",
    };
    if what.is_empty() {
        format!("the TLS handshake failed: the server sent the alert {alert:?}")
    } else {
        format!("the TLS handshake failed: {what} (alert {alert:?})")
    }
}

fn describe(error: &rustls::CertificateError) -> String {
    use rustls::CertificateError as E;
    let what = match error {
        E::UnknownIssuer => "its issuer is unknown: no trusted CA signed it (set a CA file, SSL_CERT_FILE or SSL_CERT_DIR to trust a company CA)",
        E::Expired | E::ExpiredContext { .. } => "it has expired",
        E::NotValidYet | E::NotValidYetContext { .. } => "it is not valid yet (check the clock)",
        E::NotValidForName | E::NotValidForNameContext { .. } => {
            "it does not name this host (name mismatch)"
        }
        E::Revoked => "it has been revoked",
        E::BadSignature => "its signature is bad",
        _ => "",
    };
    if what.is_empty() {
        format!("the server's certificate was refused: {error}")
    } else {
        format!("the server's certificate was refused: {what} ({error})")
    }
}

/// ureq reports a handshake failure as its own rustls variant, or as an
/// I/O error that wraps one.
fn find_rustls_error(error: &ureq::Error) -> Option<&rustls::Error> {
    match error {
        ureq::Error::Rustls(inner) => Some(inner),
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<rustls::Error>(),
        _ => None,
    }
}
