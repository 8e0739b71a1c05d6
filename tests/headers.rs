//! Extra request headers: set on the builder, sent with every
//! kind of request, replaced and removed; the headers chatwire sets itself
//! refused; values never printed. `OpenAI-Organization` and `OpenAI-Project`
//! come from the environment or `./.env`: the environment and the current
//! directory belong to the whole process, so one test holds every step that
//! changes them, and the others, which build clients that read them, wait
//! for it (see [`environment`]).

mod common;

use std::ops::ControlFlow;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use chatwire::{Client, ClientBuilder, Error};
use common::*;
use mockito::{Matcher, Server, ServerGuard};

/// Held by every test of this file: building a client reads the environment
/// and `./.env`, which one test changes.
fn environment() -> MutexGuard<'static, ()> {
    static ENVIRONMENT: Mutex<()> = Mutex::new(());
    ENVIRONMENT.lock().unwrap_or_else(PoisonError::into_inner)
}

fn builder(url: &str) -> ClientBuilder {
    Client::builder()
        .base_url(url)
        .api_key(KEY)
        .timeout(Duration::from_secs(10))
        .max_retries(0)
}

/// A mock that answers `reply` to requests carrying `name: value`, or
/// lacking `name` when `value` is `None`.
fn answer_when(server: &mut ServerGuard, name: &str, value: Option<&str>, reply: &str) {
    let matcher = match value {
        Some(value) => Matcher::Exact(value.to_owned()),
        None => Matcher::Missing,
    };
    server
        .mock("POST", PATH)
        .match_header("authorization", format!("Bearer {KEY}").as_str())
        .match_header(name, matcher)
        .with_body(completion(reply))
        .create();
}

fn send(client: &Client) -> String {
    client.send(&mut conversation()).unwrap()
}

#[test]
fn builder_headers_go_with_every_kind_of_request() {
    let _environment = environment();
    let mut server = Server::new();
    answer_when(&mut server, "x-trace-id", Some("run-2"), "traced");
    server
        .mock("POST", PATH)
        .match_header("x-trace-id", "run-2")
        .match_header("x-gateway", "on")
        .match_body(Matcher::PartialJson(serde_json::json!({"stream": true})))
        .with_header("content-type", "text/event-stream")
        .with_body(read_data("spec/recorded/llamacpp-stream.sse"))
        .create();
    let client = builder(&server.url())
        .header("X-Trace-Id", "run-1")
        .header("x-trace-id", "run-2") // the same name in another case replaces it
        .header("X-Gateway", "on")
        .build()
        .unwrap();

    assert_eq!(send(&client), "traced");
    let pending = client.send_async(&conversation()).unwrap();
    assert_eq!(pending.wait().unwrap().content(), "traced");
    let mut conversation = conversation();
    let reply = client
        .send_stream(&mut conversation, |_| ControlFlow::Continue(()))
        .unwrap();
    assert_eq!(reply.content(), "Yo, welcome to the Nexus. What brings");
}

#[test]
fn builder_header_adds_replaces_and_removes() {
    let _environment = environment();
    let mut server = Server::new();
    answer_when(&mut server, "x-trace-id", Some("a"), "a");
    answer_when(&mut server, "x-trace-id", Some("b"), "b");
    answer_when(&mut server, "x-trace-id", None, "none");
    let client = builder(&server.url()).build().unwrap();
    assert_eq!(send(&client), "none");
    let client = builder(&server.url())
        .header("X-Trace-Id", "a")
        .build()
        .unwrap();
    assert_eq!(send(&client), "a");
    let client = builder(&server.url())
        .header("X-Trace-Id", "a")
        .header("x-trace-id", "b")
        .build()
        .unwrap();
    assert_eq!(send(&client), "b");
    let client = builder(&server.url())
        .header("X-Trace-Id", "a")
        .header("x-trace-id", "b")
        .remove_header("X-TRACE-ID")
        .build()
        .unwrap();
    assert_eq!(send(&client), "none");
    // Removing what is not set is not an error.
    let client = builder(&server.url())
        .remove_header("X-Trace-Id")
        .build()
        .unwrap();
    assert_eq!(send(&client), "none");
}

