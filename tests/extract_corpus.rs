//! Data-driven tests of `extract_json` over replies written the way models
//! write them.
//!
//! Each case in `tests/extract_corpus/` is `NAME.txt` (the reply, byte for
//! byte) plus either `NAME.expected.json` (the value it must give, compared
//! as `serde_json::Value`) or `NAME.error` (a fragment of the `NoJson`
//! message it must give). The C tests can reuse the same files.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("extract_corpus")
}

/// The case names (file stems of the `.txt` files), sorted.
fn case_names() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(corpus_dir())
        .expect("corpus directory")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".txt").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

enum Expectation {
    Value(Value),
    Error(String),
}

fn expectation(name: &str) -> Expectation {
    let dir = corpus_dir();
    let expected = dir.join(format!("{name}.expected.json"));
    let error = dir.join(format!("{name}.error"));
    match (fs::read_to_string(&expected), fs::read_to_string(&error)) {
        (Ok(json), Err(_)) => Expectation::Value(
            serde_json::from_str(&json)
                .unwrap_or_else(|e| panic!("{name}.expected.json is not JSON: {e}")),
        ),
        (Err(_), Ok(fragment)) => Expectation::Error(fragment.trim().to_owned()),
        _ => panic!("case {name} needs exactly one of {name}.expected.json and {name}.error"),
    }
}

fn input(name: &str) -> String {
    fs::read_to_string(corpus_dir().join(format!("{name}.txt"))).expect("case input")
}

/// Runs one case; `Err` describes the mismatch.
fn check(name: &str) -> Result<(), String> {
    let text = input(name);
    match (expectation(name), chatwire::extract_json(&text)) {
        (Expectation::Value(expected), Ok(actual)) if expected == actual => Ok(()),
        (Expectation::Value(expected), Ok(actual)) => {
            Err(format!("{name}: expected {expected}, got {actual}"))
        }
        (Expectation::Value(_), Err(error)) => {
            Err(format!("{name}: expected a value, got error: {error}"))
        }
        (Expectation::Error(fragment), Err(chatwire::Error::NoJson(message)))
            if message.contains(&fragment) =>
        {
            Ok(())
        }
        (Expectation::Error(fragment), Err(error)) => Err(format!(
            "{name}: expected an error containing {fragment:?}, got: {error}"
        )),
        (Expectation::Error(_), Ok(actual)) => {
            Err(format!("{name}: expected an error, got {actual}"))
        }
    }
}

#[test]
fn every_corpus_reply_gives_its_expected_value_or_error() {
    let failures: Vec<String> = case_names()
        .iter()
        .filter_map(|name| check(name).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_has_enough_cases_of_both_kinds() {
    let names = case_names();
    let errors = names
        .iter()
        .filter(|name| matches!(expectation(name), Expectation::Error(_)))
        .count();
    assert!(names.len() >= 60, "only {} cases", names.len());
    assert!(errors >= 5, "only {errors} error cases");
    assert!(
        names.len() - errors >= 50,
        "only {} value cases",
        names.len() - errors
    );
}

#[test]
fn corpus_has_no_orphan_expectation_files() {
    let names = case_names();
    for entry in fs::read_dir(corpus_dir()).expect("corpus directory") {
        let file = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("utf-8 name");
        let stem = file
            .strip_suffix(".expected.json")
            .or_else(|| file.strip_suffix(".error"))
            .or_else(|| file.strip_suffix(".txt"));
        match stem {
            Some(stem) => assert!(names.iter().any(|n| n == stem), "{file} has no {stem}.txt"),
            None => panic!("unexpected file {file} in the corpus"),
        }
    }
}

/// Every value the corpus gives is compact, valid JSON that parses back to
/// itself: what the C API hands out.
#[test]
fn corpus_values_round_trip_through_compact_json() {
    for name in case_names() {
        if let Ok(value) = chatwire::extract_json(&input(&name)) {
            let compact = serde_json::to_string(&value).expect("serializable");
            let back: Value = serde_json::from_str(&compact).expect("valid JSON");
            assert_eq!(back, value, "{name}");
            assert!(value.is_object() || value.is_array(), "{name}");
        }
    }
}

/// The recorded llama.cpp reply (SmolLM2-135M asked for ingredients) is
/// kept in the corpus byte for byte; check that against the recording.
#[test]
fn recorded_llamacpp_reply_in_corpus_matches_the_recording() {
    // The project's copy of the shared wire-format data (tests/data/spec).
    let recording = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/spec/recorded/llamacpp-ingredients.json");
    let body: Value = serde_json::from_str(&fs::read_to_string(recording).expect("recording"))
        .expect("JSON body");
    let content = body["choices"][0]["message"]["content"]
        .as_str()
        .expect("content");
    assert_eq!(content, input("recorded_llamacpp_smollm2_ingredients"));
}

/// The recorded reply repeats the key `unit_type_type_type_type` inside
/// `ingredient`; the value keeps one entry (serde_json: the last wins; both
/// are "baking powder" here).
#[test]
fn recorded_llamacpp_reply_keeps_one_entry_for_the_duplicate_key() {
    let value =
        chatwire::extract_json(&input("recorded_llamacpp_smollm2_ingredients")).expect("JSON");
    let inner = value["ingredient"].as_object().expect("nested object");
    assert_eq!(inner.len(), 7);
    assert_eq!(inner["unit_type_type_type_type"], "baking powder");
    assert_eq!(value["quantity"], 2);
}
