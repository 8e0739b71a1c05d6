//! `Client::models` against mock servers: the list in each server's shape,
//! the URL of every kind of endpoint, and the failures of a send (error
//! statuses, retries, a body that is no list, one over its limit).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chatwire::{Client, Error, Limit, TimeoutKind, MAX_MODELS_BODY_BYTES};
use common::*;
use mockito::{Matcher, Server};
use serde_json::{json, Value};

const MODELS: &str = "/v1/models";

/// OpenAI's shape (its API reference, "List models").
fn openai_list() -> String {
    json!({"object": "list", "data": [
        {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"},
        {"id": "o3", "object": "model", "created": 1744225308, "owned_by": "openai",
         "shutdown_date": null}
    ]})
    .to_string()
}

#[test]
fn lists_the_models_in_the_servers_order_with_a_get_as_a_send_makes_it() {
    let mut server = Server::new();
    let mock = server
        .mock("GET", MODELS)
        .match_header("authorization", format!("Bearer {KEY}").as_str())
        .match_header("x-tenant", "blue")
        .match_header("user-agent", Matcher::Regex(r"^chatwire/".into()))
        // A GET sends no body and says none.
        .match_header("content-type", Matcher::Missing)
        .match_header("content-length", Matcher::Missing)
        .match_header("transfer-encoding", Matcher::Missing)
        .with_header("content-type", "application/json")
        .with_body(openai_list())
        .expect(1)
        .create();
    let client = builder(&server.url())
        .header("X-Tenant", "blue")
        .build()
        .unwrap();
    log_lines::record();
    let models = client.models().unwrap();
    let ids: Vec<&str> = models.iter().map(|model| model.id.as_str()).collect();
    assert_eq!(ids, ["gpt-4o", "o3"]);
    assert_eq!(models[1].owned_by.as_deref(), Some("openai"));
    assert_eq!(models[1].created, Some(1744225308));
    assert_eq!(models[1].extra["shutdown_date"], Value::Null);
    // The attempt's log line names the GET and where it went.
    let url = format!("{}{MODELS}", server.url());
    let lines = log_lines::about(&url);
    assert!(
        lines
            .iter()
            .any(|line| line.contains(&format!("GET {url}"))),
        "{lines:?}"
    );
    mock.assert();
}

#[test]
fn llama_cpp_lists_its_models_beside_data_and_every_field_comes_back_whole() {
    let recorded = read_data("spec/recorded/llamacpp-models.json");
    let mut server = Server::new();
    server
        .mock("GET", MODELS)
        .with_header("content-type", "application/json; charset=utf-8")
        .with_body(&recorded)
        .create();
    let models = client(&server.url()).models().unwrap();
    assert_eq!(models.len(), 1);
    assert_eq!(models[0].id, "smollm2-135m-instruct");
    assert_eq!(models[0].owned_by.as_deref(), Some("llamacpp"));
    assert_eq!(models[0].created, Some(1796156898));
    assert_eq!(models[0].extra["aliases"], json!(["smollm2-135m-instruct"]));
    let whole: Value = serde_json::from_str(&models[0].to_json()).unwrap();
    let sent: Value = serde_json::from_str(&recorded).unwrap();
    assert_eq!(whole, sent["data"][0]);
}

#[test]
fn a_server_that_omits_owner_and_date_is_listed_without_them() {
    let mut server = Server::new();
    server
        .mock("GET", MODELS)
        .with_body(r#"{"data":[{"id":"local-model"}]}"#)
        .create();
    let models = client(&server.url()).models().unwrap();
    assert_eq!(models[0].id, "local-model");
    assert_eq!((&models[0].owned_by, models[0].created), (&None, None));
    assert!(models[0].extra.is_empty());
}

/// Azure OpenAI's classic route lists the resource's models at
/// `GET {endpoint}/openai/models?api-version=2024-10-21`, the key in
/// `api-key`, each model with `created_at` and `capabilities` but no
/// `owned_by` ("Models - List",
/// https://learn.microsoft.com/en-us/rest/api/azureopenai/models/list).
#[test]
fn azure_classic_route_lists_at_openai_models_with_its_api_version() {
    let mut server = Server::new();
    let mock = server
        .mock("GET", "/openai/models")
        .match_query(Matcher::Exact("api-version=2024-10-21".into()))
        .match_header("api-key", "azure-key")
        .match_header("authorization", Matcher::Missing)
        .with_body(
            json!({"object": "list", "data": [{
                "status": "succeeded",
                "capabilities": {"chat_completion": true, "inference": true},
                "lifecycle_status": "generally-available",
                "id": "gpt-4o-2024-08-06",
                "created_at": 1723075200,
                "object": "model"
            }]})
            .to_string(),
        )
        .expect(1)
        .create();
    let client = Client::builder()
        .azure(server.url(), "my-deployment")
        .api_version("2024-10-21")
        .api_key("azure-key")
        .max_retries(0)
        .build()
        .unwrap();
    let models = client.models().unwrap();
    assert_eq!(models[0].id, "gpt-4o-2024-08-06");
    assert_eq!((&models[0].owned_by, models[0].created), (&None, None));
    assert_eq!(models[0].extra["created_at"], 1723075200);
    mock.assert();
}

/// Azure's v1 route, a base URL `{endpoint}/openai/v1`, lists at
/// `GET {endpoint}/openai/v1/models` ("List models",
/// https://learn.microsoft.com/en-us/rest/api/microsoft-foundry/azureopenai/models).
#[test]
fn azure_v1_route_lists_at_openai_v1_models() {
    let mut server = Server::new();
    let mock = server
        .mock("GET", "/openai/v1/models")
        .match_header("authorization", "Bearer azure-key")
        .with_body(openai_list())
        .expect(1)
        .create();
    let client = Client::builder()
        .base_url(format!("{}/openai/v1", server.url()))
        .api_key("azure-key")
        .build()
        .unwrap();
    assert_eq!(client.models().unwrap().len(), 2);
    mock.assert();
}

#[test]
fn an_endpoint_url_given_whole_lists_beside_its_chat_completions() {
    let mut server = Server::new();
    let mock = server
        .mock("GET", "/tenant/7/models")
        .match_query(Matcher::Exact("route=fast".into()))
        .with_body(openai_list())
        .expect(1)
        .create();
    let client = Client::builder()
        .endpoint_url(format!(
            "{}/tenant/7/chat/completions?route=fast",
            server.url()
        ))
        .api_key(KEY)
        .build()
        .unwrap();
    assert_eq!(client.models().unwrap()[0].id, "gpt-4o");
    mock.assert();
}

#[test]
fn an_endpoint_url_of_another_path_says_it_names_no_list_and_asks_nothing() {
    let mut server = Server::new();
    let any = server
        .mock("GET", Matcher::Any)
        .with_body(openai_list())
        .expect(0)
        .create();
    let client = Client::builder()
        .endpoint_url(format!("{}/tenant/7/chat?key=sk-in-query", server.url()))
        .api_key(KEY)
        .build()
        .unwrap();
    match client.models() {
        Err(Error::Config(message)) => {
            assert!(message.contains("no models URL"), "{message}");
            assert!(message.contains("/chat/completions"), "{message}");
            assert!(!message.contains("sk-in-query"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    any.assert();
}

#[test]
fn a_refused_key_is_an_auth_error_without_the_key_and_with_the_request_id() {
    let mut server = Server::new();
    // A server that quotes the key it was sent, as OpenAI's 401 does.
    server
        .mock("GET", MODELS)
        .with_status(401)
        .with_header("x-request-id", "req_models_1")
        .with_body(error_body(
            &format!("Incorrect API key provided: {KEY}"),
            "invalid_request_error",
            json!("invalid_api_key"),
        ))
        .expect(1)
        .create();
    let err = client(&server.url()).models().unwrap_err();
    let Error::Auth(api) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(api.status, Some(401));
    assert_eq!(api.request_id.as_deref(), Some("req_models_1"));
    let text = format!("{err} {err:?}");
    assert!(text.contains("Incorrect API key provided"), "{text}");
    assert!(!text.contains(KEY), "{text}");
}

#[test]
fn a_rate_limit_is_retried_after_the_pause_the_server_asks_for() {
    let mut server = Server::new();
    let limited = server
        .mock("GET", MODELS)
        .with_status(429)
        .with_header("retry-after-ms", "30")
        .with_body(error_body("slow down", "rate_limit_exceeded", json!(null)))
        .expect(1)
        .create();
    let ok = server
        .mock("GET", MODELS)
        .with_body(openai_list())
        .expect(1)
        .create();
    let client = builder(&server.url()).max_retries(1).build().unwrap();
    log_lines::record();
    assert_eq!(client.models().unwrap().len(), 2);
    let lines = log_lines::about(&format!("{}{MODELS}", server.url()));
    assert!(
        lines
            .iter()
            .any(|line| line.contains("GET") && line.contains("retrying in 0.030 s")),
        "{lines:?}"
    );
    limited.assert();
    ok.assert();
}

#[test]
fn a_rate_limit_past_the_retries_is_rate_limited_and_a_5xx_a_server_error() {
    let mut server = Server::new();
    server
        .mock("GET", MODELS)
        .with_status(429)
        .with_body(error_body("slow down", "rate_limit_exceeded", json!(null)))
        .create();
    let err = client(&server.url()).models().unwrap_err();
    assert!(matches!(err, Error::RateLimited(_)), "{err:?}");

    let mut server = Server::new();
    let failing = server
        .mock("GET", MODELS)
        .with_status(503)
        .expect(2)
        .create();
    let client = builder(&server.url()).max_retries(1).build().unwrap();
    let err = client.models().unwrap_err();
    assert!(matches!(err, Error::Server(_)), "{err:?}");
    failing.assert();
}

#[test]
fn a_server_that_never_answers_the_handshake_is_a_connect_timeout() {
    let stuck = common::stuck::StuckListener::start();
    let client = Client::builder()
        .base_url(&stuck.url)
        .api_key(KEY)
        .connect_timeout(Duration::from_millis(300))
        .max_retries(0)
        .build()
        .unwrap();
    let err = client.models().unwrap_err();
    assert_eq!(err.timeout_kind(), Some(TimeoutKind::Connect), "{err:?}");
}

#[test]
fn a_credential_provider_is_asked_for_the_list_too() {
    let mut server = Server::new();
    let mock = server
        .mock("GET", MODELS)
        .match_header("authorization", "Bearer tok-1")
        .with_body(openai_list())
        .expect(1)
        .create();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let client = Client::builder()
        .base_url(server.url())
        .credential_provider(move || {
            let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
            Ok::<_, std::io::Error>(format!("tok-{n}"))
        })
        .build()
        .unwrap();
    assert_eq!(client.models().unwrap().len(), 2);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    mock.assert();
}

/// The shapes a body may get wrong are in `wire::models`' own tests; here,
/// a gateway's page reaches the caller as a decode error through the GET.
#[test]
fn a_body_that_is_no_list_is_a_decode_error_quoting_its_start() {
    let body = "<html><body>502 Bad Gateway</body></html>";
    let mut server = Server::new();
    server
        .mock("GET", MODELS)
        .with_header("content-type", "text/html")
        .with_body(body)
        .create();
    match client(&server.url()).models() {
        Err(Error::Decode { message, excerpt }) => {
            assert!(message.contains("not a list of models"), "{message}");
            assert_eq!(excerpt, body);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_list_past_its_limit_is_too_large() {
    // A list over 8 MiB, whatever Limit::Body allows.
    let filler = "x".repeat(usize::try_from(MAX_MODELS_BODY_BYTES).unwrap());
    let body = format!(r#"{{"data":[{{"id":"m","pad":"{filler}"}}]}}"#);
    let mut server = Server::new();
    server.mock("GET", MODELS).with_body(&body).create();
    match client(&server.url()).models() {
        Err(Error::TooLarge { limit, .. }) => assert_eq!(limit, MAX_MODELS_BODY_BYTES),
        other => panic!("{other:?}"),
    }
    // And a lower Limit::Body is the list's too.
    let client = builder(&server.url())
        .limit(Limit::Body, 4096)
        .build()
        .unwrap();
    match client.models() {
        Err(Error::TooLarge { limit, .. }) => assert_eq!(limit, 4096),
        other => panic!("{other:?}"),
    }
}
