//! Mutual TLS: a server that requires a client certificate signed by a CA
//! of the test's own accepts a client that shows one, refuses one that
//! shows none with an error that says so, and the client's key never shows
//! in an error or in `Debug` output.

mod common;

use std::path::{Path, PathBuf};

use chatwire::{Client, Error};
use common::tls_server::{TestCa, TlsServer};
use common::*;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chatwire-mtls-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A server requiring client certificates, the CA file that trusts it, and
/// a client certificate and key accepted by it, as files.
struct Setup {
    server: TlsServer,
    ca_file: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    /// The key's PEM text, which must never show.
    key_pem: String,
    dir: PathBuf,
}

fn setup(name: &str) -> Setup {
    let server_ca = TestCa::new("chatwire test server CA");
    let client_ca = TestCa::new("chatwire test client CA");
    let server =
        TlsServer::start_requiring_client_cert(&server_ca, &client_ca, completion("mutual"));
    let dir = temp_dir(name);
    let ca_file = server_ca.write(&dir, "ca.pem");
    let (cert_pem, key_pem) = client_ca.client_cert("chatwire test client");
    let cert = write(&dir, "client.pem", &cert_pem);
    let key = write(&dir, "client.key", &key_pem);
    Setup {
        server,
        ca_file,
        cert,
        key,
        key_pem,
        dir,
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn client_for(setup: &Setup) -> chatwire::ClientBuilder {
    Client::builder()
        .base_url(&setup.server.url)
        .api_key(KEY)
        .max_retries(2)
        .ca_file(&setup.ca_file)
}

/// Fails if any line of the key's base64 body shows in `text`.
fn assert_no_key(text: &str, key_pem: &str) {
    for line in key_pem.lines().filter(|line| !line.starts_with("-----")) {
        assert!(!text.contains(line), "the key shows in: {text}");
    }
}

fn config_error(result: chatwire::Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(Error::Config(message)) => message,
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn a_client_certificate_is_shown_by_the_client_built_with_it() {
    let setup = setup("accepted");
    let client = client_for(&setup)
        .client_certificate(&setup.cert, &setup.key)
        .build()
        .unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), "mutual");
    let shown = format!("{client:?}");
    assert!(shown.contains("client.key"), "{shown}");
    assert_no_key(&shown, &setup.key_pem);

    // A client built without one shows none, and the server refuses it.
    let before = client_for(&setup).build().unwrap();
    let client = client_for(&setup)
        .client_certificate(&setup.cert, &setup.key)
        .build()
        .unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), "mutual");
    assert!(matches!(
        before.send(&mut conversation()),
        Err(Error::Tls { .. })
    ));
}

#[test]
fn without_a_client_certificate_the_error_says_one_was_required() {
    let setup = setup("missing");
    let client = client_for(&setup).build().unwrap();
    match client.send(&mut conversation()) {
        Err(Error::Tls { message }) => {
            assert!(
                message.contains("requires a client certificate and none was given"),
                "{message}"
            );
            assert!(message.contains(&setup.server.url), "{message}");
        }
        other => panic!("expected a TLS error, got {other:?}"),
    }
}

#[test]
fn a_client_certificate_the_server_did_not_sign_is_refused() {
    let setup = setup("foreign");
    let other_ca = TestCa::new("chatwire test other CA");
    let (cert_pem, key_pem) = other_ca.client_cert("stranger");
    let cert = write(&setup.dir, "stranger.pem", &cert_pem);
    let key = write(&setup.dir, "stranger.key", &key_pem);
    let client = client_for(&setup)
        .client_certificate(&cert, &key)
        .build()
        .unwrap();
    match client.send(&mut conversation()) {
        Err(Error::Tls { message }) => {
            assert!(
                message.contains("refused the client certificate"),
                "{message}"
            );
            assert_no_key(&message, &key_pem);
        }
        other => panic!("expected a TLS error, got {other:?}"),
    }
}

#[test]
fn wrong_files_are_refused_where_they_are_set_naming_the_file_never_the_key() {
    let setup = setup("wrong");
    let key_pem = &setup.key_pem;
    let (_, other_key) = TestCa::new("another").client_cert("another");
    let other_key = write(&setup.dir, "other.key", &other_key);
    let missing = setup.dir.join("missing.pem");
    let not_pem = write(&setup.dir, "notes.txt", "not a certificate\n");
    let cases: [(&Path, &Path, &str, &str); 6] = [
        (
            &missing,
            &setup.key,
            "missing.pem",
            "client certificate file",
        ),
        (&setup.cert, &missing, "missing.pem", "client key file"),
        // The key given as the certificate, and the certificate as the key.
        (&setup.key, &setup.key, "client.key", "no PEM certificate"),
        (&setup.cert, &setup.cert, "client.pem", "no PEM private key"),
        (&not_pem, &setup.key, "notes.txt", "no PEM certificate"),
        // A key, but not the certificate's.
        (
            &setup.cert,
            &other_key,
            "other.key",
            "not the first certificate's",
        ),
    ];
    for (cert, key, file, why) in cases {
        let built = client_for(&setup).client_certificate(cert, key).build();
        let message = config_error(built);
        assert!(message.contains(file), "{message}");
        assert!(message.contains(why), "{message}");
        assert_no_key(&message, key_pem);

        let client = client_for(&setup).build().unwrap();
        let message = config_error(client_for(&setup).client_certificate(cert, key).build());
        assert!(message.contains(file), "{message}");
        assert_no_key(&message, key_pem);
        // A refused build leaves other clients as they were: no certificate to show.
        assert!(!format!("{client:?}").contains(file));
    }
    let builder = client_for(&setup).client_certificate(&setup.cert, &setup.key);
    let shown = format!("{builder:?}");
    assert!(
        shown.contains("client.pem") && shown.contains("client.key"),
        "{shown}"
    );
    assert_no_key(&shown, key_pem);
}