#[test]
fn user_agent_is_chatwire_unless_replaced() {
    let _environment = environment();
    let mut server = Server::new();
    let version = concat!("chatwire/", env!("CARGO_PKG_VERSION"));
    answer_when(&mut server, "user-agent", Some(version), "default");
    answer_when(&mut server, "user-agent", Some("my-app/1.0"), "replaced");
    let client = builder(&server.url()).build().unwrap();
    assert_eq!(send(&client), "default");
    let client = builder(&server.url())
        .header("User-Agent", "my-app/1.0")
        .build()
        .unwrap();
    assert_eq!(send(&client), "replaced");
}

#[test]
fn clients_of_one_builder_keep_their_own_headers() {
    let _environment = environment();
    let mut server = Server::new();
    answer_when(&mut server, "x-tenant", Some("one"), "one");
    answer_when(&mut server, "x-tenant", Some("two"), "two");
    let tenant = |name: &str| {
        builder(&server.url())
            .header("X-Tenant", "one")
            .header("X-Tenant", name)
            .build()
            .unwrap()
    };
    let second = tenant("one");
    let first = tenant("two");
    assert_eq!(send(&first), "two");
    assert_eq!(send(&second), "one");
}

#[test]
fn headers_chatwire_sets_are_refused() {
    let _environment = environment();
    let mut server = Server::new();
    answer_when(&mut server, "content-type", Some("application/json"), "ok");
    let client = builder(&server.url()).build().unwrap();
    for name in [
        "Authorization",
        "authorization",
        "Content-Type",
        "Content-Length",
        "Transfer-Encoding",
        "Host",
        "Connection",
    ] {
        let err = builder(&server.url())
            .header(name, "x")
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{name}: {err:?}");
        assert!(err.to_string().contains(name), "{err}");
        let removed = builder(&server.url()).remove_header(name).build();
        assert!(removed.is_err(), "{name}");
    }
    let err = builder(&server.url())
        .header("Authorization", "Bearer other")
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("API key"), "{err}");
    // The request is still the one chatwire makes, with the client's key.
    assert_eq!(send(&client), "ok");
}

#[test]
fn bad_names_and_values_are_refused_without_quoting_the_value() {
    let _environment = environment();
    let client = builder("http://127.0.0.1:9").build().unwrap();
    for name in ["", "bad name", "x:y", "caf\u{e9}", "a\nb"] {
        let err = builder("http://127.0.0.1:9")
            .header(name, "v")
            .build()
            .unwrap_err();
        assert!(
            matches!(err, Error::InvalidArgument(_)),
            "{name:?}: {err:?}"
        );
        assert!(err.to_string().contains("header name"), "{err}");
    }
    for value in [
        "secret\r\nX-Injected: 1",
        "secret\n",
        "secret\0",
        "secret\u{7f}",
    ] {
        let err = builder("http://127.0.0.1:9")
            .header("X-Key", value)
            .build()
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("X-Key"), "{message}");
        assert!(!message.contains("secret"), "{message}");
    }
    // Nothing was kept from the refused builds.
    assert!(!format!("{client:?}").contains("x-key"));
    // Visible text, spaces and tabs are fine.
    builder("http://127.0.0.1:9")
        .header("X-Key", "a b\tc")
        .build()
        .unwrap();
}

#[test]
fn debug_shows_header_names_but_never_values() {
    let _environment = environment();
    let builder = builder("http://127.0.0.1:9").header("X-Gateway-Key", "gw-secret-77");
    let shown = format!("{builder:?}");
    assert!(shown.contains("X-Gateway-Key"), "{shown}");
    assert!(!shown.contains("gw-secret-77"), "{shown}");
    let client = builder
        .header("X-Other", "other-secret-88")
        .build()
        .unwrap();
    let shown = format!("{client:?}");
    assert!(shown.contains("x-gateway-key"), "{shown}");
    assert!(shown.contains("x-other"), "{shown}");
    for secret in ["gw-secret-77", "other-secret-88", KEY] {
        assert!(!shown.contains(secret), "{shown}");
    }
    let shown = format!("{client:#?}");
    assert!(!shown.contains("gw-secret-77"), "{shown}");
}

