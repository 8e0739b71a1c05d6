//! Trying the candidates in order and explaining the failure when none works.

use serde_json::Value;

use super::candidates;
use super::repair::{self, Candidate, RepairError};
use super::strings::LineCache;
use crate::error::{Error, Result};

/// Turns the JSON found into the caller's type, or says why it does not fit.
pub(crate) trait Accept<T>: FnMut(Value) -> Result<T, String> {}
impl<T, F: FnMut(Value) -> Result<T, String>> Accept<T> for F {}

/// Tries every candidate in order and returns the first that `accept` turns
/// into the caller's type; one it refuses (saying why) is passed over, so an
/// example object earlier in a reply does not hide the answer.
pub(crate) fn search<T>(text: &str, mut accept: impl Accept<T>) -> Result<T> {
    let trimmed = text.trim();
    let found = match serde_json::from_str::<String>(trimmed).ok() {
        _ if text.is_empty() => Err("the text is empty".to_owned()),
        _ if trimmed.is_empty() => Err("the text is only whitespace".to_owned()),
        Some(inner) if inner.trim_start().starts_with(['{', '[']) => {
            search_text(&inner, &mut accept)
                .map_err(|why| format!("in the JSON string that is the whole text: {why}"))
        }
        Some(_) => Err(BARE_VALUE.to_owned()),
        // Repair: a reply that is JSON with its quotes escaped (`{\"a\": 1}`,
        // a JSON string's inside) is read as the JSON it escapes.
        None if trimmed.starts_with("{\\\"") || trimmed.starts_with("[\\\"") => {
            let unescaped = serde_json::from_str::<String>(&format!("\"{trimmed}\"")).ok();
            search_text(unescaped.as_deref().unwrap_or(text), &mut accept)
        }
        None => search_text(text, &mut accept),
    };
    found.map_err(Error::NoJson)
}

/// Searches `text` (see `search`): fenced blocks, a leading tuple, then the
/// bare candidates; the error says why none was taken.
fn search_text<T>(text: &str, accept: &mut impl Accept<T>) -> Result<T, String> {
    let mut log = Log::default();
    for fence in candidates::json_fences(text) {
        // The block's text ends where its content does, before the closing fence.
        let end = fence.offset + fence.content.len();
        let candidate = Candidate {
            text: text.get(..end).unwrap_or(text),
            start: fence.offset,
            leads: true,
        };
        let info = Some(fence.info.to_owned());
        if let Ok((value, ..)) = log.attempt(candidate, info, accept) {
            return Ok(value);
        }
    }
    // A value that rests on a guessed unquoted string gives way to a later
    // one that does not (`Use {name: value}. Here: {"name": "x"}`).
    let mut guessed = None;
    // A bare candidate leads when it starts at the first byte that is not
    // whitespace.
    let leading = text.len() - text.trim_start().len();
    let bare = |start| Candidate {
        text,
        start,
        leads: start == leading,
    };
    if text.trim_start().starts_with('(') {
        match log.attempt(bare(leading), None, accept) {
            Ok((value, _, false)) => return Ok(value),
            Ok((value, _, true)) => guessed = Some(value),
            Err(_) => {}
        }
    }
    // A failure resumes where it stopped or past a value that was JSON:
    // starting over at every nested `{` would be quadratic (and offer a
    // fragment as the answer).
    let mut from = 0;
    while let Some(start) = candidates::next_opener(text, from) {
        if let Some(inner) = bracket_after_brace(text, start) {
            // `{{` or `{[` can never be repaired: say so without the cost of a
            // scanner, which a megabyte of braces would pay a million times.
            let message = "expected a key or '}', found an opening bracket";
            log.fail(None, start, RepairError::at(inner, message));
            from = start + 1;
            continue;
        }
        // Openers are ASCII, so `start + 1` is a char boundary.
        from = match log.attempt(bare(start), None, accept) {
            Ok((value, _, false)) => return Ok(value),
            Ok((value, end, true)) => {
                guessed.get_or_insert(value);
                end.max(start + 1)
            }
            Err(resume) => resume.max(start + 1),
        };
    }
    guessed.ok_or_else(|| log.summary(text))
}

/// Where the opening bracket is, when the candidate at `start` is a `{`
/// whose first token (past whitespace) is another `{` or a `[`.
fn bracket_after_brace(text: &str, start: usize) -> Option<usize> {
    let rest = text.get(start..).unwrap_or("");
    let inner = rest.strip_prefix('{')?.trim_start();
    if !inner.starts_with(['{', '[']) {
        return None;
    }
    Some(start + rest.len() - inner.len())
}

/// What was tried, kept small: a count, the failure that got furthest (with
/// the info word of its fenced block, `None` for a bare candidate), the
/// first JSON found but refused; and what the string reader learned.
#[derive(Default)]
struct Log {
    tried: usize,
    best: Option<(Option<String>, usize, RepairError)>,
    rejection: Option<String>,
    lines: LineCache,
}

