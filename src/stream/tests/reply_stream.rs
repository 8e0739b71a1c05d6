//! When a stream of `n` > 1 choices ends: when the server ends it, or once
//! every choice asked for has finished, never on a timer while one may still
//! begin. The source is scripted: each piece says how long after the last
//! it arrives, and a read that may wait less gets the timeout a silent
//! connection gives, so no test waits on the clock.

use std::collections::VecDeque;
use std::time::Duration;

use crate::config::{Limits, DEFAULT_IDLE_TIMEOUT, STREAM_END_GRACE};
use crate::error::{Error, Result, TimeoutKind};
use crate::response_headers::ResponseHeaders;
use crate::secrets::Secrets;
use crate::stream::reply_stream::{ByteSource, DeltaStream};

/// Never: the server says nothing more and keeps the connection open.
const SILENCE: Duration = Duration::MAX;

/// Pieces of a body, each arriving `after` the read that asks for it
/// begins; then the body's end.
struct Scripted(VecDeque<(Duration, String)>);

impl ByteSource for Scripted {
    /// A plain read of a stream waits as long as the idle timeout.
    fn read(&mut self, buffer: &mut [u8]) -> Result<usize> {
        self.read_within(buffer, DEFAULT_IDLE_TIMEOUT)
    }

    fn read_within(&mut self, buffer: &mut [u8], patience: Duration) -> Result<usize> {
        let Some((after, _)) = self.0.front() else {
            return Ok(0);
        };
        if *after > patience {
            return Err(Error::Timeout {
                kind: TimeoutKind::Idle,
                message: format!("{patience:?} of silence"),
            });
        }
        let (_, text) = self.0.pop_front().unwrap_or_default();
        buffer[..text.len()].copy_from_slice(text.as_bytes());
        Ok(text.len())
    }
}

fn choice(index: u32, text: &str) -> String {
    let chunk = serde_json::json!({"choices": [
        {"index": index, "delta": {"content": text}, "finish_reason": "stop"}]});
    format!("data: {chunk}\n\n")
}

/// Reads a scripted stream of a request that asked for `asked` choices to its end.
fn read(asked: u32, script: Vec<(Duration, String)>) -> Result<crate::Reply> {
    let source = Box::new(Scripted(script.into()));
    let (limits, headers) = (Limits::default(), ResponseHeaders::default());
    let asked = (crate::Api::ChatCompletions, asked);
    DeltaStream::new(source, asked, None, headers, &limits, Secrets::default()).run(|_| true)
}

#[test]
fn a_choice_that_begins_long_after_choice_0_finished_is_kept() {
    let late = STREAM_END_GRACE * 10;
    let script = vec![
        (Duration::ZERO, choice(0, "first")),
        (late, choice(1, "second")),
        (Duration::ZERO, "data: [DONE]\n\n".into()),
    ];
    let reply = read(2, script).unwrap();
    let texts: Vec<&str> = reply.choices.iter().map(|c| c.content.as_str()).collect();
    assert_eq!(texts, ["first", "second"]);
}

#[test]
fn every_choice_finished_ends_a_stream_left_open_after_the_grace() {
    let script = vec![
        (Duration::ZERO, choice(1, "second")),
        (Duration::ZERO, choice(0, "first")),
        (SILENCE, String::new()),
    ];
    let reply = read(2, script).unwrap();
    assert_eq!(reply.choices.len(), 2);
}

#[test]
fn fewer_choices_than_asked_end_with_the_body_and_none_is_invented() {
    let script = vec![(Duration::ZERO, choice(0, "only"))];
    let reply = read(3, script).unwrap();
    assert_eq!(reply.choices.len(), 1);
    assert_eq!(reply.content(), "only");
}

#[test]
fn fewer_choices_than_asked_then_the_idle_timeout_of_silence_end_the_reply() {
    let script = vec![
        (Duration::ZERO, choice(0, "only")),
        (SILENCE, String::new()),
    ];
    let reply = read(2, script).unwrap();
    assert_eq!(reply.choices.len(), 1);
}

#[test]
fn silence_inside_a_choice_is_still_a_timeout() {
    let started = serde_json::json!({"choices": [{"index": 0, "delta": {"content": "par"}}]});
    let script = vec![
        (Duration::ZERO, format!("data: {started}\n\n")),
        (SILENCE, String::new()),
    ];
    let error = read(1, script).unwrap_err();
    assert_eq!(error.timeout_kind(), Some(TimeoutKind::Idle), "{error}");
}
