//! Trust: a server whose certificate is signed by a CA of the test's own is
//! refused until the client is told to trust that CA. The trust that comes
//! from the environment (SSL_CERT_FILE, SSL_CERT_DIR) is in tls_env.rs,
//! whose tests change the process's environment.

mod common;

use chatwire::{Client, Error};
use common::tls_server::{Leaf, TestCa, TlsServer};
use common::*;

fn temp_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("chatwire-tls-{}-{name}", std::process::id()))
}

fn client_for(url: &str) -> chatwire::ClientBuilder {
    Client::builder().base_url(url).api_key(KEY).max_retries(2)
}

fn tls_error(result: chatwire::Result<String>) -> String {
    match result {
        Err(Error::Tls { message }) => message,
        other => panic!("expected a TLS error, got {other:?}"),
    }
}

#[test]
fn an_unknown_issuer_is_refused_once_and_says_so() {
    let ca = TestCa::new("chatwire test CA");
    let server = TlsServer::start(&ca, Leaf::Good, completion("hi"));
    let client = client_for(&server.url).build().unwrap();
    let message = tls_error(client.send(&mut conversation()));
    assert!(message.contains("issuer"), "{message}");
    assert!(message.contains(&server.url), "{message}");
    assert_eq!(
        server.connections(),
        1,
        "a refused certificate is not retried"
    );
}

#[test]
fn a_ca_file_makes_the_server_trusted_by_the_client_built_with_it() {
    let ca = TestCa::new("chatwire test CA");
    let server = TlsServer::start(&ca, Leaf::Good, completion("trusted"));
    let path = ca.write(&temp_dir("file"), "ca.pem");

    let client = client_for(&server.url).ca_file(&path).build().unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), "trusted");

    // A client built without it keeps the system's trust alone.
    let before = client_for(&server.url).build().unwrap();
    assert!(matches!(
        before.send(&mut conversation()),
        Err(Error::Tls { .. })
    ));
}

#[test]
fn an_expired_certificate_and_a_wrong_name_say_what_failed() {
    let ca = TestCa::new("chatwire test CA");
    let path = ca.write(&temp_dir("reasons"), "ca.pem");
    let expired = TlsServer::start(&ca, Leaf::Expired, completion("x"));
    let client = client_for(&expired.url).ca_file(&path).build().unwrap();
    let message = tls_error(client.send(&mut conversation()));
    assert!(message.contains("expired"), "{message}");
    assert_eq!(expired.connections(), 1);

    let other = TlsServer::start(&ca, Leaf::OtherName, completion("x"));
    let client = client_for(&other.url).ca_file(&path).build().unwrap();
    let message = tls_error(client.send(&mut conversation()));
    assert!(message.contains("name mismatch"), "{message}");
}

#[test]
fn an_unusable_ca_file_is_a_config_error_and_changes_nothing() {
    let dir = temp_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let not_pem = dir.join("key.txt");
    std::fs::write(&not_pem, "not a certificate").unwrap();
    for path in [dir.join("missing.pem"), not_pem] {
        let err = client_for("https://127.0.0.1:9")
            .ca_file(&path)
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::Config(_)), "{err}");
        assert!(err.to_string().contains("CA file"), "{err}");
    }
}

#[test]
fn a_long_reply_over_tls_arrives_whole_in_the_foreground_and_in_the_background() {
    // Far more than a TLS record and the buffers' first size: read in many
    // pieces, by a worker that let go of its buffers before it waited.
    let long: String = (0..40_000).map(|i| format!("{} ", i % 10)).collect();
    let ca = TestCa::new("chatwire test CA");
    let server = TlsServer::start(&ca, Leaf::Good, completion(&long));
    let path = ca.write(&temp_dir("long"), "ca.pem");
    let client = client_for(&server.url).ca_file(&path).build().unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), long);
    let pending = client.send_async(&conversation()).unwrap();
    assert_eq!(pending.wait().unwrap().content(), long);
}
