//! The stream decoder on a recorded llama.cpp stream and on the quirks and
//! failures real servers show, fed whole, byte by byte and in random pieces.

use super::support::{decode_each_way, decode_each_way_with, Decoded};
use crate::conversation::message::ToolCall;
use crate::error::{ApiError, Error};
use crate::reply::Usage;
use crate::stream::{StreamDecoder, StreamEvent};

const RECORDED: &str = include_str!("../../../tests/data/spec/recorded/llamacpp-stream.sse");
const RECORDED_TEXT: &str = "Yo, welcome to the Nexus. What brings";

/// Builds a stream of `data:` events from payloads.
fn stream(payloads: &[&str]) -> String {
    payloads
        .iter()
        .map(|payload| format!("data: {payload}\n\n"))
        .collect()
}

fn content(index: u32, text: &str) -> String {
    format!(r#"{{"choices":[{{"index":{index},"delta":{{"content":"{text}"}}}}]}}"#)
}

fn finish(reason: &str) -> String {
    format!(r#"{{"choices":[{{"index":0,"delta":{{}},"finish_reason":"{reason}"}}]}}"#)
}

fn tool(fragment: &str) -> String {
    format!(r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{fragment}]}}}}]}}"#)
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// Decodes the whole body once, keeping the error itself.
fn decode_once(body: &str) -> Result<(Vec<StreamEvent>, crate::Reply), Error> {
    let mut decoder = StreamDecoder::new();
    let mut events = decoder.feed(body.as_bytes())?;
    events.extend(decoder.finish()?);
    Ok((events, decoder.into_reply()?))
}

fn server_error(body: &str) -> ApiError {
    match decode_once(body) {
        Err(Error::Server(error)) => *error,
        other => panic!("expected a server error, got {other:?}"),
    }
}

fn decode_error(body: &str) -> (String, String) {
    match decode_once(body) {
        Err(Error::Decode { message, excerpt }) => (message, excerpt),
        other => panic!("expected a decode error, got {other:?}"),
    }
}

fn assert_recorded(decoded: &Decoded) {
    let result = decoded.ok();
    assert_eq!(decoded.text(), RECORDED_TEXT);
    assert_eq!(result.content, RECORDED_TEXT);
    assert_eq!(result.sent_role(), "assistant");
    assert_eq!(result.finish_reason.as_deref(), Some("length"));
    assert_eq!(
        result.usage,
        Some(Usage {
            prompt_tokens: 33,
            completion_tokens: 12,
            total_tokens: 45,
            cached_tokens: Some(32),
            reasoning_tokens: None
        })
    );
    assert_eq!(
        result.id.as_deref(),
        Some("chatcmpl-R3cpaHMhtd3ejYlJNzbtybhXo8U8L7Zw")
    );
    assert_eq!(
        result.model.as_deref(),
        Some("SmolLM2-135M-Instruct.Q4_1.gguf")
    );
    assert!(result.tool_calls.is_empty());
    assert_eq!(result.refusal, None);
    assert_eq!(decoded.events.last(), Some(&StreamEvent::Done));
}

#[test]
fn recorded_llamacpp_stream_decodes_to_its_text_usage_and_finish_reason() {
    let decoded = decode_each_way(RECORDED.as_bytes());
    assert_recorded(&decoded);
    // One delta per content chunk: the role chunk's null content gives none.
    assert_eq!(decoded.events.len(), 12 + 1);
}

#[test]
fn recorded_stream_with_crlf_comments_bom_and_no_space_decodes_the_same() {
    let quirky = format!(
        "\u{FEFF}: connected\n\n{}",
        RECORDED.replace("data: ", "data:").replace('\n', "\r\n")
    );
    assert_recorded(&decode_each_way(quirky.as_bytes()));
    let lone_cr = RECORDED.replace('\n', "\r");
    assert_recorded(&decode_each_way(lone_cr.as_bytes()));
}

#[test]
fn recorded_stream_with_keep_alives_between_events_decodes_the_same() {
    let with_pings = RECORDED.replace("\n\n", "\n\n: ping\n\n");
    assert_recorded(&decode_each_way(with_pings.as_bytes()));
}

