//! Fuzzes the streaming decoder on arbitrary bytes, split at a point the
//! input chooses, as a server's body would arrive in pieces.
//!
//! Invariants: no panic; however the bytes are split, the outcome is the
//! same; when the stream decodes, the deltas joined are the reply's text.
//!
//! ```sh
//! RUSTC_BOOTSTRAP=1 cargo fuzz run stream_decoder -- -max_total_time=60
//! ```

#![no_main]

use chatwire::fuzzing::{StreamDecoder, StreamEvent};
use libfuzzer_sys::fuzz_target;

/// Feeds the pieces, returns the joined deltas and the reply's text, or the error text.
fn decode(pieces: &[&[u8]]) -> Result<(String, String), String> {
    let mut decoder = StreamDecoder::default();
    let mut deltas = String::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            if let StreamEvent::Delta(text) = event {
                deltas.push_str(&text);
            }
        }
    };
    for piece in pieces {
        take(decoder.feed(piece).map_err(|err| err.to_string())?);
    }
    take(decoder.finish().map_err(|err| err.to_string())?);
    let result = decoder.into_result().map_err(|err| err.to_string())?;
    Ok((deltas, result.choices[0].content.clone()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&split, body)) = data.split_first() else {
        return;
    };
    let at = usize::from(split) % (body.len() + 1);
    let whole = decode(&[body]);
    let split = decode(&[&body[..at], &body[at..]]);
    assert_eq!(whole, split, "the split at {at} changed the outcome");
    if let Ok((deltas, content)) = whole {
        assert_eq!(deltas, content, "the deltas do not add up to the reply");
    }
});
