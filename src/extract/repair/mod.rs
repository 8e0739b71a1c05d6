//! The repairing scanner: reads almost-JSON from the start of a candidate and
//! writes strict JSON text for `serde_json`. One pass with an explicit stack
//! (deep nesting cannot overflow the thread's stack); each repair happens at
//! its token (marked `Repair:`), never inside a string.

use std::borrow::Cow;

use super::cursor::{leading, Cursor};
use super::numbers::{self, NumberError};
use super::strings::{self, LineCache};

mod containers;
mod values;

use containers::skip_to_close;

/// The deepest nesting accepted. `serde_json` refuses 128 levels, and several
/// top-level values are wrapped in one more array, so stop well before.
pub(crate) const MAX_DEPTH: usize = 120;

/// Strict JSON text, and the byte offset in the text where the value(s)
/// it came from end.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Repaired {
    pub json: String,
    pub end: usize,
    /// Whether an unquoted string was guessed where prose is likely (inside
    /// prose, or in an array outside any object: `[Note] The answer is`).
    pub guessed: bool,
}

/// Why a candidate could not be repaired; `offset` is a byte offset into the
/// text, always on a char boundary.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RepairError {
    pub offset: usize,
    pub message: Cow<'static, str>,
    /// Where the search may look next: past the candidate's end when it was
    /// already JSON (a key or a complete item), so no part of it is offered.
    pub resume: usize,
}

impl RepairError {
    /// An error whose search resumes where it happened.
    pub(crate) fn at(offset: usize, message: impl Into<Cow<'static, str>>) -> Self {
        RepairError {
            offset,
            message: message.into(),
            resume: offset,
        }
    }
}

/// A place where the JSON might be: from byte `start` to the end of `text`
/// (where cut-off output gets closed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<'a> {
    pub text: &'a str,
    pub start: usize,
    /// Whether the candidate starts the reply or its fenced block, which
    /// decides how bold a repair may be: there an array of bare words
    /// (`[a, b]`) is data; inside prose, `[the docs](link)` is not.
    pub leads: bool,
}

/// Repairs the value(s) of `candidate`, which must begin with `{` or `[` (or
/// `(` when it leads). Repair: several top-level values in a row become one
/// array; one that cannot be repaired ends the sequence.
pub(crate) fn repair_at(
    candidate: Candidate<'_>,
    lines: &mut LineCache,
) -> Result<Repaired, RepairError> {
    let mut scanner = Scanner {
        cursor: Cursor {
            text: candidate.text,
            pos: candidate.start,
        },
        out: String::new(),
        stack: Vec::new(),
        content: false,
        keyed: false,
        leads: candidate.leads,
        guessed: false,
        last_closed: None,
        lines,
    };
    scanner.values()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Object,
    Array,
    /// `( ... )`: a Python tuple or a wrapper call such as `ObjectId("1")`.
    /// Written as an array, or as its only item.
    Group,
}

impl Kind {
    /// The kind an opening or closing bracket belongs to.
    fn of(c: char) -> Option<Kind> {
        match c {
            '{' | '}' => Some(Kind::Object),
            '[' | ']' => Some(Kind::Array),
            '(' | ')' => Some(Kind::Group),
            _ => None,
        }
    }
}

/// What an object expects next; an array always expects a value (or its end).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Key,
    Colon,
    Value,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: Kind,
    expect: Expect,
    /// Members or elements begun so far; commas are written lazily, before
    /// the next one begins, which is what drops trailing commas.
    count: usize,
    /// Output length before this container (and the comma before it).
    out_start: usize,
    /// Where this container's opening character is in the output.
    open_at: usize,
    /// Output length before the current member (and its comma).
    item_start: usize,
}

struct Scanner<'a> {
    cursor: Cursor<'a>,
    out: String,
    stack: Vec<Frame>,
    /// Whether the current top-level value holds anything complete; a cut-off
    /// `[` or `{"a` alone is not taken as JSON.
    content: bool,
    /// Whether the current top-level value holds a key: with one, it is
    /// JSON even before any value is complete.
    keyed: bool,
    leads: bool,
    /// See `Repaired::guessed`.
    guessed: bool,
    /// The top-level object just closed, kept in case its closer was a stray
    /// one in the middle of it (`{"a": 1}, "b": 2}`).
    last_closed: Option<Frame>,
    lines: &'a mut LineCache,
}

impl Scanner<'_> {
    /// One top-level value, or several in a row (made into an array).
    fn values(&mut self) -> Result<Repaired, RepairError> {
        self.skip_trivia();
        // Repair: a Python tuple that is the whole reply or fenced block is
        // an array.
        let group = self.leads && self.cursor.peek() == Some('(');
        if !group && !matches!(self.cursor.peek(), Some('{' | '[')) {
            return Err(self.error_here("expected '{' or '['"));
        }
        if let Err(mut error) = self.container() {
            // A value that was already JSON (a key or a complete item), or
            // nests too deep, is passed over to its end.
            if self.content || self.keyed || self.stack.len() >= MAX_DEPTH {
                error.resume = skip_to_close(self.cursor.text, error.offset, self.stack.len());
            }
            return Err(error);
        }
        let mut count = 1;
        let mut good = (self.cursor.pos, self.out.len());
        loop {
            // Trivia and commas separate top-level values.
            self.skip_trivia();
            if self.cursor.peek() == Some(',') {
                self.cursor.bump();
                continue;
            }
            if !matches!(self.cursor.peek(), Some('{' | '[')) {
                break;
            }
            self.out.push(',');
            if self.container().is_err() {
                break;
            }
            count += 1;
            good = (self.cursor.pos, self.out.len());
        }
        let (end, out_len) = good;
        self.out.truncate(out_len);
        let json = std::mem::take(&mut self.out);
        let json = if count > 1 { format!("[{json}]") } else { json };
        Ok(Repaired {
            json,
            end,
            guessed: self.guessed,
        })
    }

    fn error_here(&self, expected: &str) -> RepairError {
        let found = match self.cursor.peek() {
            Some(c) if c.is_control() => format!("U+{:04X}", u32::from(c)),
            Some(c) => format!("'{c}'"),
            None => "the end of the text".to_owned(),
        };
        RepairError::at(self.cursor.pos, format!("{expected}, found {found}"))
    }

    /// The kind of the container around the innermost one.
    fn parent_kind(&self) -> Option<Kind> {
        self.stack.iter().rev().nth(1).map(|frame| frame.kind)
    }
}

pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{feff}' | '\u{200b}' | '\u{180e}')
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// At most 40 chars of a word, for error messages.
pub(super) fn shorten(word: &str) -> String {
    let mut short: String = word.chars().take(40).collect();
    if short.len() < word.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests;
