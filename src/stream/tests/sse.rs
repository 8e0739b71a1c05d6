//! The event-stream parser on each quirk real servers show, fed whole, byte
//! by byte and in random pieces, with the same result each way.

use super::support::parse_each_way;
use crate::stream::{SseEvent, SseItem, SseParser};

/// The default event limit, as the parser counts.
const DEFAULT_MAX_EVENT_BYTES: usize = crate::config::DEFAULT_MAX_EVENT_BYTES as usize;

fn parse(bytes: &[u8]) -> Result<Vec<SseItem>, String> {
    parse_each_way(bytes, DEFAULT_MAX_EVENT_BYTES)
}

fn events(bytes: &[u8]) -> Vec<SseEvent> {
    parse(bytes)
        .expect("parses")
        .into_iter()
        .filter_map(|item| match item {
            SseItem::Event(event) => Some(event),
            SseItem::Comment(_) => None,
        })
        .collect()
}

fn data(text: &str) -> SseEvent {
    SseEvent {
        event: None,
        data: text.to_owned(),
    }
}

fn typed(event: &str, text: &str) -> SseEvent {
    SseEvent {
        event: Some(event.to_owned()),
        data: text.to_owned(),
    }
}

#[test]
fn data_lines_with_and_without_the_space_give_their_values() {
    assert_eq!(
        events(b"data: one\n\ndata:two\n\ndata:  three\n\n"),
        // Only one leading space belongs to the syntax.
        vec![data("one"), data("two"), data(" three")]
    );
}

#[test]
fn crlf_lone_cr_and_lf_line_ends_all_work() {
    let expected = vec![data("a"), data("b"), data("c")];
    assert_eq!(
        events(b"data: a\r\n\r\ndata: b\r\n\r\ndata: c\r\n\r\n"),
        expected
    );
    assert_eq!(events(b"data: a\r\rdata: b\r\rdata: c\r\r"), expected);
    assert_eq!(events(b"data: a\r\n\ndata: b\r\rdata: c\n\r\n"), expected);
}

#[test]
fn crlf_between_data_lines_keeps_them_in_one_event() {
    // Were `\r\n` two line ends, the empty line between would end the event.
    assert_eq!(events(b"data: a\r\ndata: b\r\n\r\n"), vec![data("a\nb")]);
}

#[test]
fn crlf_split_between_reads_is_one_line_end() {
    // Were the `\n` taken as a second line end, it would be a blank line
    // and end the event after "a".
    let mut parser = SseParser::new();
    assert!(parser.feed(b"data: a\r").expect("parses").is_empty());
    assert!(parser.feed(b"\ndata: b\r").expect("parses").is_empty());
    let items = parser.feed(b"\n\r\n").expect("parses");
    assert_eq!(items, vec![SseItem::Event(data("a\nb"))]);
}

#[test]
fn lone_cr_event_is_dispatched_without_waiting_for_more_bytes() {
    let mut parser = SseParser::new();
    let items = parser.feed(b"data: a\r\r").expect("parses");
    assert_eq!(items, vec![SseItem::Event(data("a"))]);
}

#[test]
fn multi_line_data_is_joined_with_newlines() {
    assert_eq!(
        events(b"data: {\"a\":\ndata: 1}\ndata:\n\n"),
        vec![data("{\"a\":\n1}\n")]
    );
}

#[test]
fn event_id_and_retry_fields_are_read_or_ignored() {
    let stream = b"event: update\nid: 7\nretry: 1000\ndata: x\n\nid: 8\ndata: y\n\n";
    // The event type lasts for one event only.
    assert_eq!(events(stream), vec![typed("update", "x"), data("y")]);
}

#[test]
fn unknown_fields_and_lines_without_colon_are_ignored() {
    assert_eq!(events(b"foo: bar\nbaz\ndata: x\n\n"), vec![data("x")]);
}

#[test]
fn data_field_without_colon_is_empty_data() {
    assert_eq!(events(b"data\n\n"), vec![data("")]);
}

#[test]
fn event_without_data_is_not_dispatched() {
    assert_eq!(events(b"event: ping\n\nid: 3\n\n\n\n"), vec![]);
}

#[test]
fn comments_are_reported_as_comments() {
    let items = parse(b": keep-alive\n\n:\ndata: x\n: inside\n\n").expect("parses");
    assert_eq!(
        items,
        vec![
            SseItem::Comment(" keep-alive".into()),
            SseItem::Comment(String::new()),
            SseItem::Comment(" inside".into()),
            SseItem::Event(data("x")),
        ]
    );
}

#[test]
fn comments_only_give_no_events() {
    let stream = b": ping\r\n\r\n: ping\r\n\r\n: OPENROUTER PROCESSING\r\n\r\n";
    let items = parse(stream).expect("parses");
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(|item| matches!(item, SseItem::Comment(_))));
}

#[test]
fn comment_with_invalid_utf8_is_read_lossily() {
    let items = parse(b":\xFF\xFE\ndata: x\n\n").expect("parses");
    assert_eq!(
        items,
        vec![
            SseItem::Comment("\u{FFFD}\u{FFFD}".into()),
            SseItem::Event(data("x"))
        ]
    );
}

#[test]
fn byte_order_mark_at_the_start_is_skipped() {
    assert_eq!(events(b"\xEF\xBB\xBFdata: x\n\n"), vec![data("x")]);
    // A comment or blank line may come first too.
    assert_eq!(events(b"\xEF\xBB\xBF: hi\n\ndata: x\n\n"), vec![data("x")]);
}

#[test]
fn byte_order_mark_later_in_the_stream_is_kept() {
    assert_eq!(
        events(b"data: x\n\ndata: \xEF\xBB\xBFy\n\n"),
        vec![data("x"), data("\u{FEFF}y")]
    );
}

