//! The repairing scanner: reads almost-JSON from the start of a candidate and
//! writes strict JSON text, which `serde_json` then parses.
//!
//! One pass, one explicit stack (no recursion, so deep nesting cannot
//! overflow the thread's stack), no regular expressions: every repair
//! happens at the token where it is needed, so the inside of a string is
//! never rewritten. The repairs are listed in the module docs of
//! `extract`; each one is marked `Repair:` below.

use super::cursor::Cursor;
use super::numbers::{self, NumberError};
use super::strings::{self, LineCache};

/// The deepest nesting accepted. `serde_json` refuses 128 levels, and several
/// top-level values are wrapped in one more array, so stop well before.
pub(crate) const MAX_DEPTH: usize = 120;

/// Strict JSON text, and the byte offset in the text where the value(s)
/// it came from end.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Repaired {
    pub json: String,
    pub end: usize,
}

/// Why a candidate could not be repaired; `offset` is a byte offset into the
/// text, always on a char boundary.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RepairError {
    pub offset: usize,
    pub message: String,
}

/// Repairs the value(s) at the start of `text`; see `repair_at`.
#[cfg(test)]
pub(crate) fn repair(text: &str) -> Result<Repaired, RepairError> {
    repair_at(text, 0, &mut LineCache::default())
}

/// Repairs the value(s) starting at byte `start` of `text`, which must begin
/// (after whitespace and comments) with `{` or `[`. The end of `text` is the
/// end of the candidate: that is where cut-off output gets closed.
///
/// Repair: several top-level objects or arrays separated by whitespace or
/// commas (one object per line) become one array. A later one that cannot be
/// repaired ends the sequence instead of spoiling it, and text after the
/// last value is ignored.
pub(crate) fn repair_at(
    text: &str,
    start: usize,
    lines: &mut LineCache,
) -> Result<Repaired, RepairError> {
    let mut scanner = Scanner::new(text, start, std::mem::take(lines));
    let result = scanner.values();
    *lines = scanner.lines;
    result
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Object,
    Array,
}

