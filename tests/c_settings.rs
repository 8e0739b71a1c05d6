//! C setters of a client and a conversation, each in force:
//! tests/c/connect_timeout.c against an address that never accepts a
//! connection, tests/c/reasoning_replay.c against a mock server that tells
//! whether earlier turns carried their reasoning. Compiled as C and C++,
//! linked statically and dynamically; `CHATWIRE_VALGRIND=1` runs them under
//! valgrind.

mod common;

use common::cprog::{for_each_build, run};
use common::stuck::StuckListener;
use common::*;
use mockito::Server;

#[test]
fn c_connect_timeout_is_checked_and_in_force() {
    let stuck = StuckListener::start();
    for_each_build("connect_timeout", |exe| {
        let out = run(exe, &[&stuck.url]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
}

#[test]
fn c_reasoning_replay_sends_earlier_tool_call_turns_back() {
    let mut server = Server::new();
    // Five sends for each of the three builds; the answer says whether any
    // message carried a reasoning_content.
    let answers = server
        .mock("POST", PATH)
        .with_body_from_request(|request| {
            let body = request.utf8_lossy_body().unwrap_or_default();
            let replayed = body.contains(r#""reasoning_content":"#);
            completion(if replayed { "replayed" } else { "plain" }).into_bytes()
        })
        .expect(5 * 3)
        .create();
    let url = server.url();
    for_each_build("reasoning_replay", |exe| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    answers.assert();
}
