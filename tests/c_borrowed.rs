//! Texts chatwire handed out, passed back in: tests/c/last_error_in.c
//! gives chatwire_last_error() to chatwire_conversation_append and to
//! chatwire_client_set_header, as C and C++, linked statically and
//! dynamically, and under AddressSanitizer, which sees a read of the freed
//! error text. `CHATWIRE_VALGRIND=1` runs the others under valgrind.

mod common;

use common::cprog::{compile_sanitized, for_each_build, run};
use common::*;
use mockito::{Matcher, Server};

#[test]
fn c_last_error_passed_in_stays_valid_for_the_call() {
    let mut server = Server::new();
    let text = "invalid argument: temperature must be a number from 0 to 2, or null, not 5";
    let logged = server
        .mock("POST", PATH)
        .match_header("x-last-error", Matcher::Exact(text.into()))
        .match_body(Matcher::Regex(format!(
            r#"[{{]"role":"user","content":"{text}"[}}]"#
        )))
        .with_body(completion("logged"))
        .expect(4)
        .create();
    let url = server.url();
    let check = |exe: &std::path::Path| {
        let out = run(exe, &[&url]);
        assert!(out.contains(", 0 failed"), "{out}");
    };
    for_each_build("last_error_in", check);
    check(&compile_sanitized("last_error_in"));
    logged.assert();
}
