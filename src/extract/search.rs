//! Trying the candidates in order and explaining the failure when none works.

use serde_json::Value;

use super::candidates;
use super::repair::{self, RepairError};
use super::strings::LineCache;
use crate::{Error, Result};

/// Tries every candidate in order (fenced blocks, then each `{` or `[` of the
/// text) and returns the first whose repaired JSON `accept` takes.
///
/// `accept` turns the JSON into the caller's type, or says why it does not
/// fit; a candidate that does not fit is passed over like one that does not
/// parse, so an example object earlier in a reply does not hide the answer.
pub(crate) fn search<T>(
    text: &str,
    mut accept: impl FnMut(Value) -> Result<T, String>,
) -> Result<T> {
    if text.is_empty() {
        return Err(no_json("the text is empty".to_owned()));
    }
    if text.trim().is_empty() {
        return Err(no_json("the text is only whitespace".to_owned()));
    }
    let mut log = Log::default();
    let mut lines = LineCache::default();
    for fence in candidates::json_fences(text) {
        let origin = Origin::Fence(fence.info.to_owned());
        let content_end = fence.offset + fence.content.len();
        let candidate = text.get(..content_end).unwrap_or(text);
        match attempt(candidate, fence.offset, &mut lines, &mut accept) {
            Outcome::Found(found) => return Ok(found),
            Outcome::Rejected { why, .. } => log.reject(why),
            Outcome::Failed(error) => log.fail(origin, fence.offset, error),
        }
    }
    let mut from = 0;
    while let Some(start) = candidates::next_opener(text, from) {
        let is_object = text.get(start..).is_some_and(|rest| rest.starts_with('{'));
        // Resume where this candidate stopped: its inside has been read, and
        // starting over at every nested `{` would make the scan quadratic.
        let stopped_at = match attempt(text, start, &mut lines, &mut accept) {
            Outcome::Found(found) => return Ok(found),
            Outcome::Rejected { why, end } => {
                log.reject(why);
                end
            }
            Outcome::Failed(error) => {
                let offset = error.offset;
                log.fail(Origin::Bare(is_object), start, error);
                offset
            }
        };
        // Openers are ASCII, so `start + 1` is a char boundary.
        from = stopped_at.max(start + 1);
    }
    Err(no_json(log.summary(text)))
}

fn no_json(message: String) -> Error {
    Error::NoJson(message)
}

enum Outcome<T> {
    Found(T),
    Rejected { why: String, end: usize },
    Failed(RepairError),
}

/// Repairs, parses and offers to `accept` the candidate that starts at byte
/// `start` of `text` and may run to its end.
fn attempt<T>(
    text: &str,
    start: usize,
    lines: &mut LineCache,
    accept: &mut impl FnMut(Value) -> Result<T, String>,
) -> Outcome<T> {
    let repaired = match repair::repair_at(text, start, lines) {
        Ok(repaired) => repaired,
        Err(error) => return Outcome::Failed(error),
    };
    match serde_json::from_str::<Value>(&repaired.json) {
        Ok(value) => match accept(value) {
            Ok(found) => Outcome::Found(found),
            Err(why) => Outcome::Rejected {
                why,
                end: repaired.end,
            },
        },
        // The scanner writes valid JSON, so this is a limit of serde_json.
        Err(error) => Outcome::Failed(RepairError {
            offset: repaired.end,
            message: format!("the repaired text is not valid JSON: {error}"),
        }),
    }
}

/// Where a candidate came from, for messages.
enum Origin {
    /// A fenced block with this info word.
    Fence(String),
    /// A bare object (`true`) or array (`false`) in the text.
    Bare(bool),
}

impl Origin {
    fn describe(&self) -> String {
        match self {
            Origin::Fence(info) if info.is_empty() => "the unmarked fenced block".to_owned(),
            Origin::Fence(info) => format!("the fenced block marked {info}"),
            Origin::Bare(true) => "the object".to_owned(),
            Origin::Bare(false) => "the array".to_owned(),
        }
    }
}

struct Failure {
    origin: Origin,
    start: usize,
    error: RepairError,
}

/// What was tried, kept small: a count, the failure that got furthest, and
/// the first JSON that was found but refused.
#[derive(Default)]
struct Log {
    tried: usize,
    best: Option<Failure>,
    rejection: Option<String>,
}

impl Log {
    fn fail(&mut self, origin: Origin, start: usize, error: RepairError) {
        self.tried += 1;
        let progress = error.offset.saturating_sub(start);
        let further = self
            .best
            .as_ref()
            .is_none_or(|best| progress > best.error.offset.saturating_sub(best.start));
        if further {
            self.best = Some(Failure {
                origin,
                start,
                error,
            });
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
        let Some(best) = self.best else {
            return if serde_json::from_str::<Value>(text.trim()).is_ok() {
                "the text is a bare JSON value, not an object or array".to_owned()
            } else {
                "no object or array in the text".to_owned()
            };
        };
        let plural = if self.tried == 1 { "" } else { "s" };
        format!(
            "tried {} candidate{plural}; the most promising, {} at {}, failed at {}: {}",
            self.tried,
            best.origin.describe(),
            position(text, best.start),
            position(text, best.error.offset),
            best.error.message
        )
    }
}

/// `line L column C` (both from 1, columns in chars) for a byte offset.
fn position(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).unwrap_or("").chars().count() + 1;
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
        log.fail(
            Origin::Bare(true),
            0,
            RepairError {
                offset: 1,
                message: "near".to_owned(),
            },
        );
        log.fail(
            Origin::Bare(false),
            5,
            RepairError {
                offset: 9,
                message: "far".to_owned(),
            },
        );
        log.fail(
            Origin::Bare(false),
            10,
            RepairError {
                offset: 14,
                message: "tie".to_owned(),
            },
        );
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
        log.fail(
            Origin::Bare(true),
            0,
            RepairError {
                offset: 1,
                message: "bad".to_owned(),
            },
        );
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
