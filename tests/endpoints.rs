//! Endpoints and credentials against a mock server: Azure's classic route,
//! a whole endpoint URL, where the credential goes, no credential at all,
//! and a credential callback asked before every attempt. (The places
//! settings come from, and the trust between them, are in `endpoints_env.rs`.)

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chatwire::{Auth, Client, Error};
use common::*;
use mockito::{Matcher, Server};

fn fast(builder: chatwire::ClientBuilder) -> Client {
    builder
        .timeout(Duration::from_secs(10))
        .max_retries(0)
        .build()
        .expect("client")
}

fn send(client: &Client) -> chatwire::Result<String> {
    client.send(&mut conversation())
}

#[test]
fn azure_classic_route_has_deployment_path_version_query_and_api_key_header() {
    let mut server = Server::new();
    let azure = server
        .mock("POST", "/openai/deployments/gpt-4o%20mini/chat/completions")
        .match_query(Matcher::Exact("api-version=2024-06-01".into()))
        .match_header("api-key", "azure-key-123")
        .match_header("authorization", Matcher::Missing)
        .with_body(completion("from azure"))
        .create();
    let client = fast(
        Client::builder()
            .azure(format!("{}/", server.url()), "gpt-4o mini")
            .api_version("2024-06-01")
            .api_key("azure-key-123"),
    );
    assert_eq!(
        client.endpoint(),
        format!(
            "{}/openai/deployments/gpt-4o%20mini/chat/completions?api-version=2024-06-01",
            server.url()
        )
    );
    assert_eq!(send(&client).unwrap(), "from azure");
    azure.assert();
}

#[test]
fn azure_default_version_is_the_documented_ga_one() {
    let mut server = Server::new();
    let azure = server
        .mock("POST", "/openai/deployments/d/chat/completions")
        .match_query(Matcher::UrlEncoded(
            "api-version".into(),
            chatwire::DEFAULT_AZURE_API_VERSION.into(),
        ))
        .with_body(completion("ok"))
        .create();
    // OPENAI_API_VERSION is read from the environment: this test only runs
    // meaningfully without it (endpoints_env.rs covers it being set).
    if std::env::var_os("OPENAI_API_VERSION").is_some() {
        return;
    }
    let client = fast(Client::builder().azure(server.url(), "d").api_key("k-1234"));
    assert_eq!(send(&client).unwrap(), "ok");
    azure.assert();
}

#[test]
fn azure_v1_route_from_a_base_url_gets_no_second_v1() {
    let mut server = Server::new();
    let v1 = server
        .mock("POST", "/openai/v1/chat/completions")
        .match_header("authorization", "Bearer azure-key-123")
        .with_body(completion("from v1"))
        .create();
    let client = fast(
        Client::builder()
            .base_url(format!("{}/openai/v1/", server.url()))
            .api_key("azure-key-123"),
    );
    assert_eq!(send(&client).unwrap(), "from v1");
    v1.assert();
}

#[test]
fn an_endpoint_url_is_used_as_given_with_its_path_and_query() {
    let mut server = Server::new();
    let gemini = server
        .mock("POST", "/v1beta/openai/chat/completions")
        .match_query(Matcher::Missing)
        .match_header("authorization", "Bearer gemini-key")
        .with_body(completion("from gemini"))
        .create();
    let gateway = server
        .mock("POST", "/tenant/7/chat")
        .match_query(Matcher::AllOf(vec![
            Matcher::UrlEncoded("route".into(), "fast".into()),
            Matcher::UrlEncoded("team".into(), "a b".into()),
        ]))
        .with_body(completion("from the gateway"))
        .create();
    let url = format!("{}/v1beta/openai/chat/completions", server.url());
    let before = fast(Client::builder().endpoint_url(&url).api_key("gemini-key"));
    assert_eq!(before.endpoint(), url);
    assert_eq!(send(&before).unwrap(), "from gemini");

    let client = fast(
        Client::builder()
            .endpoint_url(&url)
            .endpoint_url(format!(
                "{}/tenant/7/chat?route=fast&team=a%20b",
                server.url()
            ))
            .api_key("gemini-key"),
    );
    assert_eq!(send(&client).unwrap(), "from the gateway");
    // The first client keeps its endpoint; a refused URL builds nothing.
    assert_eq!(before.endpoint(), url);
    let err = Client::builder()
        .endpoint_url("http://host/chat#part")
        .api_key("gemini-key")
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    assert!(client
        .endpoint()
        .ends_with("/tenant/7/chat?route=fast&team=a%20b"));
    gemini.assert();
    gateway.assert();
}

