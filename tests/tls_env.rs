//! Trust from the environment: SSL_CERT_FILE and SSL_CERT_DIR, as curl and
//! OpenSSL read them. One test, since the environment belongs to the whole
//! process.

mod common;

use chatwire::{Client, Error};
use common::tls_server::{Leaf, TestCa, TlsServer};
use common::*;

#[test]
fn ssl_cert_file_and_ssl_cert_dir_are_trusted() {
    let ca = TestCa::new("chatwire env CA");
    let server = TlsServer::start(&ca, Leaf::Good, completion("from env"));
    let dir = std::env::temp_dir().join(format!("chatwire-tls-env-{}", std::process::id()));
    let file = ca.write(&dir.join("file"), "bundle.pem");
    ca.write(&dir.join("dir"), "company-ca.pem");
    let send = || {
        Client::builder()
            .base_url(&server.url)
            .api_key(KEY)
            .max_retries(0)
            .build()
            .and_then(|client| client.send(&mut conversation()))
    };
    std::env::remove_var("SSL_CERT_FILE");
    std::env::remove_var("SSL_CERT_DIR");
    assert!(matches!(send(), Err(Error::Tls { .. })));

    std::env::set_var("SSL_CERT_FILE", &file);
    assert_eq!(send().unwrap(), "from env");
    std::env::remove_var("SSL_CERT_FILE");

    std::env::set_var("SSL_CERT_DIR", dir.join("dir"));
    assert_eq!(send().unwrap(), "from env");

    // A variable that names nothing readable is a configuration error.
    std::env::set_var("SSL_CERT_DIR", dir.join("missing"));
    let err = send().unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    assert!(err.to_string().contains("SSL_CERT_DIR"), "{err}");
    std::env::remove_var("SSL_CERT_DIR");
}
