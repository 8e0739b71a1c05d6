//! Fuzzes `extract_json` (and `extract_ingredients`) on arbitrary text.
//!
//! Invariants: no panic; a value found is an object or an array that
//! serializes to JSON which parses back to the same value; ingredients have
//! a non-empty name and a finite quantity.
//!
//! Run from the crate root (stable toolchain, hence RUSTC_BOOTSTRAP):
//!
//! ```sh
//! mkdir -p fuzz/corpus/extract_json && cp tests/extract_corpus/*.txt fuzz/corpus/extract_json/
//! RUSTC_BOOTSTRAP=1 cargo fuzz run extract_json -- -max_total_time=60 -dict=fuzz/extract_json.dict
//! ```

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 is replaced rather than skipped, so every input is used.
    let text = String::from_utf8_lossy(data);
    if let Ok(value) = chatwire::extract_json(&text) {
        assert!(value.is_object() || value.is_array(), "scalar found");
        let compact = serde_json::to_string(&value).expect("serializable");
        let back: Value = serde_json::from_str(&compact).expect("compact output is valid JSON");
        assert!(same_json(&back, &value), "round trip changed the value: {value} became {back}");
    }
    if let Ok(items) = chatwire::extract_ingredients(&text) {
        for item in &items {
            assert!(item.quantity.is_finite(), "quantity not finite");
            assert!(!item.ingredient.trim().is_empty(), "empty ingredient name");
        }
    }
});

/// Structural equality where two floats may differ by a few units in the
/// last place: without its `float_roundtrip` feature, serde_json's float
/// parser may be one ULP off for long or large-exponent literals, so
/// re-parsing its own output need not give the identical `f64`.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || (x.signum() == y.signum() && x.to_bits().abs_diff(y.to_bits()) <= 4),
            _ => false,
        },
        (Value::Array(xs), Value::Array(ys)) => xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_json(x, y)),
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len() && xs.iter().all(|(k, x)| ys.get(k).is_some_and(|y| same_json(x, y)))
        }
        _ => a == b,
    }
}