#[test]
fn each_auth_mode_puts_the_key_where_it_says() {
    let mut server = Server::new();
    let bearer = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer key-abcd")
        .match_header("api-key", Matcher::Missing)
        .with_body(completion("bearer"))
        .create();
    let api_key = server
        .mock("POST", PATH)
        .match_header("api-key", "key-abcd")
        .match_header("authorization", Matcher::Missing)
        .with_body(completion("api-key"))
        .create();
    let none = server
        .mock("POST", PATH)
        .match_header("api-key", Matcher::Missing)
        .match_header("authorization", Matcher::Missing)
        .with_body(completion("none"))
        .create();
    let keyed = || Client::builder().base_url(server.url()).api_key("key-abcd");
    let client = fast(keyed());
    assert_eq!(send(&client).unwrap(), "bearer");
    let client = fast(keyed().auth(Auth::ApiKey));
    assert_eq!(send(&client).unwrap(), "api-key");
    let client = fast(keyed().auth(Auth::ApiKey).auth(Auth::None));
    assert_eq!(send(&client).unwrap(), "none");
    let built = fast(
        Client::builder()
            .base_url(server.url())
            .api_key("key-abcd")
            .auth(Auth::ApiKey),
    );
    assert_eq!(send(&built).unwrap(), "api-key");
    bearer.assert();
    api_key.expect(2).assert();
    none.assert();
}

#[test]
fn an_empty_key_sends_no_credential_and_needs_none() {
    let mut server = Server::new();
    let bare = server
        .mock("POST", PATH)
        .match_header("authorization", Matcher::Missing)
        .match_header("api-key", Matcher::Missing)
        .with_body(completion("no key needed"))
        .create();
    let client = fast(Client::builder().base_url(server.url()).api_key(""));
    assert_eq!(send(&client).unwrap(), "no key needed");
    assert!(!format!("{client:?}").contains("Bearer"));
    bare.assert();
}

/// A provider handing out `tok-entra-1`, `tok-entra-2`, ... and counting calls.
fn counting_provider() -> (
    Arc<AtomicUsize>,
    impl Fn() -> Result<String, String> + Send + Sync + 'static,
) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let provider = move || {
        let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(format!("tok-entra-{n}"))
    };
    (calls, provider)
}

#[test]
fn a_credential_provider_is_asked_before_every_attempt_retries_included() {
    let mut server = Server::new();
    let first = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer tok-entra-1")
        .with_status(503)
        .create();
    let second = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer tok-entra-2")
        .with_body(completion("fresh token"))
        .create();
    let (calls, provider) = counting_provider();
    let client = Client::builder()
        .base_url(server.url())
        .credential_provider(provider)
        .max_retries(1)
        .build()
        .unwrap();
    assert_eq!(send(&client).unwrap(), "fresh token");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    first.assert();
    second.assert();
}

#[test]
fn a_providers_token_goes_as_bearer_on_azure_and_never_into_an_error() {
    let mut server = Server::new();
    // A server that echoes the credential it was sent.
    let echo = server
        .mock("POST", "/openai/deployments/d/chat/completions")
        .match_query(Matcher::Any)
        .match_header("authorization", "Bearer tok-entra-1")
        .match_header("api-key", Matcher::Missing)
        .with_status(401)
        .with_body(error_body(
            "token tok-entra-1 has expired",
            "invalid_request_error",
            serde_json::json!("expired"),
        ))
        .create();
    let (_, provider) = counting_provider();
    let client = fast(
        Client::builder()
            .azure(server.url(), "d")
            .credential_provider(provider),
    );
    let err = send(&client).unwrap_err();
    assert!(matches!(err, Error::Auth(_)), "{err}");
    let text = format!("{err} {err:?}");
    assert!(!text.contains("tok-entra"), "{text}");
    assert!(text.contains("[redacted]"), "{text}");
    echo.assert();
}

#[test]
fn a_failing_provider_fails_the_send_at_once_without_sending() {
    let mut server = Server::new();
    let never = server.mock("POST", PATH).expect(0).create();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let url = server.url();
    let keyed = || {
        Client::builder()
            .base_url(&url)
            .api_key("sk-unused-key")
            .max_retries(3)
    };
    let client = keyed()
        .credential_provider(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Err("not logged in: run az login")
        })
        .build()
        .unwrap();
    match send(&client).unwrap_err() {
        Error::Auth(api) => {
            assert_eq!(api.status, None);
            assert!(api.message.contains("run az login"), "{api}");
        }
        other => panic!("expected an auth error, got {other:?}"),
    }
    // Not retried: asked once.
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    never.assert();

    // Without the provider the key is sent again.
    let key_again = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer sk-unused-key")
        .with_body(completion("key again"))
        .create();
    let client = keyed().build().unwrap();
    assert_eq!(send(&client).unwrap(), "key again");
    key_again.assert();
}

#[test]
fn a_provider_serves_streams_and_background_sends() {
    let mut server = Server::new();
    let stream_body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"streamed\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let streamed = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer tok-entra-1")
        .with_header("content-type", "text/event-stream")
        .with_body(stream_body)
        .create();
    let background = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer tok-entra-2")
        .with_body(completion("in the background"))
        .create();
    let (calls, provider) = counting_provider();
    let client = fast(
        Client::builder()
            .base_url(server.url())
            .credential_provider(provider),
    );
    let mut conversation = conversation();
    let reply = client
        .send_stream(&mut conversation, |_| std::ops::ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.content(), "streamed");
    conversation.user("again").unwrap();
    let pending = client.send_async(&conversation).unwrap();
    assert_eq!(pending.wait().unwrap().content(), "in the background");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    streamed.assert();
    background.assert();
}
