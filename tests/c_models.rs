//! The model list from C (tests/c/models.c): each accessor, out of range
//! and NULL arguments, a refused key, an endpoint URL that names no list,
//! and Azure's classic route, against a mock server. Built as C under
//! AddressSanitizer and as C++ (under valgrind with CHATWIRE_VALGRIND=1).

mod common;

use common::cprog::{compile, compile_sanitized, run, Lang, Link};
use common::*;
use mockito::{Matcher, Server};
use serde_json::json;

/// The program runs twice: as C under AddressSanitizer, and as C++.
const RUNS: usize = 2;

#[test]
fn c_models_list() {
    let mut server = Server::new();
    let list = server
        .mock("GET", "/v1/models")
        .match_header("authorization", "Bearer sk-c-models")
        .with_body(
            json!({"object": "list", "data": [
                {"id": "gpt-4o", "object": "model", "created": 1715367049, "owned_by": "system"},
                {"id": "local-model", "meta": {"n_ctx": 2048}}
            ]})
            .to_string(),
        )
        .expect(RUNS)
        .create();
    // A server that quotes the key it refuses.
    let denied = server
        .mock("GET", "/denied/v1/models")
        .with_status(401)
        .with_body(error_body(
            "key not accepted: sk-c-denied",
            "invalid_request_error",
            json!("invalid_api_key"),
        ))
        .expect(RUNS)
        .create();
    // Azure's classic route (tests/models.rs cites Microsoft's page).
    let azure = server
        .mock("GET", "/openai/models")
        .match_query(Matcher::Exact("api-version=2024-10-21".into()))
        .match_header("api-key", "azure-c-key")
        .with_body(
            r#"{"object":"list","data":[{"id":"gpt-4o-2024-08-06","created_at":1723075200}]}"#,
        )
        .expect(RUNS)
        .create();
    for exe in [
        compile_sanitized("models"),
        compile("models", Lang::Cxx, Link::Static),
    ] {
        let out = run(&exe, &[&server.url()]);
        assert!(out.contains(", 0 failed"), "{out}");
    }
    list.assert();
    denied.assert();
    azure.assert();
}
