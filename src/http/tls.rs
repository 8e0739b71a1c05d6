//! Whose certificates are trusted, and which certificate the client shows
//! (mutual TLS). What ureq's `TlsConfig` lacks: the trust store curl users
//! expect (the system's, or `SSL_CERT_FILE` / `SSL_CERT_DIR`, plus a CA
//! file), files checked where they are set, and handshake errors in words.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex, TryLockError};

use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};
use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

use crate::config::{ClientCertFiles, Network, MAX_CA_FILE_BYTES};
use crate::error::{Error, Result};

/// The environment variables that replace the system's bundle.
const CERT_VARIABLES: [&str; 2] = ["SSL_CERT_FILE", "SSL_CERT_DIR"];

/// The TLS settings for a client: the system's roots plus those in its CA
/// file, and its client certificate if it has one. A plain `http://`
/// client never speaks TLS (redirects keep the origin), so the system's
/// roots, most of a new process's first send, are not read for it; its CA
/// file and client certificate are, so that a wrong one fails where set.
pub(crate) fn config(network: &Network, speaks_tls: bool) -> Result<TlsConfig> {
    let client_cert = network.client_cert.as_ref();
    let client_cert = client_cert.map(read_client_cert).transpose()?;
    let ca_file = network
        .ca_file
        .as_deref()
        .map(|path| read_certs("CA file", path));
    let ca_file = ca_file.transpose()?.unwrap_or_default();
    let root_certs = if speaks_tls {
        root_certs(ca_file)?
    } else {
        RootCerts::WebPki
    };
    Ok(TlsConfig::builder()
        .root_certs(root_certs)
        .client_cert(client_cert)
        .build())
}

/// The system's roots plus `extra`; with none at all (a container without
/// a CA bundle, and no CA file), the Mozilla roots compiled into chatwire.
fn root_certs(extra: Vec<Certificate<'static>>) -> Result<RootCerts> {
    let system = system_roots()?;
    if system.is_empty() && extra.is_empty() {
        crate::log::debug(format_args!(
            "trust: no system CA bundle found; using the Mozilla roots built into chatwire"
        ));
        return Ok(RootCerts::WebPki);
    }
    crate::log::debug(format_args!(
        "trust: {} system roots, {} from the CA file",
        system.len(),
        extra.len()
    ));
    if extra.is_empty() {
        return Ok(RootCerts::Specific(system));
    }
    Ok(system.iter().cloned().chain(extra).into())
}

