//! Mutual TLS from C (tests/c/mtls.c): as C and as C++ against both
//! libraries, and once under AddressSanitizer.

mod common;

use common::cprog::{compile_sanitized, for_each_build, run};
use common::tls_server::{TestCa, TlsServer};

#[test]
fn c_mtls_against_a_server_that_requires_a_client_certificate() {
    let server_ca = TestCa::new("chatwire test server CA");
    let client_ca = TestCa::new("chatwire test client CA");
    let server = TlsServer::start_requiring_client_cert(
        &server_ca,
        &client_ca,
        common::completion("mutual"),
    );
    let dir = std::env::temp_dir().join(format!("chatwire-c-mtls-{}", std::process::id()));
    let ca_file = server_ca.write(&dir, "ca.pem");
    let (cert_pem, key_pem) = client_ca.client_cert("chatwire test client");
    let cert = dir.join("client.pem");
    let key = dir.join("client.key");
    std::fs::write(&cert, cert_pem).unwrap();
    std::fs::write(&key, &key_pem).unwrap();
    let key_line = key_pem.lines().nth(1).unwrap().to_owned();
    let args = [
        server.url.as_str(),
        common::KEY,
        ca_file.to_str().unwrap(),
        cert.to_str().unwrap(),
        key.to_str().unwrap(),
        key_line.as_str(),
    ];
    for_each_build("mtls", |exe| {
        let out = run(exe, &args);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    let out = run(&compile_sanitized("mtls"), &args);
    assert!(out.contains(", 0 failed"), "{out}");
}