#[test]
fn done_event_ends_decoding_and_later_bytes_are_ignored() {
    let mut body = format!(
        "{}data: [DONE]\n\ndata: not json\n\n",
        stream(&[&content(0, "a")])
    )
    .into_bytes();
    body.extend_from_slice(b"data: \xFF\n\n");
    let decoded = decode_each_way(&body);
    assert_eq!(decoded.ok().content, "a");
    assert_eq!(
        decoded.events,
        vec![StreamEvent::Delta("a".into()), StreamEvent::Done]
    );

    let mut decoder = StreamDecoder::new();
    decoder.feed(b"data: [DONE]\n\n").expect("decodes");
    assert!(decoder.is_done());
    assert_eq!(decoder.feed(b"data: garbage\n\n").expect("ignored"), vec![]);
}

#[test]
fn done_alone_is_a_complete_empty_reply() {
    let result = decode_each_way(b"data: [DONE]\n\n").ok().clone();
    assert_eq!(result.content, "");
    assert_eq!(result.finish_reason, None);
    assert_eq!(result.sent_role(), "assistant");
}

#[test]
fn empty_and_null_content_give_no_delta() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":null}}]}"#,
        &content(0, "x"),
        &finish("stop"),
        "[DONE]",
    ]);
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(
        decoded.events,
        vec![StreamEvent::Delta("x".into()), StreamEvent::Done]
    );
}

#[test]
fn blank_data_events_are_ignored() {
    let body = format!("data:\n\ndata:  \n\n{}", stream(&[&finish("stop")]));
    assert_eq!(decode_each_way(body.as_bytes()).ok().content, "");
}

#[test]
fn only_choice_zero_is_collected() {
    let body = stream(&[
        &content(1, "other"),
        r#"{"choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"}}]}"#,
        r#"{"choices":[{"index":1,"delta":{},"finish_reason":"length"}]}"#,
        &finish("stop"),
        "[DONE]",
    ]);
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(decoded.ok().content, "a");
    assert_eq!(decoded.ok().finish_reason.as_deref(), Some("stop"));
}

#[test]
fn missing_index_counts_as_choice_zero_and_minimal_chunks_decode() {
    let body = stream(&[
        r#"{"choices":[{"delta":{"content":"hi"}}]}"#,
        r#"{"choices":[{"finish_reason":"stop"}]}"#,
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.content, "hi");
    assert_eq!(result.id, None);
    assert_eq!(result.model, None);
}

#[test]
fn unknown_fields_and_objects_without_choices_are_ignored() {
    let body = stream(&[
        r#"{"type":"ping"}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"a","reasoning_content":"hm"},"logprobs":null,"extra":[1]}],"x":{}}"#,
        &finish("stop"),
    ]);
    assert_eq!(decode_each_way(body.as_bytes()).ok().content, "a");
}

#[test]
fn empty_finish_reason_is_no_finish_reason() {
    let body = stream(&[r#"{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":""}]}"#]);
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(decoded.err(), "stream ended before the reply was complete");
}

#[test]
fn refusal_text_is_collected_apart_from_content() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"refusal":"I can't"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"refusal":" help."}}]}"#,
        &finish("stop"),
        "[DONE]",
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.refusal.as_deref(), Some("I can't help."));
    assert_eq!(result.content, "");
}