#[test]
fn multi_byte_characters_survive_any_split() {
    let stream = "data: Grüße, 世界 🌍\n\n".as_bytes();
    assert_eq!(events(stream), vec![data("Grüße, 世界 🌍")]);
}

#[test]
fn invalid_utf8_in_a_field_line_is_a_decode_error() {
    let err = parse(b"data: caf\xE9\n\n").expect_err("invalid utf-8");
    assert_eq!(err, "event stream line is not valid utf-8");
}

#[test]
fn unterminated_last_event_is_dispatched_at_the_end() {
    assert_eq!(
        events(b"data: a\n\ndata: [DONE]"),
        vec![data("a"), data("[DONE]")]
    );
    assert_eq!(events(b"data: a\n\ndata: b\n"), vec![data("a"), data("b")]);
    assert_eq!(events(b"data: a\r"), vec![data("a")]);
}

#[test]
fn llamacpp_error_field_is_an_error_event() {
    let stream = b"error: {\"code\":500,\"message\":\"boom\"}\n\ndata: [DONE]\n\n";
    assert_eq!(
        events(stream),
        vec![
            typed("error", "{\"code\":500,\"message\":\"boom\"}"),
            data("[DONE]")
        ]
    );
}

#[test]
fn empty_input_gives_nothing() {
    assert_eq!(parse(b""), Ok(vec![]));
}

#[test]
fn line_longer_than_the_limit_is_too_large() {
    let long = format!("data: {}\n\n", "x".repeat(100));
    let err = parse_each_way(long.as_bytes(), 64).expect_err("too long");
    assert_eq!(
        err,
        "too large: one event of the stream is over the limit of 64 bytes"
    );
    // A line exactly at the limit is fine.
    let exact = format!("data: {}\n\n", "x".repeat(58));
    assert!(parse_each_way(exact.as_bytes(), 64).is_ok());
}

#[test]
fn unterminated_line_is_rejected_as_soon_as_it_passes_the_limit() {
    let mut parser = SseParser::with_limit(64);
    assert!(parser.feed(&[b'x'; 64]).is_ok());
    let err = parser.feed(b"x").expect_err("too long");
    assert!(
        matches!(err, crate::Error::TooLarge { limit: 64, .. }),
        "{err}"
    );
}

#[test]
fn default_limit_stops_an_endless_line() {
    let mut parser = SseParser::new();
    let piece = vec![b'a'; 1 << 20];
    let mut fed = 0;
    let err = loop {
        match parser.feed(&piece) {
            Ok(items) => assert!(items.is_empty()),
            Err(err) => break err,
        }
        fed += piece.len();
        assert!(fed <= DEFAULT_MAX_EVENT_BYTES, "no error past the limit");
    };
    assert_eq!(
        super::support::error_text(&err),
        format!("too large: one event of the stream is over the limit of {DEFAULT_MAX_EVENT_BYTES} bytes")
    );
}

#[test]
fn event_data_longer_than_the_limit_is_too_large() {
    let line = format!("data: {}\n", "x".repeat(30));
    let stream = line.repeat(3);
    let err = parse_each_way(stream.as_bytes(), 64).expect_err("too long");
    assert_eq!(
        err,
        "too large: one event of the stream is over the limit of 64 bytes"
    );
}

#[test]
fn long_line_in_small_pieces_is_parsed() {
    // Rescanning the buffer from its start on every read would make this
    // quadratic (64k reads over a growing 1 MiB line).
    let text = "y".repeat(1 << 20);
    let stream = format!("data: {text}\n\n");
    let mut parser = SseParser::new();
    let mut items = Vec::new();
    for piece in stream.as_bytes().chunks(16) {
        items.extend(parser.feed(piece).expect("parses"));
    }
    assert_eq!(items, vec![SseItem::Event(data(&text))]);
}

#[test]
fn pushing_without_pulling_then_pulling_gives_every_item() {
    let mut parser = SseParser::new();
    for _ in 0..100 {
        parser.push(b"data: x\n\n");
    }
    parser.close();
    let mut count = 0;
    while let Some(item) = parser.next_item().expect("parses") {
        assert_eq!(item, SseItem::Event(data("x")));
        count += 1;
    }
    assert_eq!(count, 100);
}

#[test]
fn finish_is_idempotent() {
    let mut parser = SseParser::new();
    parser.feed(b"data: a").expect("parses");
    assert_eq!(
        parser.finish().expect("parses"),
        vec![SseItem::Event(data("a"))]
    );
    assert_eq!(parser.finish().expect("parses"), vec![]);
}

fn next_event(parser: &mut SseParser) -> SseEvent {
    match parser.next_item() {
        Ok(Some(SseItem::Event(event))) => event,
        other => panic!("not an event: {other:?}"),
    }
}

#[test]
fn a_recycled_event_data_carries_the_next_event_and_a_large_one_is_let_go() {
    let mut parser = SseParser::new();
    parser.push(b"data: first event, long enough to need some room\n\ndata: second\n\n");
    let first = next_event(&mut parser);
    let room = first.data.as_ptr();
    parser.recycle(first.data);
    let second = next_event(&mut parser);
    assert_eq!(second.data, "second");
    assert_eq!(second.data.as_ptr(), room, "written into the recycled room");

    let large = format!("data: {}\n\ndata: after\n\n", "x".repeat(100 * 1024));
    parser.push(large.as_bytes());
    let big = next_event(&mut parser);
    parser.recycle(big.data);
    let after = next_event(&mut parser);
    assert_eq!(after.data, "after");
    assert!(
        after.data.capacity() < 64 * 1024,
        "{}",
        after.data.capacity()
    );
}
