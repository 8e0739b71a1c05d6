//! The decoder on what reasoning servers, `n` > 1 and loosely compatible
//! servers stream, fed whole, byte by byte and in random pieces.

use super::support::decode_each_way;
use crate::conversation::message::ReasoningField;
use crate::stream::StreamEvent;

fn stream(payloads: &[String]) -> String {
    payloads
        .iter()
        .map(|payload| format!("data: {payload}\n\n"))
        .chain(["data: [DONE]\n\n".to_owned()])
        .collect()
}

fn delta(index: u32, delta: &str) -> String {
    format!(r#"{{"choices":[{{"index":{index},"delta":{delta}}}]}}"#)
}

fn finish(index: u32) -> String {
    format!(r#"{{"choices":[{{"index":{index},"delta":{{}},"finish_reason":"stop"}}]}}"#)
}

#[test]
fn reasoning_fields_stream_as_reasoning_and_remember_their_field() {
    for field in ["reasoning_content", "reasoning"] {
        let body = stream(&[
            delta(0, &format!(r#"{{"{field}":"Let me "}}"#)),
            delta(0, &format!(r#"{{"{field}":"think."}}"#)),
            delta(0, r#"{"content":"Hi"}"#),
            finish(0),
        ]);
        let decoded = decode_each_way(body.as_bytes());
        let result = decoded.result.expect("a reply");
        assert_eq!(result.content, "Hi");
        let (text, kept) = result.reasoning_pair().expect("reasoning");
        assert_eq!(text, "Let me think.");
        assert_eq!(kept.as_str(), field);
        assert_eq!(
            decoded.events[..3],
            [
                StreamEvent::Reasoning("Let me ".into()),
                StreamEvent::Reasoning("think.".into()),
                StreamEvent::Delta("Hi".into())
            ]
        );
    }
}

#[test]
fn reasoning_details_text_parts_are_reasoning() {
    // OpenRouter: https://openrouter.ai/docs/use-cases/reasoning-tokens
    let body = stream(&[
        delta(
            0,
            r#"{"reasoning_details":[{"type":"reasoning.text","text":"Hm","index":0}]}"#,
        ),
        delta(0, r#"{"content":"Yes"}"#),
        finish(0),
    ]);
    let result = decode_each_way(body.as_bytes()).result.unwrap();
    assert_eq!(
        result.reasoning_pair(),
        Some(("Hm".into(), ReasoningField::ReasoningDetails))
    );
}

#[test]
fn a_think_block_split_across_deltas_never_reaches_the_content() {
    let pieces = ["<th", "ink>\nPonder", "ing.</th", "ink>\n\nAns", "wer."];
    let mut payloads: Vec<String> = pieces
        .iter()
        .map(|piece| delta(0, &format!(r#"{{"content":{}}}"#, serde_json::json!(piece))))
        .collect();
    payloads.push(finish(0));
    let decoded = decode_each_way(stream(&payloads).as_bytes());
    assert_eq!(decoded.text(), "Answer.");
    let result = decoded.result.unwrap();
    assert_eq!(result.content, "Answer.");
    assert_eq!(
        result.reasoning_pair(),
        Some(("Pondering.".into(), ReasoningField::ThinkTags))
    );
}

#[test]
fn every_choice_is_added_up_by_index_and_only_choice_0_streams() {
    let body = stream(&[
        delta(1, r#"{"content":"B"}"#),
        delta(0, r#"{"content":"A"}"#),
        delta(1, r#"{"content":"b"}"#),
        delta(0, r#"{"content":"a"}"#),
        finish(0),
        finish(1),
    ]);
    let decoded = decode_each_way(body.as_bytes());
    assert_eq!(decoded.text(), "Aa");
    let result = decoded.result.unwrap();
    let texts: Vec<_> = result
        .choices
        .iter()
        .map(|c| (c.index, c.content.as_str()))
        .collect();
    assert_eq!(texts, [(0, "Aa"), (1, "Bb")]);
}

#[test]
fn logprobs_of_every_chunk_are_joined() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[{"token":"a","logprob":-0.1}]}}]}"#.into(),
        r#"{"choices":[{"index":0,"delta":{"content":"b"},"logprobs":{"content":[{"token":"b","logprob":-0.2}]}}]}"#.into(),
        finish(0),
    ]);
    let result = decode_each_way(body.as_bytes()).result.unwrap();
    let logprobs = result.sent().logprobs.clone().expect("logprobs");
    assert_eq!(logprobs["content"].as_array().map(Vec::len), Some(2));
}

#[test]
fn ollama_tool_calls_without_index_go_by_order() {
    // Ollama streams each call whole, without "index":
    // https://github.com/ollama/ollama/issues/7881
    let body = stream(&[
        delta(
            0,
            r#"{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":"{}"}},{"id":"call_b","function":{"name":"g","arguments":"{}"}}]}"#,
        ),
        delta(
            0,
            r#"{"tool_calls":[{"function":{"name":"h","arguments":"{\"x\":1}"}}]}"#,
        ),
        finish(0),
    ]);
    let result = decode_each_way(body.as_bytes()).result.unwrap();
    let names: Vec<_> = result.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["f", "g", "h"]);
    assert_eq!(result.tool_calls[2].arguments, r#"{"x":1}"#);
    assert!(result.tool_calls[2].id.starts_with("call_"), "a made-up id");
}

#[test]
fn tool_calls_in_the_chunk_with_the_finish_reason_count() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#.into(),
    ]);
    let result = decode_each_way(body.as_bytes()).result.unwrap();
    assert_eq!(result.tool_calls.len(), 1);
    assert_eq!(result.finish_reason.as_deref(), Some("tool_calls"));
}

#[test]
fn ollama_calls_that_all_say_index_0_stay_apart() {
    // https://github.com/ollama/ollama/issues/15457
    let body = stream(&[
        delta(
            0,
            r#"{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"p\":1}"}}]}"#,
        ),
        delta(
            0,
            r#"{"tool_calls":[{"index":0,"id":"b","function":{"name":"f","arguments":"{\"p\":2}"}}]}"#,
        ),
        finish(0),
    ]);
    let result = decode_each_way(body.as_bytes()).result.unwrap();
    let calls: Vec<_> = result
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(calls, [("a", r#"{"p":1}"#), ("b", r#"{"p":2}"#)]);
}