impl Log {
    /// Tries one candidate and files what became of it: its value, end and
    /// guess (see `search_text`), or where to go on.
    fn attempt<T>(
        &mut self,
        candidate: Candidate<'_>,
        origin: Option<String>,
        accept: &mut impl Accept<T>,
    ) -> Result<(T, usize, bool), usize> {
        let found = match strict(candidate) {
            Some((value, end)) => Ok((value, end, false)),
            None => repair::repair_at(candidate, &mut self.lines).and_then(|repaired| {
                serde_json::from_str::<Value>(&repaired.json)
                    .map(|value| (value, repaired.end, repaired.guessed))
                    // The scanner writes valid JSON, so this is a limit of serde_json.
                    .map_err(|error| {
                        let message = format!("the repaired text is not valid JSON: {error}");
                        RepairError::at(repaired.end, message)
                    })
            }),
        };
        let (value, end, guessed) = found.map_err(|error| {
            let resume = error.resume;
            self.fail(origin, candidate.start, error);
            resume
        })?;
        accept(value)
            .map(|value| (value, end, guessed))
            .map_err(|why| {
                self.reject(why);
                end
            })
    }

    /// Counts a failure, and keeps it when it got further than the best so far.
    fn fail(&mut self, origin: Option<String>, start: usize, error: RepairError) {
        self.tried += 1;
        let progress = error.offset.saturating_sub(start);
        let further = self
            .best
            .as_ref()
            .is_none_or(|(_, best, failure)| progress > failure.offset.saturating_sub(*best));
        if further {
            self.best = Some((origin, start, error));
        }
    }

    fn reject(&mut self, why: String) {
        self.tried += 1;
        self.rejection.get_or_insert(why);
    }

    fn summary(self, text: &str) -> String {
        if let Some(why) = self.rejection {
            return why;
        }
        let Some((origin, start, error)) = self.best else {
            return if serde_json::from_str::<Value>(text.trim()).is_ok() {
                BARE_VALUE.to_owned()
            } else {
                "no object or array in the text".to_owned()
            };
        };
        let plural = if self.tried == 1 { "" } else { "s" };
        let origin = match origin {
            Some(info) if info.is_empty() => "the unmarked fenced block".to_owned(),
            Some(info) => format!("the fenced block marked {info}"),
            None if text.get(start..).is_some_and(|r| r.starts_with('{')) => {
                "the object".to_owned()
            }
            None => "the array".to_owned(),
        };
        format!(
            "tried {} candidate{plural}; the most promising, {origin} at {}, failed at {}: {}",
            self.tried,
            position(text, start),
            position(text, error.offset),
            error.message
        )
    }
}

const BARE_VALUE: &str = "the text is a bare JSON value, not an object or array";

/// The candidate as it is, when it is valid JSON (no repair may change it),
/// alone (a comma or another value after it is the scanner's sequence
/// repair), and not nested deeper than the scanner allows.
fn strict(candidate: Candidate<'_>) -> Option<(Value, usize)> {
    let Candidate { text, start, .. } = candidate;
    let rest = text.get(start..)?;
    // Parsing prose as strict JSON would be wasted work: the character after
    // the opener tells whether the candidate can be valid JSON at all.
    let first = rest.get(1..)?.trim_start().chars().next()?;
    let may_be_valid = match rest.as_bytes()[0] {
        b'{' => matches!(first, '"' | '}'),
        b'[' => {
            matches!(first, '"' | '{' | '[' | ']' | '-' | 't' | 'f' | 'n') || first.is_ascii_digit()
        }
        _ => false,
    };
    if !may_be_valid {
        return None;
    }
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    let value = values.next()?.ok()?;
    let end = start + values.byte_offset();
    let after = text.get(end..)?.trim_start();
    let alone = !after.starts_with([',', '{', '[']);
    let container = value.is_object() || value.is_array();
    (alone && container && depth(&value) <= repair::MAX_DEPTH).then_some((value, end))
}

/// How deep a parsed value nests (`serde_json` has already bounded it).
fn depth(value: &Value) -> usize {
    let children = match value {
        Value::Array(items) => items.iter().map(depth).max(),
        Value::Object(members) => members.values().map(depth).max(),
        _ => return 0,
    };
    1 + children.unwrap_or(0)
}

/// `line L column C` (both from 1, columns in chars) for a byte offset.
fn position(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line} column {column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_counts_lines_and_chars() {
        assert_eq!(position("ab\ncé\nx", 0), "line 1 column 1");
        assert_eq!(position("ab\ncé\nx", 3), "line 2 column 1");
        assert_eq!(position("ab\ncé\nx", 6), "line 2 column 3");
        assert_eq!(position("ab\ncé\nx", 7), "line 3 column 1");
    }

    #[test]
    fn the_furthest_failure_is_reported() {
        let mut log = Log::default();
        log.fail(None, 0, RepairError::at(1, "near".to_owned()));
        log.fail(None, 5, RepairError::at(9, "far".to_owned()));
        log.fail(None, 10, RepairError::at(14, "tie".to_owned()));
        let summary = log.summary("0123456789abcdef");
        assert!(summary.contains("tried 3 candidates"), "{summary}");
        assert!(
            summary.contains("the array at line 1 column 6, failed at line 1 column 10: far"),
            "{summary}"
        );
    }

    #[test]
    fn a_rejection_explains_more_than_a_parse_failure() {
        let mut log = Log::default();
        log.fail(None, 0, RepairError::at(1, "bad".to_owned()));
        log.reject("the JSON found does not fit".to_owned());
        assert_eq!(log.summary("{x"), "the JSON found does not fit");
    }

    #[test]
    fn nothing_tried_says_why() {
        assert_eq!(
            Log::default().summary("just words"),
            "no object or array in the text"
        );
        assert_eq!(
            Log::default().summary(" 42 "),
            "the text is a bare JSON value, not an object or array"
        );
    }
}
