//! Batches from C and C++ (tests/c/batch.c, under AddressSanitizer and as
//! C++), and the C example examples-c/batch.c (questions in, a table of
//! answers out, resumed by id), against the emulated OpenAI Files and
//! Batches API of `common/batches.rs` (which cites the API reference).

mod common;

use std::path::Path;

use common::batches::{BatchServer, Life, Outcome};
use common::cprog::{compile, compile_sanitized, compile_source, run, run_with_env, Lang, Link};
use serde_json::{json, Value};

/// "answer to <question>", and a 429 for "rate me".
fn answer(_custom_id: &str, body: &Value) -> Outcome {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let question = messages
        .last()
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    if question == "rate me" {
        return Outcome::Fail(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
        );
    }
    Outcome::Reply(
        json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": format!("answer to {question}")}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}),
    )
}

#[test]
fn c_batch_end_to_end() {
    for exe in [
        compile_sanitized("batch"),
        compile("batch", Lang::Cxx, Link::Static),
    ] {
        let server = BatchServer::start(Life::Completes, answer);
        let out = run(&exe, &[&server.url, common::KEY]);
        assert!(out.contains(", 0 failed"), "{out}");
    }
}

#[test]
fn the_c_example_answers_a_list_of_questions_and_resumes_by_batch_id() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples-c/batch.c");
    let exe = compile_source(&example, "example-batch", Lang::C, Link::Static, &[]);
    let server = BatchServer::start(Life::Completes, answer);
    let questions = exe.with_extension("questions.txt");
    std::fs::write(&questions, "What is 2+2?\n\nName a bird.\nrate me\n").unwrap();
    let questions = questions.to_str().unwrap();
    let env = [
        ("OPENAI_BASE_URL", server.url.as_str()),
        ("OPENAI_API_KEY", common::KEY),
        ("CHATWIRE_BATCH_POLL_SECONDS", "0"),
        ("CHATWIRE_BATCH_POLLS", "1"),
    ];
    // The first run submits and stops after one look: still running.
    let output = std::process::Command::new(&exe)
        .arg(questions)
        .envs(env)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let resume = stderr
        .lines()
        .find_map(|line| line.split_once("resume with: "))
        .unwrap()
        .1;
    let id = resume.rsplit(' ').next().unwrap();
    assert!(id.starts_with("batch-"), "{stderr}");
    // The next run has the id alone, and waits to the end.
    let env = [env[0], env[1], env[2], ("CHATWIRE_BATCH_POLLS", "")];
    let (table, log) = run_with_env(&exe, &[questions, id], &env);
    assert!(log.contains("completed, 2 of 3 done, 1 failed"), "{log}");
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 4, "{table}");
    assert!(
        rows[1].starts_with("1 ") && rows[1].ends_with("answer to What is 2+2?"),
        "{table}"
    );
    assert!(rows[2].ends_with("answer to Name a bird."), "{table}");
    assert!(rows[3].contains("rate limited"), "{table}");
}
