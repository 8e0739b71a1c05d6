//! The provider emulations of 2026 from C (tests/c/providers_2026.c):
//! Gemini 3's thought signatures through a tool loop and a JSON round trip,
//! Kimi's reasoning on every tool-call turn, Mistral's thinking chunks,
//! free-form tools (chatwire_conversation_add_custom_tool,
//! chatwire_reply_tool_call_type); whole and streamed, as C and as C++
//! against both libraries, and once under AddressSanitizer.

mod common;

use common::cprog::{compile_sanitized, for_each_build, run};

#[test]
fn c_providers_2026_against_the_provider_server() {
    let server = common::providers::start();
    for_each_build("providers_2026", |exe| {
        let out = run(exe, &[&server.url, common::KEY]);
        assert!(out.contains(", 0 failed"), "{out}");
    });
    let out = run(
        &compile_sanitized("providers_2026"),
        &[&server.url, common::KEY],
    );
    assert!(out.contains(", 0 failed"), "{out}");
}
