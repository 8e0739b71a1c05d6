//! Proxies, through a real proxy server (tinyproxy, from the distribution's
//! packages): plain http goes to it in absolute form, https through a
//! CONNECT tunnel, credentials are sent and never shown, NO_PROXY and ""
//! go around it; the model list takes the same road. The tests read and
//! change the proxy variables of the process, so they take turns.

mod common;

use std::sync::{Mutex, MutexGuard};

use chatwire::{Client, Error};
use common::tinyproxy::Tinyproxy;
use common::tls_server::{Leaf, TestCa, TlsServer};
use common::*;
use mockito::Server;

const PROXY_VARIABLES: [&str; 8] = [
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
];

/// One test at a time, starting from an environment without proxies.
fn turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    let guard = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for name in PROXY_VARIABLES {
        std::env::remove_var(name);
    }
    guard
}

fn answering(server: &mut Server, text: &str) -> mockito::Mock {
    server
        .mock("POST", PATH)
        .with_body(completion(text))
        .create()
}

fn builder(url: &str) -> chatwire::ClientBuilder {
    Client::builder().base_url(url).api_key(KEY).max_retries(0)
}

#[test]
fn plain_http_goes_to_the_proxy_in_absolute_form() {
    let _turn = turn();
    let Some(proxy) = Tinyproxy::start("absolute", None) else {
        return;
    };
    let mut server = Server::new();
    let mock = answering(&mut server, "via proxy");
    let client = builder(&server.url()).proxy(&proxy.url).build().unwrap();
    for _ in 0..2 {
        assert_eq!(client.send(&mut conversation()).unwrap(), "via proxy");
        proxy.wait_for_its_close();
    }
    mock.expect(2).assert();
    let want = format!("POST {}{PATH} HTTP/1.1", server.url());
    let requests = proxy.requests();
    assert_eq!(
        requests.iter().filter(|r| **r == want).count(),
        2,
        "{requests:?}"
    );
}

/// A name only the proxy can look up, as a company proxy knows internal
/// names: chatwire hands it to the proxy and never looks it up itself.
#[test]
fn plain_http_leaves_the_endpoint_s_name_to_the_proxy() {
    use std::io::{BufRead, Write};
    let _turn = turn();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_url = format!("http://{}", listener.local_addr().unwrap());
    let proxy = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = std::io::BufReader::new(&stream);
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        common::paced::read_request(&mut reader).unwrap();
        let body = completion("named by the proxy");
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        (&stream)
            .write_all(format!("{head}{body}").as_bytes())
            .unwrap();
        request_line
    });
    let client = builder("http://only-the-proxy-knows.invalid")
        .proxy(&proxy_url)
        .build()
        .unwrap();
    assert_eq!(
        client.send(&mut conversation()).unwrap(),
        "named by the proxy"
    );
    assert_eq!(
        proxy.join().unwrap(),
        format!("POST http://only-the-proxy-knows.invalid:80{PATH} HTTP/1.1\r\n")
    );
}

#[test]
fn https_goes_through_a_connect_tunnel() {
    let _turn = turn();
    let Some(proxy) = Tinyproxy::start("connect", None) else {
        return;
    };
    let ca = TestCa::new("chatwire proxy test CA");
    let ca_file = ca.write(
        &std::env::temp_dir().join(format!("chatwire-proxy-ca-{}", std::process::id())),
        "ca.pem",
    );
    let server = TlsServer::start(&ca, Leaf::Good, completion("tunnelled"));
    std::env::set_var("HTTPS_PROXY", &proxy.url);
    // http_proxy is for plain http only: it must not catch an https request.
    std::env::set_var("http_proxy", "http://127.0.0.1:9");
    let client = builder(&server.url).ca_file(&ca_file).build().unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), "tunnelled");
    let authority = server.url.trim_start_matches("https://");
    let requests = proxy.requests();
    assert!(
        requests.contains(&format!("CONNECT {authority} HTTP/1.1")),
        "{requests:?}"
    );
}

