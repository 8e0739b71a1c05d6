//! The repairing scanner: reads almost-JSON from the start of a candidate and
//! writes strict JSON text, which `serde_json` then parses.
//!
//! One pass, one explicit stack (no recursion, so deep nesting cannot
//! overflow the thread's stack), no regular expressions: every repair
//! happens at the token where it is needed, so the inside of a string is
//! never rewritten. The repairs are listed in the module docs of
//! `extract`; each one is marked `Repair:` below.

use super::cursor::{leading, Cursor};
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
    /// Whether the value needed an unquoted string guessed where prose is
    /// likely (in a candidate inside prose, or in an array or tuple outside
    /// any object: `[Note] The answer is ...`): the search then prefers a
    /// later candidate that needs no such guess.
    pub guessed: bool,
}

/// Why a candidate could not be repaired; `offset` is a byte offset into the
/// text, always on a char boundary.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RepairError {
    pub offset: usize,
    pub message: String,
    /// Where the search may look for the next candidate. When the failed
    /// candidate was already JSON (it held a key or a complete item), this
    /// is past its end, so that no part of it is offered as the answer.
    pub resume: usize,
}

impl RepairError {
    /// An error whose search resumes where it happened.
    pub(crate) fn at(offset: usize, message: String) -> Self {
        RepairError {
            offset,
            message,
            resume: offset,
        }
    }
}

/// Where a candidate sits in the reply, which decides how bold a repair may
/// be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Placement {
    /// The candidate starts the reply or its fenced block: an array of bare
    /// words (`[a, b]`) is data.
    Leading,
    /// The candidate starts inside prose: `[the docs](link)` is not data.
    InProse,
}

/// A place where the JSON might be: it starts at byte `start` of `text`,
/// and the end of `text` is the end of the candidate (that is where cut-off
/// output gets closed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate<'a> {
    pub text: &'a str,
    pub start: usize,
    pub placement: Placement,
}

/// Repairs the value(s) at the start of `text`; see `repair_at`.
#[cfg(test)]
pub(crate) fn repair(text: &str) -> Result<Repaired, RepairError> {
    let candidate = Candidate {
        text,
        start: 0,
        placement: Placement::Leading,
    };
    repair_at(candidate, &mut LineCache::default())
}

