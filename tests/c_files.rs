//! chatwire_conversation_append_user_file from C (tests/c/files.c): built
//! as C and C++, static and shared, under valgrind when CHATWIRE_VALGRIND=1,
//! and under AddressSanitizer; every request it sends is checked against
//! the official schema here.

mod common;

use common::cprog::{compile_sanitized, for_each_build, run};
use common::*;
use mockito::Server;
use serde_json::Value;

#[test]
fn c_files_are_sent_as_the_schema_has_them_and_bad_ones_refused() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    server
        .mock("POST", PATH)
        .match_request(bodies.recorder())
        .with_body(completion("noted"))
        .create();
    let url = server.url();
    let runs = std::cell::Cell::new(0);
    let check = |exe: &std::path::Path| {
        let out = run(exe, &[&url]);
        assert!(
            out.contains("files: ") && out.contains(", 0 failed"),
            "{out}"
        );
        runs.set(runs.get() + 1);
    };
    for_each_build("files", check);
    check(&compile_sanitized("files"));
    let runs = runs.get();

    let sent = bodies.all();
    assert_eq!(sent.len(), 3 * runs, "three sends a run");
    for body in &sent {
        assert_valid_request(body);
    }
    let last: Value = serde_json::from_slice(sent.last().unwrap()).unwrap();
    let messages = &last["messages"];
    let file = &messages[0]["content"][1]["file"];
    assert_eq!(file["filename"], "invoice.pdf");
    assert!(file["file_data"]
        .as_str()
        .unwrap()
        .starts_with("data:application/pdf;base64,JVBERi0xLjQK"));
    // Empty text: the audio part alone.
    assert_eq!(messages[2]["content"].as_array().unwrap().len(), 1);
    assert_eq!(messages[2]["content"][0]["input_audio"]["format"], "wav");
    assert_eq!(messages[4]["content"][1]["input_audio"]["format"], "mp3");
    assert!(messages[4]["content"][1]["input_audio"]["data"]
        .as_str()
        .unwrap()
        .starts_with("//uQZA"));
}
