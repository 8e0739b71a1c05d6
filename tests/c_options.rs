//! Request options and extra headers from C: tests/c/options.c, compiled as
//! C and C++, linked statically and dynamically, run against a mock server
//! that checks the header and the options of each request; every body must
//! validate against the official schema. `CHATWIRE_VALGRIND=1` runs it
//! under valgrind.

mod common;

use common::cprog::{for_each_build, run};
use common::*;
use mockito::{Matcher, Server};
use serde_json::json;

// One test, so that each build of the program is compiled once.
#[test]
fn c_options_are_checked_and_headers_are_sent() {
    let mut server = Server::new();
    let options = Matcher::PartialJson(json!({"temperature": 0.25, "top_k": 40}));
    let traced = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer sk-c-test")
        .match_header("x-trace-id", "run-7")
        .match_body(options.clone())
        .with_body(completion("traced"))
        .expect(2 * 3)
        .create();
    let untraced = server
        .mock("POST", PATH)
        .match_header("authorization", "Bearer sk-c-test")
        .match_header("x-trace-id", Matcher::Missing)
        .match_body(options)
        .with_body(completion("untraced"))
        .expect(2 * 3)
        .create();
    // Every mock sees every request: this one records the body, then
    // declines it (a second match_request would replace the first).
    let bodies = Bodies::default();
    let record = bodies.recorder();
    server
        .mock("POST", PATH)
        .match_request(move |request| !record(request))
        .create();

    let url = server.url();
    for_each_build("options", |exe| {
        let out = run(exe, &[&url]);
        assert!(
            out.contains("options: ") && out.contains(", 0 failed"),
            "{out}"
        );
    });
    traced.assert();
    untraced.assert();
    let bodies = bodies.all();
    assert_eq!(bodies.len(), 4 * 3);
    for body in bodies {
        assert_valid_request(&body);
    }
}