impl Kind {
    fn closer(self) -> char {
        match self {
            Kind::Object => '}',
            Kind::Array => ']',
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
    /// Passed on to `strings` (see `LineCache`).
    lines: LineCache,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, start: usize, lines: LineCache) -> Self {
        Scanner {
            cursor: Cursor { text, pos: start },
            out: String::new(),
            stack: Vec::new(),
            content: false,
            lines,
        }
    }

    /// One top-level value, or several in a row (made into an array).
    fn values(&mut self) -> Result<Repaired, RepairError> {
        self.skip_trivia();
        if !matches!(self.cursor.peek(), Some('{' | '[')) {
            return Err(self.error_here("expected '{' or '['"));
        }
        self.container()?;
        let mut count = 1;
        let mut good = (self.cursor.pos, self.out.len());
        loop {
            self.skip_separators();
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
        Ok(Repaired { json, end })
    }

    fn error_here(&self, expected: &str) -> RepairError {
        let message = match self.cursor.peek() {
            Some(c) => format!("{expected}, found {}", describe(c)),
            None => format!("{expected}, found the end of the text"),
        };
        RepairError {
            offset: self.cursor.pos,
            message,
        }
    }

    /// Repair: whitespace includes the byte-order mark and zero-width space,
    /// and `//` line comments and `/* */` block comments are skipped.
    fn skip_trivia(&mut self) {
        loop {
            let rest = self.cursor.rest();
            if let Some(c) = self.cursor.peek().filter(|&c| is_space(c)) {
                self.cursor.pos += c.len_utf8();
            } else if rest.starts_with("//") {
                self.cursor.pos += rest.find('\n').unwrap_or(rest.len());
            } else if let Some(body) = rest.strip_prefix("/*") {
                self.cursor.pos += body.find("*/").map_or(rest.len(), |end| end + 4);
            } else {
                return;
            }
        }
    }

    /// Trivia and commas between top-level values.
    fn skip_separators(&mut self) {
        loop {
            self.skip_trivia();
            if self.cursor.peek() != Some(',') {
                return;
            }
            self.cursor.bump();
        }
    }

    /// Reads one object or array to its end, or to the end of the text
    /// (closing what is open).
    fn container(&mut self) -> Result<(), RepairError> {
        self.content = false;
        self.open()?;
        while let Some(frame) = self.stack.last().copied() {
            self.skip_trivia();
            let Some(c) = self.cursor.peek() else {
                return self.close_truncated();
            };
            match (frame.kind, frame.expect) {
                (Kind::Object, Expect::Key) => self.object_key(c)?,
                (Kind::Object, Expect::Colon) => self.object_colon(c)?,
                (Kind::Object, Expect::Value) => self.object_value(c)?,
                (Kind::Array, _) => self.array_item(c)?,
            }
        }
        Ok(())
    }

    /// Consumes `{` or `[` and pushes its frame.
    fn open(&mut self) -> Result<(), RepairError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error_here(&format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let kind = match self.cursor.bump() {
            Some('{') => Kind::Object,
            Some('[') => Kind::Array,
            _ => return Err(self.error_here("expected '{' or '['")),
        };
        let out_start = self
            .stack
            .last()
            .map_or(self.out.len(), |parent| parent.item_start);
        self.out.push(if kind == Kind::Object { '{' } else { '[' });
        self.stack.push(Frame {
            kind,
            expect: Expect::Key,
            count: 0,
            out_start,
            item_start: self.out.len(),
        });
        Ok(())
    }

    fn top(&mut self) -> Option<&mut Frame> {
        self.stack.last_mut()
    }

    /// Starts a member or element: remembers where it starts and writes the
    /// comma that separates it from the previous one.
    fn begin_item(&mut self) {
        let out_len = self.out.len();
        let needs_comma = match self.top() {
            Some(frame) => {
                frame.item_start = out_len;
                frame.count += 1;
                frame.count > 1
            }
            None => false,
        };
        if needs_comma {
            self.out.push(',');
        }
    }

    fn set_expect(&mut self, expect: Expect) {
        if let Some(frame) = self.top() {
            frame.expect = expect;
        }
    }

    fn object_key(&mut self, c: char) -> Result<(), RepairError> {
        match c {
            '}' | ']' => self.close(c),
            // Repair: trailing, leading and doubled commas are dropped, and a
            // missing comma is supplied (commas are written lazily).
            ',' => {
                self.cursor.bump();
                Ok(())
            }
            _ if self.skip_ellipsis() => Ok(()),
            _ if strings::is_quote(c) => {
                self.begin_item();
                self.string();
                self.set_expect(Expect::Colon);
                Ok(())
            }
            _ if is_word_char(c) => self.bare_key(),
            _ => Err(self.error_here("expected a key or '}'")),
        }
    }

    /// Repair: an unquoted key (`{name: "x"}`, also Python's `{1: "x"}`) is
    /// quoted, but only when a colon follows, so prose in braces is refused.
    fn bare_key(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        let rest = self.cursor.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(is_word_char(c) || c == '-'))
            .map_or(rest.len(), |(i, _)| i);
        let word = rest.get(..len).unwrap_or("");
        let after = rest
            .get(len..)
            .unwrap_or("")
            .trim_start_matches([' ', '\t']);
        if !after.starts_with(':') {
            return Err(RepairError {
                offset: start,
                message: format!("expected a key or '}}', found the word '{}'", shorten(word)),
            });
        }
        self.cursor.pos += len;
        self.begin_item();
        self.out.push('"');
        strings::push_escaped_str(&mut self.out, word);
        self.out.push('"');
        self.set_expect(Expect::Colon);
        Ok(())
    }

    fn object_colon(&mut self, c: char) -> Result<(), RepairError> {
        if c != ':' {
            return Err(self.error_here("expected ':' after the key"));
        }
        self.cursor.bump();
        self.out.push(':');
        self.set_expect(Expect::Value);
        Ok(())
    }

    fn object_value(&mut self, c: char) -> Result<(), RepairError> {
        match c {
            // Repair: a missing value (`{"a": }`, `{"a":, "b": 1}`) is null.
            '}' | ']' | ',' => {
                self.out.push_str("null");
                self.set_expect(Expect::Key);
                Ok(())
            }
            _ => {
                self.set_expect(Expect::Key);
                self.value(c)
            }
        }
    }

    fn array_item(&mut self, c: char) -> Result<(), RepairError> {
        match c {
            ']' | '}' => self.close(c),
            ',' => {
                self.cursor.bump();
                Ok(())
            }
            _ if self.skip_ellipsis() => Ok(()),
            _ => {
                self.begin_item();
                self.value(c)
            }
        }
    }

    /// Repair: `...` or `…` standing for "and so on" in place of an element
    /// or member is dropped.
    fn skip_ellipsis(&mut self) -> bool {
        let rest = self.cursor.rest();
        let len = if rest.starts_with("...") {
            rest.bytes().take_while(|b| *b == b'.').count()
        } else if rest.starts_with('…') {
            '…'.len_utf8()
        } else {
            return false;
        };
        self.cursor.pos += len;
        true
    }

    /// Reads one value; the caller has already begun the item.
    fn value(&mut self, c: char) -> Result<(), RepairError> {
        let next = self.cursor.peek_second();
        match c {
            '{' | '[' => self.open(),
            _ if strings::is_quote(c) => {
                self.string();
                self.content = true;
                Ok(())
            }
            _ if numbers::starts_number(c, next) => self.number(),
            '-' | '+' if next.is_some_and(char::is_alphabetic) => self.signed_word(),
            // A sign cut off by the end of the text: drop it, and the
            // truncation repair drops the unfinished member.
            '-' | '+' if next.is_none() => {
                self.cursor.bump();
                self.unbegin_item();
                Ok(())
            }
            _ if is_word_char(c) => self.word(),
            _ => Err(self.error_here("expected a value")),
        }
    }

    /// Undoes `begin_item` for an element that turned out to be nothing.
    fn unbegin_item(&mut self) {
        let (kind, item_start) = match self.stack.last() {
            Some(frame) => (frame.kind, frame.item_start),
            None => return,
        };
        if kind == Kind::Array {
            self.out.truncate(item_start);
            if let Some(frame) = self.top() {
                frame.count = frame.count.saturating_sub(1);
            }
        } else {
            self.set_expect(Expect::Value);
        }
    }

    /// Repair: fractions, mixed numbers, vulgar fractions, `+1`, `.5`, `1.`,
    /// leading zeros (see `numbers`). A zero denominator fails the candidate.
    fn number(&mut self) -> Result<(), RepairError> {
        match numbers::lex_number(self.cursor.rest()) {
            Ok((number, len)) => {
                self.cursor.pos += len;
                self.out.push_str(&number.to_json());
                self.content = true;
                Ok(())
            }
            Err(NumberError::DivisionByZero { offset }) => Err(RepairError {
                offset: self.cursor.pos + offset,
                message: "division by zero in a fraction".to_owned(),
            }),
            Err(NumberError::NotANumber) => Err(self.error_here("expected a value")),
        }
    }

    /// Repair: Python and JavaScript literals. `True`/`False`/`None`,
    /// `undefined`, `NaN`, `Infinity` (any case) become `true`, `false` or
    /// `null`; JSON has no NaN or infinity. A literal cut off by the end of
    /// the text (`tru`) is completed. Any other bare word fails the candidate.
    fn word(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        let rest = self.cursor.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !is_word_char(c))
            .map_or(rest.len(), |(i, _)| i);
        let word = rest.get(..len).unwrap_or("");
        let at_end = len == rest.len();
        let literal = literal_json(word).or_else(|| at_end.then(|| literal_prefix(word)).flatten());
        match literal {
            Some(json) => {
                self.cursor.pos += len;
                self.out.push_str(json);
                self.content = true;
                Ok(())
            }
            None => Err(RepairError {
                offset: start,
                message: format!("expected a value, found the word '{}'", shorten(word)),
            }),
        }
    }