#[test]
fn tool_calls_with_index_are_assembled_from_interleaved_fragments() {
    let body = stream(&[
        &tool(
            r#"{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}"#,
        ),
        &tool(
            r#"{"index":1,"id":"call_b","type":"function","function":{"name":"time","arguments":"{\"tz\""}}"#,
        ),
        &tool(r#"{"index":0,"function":{"arguments":"{\"city\":"}}"#),
        &tool(r#"{"index":1,"function":{"arguments":":\"UTC\"}"}}"#),
        &tool(r#"{"index":0,"function":{"arguments":"\"Paris\"}"}}"#),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        result.tool_calls,
        vec![
            call("call_a", "weather", r#"{"city":"Paris"}"#),
            call("call_b", "time", r#"{"tz":"UTC"}"#),
        ]
    );
}

#[test]
fn two_tool_calls_in_one_chunk_are_kept_apart() {
    let body = stream(&[
        &tool(concat!(
            r#"{"index":0,"id":"a","function":{"name":"f","arguments":"{"}},"#,
            r#"{"index":1,"id":"b","function":{"name":"g","arguments":"["}}"#,
        )),
        &tool(
            r#"{"index":1,"function":{"arguments":"]"}},{"index":0,"function":{"arguments":"}"}}"#,
        ),
        &finish("tool_calls"),
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(
        result.tool_calls,
        vec![call("a", "f", "{}"), call("b", "g", "[]")]
    );
}

#[test]
fn tool_calls_without_index_are_told_apart_by_id() {
    let body = stream(&[
        &tool(
            r#"{"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\":"}}"#,
        ),
        &tool(r#"{"function":{"arguments":"1}"}}"#),
        // The same id again continues the same call.
        &tool(r#"{"id":"call_1","function":{"arguments":" "}}"#),
        &tool(r#"{"id":"call_2","function":{"name":"neg","arguments":"{\"x\""}}"#),
        &tool(r#"{"function":{"arguments":":2}"}}"#),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(
        result.tool_calls,
        vec![
            call("call_1", "add", r#"{"a":1} "#),
            call("call_2", "neg", r#"{"x":2}"#),
        ]
    );
}

#[test]
fn tool_call_name_repeated_on_each_fragment_is_not_doubled() {
    let body = stream(&[
        &tool(r#"{"index":0,"id":"c","function":{"name":"f","arguments":"{"}}"#),
        &tool(r#"{"index":0,"id":"c","function":{"name":"f","arguments":"}"}}"#),
        &finish("tool_calls"),
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.tool_calls, vec![call("c", "f", "{}")]);
}

#[test]
fn tool_call_arguments_sent_as_an_object_become_json_text() {
    let body = stream(&[
        &tool(r#"{"index":0,"id":"c","function":{"name":"f","arguments":{"k":[1,2]}}}"#),
        &finish("tool_calls"),
    ]);
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.tool_calls, vec![call("c", "f", r#"{"k":[1,2]}"#)]);
}

#[test]
fn error_object_in_data_is_a_server_error() {
    let body = format!(
        "{}data: {}\n\n",
        stream(&[&content(0, "partial")]),
        r#"{"error":{"message":"The server is overloaded","type":"server_error","code":"overloaded","param":null}}"#
    );
    assert_eq!(
        decode_each_way(body.as_bytes()).err(),
        "The server is overloaded"
    );
    assert_eq!(
        server_error(&body),
        ApiError {
            status: None,
            message: "The server is overloaded".into(),
            kind: Some("server_error".into()),
            code: Some("overloaded".into()),
            request_id: None,
        }
    );
}

#[test]
fn error_event_naming_a_status_takes_its_variant() {
    let body = "event: error\ndata: {\"error\":{\"message\":\"rate limited\",\"type\":\"rate_limit\",\"code\":429}}\n\n";
    assert_eq!(decode_each_way(body.as_bytes()).err(), "rate limited");
    let error = match decode_once(body) {
        Err(Error::RateLimited(error)) => *error,
        other => panic!("expected rate limited, got {other:?}"),
    };
    assert_eq!(error.status, Some(429));
    assert_eq!(error.code.as_deref(), Some("429"));
    assert_eq!(error.kind.as_deref(), Some("rate_limit"));
}

#[test]
fn error_event_with_plain_text_is_a_server_error() {
    let body = "event: error\ndata: model crashed\n\n";
    assert_eq!(server_error(body).message, "model crashed");
}

#[test]
fn llamacpp_error_line_is_a_server_error() {
    // What llama.cpp's server writes when generation fails mid-stream.
    let body = format!(
        "{}error: {}\n\ndata: [DONE]\n\n",
        stream(&[&content(0, "a")]),
        r#"{"code":500,"message":"the prompt exceeds the context size","type":"server_error"}"#
    );
    assert_eq!(
        decode_each_way(body.as_bytes()).err(),
        "the prompt exceeds the context size"
    );
    let error = server_error(&body);
    assert_eq!(error.status, Some(500));
    assert_eq!(error.kind.as_deref(), Some("server_error"));
}

#[test]
fn null_error_field_is_not_an_error() {
    let body = stream(&[
        r#"{"error":null,"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}"#,
    ]);
    assert_eq!(decode_each_way(body.as_bytes()).ok().content, "a");
}

#[test]
fn non_json_data_is_a_decode_error_with_an_excerpt() {
    let body = format!(
        "{}data: <html>Bad Gateway</html>\n\n",
        stream(&[&content(0, "a")])
    );
    let decoded = decode_each_way(body.as_bytes());
    assert!(
        decoded.err().starts_with("event data is not json"),
        "{}",
        decoded.err()
    );
    let (message, excerpt) = decode_error(&body);
    assert!(message.starts_with("event data is not json: "));
    assert_eq!(excerpt, "<html>Bad Gateway</html>");
}

#[test]
fn json_that_is_not_a_chunk_is_a_decode_error() {
    let (message, excerpt) = decode_error(&stream(&[r#"{"choices":"none"}"#]));
    assert!(
        message.starts_with("event data is not a chat completion chunk: "),
        "{message}"
    );
    assert_eq!(excerpt, r#"{"choices":"none"}"#);
    let (message, _) = decode_error(&stream(&["[1,2,3]"]));
    assert_eq!(message, "event data is not a json object");
}

#[test]
fn long_bad_data_gets_a_short_excerpt() {
    let payload = "ü".repeat(500);
    let (_, excerpt) = decode_error(&stream(&[&payload]));
    assert!(excerpt.len() <= 200);
    assert!(payload.starts_with(&excerpt));
}

#[test]
fn unknown_event_type_is_decoded_when_json_and_skipped_otherwise() {
    let body = format!(
        "event: ping\ndata: hello\n\nevent: message\ndata: {}\n\nevent: custom\ndata: {}\n\n",
        content(0, "a"),
        finish("stop")
    );
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.content, "a");
    assert_eq!(result.finish_reason.as_deref(), Some("stop"));
}

#[test]
fn end_without_done_after_a_finish_reason_is_complete() {
    let body = stream(&[&content(0, "a"), &finish("stop")]);
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(decoded.ok().content, "a");
    assert_eq!(decoded.events, vec![StreamEvent::Delta("a".into())]);
}

#[test]
fn end_without_done_or_finish_reason_is_cut_off() {
    let body = stream(&[&content(0, "a")]);
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(decoded.err(), "stream ended before the reply was complete");
    let (_, excerpt) = decode_error(&body);
    // The excerpt shows where the text stopped.
    assert_eq!(excerpt, "a");
}

#[test]
fn end_in_the_middle_of_an_event_is_cut_off() {
    let body = format!(
        "{}data: {{\"choices\":[{{\"ind",
        stream(&[&content(0, "a")])
    );
    assert_eq!(
        decode_each_way(body.as_bytes()).err(),
        "stream ended before the reply was complete, in the middle of an event"
    );
    // Cut inside a multi-byte character.
    let mut bytes = stream(&[&content(0, "a")]).into_bytes();
    bytes.extend_from_slice(b"data: {\"choices\":[{\"delta\":{\"content\":\"\xC3");
    assert_eq!(
        decode_each_way(&bytes).err(),
        "stream ended before the reply was complete, in the middle of an event"
    );
}

#[test]
fn end_in_the_middle_of_the_usage_chunk_after_the_finish_reason_is_complete() {
    let body = format!(
        "{}data: {{\"choices\":[],\"usage\":{{\"prompt_t",
        stream(&[&content(0, "a"), &finish("stop")])
    );
    let result = decode_each_way(body.as_bytes()).ok().clone();
    assert_eq!(result.content, "a");
    assert_eq!(result.usage, None);
}

#[test]
fn last_event_without_its_blank_line_still_counts() {
    let body = format!("{}data: [DONE]", stream(&[&content(0, "a")]));
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(
        decoded.events,
        vec![StreamEvent::Delta("a".into()), StreamEvent::Done]
    );
    let body = format!("{}data: {}", stream(&[&content(0, "a")]), finish("stop"));
    assert_eq!(decode_each_way(body.as_bytes()).ok().content, "a");
}

#[test]
fn byte_order_mark_before_the_first_event_is_skipped() {
    let body = format!("\u{FEFF}{}", stream(&[&content(0, "a"), "[DONE]"]));
    assert_eq!(decode_each_way(body.as_bytes()).ok().content, "a");
}

#[test]
fn comments_only_is_an_incomplete_stream() {
    let decoded = decode_each_way(b": ping\n\n: ping\n\n");
    assert!(decoded.events.is_empty());
    assert_eq!(decoded.err(), "stream ended before the reply was complete");
}

#[test]
fn empty_body_is_an_incomplete_stream() {
    assert_eq!(
        decode_each_way(b"").err(),
        "stream ended before the reply was complete"
    );
}

#[test]
fn oversized_line_is_too_large() {
    let body = format!(
        "{}data: {}\n\n",
        stream(&[&content(0, "a")]),
        content(0, &"x".repeat(200))
    );
    let decoded = decode_each_way_with(body.as_bytes(), || StreamDecoder::with_limit(128));
    assert_eq!(
        decoded.err(),
        "too large: one event of the stream is over the limit of 128 bytes"
    );
}

#[test]
fn a_reply_past_the_stream_limit_is_too_large() {
    let piece = "x".repeat(100);
    let chunks: Vec<String> = (0..20).map(|_| content(0, &piece)).collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let mut decoder = StreamDecoder::with_limits(1 << 20, 1000);
    let err = decoder.feed(stream(&refs).as_bytes()).unwrap_err();
    assert!(
        matches!(err, crate::Error::TooLarge { limit: 1000, .. }),
        "{err}"
    );
}

#[test]
fn tool_call_fragments_count_towards_the_stream_limit() {
    // Empty calls with ever new indexes would grow memory without any text.
    let chunks: Vec<String> = (0..100)
        .map(|index| {
            serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": index}]}}]})
                .to_string()
        })
        .collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let mut decoder = StreamDecoder::with_limits(1 << 20, 4096);
    let err = decoder.feed(stream(&refs).as_bytes()).unwrap_err();
    assert!(matches!(err, crate::Error::TooLarge { .. }), "{err}");
}

#[test]
fn a_chunks_fields_of_its_own_count_towards_the_stream_limit() {
    // A server repeating ever new top-level fields would grow memory
    // without any text.
    let chunks: Vec<String> = (0..100)
        .map(|index| {
            serde_json::json!({"choices": [], format!("field_{index}"): "x".repeat(50)}).to_string()
        })
        .collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let mut decoder = StreamDecoder::with_limits(1 << 20, 4096);
    let err = decoder.feed(stream(&refs).as_bytes()).unwrap_err();
    assert!(
        matches!(err, crate::Error::TooLarge { limit: 4096, .. }),
        "{err}"
    );
}

#[test]
fn usage_without_total_and_usage_null_on_every_chunk_are_read() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}"#,
        "[DONE]",
    ]);
    let usage = decode_each_way(body.as_bytes()).ok().usage;
    assert_eq!(
        usage,
        Some(Usage {
            prompt_tokens: 5,
            completion_tokens: 1,
            total_tokens: 6,
            cached_tokens: None,
            reasoning_tokens: None
        })
    );
}

#[test]
fn accumulator_shows_the_text_so_far() {
    let mut decoder = StreamDecoder::new();
    decoder
        .feed(stream(&[&content(0, "ab"), &content(0, "c")]).as_bytes())
        .expect("decodes");
    assert_eq!(decoder.accumulator().content(), "abc");
    assert!(!decoder.accumulator().is_complete());
}

#[test]
fn into_result_without_finish_still_reads_the_unterminated_end() {
    let mut decoder = StreamDecoder::new();
    decoder
        .feed(format!("{}data: {}", stream(&[&content(0, "a")]), finish("stop")).as_bytes())
        .expect("decodes");
    let result = decoder.into_reply().expect("complete");
    assert_eq!(result.finish_reason.as_deref(), Some("stop"));
}