#[test]
fn proxy_credentials_are_sent_and_never_shown() {
    let _turn = turn();
    let Some(proxy) = Tinyproxy::start("auth", Some(("chat", "pr0xy-s3cret"))) else {
        return;
    };
    let mut server = Server::new();
    let _mock = answering(&mut server, "authorised");
    let with = format!("http://chat:pr0xy-s3cret@127.0.0.1:{}", proxy.port);
    let client = builder(&server.url()).proxy(&with).build().unwrap();
    assert_eq!(client.send(&mut conversation()).unwrap(), "authorised");
    assert!(!format!("{client:?}").contains("pr0xy-s3cret"));
    proxy.wait_for_its_close();

    // A server that echoes the proxy's password has it taken out.
    let _echo = server
        .mock("POST", PATH)
        .match_header("x-echo", "1")
        .with_status(400)
        .with_body(error_body(
            "you sent pr0xy-s3cret",
            "invalid_request_error",
            serde_json::Value::Null,
        ))
        .create();
    let echoed = builder(&server.url())
        .proxy(&with)
        .header("X-Echo", "1")
        .build()
        .unwrap();
    let err = echoed.send(&mut conversation()).unwrap_err();
    assert!(err.to_string().contains("you sent [redacted]"), "{err}");

    // A wrong password: the proxy's refusal comes back (tinyproxy answers
    // 401), without the password.
    let wrong = format!("http://chat:wr0ng-s3cret@127.0.0.1:{}", proxy.port);
    let client = builder(&server.url()).proxy(&wrong).build().unwrap();
    let err = client.send(&mut conversation()).unwrap_err();
    assert!(matches!(&err, Error::Auth(_)), "{err:?}");
    assert_eq!(err.http_status(), Some(401), "{err:?}");
    assert!(!format!("{err} {err:?}").contains("wr0ng-s3cret"));

    // An unusable proxy URL: a config error that does not quote the password.
    let err = builder(&server.url())
        .proxy("ftp://chat:pr0xy-s3cret@127.0.0.1:1")
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    assert!(!err.to_string().contains("pr0xy-s3cret"), "{err}");
}

#[test]
fn the_environment_chooses_and_no_proxy_and_empty_go_around() {
    let _turn = turn();
    let Some(proxy) = Tinyproxy::start("env", None) else {
        return;
    };
    let mut server = Server::new();
    let _mock = answering(&mut server, "ok");
    let request = format!("POST {}{PATH} HTTP/1.1", server.url());
    let through_proxy = || proxy.requests().iter().filter(|r| **r == request).count();

    std::env::set_var("http_proxy", &proxy.url);
    builder(&server.url())
        .build()
        .unwrap()
        .send(&mut conversation())
        .unwrap();
    assert_eq!(through_proxy(), 1, "http_proxy is used for http");

    // NO_PROXY with the host (and its port), a domain, a range: direct.
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    for rules in [
        "127.0.0.1".to_owned(),
        format!("localhost, 127.0.0.1:{port}"),
        "example.com,127.0.0.0/8".to_owned(),
        "*".to_owned(),
    ] {
        std::env::set_var("NO_PROXY", &rules);
        builder(&server.url())
            .build()
            .unwrap()
            .send(&mut conversation())
            .unwrap();
        assert_eq!(through_proxy(), 1, "NO_PROXY={rules} goes around the proxy");
    }
    // A rule for another port or host does not.
    std::env::set_var("NO_PROXY", "127.0.0.1:1,.example.com");
    builder(&server.url())
        .build()
        .unwrap()
        .send(&mut conversation())
        .unwrap();
    assert_eq!(through_proxy(), 2);

    // "" means no proxy whatever the environment says, also when it
    // replaces a proxy given before.
    std::env::remove_var("NO_PROXY");
    builder(&server.url())
        .proxy("")
        .build()
        .unwrap()
        .send(&mut conversation())
        .unwrap();
    let client = builder(&server.url())
        .proxy(&proxy.url)
        .proxy("")
        .build()
        .unwrap();
    client.send(&mut conversation()).unwrap();
    assert_eq!(through_proxy(), 2);
    // And a later proxy sends it through a proxy again.
    let client = builder(&server.url())
        .proxy("")
        .proxy(&proxy.url)
        .build()
        .unwrap();
    client.send(&mut conversation()).unwrap();
    assert_eq!(through_proxy(), 3);
}

/// The model list is a GET that takes a send's road: through the proxy in
/// absolute form for plain http, through a tunnel and the client's trust
/// for https.
#[test]
fn the_model_list_goes_through_the_proxy_as_a_send_does() {
    let _turn = turn();
    let Some(proxy) = Tinyproxy::start("models", None) else {
        return;
    };
    let list = r#"{"object":"list","data":[{"id":"m","owned_by":"me"}]}"#;
    let mut server = Server::new();
    let mock = server
        .mock("GET", "/v1/models")
        .with_body(list)
        .expect(1)
        .create();
    let client = builder(&server.url()).proxy(&proxy.url).build().unwrap();
    assert_eq!(client.models().unwrap()[0].id, "m");
    proxy.wait_for_its_close();
    mock.assert();
    let want = format!("GET {}/v1/models HTTP/1.1", server.url());
    let requests = proxy.requests();
    assert!(requests.contains(&want), "{requests:?}");

    let ca = TestCa::new("chatwire proxy models CA");
    let ca_file = ca.write(
        &std::env::temp_dir().join(format!("chatwire-proxy-models-{}", std::process::id())),
        "ca.pem",
    );
    let tls = TlsServer::start(&ca, Leaf::Good, list.to_owned());
    let client = builder(&tls.url)
        .proxy(&proxy.url)
        .ca_file(&ca_file)
        .build()
        .unwrap();
    assert_eq!(client.models().unwrap()[0].owned_by.as_deref(), Some("me"));
    let authority = tls.url.trim_start_matches("https://");
    let requests = proxy.requests();
    assert!(
        requests.contains(&format!("CONNECT {authority} HTTP/1.1")),
        "{requests:?}"
    );
}