#[test]
fn organization_and_project_come_from_argument_then_environment_then_dotenv() {
    let _environment = environment();
    let mut server = Server::new();
    let mut answer = |org: Option<&str>, project: Option<&str>, reply: &str| {
        let matcher = |value: Option<&str>| match value {
            Some(value) => Matcher::Exact(value.to_owned()),
            None => Matcher::Missing,
        };
        server
            .mock("POST", PATH)
            .match_header("openai-organization", matcher(org))
            .match_header("openai-project", matcher(project))
            .with_body(completion(reply))
            .create();
    };
    answer(None, None, "neither");
    answer(Some("org-env"), Some("proj-env"), "env");
    answer(Some("org-explicit"), Some("proj-env"), "explicit org");
    answer(Some("org-dotenv"), Some("proj-dotenv"), "dotenv");
    answer(
        Some("org-env"),
        Some("proj-dotenv"),
        "env org, dotenv project",
    );
    answer(None, Some("proj-env"), "org removed");
    let url = server.url();

    let dir = std::env::temp_dir().join(format!("chatwire-headers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let original_dir = std::env::current_dir().unwrap();
    std::env::set_current_dir(&dir).unwrap();
    std::env::remove_var("OPENAI_ORG_ID");
    std::env::remove_var("OPENAI_PROJECT_ID");

    // Nothing set: neither header.
    assert_eq!(send(&builder(&url).build().unwrap()), "neither");

    // From the environment.
    std::env::set_var("OPENAI_ORG_ID", "org-env");
    std::env::set_var("OPENAI_PROJECT_ID", "proj-env");
    let client = builder(&url).build().unwrap();
    assert_eq!(send(&client), "env");
    let shown = format!("{client:?}");
    assert!(shown.contains("openai-organization"), "{shown}");
    assert!(!shown.contains("org-env"), "{shown}");

    // An explicit header wins, in any case.
    let client = builder(&url)
        .header("openai-organization", "org-explicit")
        .build()
        .unwrap();
    assert_eq!(send(&client), "explicit org");

    // Taken from the environment unless the builder removes them.
    let client = builder(&url)
        .remove_header("OpenAI-Organization")
        .build()
        .unwrap();
    assert_eq!(send(&client), "org removed");

    // .env, when the environment has nothing (empty counts as nothing).
    std::fs::write(
        ".env",
        "OPENAI_ORG_ID=org-dotenv\nexport OPENAI_PROJECT_ID=\"proj-dotenv\"\n",
    )
    .unwrap();
    std::env::set_var("OPENAI_ORG_ID", "");
    std::env::remove_var("OPENAI_PROJECT_ID");
    assert_eq!(send(&builder(&url).build().unwrap()), "dotenv");

    // The environment wins over .env, variable by variable.
    std::env::set_var("OPENAI_ORG_ID", "org-env");
    assert_eq!(
        send(&builder(&url).build().unwrap()),
        "env org, dotenv project"
    );

    // A value that cannot be a header is a configuration error that does
    // not quote it.
    std::env::set_var("OPENAI_ORG_ID", "org-secret\nX-Injected: 1");
    let err = builder(&url).build().unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err:?}");
    assert!(err.to_string().contains("OPENAI_ORG_ID"), "{err}");
    assert!(!err.to_string().contains("org-secret"), "{err}");
    // ... unless the header is given explicitly.
    let client = builder(&url)
        .header("OpenAI-Organization", "org-explicit")
        .build();
    assert!(client.is_ok());

    std::env::remove_var("OPENAI_ORG_ID");
    std::env::remove_var("OPENAI_PROJECT_ID");
    std::env::set_current_dir(original_dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