    /// `-Infinity`, `+inf`, `-NaN`: all null.
    fn signed_word(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        self.cursor.bump();
        let rest = self.cursor.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !is_word_char(c))
            .map_or(rest.len(), |(i, _)| i);
        let word = rest.get(..len).unwrap_or("").to_ascii_lowercase();
        if matches!(word.as_str(), "infinity" | "inf" | "nan") {
            self.cursor.pos += len;
            self.out.push_str("null");
            self.content = true;
            return Ok(());
        }
        self.cursor.pos = start;
        Err(self.error_here("expected a value"))
    }

    /// Consumes a closer. A closer that does not match the innermost
    /// container closes up to the container it does match, and if none
    /// matches, it closes the innermost one.
    ///
    /// Repair: mismatched or missing closers (`{"a": [1, 2}`, `[{"a": 1]`).
    fn close(&mut self, c: char) -> Result<(), RepairError> {
        let wanted = if c == '}' { Kind::Object } else { Kind::Array };
        let depth = self
            .stack
            .iter()
            .rev()
            .position(|frame| frame.kind == wanted)
            .map_or(1, |i| i + 1);
        for _ in 0..depth {
            if let Some(frame) = self.stack.last().copied() {
                if frame.kind == Kind::Object && frame.expect == Expect::Colon {
                    return Err(self.error_here("expected ':' after the key"));
                }
                if frame.kind == Kind::Object && frame.expect == Expect::Value {
                    self.out.push_str("null");
                }
                self.out.push(frame.kind.closer());
                self.stack.pop();
            }
        }
        self.cursor.bump();
        self.content = true;
        Ok(())
    }

    /// Repair: output cut off by a token limit. Unfinished members (a key
    /// without a value) and containers opened just before the cut are
    /// dropped, then every open container is closed. Strings cut off are
    /// closed where they stop (see `string`).
    fn close_truncated(&mut self) -> Result<(), RepairError> {
        self.drop_unfinished_tail();
        if !self.content {
            return Err(self.error_here("expected a complete value"));
        }
        while let Some(frame) = self.stack.pop() {
            self.out.push(frame.kind.closer());
        }
        Ok(())
    }

    fn drop_unfinished_tail(&mut self) {
        while let Some(frame) = self.stack.last().copied() {
            if frame.kind == Kind::Object && frame.expect != Expect::Key {
                self.out.truncate(frame.item_start);
                if let Some(top) = self.top() {
                    top.count = top.count.saturating_sub(1);
                    top.expect = Expect::Key;
                }
            } else if frame.count == 0 && self.stack.len() > 1 {
                self.out.truncate(frame.out_start);
                self.stack.pop();
                self.unfinish_parent();
            } else {
                return;
            }
        }
    }

    /// After dropping an empty child container, its parent's item is
    /// unfinished too: an array element disappears, an object member loses
    /// its value (and is dropped next round).
    fn unfinish_parent(&mut self) {
        if let Some(parent) = self.top() {
            match parent.kind {
                Kind::Array => parent.count = parent.count.saturating_sub(1),
                Kind::Object => parent.expect = Expect::Value,
            }
        }
    }

    /// Reads a string (see `strings` for its repairs).
    fn string(&mut self) {
        self.cursor.pos = strings::read_string(
            self.cursor.text,
            self.cursor.pos,
            &mut self.out,
            &mut self.lines,
        );
    }
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}' || c == '\u{200b}'
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn literal_json(word: &str) -> Option<&'static str> {
    match word.to_ascii_lowercase().as_str() {
        "true" => Some("true"),
        "false" => Some("false"),
        "null" | "none" | "nil" | "undefined" | "nan" | "infinity" | "inf" => Some("null"),
        _ => None,
    }
}

