//! Extraction from C: tests/c/extract.c, compiled as C and C++ and linked
//! statically and dynamically, run over the whole corpus of
//! `tests/extract_corpus/` (every case must give the same result as in
//! Rust) and through its own checks of the ingredient list and the prompt
//! helpers. `CHATWIRE_VALGRIND=1` runs it under valgrind.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::cprog::{for_each_build, run};
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/extract_corpus")
}

/// What a case must give: a value, or NO_JSON with a message containing a fragment.
#[derive(Debug)]
enum Expected {
    Value(Value),
    NoJson(String),
}

/// Every case of the corpus: its name, its reply file and its expectation.
fn corpus() -> BTreeMap<String, (PathBuf, Expected)> {
    let dir = corpus_dir();
    let mut cases = BTreeMap::new();
    for entry in fs::read_dir(&dir).expect("corpus directory") {
        let path = entry.expect("corpus entry").path();
        let Some(name) = path
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_suffix(".txt"))
            .map(str::to_owned)
        else {
            continue;
        };
        let expected = match fs::read_to_string(dir.join(format!("{name}.expected.json"))) {
            Ok(json) => Expected::Value(serde_json::from_str(&json).expect("expected JSON")),
            Err(_) => Expected::NoJson(
                fs::read_to_string(dir.join(format!("{name}.error")))
                    .unwrap_or_else(|_| panic!("{name} has no .expected.json or .error"))
                    .trim()
                    .to_owned(),
            ),
        };
        cases.insert(name, (path, expected));
    }
    cases
}

/// Compares one output line of `extract corpus` with the case's expectation.
fn mismatch(name: &str, outcome: &str, detail: &str, expected: &Expected) -> Option<String> {
    match (expected, outcome) {
        (Expected::Value(value), "OK") => match serde_json::from_str::<Value>(detail) {
            Ok(actual) if actual == *value => None,
            Ok(actual) => Some(format!("{name}: expected {value}, got {actual}")),
            Err(error) => Some(format!("{name}: not valid JSON ({error}): {detail}")),
        },
        (Expected::NoJson(fragment), "NO_JSON") if detail.contains(fragment.as_str()) => None,
        (Expected::NoJson(fragment), "NO_JSON") => Some(format!(
            "{name}: expected NO_JSON mentioning {fragment:?}, got: {detail}"
        )),
        (expected, _) => Some(format!(
            "{name}: expected {expected:?}, got {outcome} {detail}"
        )),
    }
}

/// Runs `extract corpus` over every case at once; each line must match.
fn check_corpus(exe: &Path, cases: &BTreeMap<String, (PathBuf, Expected)>) {
    let paths = cases
        .values()
        .map(|(path, _)| path.to_str().expect("UTF-8 path"));
    let args: Vec<&str> = std::iter::once("corpus").chain(paths).collect();
    let out = run(exe, &args);
    let mut failures = Vec::new();
    let mut seen = 0;
    for line in out.lines() {
        let mut fields = line.splitn(3, '\t');
        let (name, outcome) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        let detail = fields.next().unwrap_or("");
        match cases.get(name) {
            Some((_, expected)) => {
                seen += 1;
                failures.extend(mismatch(name, outcome, detail, expected));
            }
            None => failures.push(format!("unexpected output line: {line}")),
        }
    }
    assert_eq!(seen, cases.len(), "one line per case expected:\n{out}");
    assert!(
        failures.is_empty(),
        "{}: {} case(s) failed:\n{}",
        exe.display(),
        failures.len(),
        failures.join("\n")
    );
}

/// Runs `extract checks`: the ingredient list, the prompt helpers, the
/// recorded llama.cpp reply, NULL and invalid UTF-8 arguments.
fn check_helpers(exe: &Path) {
    let dir = corpus_dir();
    let out = run(exe, &["checks", dir.to_str().expect("UTF-8 path")]);
    assert!(
        out.contains("extract: ") && out.contains(", 0 failed"),
        "{out}"
    );
}

// One test, so that each build of the program is compiled once (two tests
// compiling the same program at once would overwrite it while it runs).
#[test]
fn c_extraction_matches_the_corpus_and_passes_its_checks() {
    let cases = corpus();
    assert!(cases.len() >= 60, "only {} corpus cases", cases.len());
    for_each_build("extract", |exe| {
        check_corpus(exe, &cases);
        check_helpers(exe);
    });
}
