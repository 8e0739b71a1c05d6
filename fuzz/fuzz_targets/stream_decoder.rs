//! Fuzzes the streaming decoder on arbitrary bytes, split at a point the
//! input chooses, as a server's body would arrive in pieces.
//!
//! Invariants: no panic; however the bytes are split, the outcome is the
//! same; when the stream decodes, the deltas joined are the reply's text
//! (its refusal when it has no content: the refusal stands in for it).
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
    let (mut deltas, mut refused) = (String::new(), String::new());
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            match event {
                StreamEvent::Delta(text) => deltas.push_str(&text),
                StreamEvent::Refusal(text) => refused.push_str(&text),
                _ => {}
            }
        }
    };
    for piece in pieces {
        take(decoder.feed(piece).map_err(|err| err.to_string())?);
    }
    take(decoder.finish().map_err(|err| err.to_string())?);
    let reply = decoder.into_reply().map_err(|err| err.to_string())?;
    if deltas.is_empty() {
        deltas = refused;
    }
    Ok((deltas, reply.content().to_owned()))
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