/// `tru`, `fals`, `nul` at the very end of the text: a cut-off literal.
fn literal_prefix(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    ["true", "false", "null"]
        .into_iter()
        .find(|literal| !lower.is_empty() && literal.starts_with(lower.as_str()))
}

/// A char for an error message: quoted if printable, else its code point.
fn describe(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("'{c}'")
    }
}

/// At most 40 chars of a word, for error messages.
fn shorten(word: &str) -> String {
    let mut short: String = word.chars().take(40).collect();
    if short.len() < word.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &str) -> String {
        repair(text).expect("repairable").json
    }

    fn failure(text: &str) -> RepairError {
        repair(text).expect_err("not repairable")
    }

    #[test]
    fn valid_json_passes_through() {
        assert_eq!(
            fixed(r#"{"a": [1, 2.5, "x", true, null]}"#),
            r#"{"a":[1,2.5,"x",true,null]}"#
        );
    }

    #[test]
    fn length_stops_after_the_value() {
        let repaired = repair("[1] and more").expect("repairable");
        assert_eq!(repaired.end, 3);
    }

    #[test]
    fn trailing_and_doubled_commas_are_dropped() {
        assert_eq!(fixed("[1,,2,]"), "[1,2]");
        assert_eq!(fixed(r#"{"a":1,}"#), r#"{"a":1}"#);
        assert_eq!(fixed("[,1]"), "[1]");
    }

    #[test]
    fn missing_commas_are_supplied() {
        assert_eq!(fixed("[{\"a\":1}\n{\"a\":2}]"), r#"[{"a":1},{"a":2}]"#);
        assert_eq!(fixed("{\"a\":1\n\"b\":2}"), r#"{"a":1,"b":2}"#);
    }

    #[test]
    fn top_level_sequence_becomes_an_array() {
        assert_eq!(
            fixed("{\"a\":1}\n{\"a\":2},\n{\"a\":3}"),
            r#"[{"a":1},{"a":2},{"a":3}]"#
        );
    }

    #[test]
    fn a_bad_later_value_ends_the_sequence() {
        let repaired = repair("{\"a\":1}\n{oops}").expect("repairable");
        assert_eq!(repaired.json, r#"{"a":1}"#);
        assert_eq!(repaired.end, 7);
    }

    #[test]
    fn apostrophes_and_inner_quotes_stay_in_the_string() {
        assert_eq!(fixed("{'a': 'Ben's pie'}"), r#"{"a":"Ben's pie"}"#);
        assert_eq!(
            fixed(r#"{"a": "the "best" one"}"#),
            r#"{"a":"the \"best\" one"}"#
        );
    }

    #[test]
    fn two_strings_on_a_line_without_comma_read_as_one() {
        assert_eq!(fixed(r#"["a" "b"]"#), r#"["a\" \"b"]"#);
        assert_eq!(fixed("[\"a\"\n\"b\"]"), r#"["a","b"]"#);
    }

    #[test]
    fn unquoted_keys_need_a_colon() {
        assert_eq!(
            fixed("{name: 'x', two-words: 1, 3: 4}"),
            r#"{"name":"x","two-words":1,"3":4}"#
        );
        assert!(failure("{the answer}").message.contains("the word 'the'"));
    }

    #[test]
    fn comments_are_skipped() {
        assert_eq!(fixed("[1, // one\n 2 /* two */]"), "[1,2]");
        assert_eq!(fixed("[\"//not a comment\"]"), r#"["//not a comment"]"#);
    }

    #[test]
    fn python_and_javascript_literals() {
        assert_eq!(
            fixed("[True, False, None, undefined, NaN, -Infinity, +inf, null]"),
            "[true,false,null,null,null,null,null,null]"
        );
        assert!(failure("[maybe]").message.contains("'maybe'"));
    }

    #[test]
    fn missing_values_become_null() {
        assert_eq!(fixed(r#"{"a": , "b": }"#), r#"{"a":null,"b":null}"#);
    }

    #[test]
    fn mismatched_closers_close_up_to_their_match() {
        assert_eq!(fixed(r#"{"a": [1, 2}"#), r#"{"a":[1,2]}"#);
        assert_eq!(fixed(r#"[{"a": 1]"#), r#"[{"a":1}]"#);
    }

    #[test]
    fn truncated_output_is_closed() {
        assert_eq!(fixed(r#"[{"a": 1}, {"b": "tw"#), r#"[{"a":1},{"b":"tw"}]"#);
        assert_eq!(fixed(r#"[{"a": 1}, {"b": "#), r#"[{"a":1}]"#);
        assert_eq!(fixed(r#"[{"a": 1}, {"b"#), r#"[{"a":1}]"#);
        assert_eq!(fixed(r#"[{"a": 1}, {"#), r#"[{"a":1}]"#);
        assert_eq!(fixed(r#"{"a": 1, "b": ["#), r#"{"a":1}"#);
        assert_eq!(fixed(r#"{"a": 1, "b": -"#), r#"{"a":1}"#);
        assert_eq!(fixed(r#"[1, 2, -"#), "[1,2]");
        assert_eq!(fixed(r#"{"a": tru"#), r#"{"a":true}"#);
        assert_eq!(fixed("[1.5, 2."), "[1.5,2.0]");
    }

    #[test]
    fn truncation_before_any_value_is_not_json() {
        assert!(repair("[").is_err());
        assert!(repair("{\"a\": ").is_err());
        assert!(repair("[[{").is_err());
    }

    #[test]
    fn ellipsis_placeholders_are_dropped() {
        assert_eq!(fixed("[1, 2, ...]"), "[1,2]");
        assert_eq!(fixed("[{\"a\": 1}, …]"), r#"[{"a":1}]"#);
    }

    #[test]
    fn fractions_in_values_but_not_in_strings() {
        assert_eq!(fixed(r#"{"q": 1/2, "n": "1/2"}"#), r#"{"q":0.5,"n":"1/2"}"#);
        assert_eq!(fixed("[1 1/2, 1½, ½, 2 ¾]"), "[1.5,1.5,0.5,2.75]");
    }

    #[test]
    fn division_by_zero_fails_at_the_fraction() {
        let error = failure(r#"{"q": 1/0}"#);
        assert_eq!(error.offset, 6);
        assert!(error.message.contains("division by zero"));
    }

    #[test]
    fn nesting_is_limited() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let error = failure(&deep);
        assert_eq!(error.offset, MAX_DEPTH);
        assert!(error.message.contains("nesting"));
    }

    #[test]
    fn error_offsets_point_at_the_problem() {
        let error = failure(r#"{"a" 1}"#);
        assert_eq!(error.offset, 5);
        assert_eq!(error.message, "expected ':' after the key, found '1'");
    }
}
