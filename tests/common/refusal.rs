//! A server whose model refuses, streamed or whole, for the tests of where
//! a refusal goes (tests/refusals.rs, tests/c/refusal.c).

use mockito::{Server, ServerGuard};

use super::PATH;

/// The refusal both servers send.
pub const REFUSAL: &str = "I can't help with that.";

/// How the server answers a streamed request.
#[derive(Clone, Copy, Debug)]
pub enum Answer {
    /// As asked: a stream, the refusal in two pieces.
    Streamed,
    /// One JSON body, as a server that ignores `"stream": true` does.
    Whole,
}

/// A server that answers every request with [`REFUSAL`], as `answer` says.
pub fn refusing_server(answer: Answer) -> ServerGuard {
    let mut server = Server::new();
    let (content_type, body) = match answer {
        Answer::Streamed => (
            "text/event-stream",
            concat!(
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can't\"}}]}\n\n",
                "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\" help with that.\"},\"finish_reason\":\"stop\"}]}\n\n",
                "data: [DONE]\n\n"
            ),
        ),
        Answer::Whole => (
            "application/json",
            r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}"#,
        ),
    };
    server
        .mock("POST", PATH)
        .with_header("content-type", content_type)
        .with_body(body)
        .create();
    server
}
