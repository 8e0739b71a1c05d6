//! A local HTTPS server whose certificate is signed by a certificate
//! authority the test makes itself, for the trust tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A CA made for one test: its certificate as PEM, and what it signs.
pub struct TestCa {
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new(name: &str) -> TestCa {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let cert = params.self_signed(&key).unwrap();
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A client certificate signed by this CA, named `name`: its PEM and
    /// its private key's PEM (PKCS#8).
    pub fn client_cert(&self, name: &str) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// Writes the CA's PEM to `dir/name` and returns the path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, &self.pem).unwrap();
        path
    }
}

/// What the server's certificate is like.
pub enum Leaf {
    /// Valid for `localhost` and 127.0.0.1.
    Good,
    /// Valid, but for another name only.
    OtherName,
    /// Expired in 2020.
    Expired,
}

pub struct TlsServer {
    /// `https://127.0.0.1:PORT`
    pub url: String,
    /// How many TCP connections it accepted (a handshake is tried on each).
    pub connections: Arc<AtomicUsize>,
}

impl TlsServer {
    /// Starts a server that answers every request with `body`.
    pub fn start(ca: &TestCa, leaf: Leaf, body: String) -> TlsServer {
        TlsServer::start_with(ca, leaf, body, None)
    }

    /// Starts a server that requires a client certificate signed by
    /// `clients` (mutual TLS) and answers every request with `body`.
    pub fn start_requiring_client_cert(ca: &TestCa, clients: &TestCa, body: String) -> TlsServer {
        TlsServer::start_with(ca, Leaf::Good, body, Some(clients))
    }

    fn start_with(ca: &TestCa, leaf: Leaf, body: String, clients: Option<&TestCa>) -> TlsServer {
        let config = server_config(ca, leaf, clients);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("https://{}", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let counter = connections.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                counter.fetch_add(1, Ordering::SeqCst);
                let connection = rustls::ServerConnection::new(config.clone()).unwrap();
                let body = body.clone();
                std::thread::spawn(move || {
                    let tls = rustls::StreamOwned::new(connection, stream);
                    let _ = answer(tls, &body);
                });
            }
        });
        TlsServer { url, connections }
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

/// A server's TLS settings: a certificate of this kind, signed by `ca`,
/// and a client certificate signed by `clients` required if given.
pub fn server_config(
    ca: &TestCa,
    leaf: Leaf,
    clients: Option<&TestCa>,
) -> Arc<rustls::ServerConfig> {
    let key = KeyPair::generate().unwrap();
    let names = match leaf {
        Leaf::OtherName => vec!["other.example".to_owned()],
        _ => vec!["localhost".to_owned()],
    };
    let mut params = CertificateParams::new(names).unwrap();
    if !matches!(leaf, Leaf::OtherName) {
        params
            .subject_alt_names
            .push(SanType::IpAddress([127, 0, 0, 1].into()));
    }
    if matches!(leaf, Leaf::Expired) {
        params.not_before = rcgen::date_time_ymd(2019, 1, 1);
        params.not_after = rcgen::date_time_ymd(2020, 1, 1);
    }
    let cert = params.signed_by(&key, &ca.issuer).unwrap();
    let chain = vec![CertificateDer::from(cert.der().to_vec())];
    let private = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let builder = rustls::ServerConfig::builder();
    let builder = match clients {
        None => builder.with_no_client_auth(),
        Some(clients) => {
            let mut roots = rustls::RootCertStore::empty();
            let der =
                rustls::pki_types::pem::PemObject::from_pem_slice(clients.pem.as_bytes()).unwrap();
            roots.add(der).unwrap();
            let verifier = rustls::server::WebPkiClientVerifier::builder(Arc::new(roots))
                .build()
                .unwrap();
            builder.with_client_cert_verifier(verifier)
        }
    };
    Arc::new(builder.with_single_cert(chain, private).unwrap())
}

/// Reads one request and answers it with `body`.
fn answer(stream: impl Read + Write, body: &str) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut request_body = vec![0; length];
    reader.read_exact(&mut request_body)?;
    let stream = reader.get_mut();
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}
