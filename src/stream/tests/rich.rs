//! Streams that touch every field a streamed reply keeps, folded into the
//! reply: its choices and the JSON written for it. The expected text was
//! written by the road the reply took before it was built straight from
//! the chunks (a completion built from the stream, serialized, read back),
//! so the reply and its JSON stay what that road gave, byte for byte.

use crate::reply::ReplyChoice;
use crate::stream::StreamDecoder;

/// Streams that touch every field a streamed reply keeps, with the number
/// of choices each asks for.
const RICH_STREAMS: [(&str, u32); 7] = [
    // reasoning_content with details, logprobs, role, unknown fields of
    // every kind, two tool calls, a second choice, top-level fields, usage.
    (
        concat!(
            r#"data: {"id":"c1","model":"m","citations":["https://a.example"],"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Let me ","reasoning_details":[{"type":"reasoning.text","text":"Let me ","index":0}]},"logprobs":{"content":[{"token":"a","logprob":-0.5}]}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":0,"delta":{"reasoning_content":"think.","reasoning_details":[{"type":"reasoning.text","text":"think.","index":0,"signature":"sig"}]}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":1,"delta":{"content":"Other"},"finish_reason":"length"}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":0,"delta":{"content":"It is ","annotations":[{"type":"url_citation"}],"audio":{"id":"au_1","data":"AAAA"},"extra_content":{"google":{"thought_signature":"s"}}},"logprobs":{"content":[{"token":"b","logprob":-0.25}]}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":0,"delta":{"content":"noon.","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"f","arguments":"{\"x\":"}},{"index":1,"id":"call_b","type":"custom","custom":{"name":"sql","input":"SELECT"},"extra_content":{"google":{}}}]}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]},"finish_reason":"tool_calls"}],"search_results":[{"title":"A"}]}"#,
            "\n\n",
            r#"data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"completion_tokens_details":{"reasoning_tokens":2}}}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        2,
    ),
    // A think block in the content, split across deltas.
    (
        concat!(
            r#"data: {"choices":[{"delta":{"content":"\n<thi"}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"delta":{"content":"nk>\nPondering.\n</th"}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"delta":{"content":"ink>\n\nAnswer."},"finish_reason":"stop"}]}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        1,
    ),
    // Mistral's thinking chunks, and a refusal in a second choice.
    (
        concat!(
            r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Two and two"}]}]}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"4"}]},"finish_reason":"stop"}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":1,"delta":{"refusal":"I can't"}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":1,"delta":{"refusal":" help."},"finish_reason":"stop"}]}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        2,
    ),
    // OpenRouter's reasoning_details alone, with an encrypted part.
    (
        concat!(
            r#"data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"Hm","index":0}]}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"xyz","index":1}],"content":"Yes"},"finish_reason":"stop"}]}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        1,
    ),
    // Details without text, and reasoning in `reasoning`.
    (
        concat!(
            r#"data: {"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"e"}],"content":"Hi"}},{"index":1,"delta":{"reasoning":"Because","content":"Yo"}}]}"#,
            "\n\n",
            r#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        2,
    ),
    // A refusal alone, the role given as another.
    (
        concat!(
            r#"data: {"id":"r","choices":[{"delta":{"role":"model","refusal":"No."},"finish_reason":"stop"}]}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        1,
    ),
    // A think block that never closes.
    (
        concat!(
            r#"data: {"choices":[{"delta":{"content":"<think>never closed </thi"},"finish_reason":"length"}]}"#,
            "\n\n",
            "data: [DONE]\n\n"
        ),
        1,
    ),
];

/// What the reply of each stream reads as: its JSON, its top-level fields,
/// and each choice's fields.
fn described(body: &str, choices: u32) -> String {
    let mut decoder = StreamDecoder::new().asking(choices);
    decoder.feed(body.as_bytes()).expect("a stream");
    let reply = decoder.into_reply().expect("a complete reply");
    let mut out = format!("JSON {}\n", reply.json());
    out += &format!("TOP {:?} {:?} {:?}\n", reply.id, reply.model, reply.usage);
    for c in reply.choices() {
        out += &format!(
            "CHOICE {} {:?} {:?} {:?} {:?} {:?} {:?}\n",
            c.index(),
            c.content(),
            c.refusal,
            c.finish_reason,
            c.reasoning,
            c.tool_calls,
            c.extra
        );
    }
    out
}

#[test]
fn a_streamed_reply_and_its_json_are_what_the_stream_sent() {
    let described: String = RICH_STREAMS
        .iter()
        .map(|(body, choices)| described(body, *choices))
        .collect();
    let expected = include_str!("rich_streams.expected");
    for (line, (got, want)) in described.lines().zip(expected.lines()).enumerate() {
        assert_eq!(got, want, "line {}", line + 1);
    }
    assert_eq!(described, expected);
}

#[test]
fn a_streamed_reply_is_the_reply_its_json_gives_as_a_whole_body() {
    for (body, choices) in RICH_STREAMS {
        let mut decoder = StreamDecoder::new().asking(choices);
        decoder.feed(body.as_bytes()).expect("a stream");
        let streamed = decoder.into_reply().expect("a complete reply");
        let whole = crate::wire::completion::decode(streamed.json().into_owned(), None)
            .expect("a whole body");
        assert_eq!(
            (&whole.id, &whole.model, whole.usage),
            (&streamed.id, &streamed.model, streamed.usage)
        );
        assert_eq!(whole.choices().len(), streamed.choices().len(), "{body}");
        for (whole, streamed) in whole.choices().iter().zip(streamed.choices()) {
            // The same choice, but for what only a streamed reply's JSON needs.
            let streamed = ReplyChoice {
                streamed: None,
                ..streamed.clone()
            };
            assert_eq!(whole, &streamed, "{body}");
        }
    }
}
