//! Property tests: arbitrary bytes never make the decoder panic, and however
//! a body is split into reads, the outcome is the same.
//!
//! The inputs come from a seeded generator, so a failure names a case that
//! can be run again.

use super::support::{decode_each_way, decode_each_way_with, parse_each_way, random_pieces, Rng};
use crate::stream::StreamDecoder;

/// Pieces that make up plausible and implausible event streams.
/// Payloads of well-formed events.
const PAYLOADS: &[&str] = &[
    r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"lo \u00e9🌍"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":""}}]}"#,
    r#"{"choices":[{"index":1,"delta":{"content":"other"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"refusal":"no"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"["}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}}]}"#,
    r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
    r#"{"id":"x","model":"m","choices":null}"#,
    "",
    "[DONE]",
];

/// Payloads that end decoding with an error.
const BAD_PAYLOADS: &[&str] = &[
    r#"{"error":{"message":"boom","code":500}}"#,
    r#"{"choices":"bad"}"#,
    r#"{"choices":[{"index":-1}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":["not","text"]}}]}"#,
    "{\"choices\":[",
    "not json",
];

/// Bytes that break the event syntax.
const NOISE: &[&[u8]] = &[
    b"data: ",
    b"data",
    b"event: error\n",
    b"error: ",
    b":",
    b"\n",
    b"\r",
    b"\xEF\xBB\xBF",
    b"\xFF",
    b"\xC3",
    b"{",
    b"\"",
];

const LINE_ENDS: &[&str] = &["\n", "\r\n", "\r"];

/// A plausible event stream: mostly well-formed events and comments, with
/// some bad payloads and noise bytes at a rate that varies by case.
fn event_stream(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = Vec::new();
    if rng.below(10) == 0 {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let noise_rate = [0, 0, 20, 60][rng.below(4)];
    for _ in 0..rng.below(30) {
        let end = LINE_ENDS[rng.below(LINE_ENDS.len())];
        if noise_rate > 0 && rng.below(noise_rate) == 0 {
            bytes.extend_from_slice(NOISE[rng.below(NOISE.len())]);
            continue;
        }
        match rng.below(20) {
            0 => bytes.extend_from_slice(format!(": ping{end}{end}").as_bytes()),
            1 => bytes.extend_from_slice(format!("id: 7{end}retry: 5{end}").as_bytes()),
            2 => bytes.extend_from_slice(format!("event: ping{end}data: hi{end}{end}").as_bytes()),
            3 if noise_rate > 0 => {
                let payload = BAD_PAYLOADS[rng.below(BAD_PAYLOADS.len())];
                bytes.extend_from_slice(format!("data: {payload}{end}{end}").as_bytes());
            }
            _ => {
                let payload = PAYLOADS[rng.below(PAYLOADS.len())];
                let field = ["data: ", "data:"][rng.below(2)];
                bytes.extend_from_slice(format!("{field}{payload}{end}{end}").as_bytes());
            }
        }
    }
    if rng.below(3) == 0 {
        // Cut the body short somewhere.
        bytes.truncate(rng.below(bytes.len() + 1));
    }
    bytes
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    // Mostly line-end and SSE bytes, so that lines actually form.
    const COMMON: &[u8] = b"data: \n\r{}[]\":,";
    (0..rng.below(300))
        .map(|_| match rng.below(3) {
            0 => COMMON[rng.below(COMMON.len())],
            _ => rng.next_u64() as u8,
        })
        .collect()
}

#[test]
fn event_streams_decode_the_same_however_split() {
    let mut rng = Rng::new(1);
    for case in 0..3000 {
        let bytes = event_stream(&mut rng);
        let outcome = std::panic::catch_unwind(|| {
            decode_each_way(&bytes);
            parse_each_way(&bytes, 48).ok();
        });
        assert!(outcome.is_ok(), "case {case} failed on {bytes:?}");
    }
}

#[test]
fn random_bytes_decode_the_same_however_split() {
    let mut rng = Rng::new(2);
    for case in 0..2000 {
        let bytes = random_bytes(&mut rng);
        let outcome = std::panic::catch_unwind(|| {
            decode_each_way(&bytes);
            decode_each_way_with(&bytes, || StreamDecoder::with_limit(16));
        });
        assert!(outcome.is_ok(), "case {case} failed on {bytes:?}");
    }
}

#[test]
fn feeding_on_after_an_error_does_not_panic() {
    let mut rng = Rng::new(3);
    for _ in 0..1000 {
        let bytes = if rng.below(2) == 0 {
            event_stream(&mut rng)
        } else {
            random_bytes(&mut rng)
        };
        let mut decoder = StreamDecoder::with_limit(32);
        for piece in random_pieces(&bytes, &mut rng, 8) {
            let _ = decoder.feed(piece);
        }
        let _ = decoder.finish();
        let _ = decoder.finish();
        let _ = decoder.into_reply();
    }
}
