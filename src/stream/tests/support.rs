//! Shared helpers for the stream decoder tests: a small deterministic random
//! generator and ways to feed a body whole, byte by byte, or in random
//! pieces.

#![allow(dead_code)] // each test file uses its own part of this

use crate::error::Result;
use crate::reply::{Reply, ReplyChoice};
use crate::stream::{SseItem, SseParser, StreamDecoder, StreamEvent};

/// The parser's test-only ways in: a default parser, and whole-slice feeding.
impl SseParser {
    pub fn new() -> Self {
        Self::with_limit(crate::config::DEFAULT_MAX_EVENT_BYTES as usize)
    }

    /// Pushes `bytes` and returns every item they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseItem>> {
        self.push(bytes);
        self.drain()
    }

    /// Ends the body and returns the items that were still pending.
    pub fn finish(&mut self) -> Result<Vec<SseItem>> {
        self.close();
        self.drain()
    }

    fn drain(&mut self) -> Result<Vec<SseItem>> {
        let mut items = Vec::new();
        while let Some(item) = self.next_item()? {
            items.push(item);
        }
        Ok(items)
    }
}

impl StreamDecoder {
    /// A decoder with the default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that rejects a line or event over `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self::with_limits(limit as u64, crate::config::DEFAULT_MAX_STREAM_BYTES)
    }
}

impl std::ops::Deref for Reply {
    type Target = ReplyChoice;

    /// Choice 0, which the tests look at.
    fn deref(&self) -> &Self::Target {
        &self.choices[0]
    }
}

/// What the tests read of a streamed choice that the accumulator keeps
/// beside it, for the reply's JSON.
impl ReplyChoice {
    /// The fields only the JSON writes.
    pub(crate) fn sent(&self) -> &crate::reply::StreamedChoice {
        self.streamed.as_deref().expect("a streamed choice")
    }

    /// The role as the reply's JSON writes it.
    pub(crate) fn sent_role(&self) -> &str {
        self.sent().role.as_deref().unwrap_or("assistant")
    }

    /// The reasoning's text and the field it came in.
    pub(crate) fn reasoning_pair(&self) -> Option<(String, crate::ReasoningField)> {
        let reasoning = self.reasoning.as_ref()?;
        Some((reasoning.text.clone(), reasoning.field))
    }
}

/// A small deterministic generator (SplitMix64): reproducible random splits
/// and inputs without a dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

/// Cuts `bytes` into pieces of 1 to `max_piece` bytes, at random.
pub fn random_pieces<'a>(bytes: &'a [u8], rng: &mut Rng, max_piece: usize) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let len = 1 + rng.below(max_piece.min(rest.len()));
        let (piece, tail) = rest.split_at(len);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// The ways a test body is fed: whole, byte by byte, and in random pieces
/// (with an empty read thrown in, which a reader may return too).
pub fn splits(bytes: &[u8], seed: u64) -> Vec<Vec<&[u8]>> {
    let mut ways = vec![vec![bytes], bytes.chunks(1).collect()];
    let mut rng = Rng::new(seed);
    for max_piece in [2, 3, 7, 16, 64] {
        let mut pieces = random_pieces(bytes, &mut rng, max_piece);
        pieces.insert(rng.below(pieces.len() + 1), &[]);
        ways.push(pieces);
    }
    ways
}

/// Parses the pieces as an event stream; an error becomes its message.
pub fn parse_pieces(parser: &mut SseParser, pieces: &[&[u8]]) -> Result<Vec<SseItem>, String> {
    let mut items = Vec::new();
    for piece in pieces {
        items.extend(parser.feed(piece).map_err(|err| error_text(&err))?);
    }
    items.extend(parser.finish().map_err(|err| error_text(&err))?);
    Ok(items)
}

/// Parses `bytes` every way, checks that each way gives the same result,
/// and returns it.
pub fn parse_each_way(bytes: &[u8], limit: usize) -> Result<Vec<SseItem>, String> {
    let mut results = splits(bytes, bytes.len() as u64)
        .into_iter()
        .map(|pieces| parse_pieces(&mut SseParser::with_limit(limit), &pieces));
    let first = results.next().expect("at least one way");
    for other in results {
        assert_eq!(other, first, "splitting the input changed the result");
    }
    first
}

/// What decoding a whole body gives: the events, then the result or the
/// error.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub events: Vec<StreamEvent>,
    pub result: Result<Reply, String>,
}

impl Decoded {
    /// The result, or a panic naming the error.
    pub fn ok(&self) -> &Reply {
        match &self.result {
            Ok(result) => result,
            Err(err) => panic!("decoding failed: {err}"),
        }
    }

    /// The error message, or a panic if decoding succeeded.
    pub fn err(&self) -> &str {
        match &self.result {
            Ok(result) => panic!("decoding succeeded: {result:?}"),
            Err(err) => err,
        }
    }

    /// All delta texts, joined.
    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|event| match event {
                StreamEvent::Delta(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Decodes the pieces with `decoder`. Events are kept up to the first
/// error, which then ends the result.
pub fn decode_pieces(mut decoder: StreamDecoder, pieces: &[&[u8]]) -> Decoded {
    let mut events = Vec::new();
    for piece in pieces {
        match decoder.feed(piece) {
            Ok(more) => events.extend(more),
            Err(err) => return failed(events, err),
        }
    }
    match decoder.finish() {
        Ok(more) => events.extend(more),
        Err(err) => return failed(events, err),
    }
    let result = decoder.into_reply().map_err(|err| error_text(&err));
    Decoded { events, result }
}

fn failed(events: Vec<StreamEvent>, err: crate::error::Error) -> Decoded {
    Decoded {
        events,
        result: Err(error_text(&err)),
    }
}

/// The result with the ids chatwire made up for calls that came without
/// one blanked: they differ on every decoding, by design.
fn without_made_up_ids(result: &Result<Reply, String>) -> Result<Reply, String> {
    let mut result = result.clone();
    if let Ok(result) = &mut result {
        for choice in &mut result.choices {
            for call in &mut choice.tool_calls {
                if call.id.starts_with("call_") && call.id.len() == 29 {
                    call.id.clear();
                }
            }
        }
    }
    result
}

/// Decodes `bytes` every way with decoders from `make`, checks that each
/// way ends the same (the same result, or the same error), and returns the
/// whole-body decoding. On success the events must match too; on an error
/// they may not, since a read that ends in an error returns no events.
pub fn decode_each_way_with(bytes: &[u8], make: impl Fn() -> StreamDecoder) -> Decoded {
    let mut results = splits(bytes, bytes.len() as u64)
        .into_iter()
        .map(|pieces| decode_pieces(make(), &pieces));
    let first = results.next().expect("at least one way");
    for other in results {
        assert_eq!(
            without_made_up_ids(&other.result),
            without_made_up_ids(&first.result),
            "splitting the input changed the result"
        );
        if first.result.is_ok() {
            assert_eq!(
                other.events, first.events,
                "splitting the input changed the events"
            );
        }
    }
    if let Ok(result) = &first.result {
        assert_eq!(
            first.text(),
            result.content,
            "deltas do not add up to the content"
        );
    }
    first
}

/// [`decode_each_way_with`] with default decoders.
pub fn decode_each_way(bytes: &[u8]) -> Decoded {
    decode_each_way_with(bytes, StreamDecoder::new)
}

/// The bare message of a stream error, without the variant's prefix.
pub fn error_text(err: &crate::error::Error) -> String {
    match err {
        crate::Error::Decode { message, .. } => message.clone(),
        other => match other.api_error() {
            Some(api) => api.message.clone(),
            None => other.to_string(),
        },
    }
}