/// The system's roots as last read, and the variables they were read under.
type Cached = ([Option<OsString>; 2], Arc<Vec<Certificate<'static>>>);

/// The system's roots, read once per process (reading them takes
/// milliseconds) and again when the variables change. No lock is held while
/// they are read, and the cache is only tried: a lock another thread held
/// when the process forked stays held in the child, which then reads the
/// roots itself (correct, only slower), as does a thread that finds another
/// at the cache.
fn system_roots() -> Result<Arc<Vec<Certificate<'static>>>> {
    static CACHE: Mutex<Option<Cached>> = Mutex::new(None);
    let variables = CERT_VARIABLES.map(std::env::var_os);
    let cache = || match CACHE.try_lock() {
        Ok(cache) => Some(cache),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    let cached = cache().and_then(|cache| match cache.as_ref() {
        Some((read_under, roots)) if *read_under == variables => Some(roots.clone()),
        _ => None,
    });
    if let Some(roots) = cached {
        return Ok(roots);
    }
    let roots = Arc::new(read_system_roots()?);
    if let Some(mut cache) = cache() {
        *cache = Some((variables, roots.clone()));
    }
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

/// The certificates in the PEM file `path`; none is an error, so that a
/// wrong path or a key file is noticed when it is set.
fn read_certs(what: &str, path: &Path) -> Result<Vec<Certificate<'static>>> {
    let (certs, _) = read_pem(what, path)?;
    if certs.is_empty() {
        let why = "holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
        return Err(pem_error(what, path, why));
    }
    Ok(certs)
}

/// The certificate chain and key of a client certificate, checked here as
/// the TLS library will use them (ureq would at the first connection).
fn read_client_cert(files: &ClientCertFiles) -> Result<ClientCert> {
    let chain = read_certs("client certificate file", &files.cert)?;
    let (_, mut keys) = read_pem("client key file", &files.key)?;
    if keys.len() != 1 {
        let why = if keys.is_empty() {
            "holds no PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC)"
        } else {
            "holds more than one private key"
        };
        return Err(pem_error("client key file", &files.key, why));
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

/// Whether the TLS library accepts this chain and key together. The words
/// say what is wrong, never what the key holds.
fn check_pair(
    chain: &[Certificate<'static>],
    key: &PrivateKey<'static>,
) -> std::result::Result<(), String> {
    let der = key_der(key).ok_or("the key is of a kind chatwire cannot read")?;
    match rustls::sign::CertifiedKey::from_der(chain_der(chain), der, &crypto_provider()) {
        Ok(_) => Ok(()),
        Err(rustls::Error::InconsistentKeys(_)) => {
            Err("the key is not the first certificate's".into())
        }
        Err(err) => Err(format!("the key or certificate cannot be used ({err})")),
    }
}

/// The rustls settings of `tls`, as ureq's own TLS step makes them:
/// rustls' defaults (TLS 1.2 and 1.3, certificates verified, SNI), the
/// process's crypto provider or ring, `tls`'s roots and client certificate.
pub(crate) fn client_config(
    tls: &TlsConfig,
) -> std::result::Result<Arc<ClientConfig>, ureq::Error> {
    let roots = match tls.root_certs() {
        RootCerts::Specific(certs) => {
            let mut store = RootCertStore::empty();
            store.add_parsable_certificates(certs.iter().map(|cert| cert.der().into()));
            store
        }
        RootCerts::WebPki => RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        },
        _ => return Err(ureq::Error::Tls("chatwire sets no other roots")),
    };
    let builder = ClientConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots);
    let mut config = match tls.client_cert() {
        None => builder.with_no_client_auth(),
        Some(cert) => {
            let key = key_der(cert.private_key()).ok_or(ureq::Error::Tls(
                "the client key is of a kind chatwire cannot read",
            ))?;
            builder.with_client_auth_cert(chain_der(cert.certs()), key)?
        }
    };
    config.enable_sni = tls.use_sni();
    Ok(Arc::new(config))
}

/// The process's default crypto provider, else ring (as ureq chooses).
fn crypto_provider() -> Arc<rustls::crypto::CryptoProvider> {
    rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

fn key_der(key: &PrivateKey<'static>) -> Option<PrivateKeyDer<'static>> {
    PrivateKeyDer::try_from(key.der())
        .ok()
        .map(|der| der.clone_key())
}

fn chain_der(chain: &[Certificate<'static>]) -> Vec<CertificateDer<'static>> {
    chain
        .iter()
        .map(|cert| CertificateDer::from(cert.der()).into_owned())
        .collect()
}

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
    let mut items: PemItems = (Vec::new(), Vec::new());
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => items.0.push(cert),
            Ok(PemItem::PrivateKey(key)) => items.1.push(key),
            Ok(_) => {}
            Err(err) => return Err(unreadable(format!("not valid PEM ({err})"))),
        }
    }
    Ok(items)
}

/// What a failed TLS handshake says about the certificate, in words a
/// caller can act on; `None` when the error is not about TLS.
pub(crate) fn certificate_failure(error: &ureq::Error) -> Option<String> {
    // ureq reports a handshake failure as its own rustls variant, or as an
    // I/O error that wraps one.
    let error = match error {
        ureq::Error::Rustls(inner) => inner,
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<rustls::Error>()?,
        _ => return None,
    };
    Some(match error {
        rustls::Error::InvalidCertificate(cert) => match certificate_problem(cert) {
            Some(what) => format!("the server's certificate was refused: {what} ({cert})"),
            None => format!("the server's certificate was refused: {cert}"),
        },
        rustls::Error::AlertReceived(alert) => match alert_meaning(*alert) {
            Some(what) => format!("the TLS handshake failed: {what} (alert {alert:?})"),
            None => format!("the TLS handshake failed: the server sent the alert {alert:?}"),
        },
        other => format!("the TLS handshake failed: {other}"),
    })
}

/// What a server's alert says about the client's own certificate.
fn alert_meaning(alert: rustls::AlertDescription) -> Option<&'static str> {
    use rustls::AlertDescription as A;
    Some(match alert {
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
        _ => return None,
    })
}

/// Why the server's certificate was refused.
fn certificate_problem(error: &rustls::CertificateError) -> Option<&'static str> {
    use rustls::CertificateError as E;
    Some(match error {
        E::UnknownIssuer => "its issuer is unknown: no trusted CA signed it (set a CA file, SSL_CERT_FILE or SSL_CERT_DIR to trust a company CA)",
        E::Expired | E::ExpiredContext { .. } => "it has expired",
        E::NotValidYet | E::NotValidYetContext { .. } => "it is not valid yet (check the clock)",
        E::NotValidForName | E::NotValidForNameContext { .. } => {
            "it does not name this host (name mismatch)"
        }
        E::Revoked => "it has been revoked",
        E::BadSignature => "its signature is bad",
        _ => return None,
    })
}