/// Repairs the value(s) of `candidate`, which must begin (after whitespace
/// and comments) with `{` or `[` (or `(` when it leads the reply).
///
/// Repair: several top-level objects or arrays separated by whitespace or
/// commas (one object per line) become one array. A later one that cannot be
/// repaired ends the sequence instead of spoiling it, and text after the
/// last value is ignored.
pub(crate) fn repair_at(
    candidate: Candidate<'_>,
    lines: &mut LineCache,
) -> Result<Repaired, RepairError> {
    let mut scanner = Scanner::new(candidate, std::mem::take(lines));
    let result = scanner.values();
    *lines = scanner.lines;
    result
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
    fn of_opener(c: char) -> Option<Kind> {
        match c {
            '{' => Some(Kind::Object),
            '[' => Some(Kind::Array),
            '(' => Some(Kind::Group),
            _ => None,
        }
    }

    fn of_closer(c: char) -> Option<Kind> {
        match c {
            '}' => Some(Kind::Object),
            ']' => Some(Kind::Array),
            ')' => Some(Kind::Group),
            _ => None,
        }
    }

    fn json_opener(self) -> char {
        if self == Kind::Object {
            '{'
        } else {
            '['
        }
    }

    fn json_closer(self) -> char {
        if self == Kind::Object {
            '}'
        } else {
            ']'
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
    placement: Placement,
    /// See `Repaired::guessed`.
    guessed: bool,
    /// The top-level object just closed, kept in case its closer was a stray
    /// one in the middle of it (`{"a": 1}, "b": 2}`).
    last_closed: Option<Frame>,
    /// Passed on to `strings` (see `LineCache`).
    lines: LineCache,
}

impl<'a> Scanner<'a> {
    fn new(candidate: Candidate<'a>, lines: LineCache) -> Self {
        let placement = candidate.placement;
        Scanner {
            cursor: Cursor {
                text: candidate.text,
                pos: candidate.start,
            },
            out: String::new(),
            stack: Vec::new(),
            content: false,
            keyed: false,
            placement,
            guessed: false,
            last_closed: None,
            lines,
        }
    }

    /// One top-level value, or several in a row (made into an array).
    fn values(&mut self) -> Result<Repaired, RepairError> {
        self.skip_trivia();
        // Repair: a Python tuple that is the whole reply or fenced block is
        // an array.
        let group = self.placement == Placement::Leading && self.cursor.peek() == Some('(');
        if !group && !matches!(self.cursor.peek(), Some('{' | '[')) {
            return Err(self.error_here("expected '{' or '['"));
        }
        if let Err(error) = self.container() {
            return Err(self.past_failed_value(error));
        }
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
        Ok(Repaired {
            json,
            end,
            guessed: self.guessed,
        })
    }

    /// A failure inside a value that was already JSON (it held a key or a
    /// complete item) or that nests too deep: the search must not look
    /// inside it, so it resumes after the value's end, found by counting
    /// brackets outside strings (or at the end of the text).
    fn past_failed_value(&self, mut error: RepairError) -> RepairError {
        if self.content || self.keyed || self.stack.len() >= MAX_DEPTH {
            error.resume = skip_to_close(self.cursor.text, error.offset, self.stack.len());
        }
        error
    }

    fn error_here(&self, expected: &str) -> RepairError {
        let message = match self.cursor.peek() {
            Some(c) => format!("{expected}, found {}", describe(c)),
            None => format!("{expected}, found the end of the text"),
        };
        RepairError::at(self.cursor.pos, message)
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
        self.keyed = false;
        self.last_closed = None;
        self.open()?;
        loop {
            while let Some(frame) = self.stack.last().copied() {
                self.step(frame)?;
            }
            if !self.reopen() {
                return Ok(());
            }
        }
    }

    /// Reads the next token of the innermost container.
    fn step(&mut self, frame: Frame) -> Result<(), RepairError> {
        self.skip_trivia();
        // Repair: a closing fence glued to the JSON ends it, as the end of
        // the text would.
        if self.cursor.rest().starts_with("```") {
            return self.close_truncated();
        }
        let Some(c) = self.cursor.peek() else {
            return self.close_truncated();
        };
        match (frame.kind, frame.expect) {
            (Kind::Object, Expect::Key) => self.object_key(c, frame),
            (Kind::Object, Expect::Colon) => self.object_colon(c, frame),
            (Kind::Object, Expect::Value) => self.object_value(c),
            (Kind::Array | Kind::Group, _) => self.array_item(c, frame),
        }
    }

    /// Consumes `{`, `[` or `(` and pushes its frame.
    fn open(&mut self) -> Result<(), RepairError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error_here(&format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let Some(kind) = self.cursor.peek().and_then(Kind::of_opener) else {
            return Err(self.error_here("expected '{' or '['"));
        };
        self.cursor.bump();
        let out_start = self
            .stack
            .last()
            .map_or(self.out.len(), |parent| parent.item_start);
        let open_at = self.out.len();
        self.out.push(kind.json_opener());
        self.stack.push(Frame {
            kind,
            expect: Expect::Key,
            count: 0,
            out_start,
            open_at,
            item_start: self.out.len(),
        });
        Ok(())
    }

    /// Repair: a closer in the middle of the top-level object (`{"a": 1},
    /// "b": 2}`) is a stray one when a comma and a key follow it; the
    /// object goes on.
    fn reopen(&mut self) -> bool {
        let Some(frame) = self.last_closed.take() else {
            return false;
        };
        let after = self.cursor.rest().trim_start_matches(is_space);
        let key_follows = after
            .strip_prefix(',')
            .map(|rest| rest.trim_start_matches(is_space))
            .and_then(|rest| rest.chars().next())
            .is_some_and(strings::is_quote);
        if frame.kind != Kind::Object || !key_follows {
            return false;
        }
        self.out.pop();
        self.stack.push(frame);
        true
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

    /// What objects and arrays share between their items: a closer, a comma
    /// or an ellipsis. `None` when `c` starts an item.
    fn between_items(&mut self, c: char) -> Option<Result<(), RepairError>> {
        match c {
            '}' | ']' | ')' => Some(self.close(c)),
            // Repair: trailing, leading and doubled commas are dropped, and a
            // missing comma is supplied (commas are written lazily).
            ',' => {
                self.cursor.bump();
                Some(Ok(()))
            }
            _ if self.skip_ellipsis() => Some(Ok(())),
            _ => None,
        }
    }

    fn object_key(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
        if let Some(done) = self.between_items(c) {
            return done;
        }
        match c {
            // Repair: a colon where a key should be (`{:}`) is dropped.
            ':' => {
                self.cursor.bump();
                Ok(())
            }
            _ if strings::is_quote(c) => {
                self.begin_item();
                self.string(false);
                self.keyed = true;
                self.set_expect(Expect::Colon);
                Ok(())
            }
            // Repair: an object in an array that is missing its closer
            // (`[{"i": 1 {"i": 2}]`) ends where the next object begins.
            '{' if frame.count > 0 && self.parent_is_array() => {
                self.close_innermost();
                Ok(())
            }
            _ if is_word_char(c) => self.bare_key(frame),
            _ => Err(self.error_here("expected a key or '}'")),
        }
    }

    fn parent_is_array(&self) -> bool {
        let parent = self.stack.len().checked_sub(2);
        parent
            .and_then(|i| self.stack.get(i))
            .is_some_and(|frame| frame.kind == Kind::Array)
    }

    /// Repair: an unquoted key (`{name: "x"}`, also Python's `{1: "x"}`) is
    /// quoted, but only when a colon follows (or a string and the end of
    /// the member: `{a 'b'}`), so prose in braces is refused.
    /// After a complete member, a word that is not a key is dropped as a
    /// stray (`{"a": 1, COMMENT "b": 2}`).
    fn bare_key(&mut self, frame: Frame) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        let rest = self.cursor.rest();
        let word = leading(rest, |c| is_word_char(c) || c == '-');
        let len = word.len();
        let after = rest.get(len..).unwrap_or("");
        // Repair: a key missing its opening quote (`{a": 1}`).
        let quote = usize::from(after.starts_with('"'));
        let after = after
            .get(quote..)
            .unwrap_or("")
            .trim_start_matches([' ', '\t']);
        if !after.starts_with(':') && !string_member_follows(after) {
            if frame.count > 0 {
                self.cursor.pos += len;
                return Ok(());
            }
            return Err(RepairError::at(
                start,
                format!("expected a key or '}}', found the word '{}'", shorten(word)),
            ));
        }
        self.cursor.pos += len + quote;
        self.begin_item();
        self.out.push('"');
        strings::push_escaped_str(&mut self.out, word);
        self.out.push('"');
        self.keyed = true;
        self.set_expect(Expect::Colon);
        Ok(())
    }

    /// Repair: a missing colon (`{"a" 1}`) is supplied; keys separated by
    /// commas with no values (`{'a', 'b'}`, a Python set) are an array.
    fn object_colon(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
        if c == ',' && frame.count == 1 {
            self.object_to_array(frame);
            return Ok(());
        }
        if c == ':' {
            self.cursor.bump();
        } else if !starts_value(c, self.cursor.peek_second()) {
            return Err(self.error_here("expected ':' after the key"));
        }
        self.out.push(':');
        self.set_expect(Expect::Value);
        Ok(())
    }

    fn object_to_array(&mut self, frame: Frame) {
        if let Some(top) = self.top() {
            top.kind = Kind::Array;
            top.expect = Expect::Key;
        }
        self.out.replace_range(
            frame.open_at..=frame.open_at,
            &Kind::Array.json_opener().to_string(),
        );
    }

    fn object_value(&mut self, c: char) -> Result<(), RepairError> {
        match c {
            // Repair: a missing value (`{"a": }`, `{"a":, "b": 1}`) is null.
            '}' | ']' | ')' | ',' => {
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

    fn array_item(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
        if let Some(done) = self.between_items(c) {
            return done;
        }
        match c {
            ':' if self.string_item_is_a_key(frame) => self.item_to_member(frame),
            _ => {
                self.begin_item();
                self.value(c)
            }
        }
    }

    /// Whether the last item of the array is a string that a colon now
    /// follows (`["key": "value"]`).
    fn string_item_is_a_key(&self, frame: Frame) -> bool {
        let item = self.out.get(frame.item_start..).unwrap_or("");
        let item = item.strip_prefix(',').unwrap_or(item);
        frame.count > 0 && item.len() >= 2 && item.starts_with('"') && item.ends_with('"')
    }

    /// Repair: `["key": "value"]` is `[{"key": "value"}]`: the string item
    /// becomes the first key of an object missing its braces.
    fn item_to_member(&mut self, frame: Frame) -> Result<(), RepairError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error_here(&format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let comma = usize::from(
            self.out
                .get(frame.item_start..)
                .is_some_and(|s| s.starts_with(',')),
        );
        let open_at = frame.item_start + comma;
        self.out.insert(open_at, '{');
        self.cursor.bump();
        self.out.push(':');
        self.stack.push(Frame {
            kind: Kind::Object,
            expect: Expect::Value,
            count: 1,
            out_start: frame.item_start,
            open_at,
            item_start: open_at + 1,
        });
        Ok(())
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
            '{' | '[' | '(' => self.open(),
            _ if strings::is_quote(c) => {
                let member = self.stack.last().is_some_and(|f| f.kind == Kind::Object);
                self.string(member);
                while self.concatenation() {}
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
            ':' => Err(self.error_here("expected a value")),
            _ => self.word(),
        }
    }

    /// Repair: JavaScript string concatenation (`'hello' + 'world'`) is one
    /// string. Returns whether a `+` and a string were read.
    fn concatenation(&mut self) -> bool {
        let before = self.cursor.pos;
        self.skip_trivia();
        if self.cursor.peek() == Some('+') {
            self.cursor.bump();
            self.skip_trivia();
            if self.cursor.peek().is_some_and(strings::is_quote) {
                // Drop the first string's closing quote and the second's
                // opening one.
                self.out.pop();
                let joint = self.out.len();
                self.string(false);
                self.out.remove(joint);
                return true;
            }
        }
        self.cursor.pos = before;
        false
    }

    /// Undoes `begin_item` for an element that turned out to be nothing.
    fn unbegin_item(&mut self) {
        let (kind, item_start) = match self.stack.last() {
            Some(frame) => (frame.kind, frame.item_start),
            None => return,
        };
        if kind == Kind::Object {
            self.set_expect(Expect::Value);
        } else {
            self.out.truncate(item_start);
            if let Some(frame) = self.top() {
                frame.count = frame.count.saturating_sub(1);
            }
        }
    }

    /// Repair: fractions, mixed numbers, vulgar fractions, `+1`, `.5`, `1.`,
    /// leading zeros (see `numbers`). A zero denominator fails the candidate.
    /// A number that runs on into letters or more digits (`2 cups`,
    /// `1.1.1`, a date, a UUID) is an unquoted string (see `unquoted`).
    fn number(&mut self) -> Result<(), RepairError> {
        match numbers::lex_number(self.cursor.rest()) {
            Ok((number, len)) => {
                let after = self.cursor.rest().get(len..).unwrap_or("");
                if runs_on(after) && self.unquoted_allowed() {
                    return self.unquoted();
                }
                self.cursor.pos += len;
                self.out.push_str(&number.to_json());
                self.content = true;
                Ok(())
            }
            Err(NumberError::DivisionByZero { offset }) => Err(RepairError::at(
                self.cursor.pos + offset,
                "division by zero in a fraction".to_owned(),
            )),
            Err(NumberError::NotANumber) => Err(self.error_here("expected a value")),
        }
    }

    /// Repair: Python and JavaScript literals. `True`/`False`/`None`,
    /// `undefined`, `NaN`, `Infinity` (any case) become `true`, `false` or
    /// `null`; JSON has no NaN or infinity. A literal cut off by the end of
    /// the text (`tru`) is completed. A wrapper call (`ObjectId("1")`) is
    /// its argument. Any other word starts an unquoted string where one is
    /// allowed, and fails the candidate elsewhere.
    fn word(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        let rest = self.cursor.rest();
        let word = leading(rest, is_word_char);
        let len = word.len();
        let after = rest.get(len..).unwrap_or("");
        let at_end = after.is_empty();
        let literal = literal_json(word).or_else(|| at_end.then(|| literal_prefix(word)).flatten());
        if let Some(json) = literal {
            self.cursor.pos += len;
            self.out.push_str(json);
            self.content = true;
            return Ok(());
        }
        if len > 0 && after.starts_with('(') {
            self.cursor.pos += len;
            return self.open();
        }
        if self.unquoted_allowed() {
            return self.unquoted();
        }
        Err(RepairError::at(
            start,
            format!("expected a value, found the word '{}'", shorten(word)),
        ))
    }

    /// Unquoted strings are taken inside objects (a key and a colon say this
    /// is data), and in arrays that start the reply or its fenced block;
    /// not in an array in prose, where `[the docs](link)` is not data.
    fn unquoted_allowed(&self) -> bool {
        self.placement == Placement::Leading
            || self.stack.iter().any(|frame| frame.kind == Kind::Object)
    }

    /// Repair: an unquoted string value (`{"city": New York}`,
    /// `{url: https://a.b/c}`, `[a, b]`) runs to the next `,` `}` `]` `)`,
    /// line break or `"` (brackets inside it are kept when they pair up),
    /// and is trimmed. A `"` that ends it and is followed by a separator is
    /// its missing-opening-quote twin (`[a", "b"]`) and is dropped; in an
    /// object, when such a quote comes before any `:` `}` `]` on the line,
    /// the string runs to it, commas and all (`{"a": b, c.",}`).
    fn unquoted(&mut self) -> Result<(), RepairError> {
        let rest = self.cursor.rest();
        let member = self.stack.last().is_some_and(|f| f.kind == Kind::Object);
        let tail = quoted_tail_len(rest).filter(|_| member);
        let len = tail.unwrap_or_else(|| unquoted_len(rest));
        let text = rest.get(..len).unwrap_or("").trim_end();
        let after = rest.get(len..).unwrap_or("");
        let quote = usize::from(
            after.starts_with('"') && strings::ends_string_at(after.get(1..).unwrap_or("")),
        );
        self.cursor.pos += len + quote;
        self.out.push('"');
        strings::push_escaped_str(&mut self.out, text);
        self.out.push('"');
        self.content = true;
        let in_object = self.stack.iter().any(|frame| frame.kind == Kind::Object);
        self.guessed |= self.placement == Placement::InProse || !in_object;
        Ok(())
    }

    /// `-Infinity`, `+inf`, `-NaN`: all null; another signed word is an
    /// unquoted string where one is allowed.
    fn signed_word(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        self.cursor.bump();
        let word = leading(self.cursor.rest(), is_word_char);
        let len = word.len();
        let word = word.to_ascii_lowercase();
        if matches!(word.as_str(), "infinity" | "inf" | "nan") {
            self.cursor.pos += len;
            self.out.push_str("null");
            self.content = true;
            return Ok(());
        }
        self.cursor.pos = start;
        if self.unquoted_allowed() {
            return self.unquoted();
        }
        Err(self.error_here("expected a value"))
    }

    /// Consumes a closer. Repair: mismatched, missing and stray closers
    /// (`{"a": [1, 2}`, `[{"a": 1]`, `[{"a": 1}}, 2]`). A closer that
    /// matches an outer container closes up to it, unless a comma follows
    /// (`{"a": [1, 2}, "b": 3}`): then it was a typo for the innermost one,
    /// unless a member follows that only the outer one can hold.
    /// A closer that matches nothing is dropped when a comma follows, and
    /// closes the innermost container otherwise.
    fn close(&mut self, c: char) -> Result<(), RepairError> {
        let wanted = Kind::of_closer(c);
        let depth = self
            .stack
            .iter()
            .rev()
            .position(|frame| Some(frame.kind) == wanted)
            .map(|i| i + 1);
        let after = self.cursor.rest().get(c.len_utf8()..).unwrap_or("");
        let after = after.trim_start_matches(is_space);
        let comma_follows = after.starts_with(',');
        let member_follows = comma_follows && strings::key_follows(after.get(1..).unwrap_or(""));
        self.cursor.bump();
        let depth = match depth {
            None if comma_follows => return Ok(()),
            // A member follows: close as far as leaves an object open.
            Some(depth) if member_follows && !self.object_below(1) => depth,
            Some(_) if comma_follows => 1,
            Some(depth) => depth,
            None => 1,
        };
        for _ in 0..depth {
            self.close_one()?;
        }
        self.content = true;
        Ok(())
    }

    /// Whether the container `n` levels below the innermost one is an object.
    fn object_below(&self, n: usize) -> bool {
        let index = self.stack.len().checked_sub(n + 1);
        index
            .and_then(|i| self.stack.get(i))
            .is_some_and(|frame| frame.kind == Kind::Object)
    }

    /// Closes the innermost container without consuming anything.
    fn close_innermost(&mut self) {
        // Only called in key position, where closing cannot fail.
        let _ = self.close_one();
    }

    fn close_one(&mut self) -> Result<(), RepairError> {
        let Some(frame) = self.stack.last().copied() else {
            return Ok(());
        };
        if frame.kind == Kind::Object && frame.expect == Expect::Colon {
            return Err(self.error_here("expected ':' after the key"));
        }
        if frame.kind == Kind::Object && frame.expect == Expect::Value {
            self.out.push_str("null");
        }
        self.stack.pop();
        if frame.kind == Kind::Group && frame.count == 1 && !self.stack.is_empty() {
            // Repair: a group of one (`("x")`, `ObjectId("1")`) is its item.
            self.out.remove(frame.open_at);
        } else {
            self.out.push(frame.kind.json_closer());
        }
        if self.stack.is_empty() {
            self.last_closed = Some(frame);
        }
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
        while !self.stack.is_empty() {
            self.close_one()?;
        }
        self.last_closed = None;
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
                Kind::Object => parent.expect = Expect::Value,
                Kind::Array | Kind::Group => parent.count = parent.count.saturating_sub(1),
            }
        }
    }

    /// Reads a string (see `strings` for its repairs); `member` says it is
    /// an object's value, where a `, "key":` inside it ends it.
    fn string(&mut self, member: bool) {
        strings::read_string(&mut self.cursor, &mut self.out, &mut self.lines, member);
    }
}

/// From byte `from`, inside `depth` open containers: the offset just past
/// the closer of the outermost one (brackets counted outside `"` strings),
/// or the end of the text.
fn skip_to_close(text: &str, from: usize, depth: usize) -> usize {
    let rest = text.get(from..).unwrap_or("");
    let mut depth = depth;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => in_string = !in_string,
            (false, _, '{' | '[') => depth += 1,
            (false, _, '}' | ']') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return from + i + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// Whether what follows a number makes it part of an unquoted string: a
/// letter or digit right after it (`1notanumber`, `57eeeeb1`), `-` `.` `:`
/// and a digit or letter (`10-20`, `1.1.1`, `2024-10-18T18:35`), or a
/// space and a word that is neither a literal nor a key (`2 cups`).
fn runs_on(after: &str) -> bool {
    let mut chars = after.chars();
    match chars.next() {
        Some(c) if is_word_char(c) => true,
        Some('-' | '.' | ':') => chars.next().is_some_and(char::is_alphanumeric),
        Some(' ' | '\t') => {
            let word_start = after.trim_start_matches([' ', '\t']);
            let word = leading(word_start, is_word_char);
            let is_key = word_start
                .get(word.len()..)
                .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'));
            word.starts_with(char::is_alphabetic) && literal_json(word).is_none() && !is_key
        }
        _ => false,
    }
}

/// The length of an unquoted string missing only its opening quote: up to
/// a `"` that a separator follows, with no `:` `}` `]` or line break before
/// it (stopping there keeps a run of unquoted members linear).
fn quoted_tail_len(text: &str) -> Option<usize> {
    let end = text.find(['"', ':', '}', ']', '\n'])?;
    let after = text.get(end..)?.strip_prefix('"')?;
    strings::ends_string_at(after).then_some(end)
}

/// Whether `text` is a string and then the end of a member (`'b'}` or
/// `"b",`): what may follow a key whose colon is missing.
fn string_member_follows(text: &str) -> bool {
    let mut chars = text.chars();
    if !chars.next().is_some_and(strings::is_quote) {
        return false;
    }
    let rest = chars.as_str();
    let Some(end) = rest.find(|c: char| strings::is_quote(c) || c == '\n') else {
        return false;
    };
    let tail = rest.get(end..).unwrap_or("");
    let Some(quote) = tail.chars().next().filter(|c| *c != '\n') else {
        return false;
    };
    let after = tail.get(quote.len_utf8()..).unwrap_or("");
    after
        .trim_start_matches([' ', '\t'])
        .starts_with([',', '}'])
}

/// The length of an unquoted string at the start of `text` (see
/// `Scanner::unquoted`).
fn unquoted_len(text: &str) -> usize {
    let mut depth = 0_usize;
    let mut after_space = false;
    for (i, c) in text.char_indices() {
        let comment = after_space
            && c == '/'
            && matches!(
                text.get(i + 1..).and_then(|r| r.chars().next()),
                Some('/' | '*')
            );
        match c {
            '{' | '[' | '(' => depth += 1,
            ',' if depth > 0 => {}
            '}' | ']' | ')' if depth > 0 => depth -= 1,
            '}' | ']' | ')' | ',' | '\n' | '\r' | '"' => return i,
            _ if comment => return i,
            _ => {}
        }
        after_space = c == ' ' || c == '\t';
    }
    text.len()
}

/// Whether `c` (followed by `next`) can begin a value: what a missing colon
/// may be supplied before.
fn starts_value(c: char, next: Option<char>) -> bool {
    strings::is_quote(c)
        || matches!(c, '{' | '[')
        || numbers::starts_number(c, next)
        || is_word_char(c)
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{feff}' | '\u{200b}' | '\u{180e}')
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

    fn in_prose(text: &str) -> Result<Repaired, RepairError> {
        let candidate = Candidate {
            text,
            start: 0,
            placement: Placement::InProse,
        };
        repair_at(candidate, &mut LineCache::default())
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
    fn two_strings_without_a_comma_are_two_strings() {
        assert_eq!(fixed(r#"["a" "b"]"#), r#"["a","b"]"#);
        assert_eq!(fixed("[\"a\"\n\"b\"]"), r#"["a","b"]"#);
        assert_eq!(fixed(r#"{"a": "x" "b": 1}"#), r#"{"a":"x","b":1}"#);
    }

    #[test]
    fn unquoted_strings_in_objects_and_leading_arrays() {
        assert_eq!(
            fixed("{city: New York, url: https://a.b/c, q: 2 cups}"),
            r#"{"city":"New York","url":"https://a.b/c","q":"2 cups"}"#
        );
        assert_eq!(
            fixed(r#"[a, b", 1notanumber]"#),
            r#"["a","b","1notanumber"]"#
        );
        assert!(in_prose("[the docs]").is_err());
        assert_eq!(
            in_prose("{\"a\": flour}").expect("object").json,
            r#"{"a":"flour"}"#
        );
    }

    #[test]
    fn missing_colons_sets_and_keys_in_arrays() {
        assert_eq!(fixed("{\"a\" 1,\n\"b\" \"c\"}"), r#"{"a":1,"b":"c"}"#);
        assert_eq!(fixed("{'a', 'b'}"), r#"["a","b"]"#);
        assert_eq!(fixed(r#"["a": 1]"#), r#"[{"a":1}]"#);
    }

    #[test]
    fn keys_missing_a_quote_or_a_colon() {
        assert_eq!(fixed(r#"{a":"x",b":"y"}"#), r#"{"a":"x","b":"y"}"#);
        assert_eq!(fixed("{a 'b'}"), r#"{"a":"b"}"#);
        assert_eq!(fixed("{'a' 'b'}"), r#"{"a":"b"}"#);
        assert_eq!(fixed("{:}"), "{}");
        assert!(failure("{the 'best' one}").message.contains("'the'"));
    }

    #[test]
    fn strings_joined_with_plus_across_lines() {
        assert_eq!(fixed("{\"a\": 'x' +\n 'y'}"), r#"{"a":"xy"}"#);
    }

    #[test]
    fn backtick_quotes() {
        assert_eq!(fixed("{`a´: `b`}"), r#"{"a":"b"}"#);
    }

    #[test]
    fn json_inside_a_member_string_stays_in_it() {
        assert_eq!(
            fixed(r#"{"x": "is {"k": [1]}, ok", "y": 2}"#),
            r#"{"x":"is {\"k\": [1]}, ok","y":2}"#
        );
    }

    #[test]
    fn a_leading_tuple_is_an_array() {
        assert_eq!(fixed("((1, 2), ('a'))"), r#"[[1,2],"a"]"#);
        assert_eq!(fixed("(1)"), "[1]");
        assert!(in_prose("(1, 2)").is_err());
    }

    #[test]
    fn groups_are_arrays_or_their_only_item() {
        assert_eq!(
            fixed("{\"t\": (1, 2),\n\"id\": ObjectId(\"7\"),\n\"s\": (\"x\")}"),
            r#"{"t":[1,2],"id":"7","s":"x"}"#
        );
    }

    #[test]
    fn stray_closers_and_missing_object_closers() {
        assert_eq!(fixed(r#"[{"a": 1}}, 2]"#), r#"[{"a":1},2]"#);
        assert_eq!(fixed(r#"{"a": [1}, "b": 2}"#), r#"{"a":[1],"b":2}"#);
        assert_eq!(fixed(r#"{"a": 1}, "b": 2}"#), r#"{"a":1,"b":2}"#);
        assert_eq!(fixed(r#"[{"i": 1 {"i": 2}]"#), r#"[{"i":1},{"i":2}]"#);
    }

    #[test]
    fn a_failure_after_content_resumes_after_the_value() {
        let text = r#"{"a": [1], "b": 1/0} [2]"#;
        let error = failure(text);
        assert_eq!(error.resume, text.find(" [2]").expect("the later array"));
        let error = failure("{the answer} [2]");
        assert_eq!(error.resume, error.offset);
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
        assert!(in_prose("[maybe]")
            .expect_err("a word")
            .message
            .contains("'maybe'"));
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
        let error = failure(r#"{"a" }"#);
        assert_eq!(error.offset, 5);
        assert_eq!(error.message, "expected ':' after the key, found '}'");
    }
}
