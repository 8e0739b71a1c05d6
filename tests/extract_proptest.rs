//! Property tests: no input makes extraction panic, and whatever it returns
//! is an object or array that serializes to valid JSON and parses back to
//! the same value. Inputs are random strings (biased towards the characters
//! the scanner cares about) and corpus replies with random edits.

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

/// Checks the invariants for one input; panics (fails the case) otherwise.
fn check_invariants(text: &str) {
    if let Ok(value) = chatwire::extract_json(text) {
        assert!(
            value.is_object() || value.is_array(),
            "scalar from {text:?}"
        );
        let compact = serde_json::to_string(&value).expect("serializable");
        let back: Value = serde_json::from_str(&compact).expect("valid JSON");
        assert!(
            same_json(&back, &value),
            "round trip of {text:?}: {value} became {back}"
        );
    }
    if let Ok(items) = chatwire::extract_ingredients(text) {
        for item in items {
            assert!(item.quantity.is_finite(), "{item:?} from {text:?}");
            assert!(!item.ingredient.trim().is_empty(), "{item:?} from {text:?}");
            assert!(
                item.unit
                    .as_deref()
                    .is_none_or(|unit| !unit.trim().is_empty()),
                "{item:?}"
            );
        }
    }
}

fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("extract_corpus");
    let mut texts: Vec<String> = fs::read_dir(dir)
        .expect("corpus directory")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let is_input = path.extension().is_some_and(|ext| ext == "txt");
            if is_input {
                fs::read_to_string(path).ok()
            } else {
                None
            }
        })
        .collect();
    texts.sort();
    texts
}

/// One random edit of a text, at a position given as a fraction of its
/// length in chars.
#[derive(Debug, Clone)]
enum Edit {
    Delete { at: f64, len: usize },
    Insert { at: f64, piece: String },
    Truncate { at: f64 },
}

/// Snippets the scanner treats specially, so edits hit interesting states.
const PIECES: [&str; 24] = [
    "{", "}", "[", "]", "\"", "'", ",", ":", "/", "\\", "\n", "```", "~~~\n", "1/2", " 1/2", "½",
    "1/0", "//", "/*", "...", "“", "True", "\\u", "\u{feff}",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, 1usize..8).prop_map(|(at, len)| Edit::Delete { at, len }),
        (0.0..1.0f64, proptest::sample::select(PIECES.to_vec())).prop_map(|(at, piece)| {
            Edit::Insert {
                at,
                piece: piece.to_owned(),
            }
        }),
        (0.0..1.0f64, "\\PC{0,3}").prop_map(|(at, piece)| Edit::Insert { at, piece }),
        (0.0..1.0f64).prop_map(|at| Edit::Truncate { at }),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let index = |at: f64, len: usize| ((at * len as f64) as usize).min(len);
    match edit {
        Edit::Delete { at, len } => {
            let start = index(*at, chars.len());
            let end = (start + len).min(chars.len());
            chars.drain(start..end);
        }
        Edit::Insert { at, piece } => {
            let start = index(*at, chars.len());
            chars.splice(start..start, piece.chars());
        }
        Edit::Truncate { at } => chars.truncate(index(*at, chars.len())),
    }
    chars.into_iter().collect()
}

/// Random text over the characters that matter to the scanner.
fn jsonish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(PIECES.to_vec()).prop_map(str::to_owned),
            3 => "[a-z0-9 \\t\\n.\\-+eE]{1,4}",
            1 => "\\PC{1,3}",
        ],
        0..60,
    )
    .prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        check_invariants(&text);
    }

    #[test]
    fn jsonish_strings_never_panic_and_give_valid_json(text in jsonish()) {
        check_invariants(&text);
    }

    #[test]
    fn edited_corpus_replies_never_panic_and_give_valid_json(
        index in any::<proptest::sample::Index>(),
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let texts = corpus();
        let mut text = index.get(&texts).clone();
        for edit in &edits {
            text = apply(&text, edit);
        }
        check_invariants(&text);
    }
}

#[test]
fn every_prefix_of_every_corpus_reply_keeps_the_invariants() {
    // Truncation at every char is what a token limit does.
    for text in corpus() {
        for (end, _) in text.char_indices() {
            check_invariants(&text[..end]);
        }
    }
}

/// Structural equality where two floats may differ by a few units in the
/// last place: without its `float_roundtrip` feature, serde_json's float
/// parser may be one ULP off for long or large-exponent literals, so
/// re-parsing its own output need not give the identical `f64`.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => {
                    x == y || (x.signum() == y.signum() && x.to_bits().abs_diff(y.to_bits()) <= 4)
                }
                _ => false,
            }
        }
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| same_json(x, y)))
        }
        _ => a == b,
    }
}

#[test]
fn long_integer_literals_stay_valid_json() {
    // Found by the fuzzer: a 48-digit integer parses (as f64) one ULP away
    // from the value its own serialization parses to.
    check_invariants("[888888888888888888888888888888888888888888888888, 1e4, -1e4000]");
}
