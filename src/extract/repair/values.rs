//! Values: object members, numbers, literals and unquoted words.

use super::*;

impl Scanner<'_> {
    pub(super) fn object_key(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
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
                strings::read_string(&mut self.cursor, &mut self.out, self.lines, false);
                self.keyed = true;
                self.set_expect(Expect::Colon);
                Ok(())
            }
            // Repair: an object in an array that is missing its closer
            // (`[{"i": 1 {"i": 2}]`) ends where the next object begins.
            '{' if frame.count > 0 && self.parent_kind() == Some(Kind::Array) => {
                // Only in key position, where closing cannot fail.
                let _ = self.close_one();
                Ok(())
            }
            _ if is_word_char(c) => self.bare_key(frame),
            _ => Err(self.error_here("expected a key or '}'")),
        }
    }

    /// Repair: an unquoted key (`{name: "x"}`, `{1: "x"}`) is quoted when a
    /// colon (or a string ending the member: `{a 'b'}`) follows, so prose in
    /// braces is refused; after a member, another word is dropped as a stray.
    pub(super) fn bare_key(&mut self, frame: Frame) -> Result<(), RepairError> {
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
    pub(super) fn object_colon(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
        if c == ',' && frame.count == 1 {
            if let Some(top) = self.stack.last_mut() {
                top.kind = Kind::Array;
                top.expect = Expect::Key;
            }
            self.out.replace_range(frame.open_at..=frame.open_at, "[");
            return Ok(());
        }
        let starts_value = strings::is_quote(c)
            || matches!(c, '{' | '[')
            || numbers::starts_number(c, self.cursor.peek_second())
            || is_word_char(c);
        if c == ':' {
            self.cursor.bump();
        } else if !starts_value {
            return Err(self.error_here("expected ':' after the key"));
        }
        self.out.push(':');
        self.set_expect(Expect::Value);
        Ok(())
    }

    pub(super) fn object_value(&mut self, c: char) -> Result<(), RepairError> {
        self.set_expect(Expect::Key);
        match c {
            // Repair: a missing value (`{"a": }`, `{"a":, "b": 1}`) is null.
            '}' | ']' | ')' | ',' => {
                self.out.push_str("null");
                Ok(())
            }
            _ => self.value(c),
        }
    }

    /// Repair: `["key": "value"]` is `[{"key": "value"}]`: the string item
    /// becomes the first key of an object missing its braces.
    pub(super) fn item_to_member(&mut self, frame: Frame) -> Result<(), RepairError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error_here(&format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let comma = usize::from(self.out.as_bytes().get(frame.item_start) == Some(&b','));
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

    /// Reads one value; the caller has already begun the item.
    pub(super) fn value(&mut self, c: char) -> Result<(), RepairError> {
        let next = self.cursor.peek_second();
        match c {
            '{' | '[' | '(' => self.open(),
            _ if strings::is_quote(c) => {
                let member = self.stack.last().is_some_and(|f| f.kind == Kind::Object);
                strings::read_string(&mut self.cursor, &mut self.out, self.lines, member);
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

    /// Repair: the numbers models write (see `numbers`). A number that runs
    /// on into letters or more digits (`2 cups`, `1.1.1`, a date, a UUID) is
    /// an unquoted string.
    pub(super) fn number(&mut self) -> Result<(), RepairError> {
        match numbers::lex_number(self.cursor.rest()) {
            Ok((number, len)) => {
                let after = self.cursor.rest().get(len..).unwrap_or("");
                if runs_on(after) && self.unquoted_allowed() {
                    return self.unquoted();
                }
                self.put(len, &number.to_json())
            }
            Err(NumberError::DivisionByZero { offset }) => Err(RepairError::at(
                self.cursor.pos + offset,
                "division by zero in a fraction",
            )),
            Err(NumberError::NotANumber) => Err(self.error_here("expected a value")),
        }
    }

    /// Repair: Python and JavaScript literals, also cut off (`tru`); a wrapper
    /// call (`ObjectId("1")`) is its argument; any other word is an unquoted
    /// string where one is allowed.
    pub(super) fn word(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        let rest = self.cursor.rest();
        let word = leading(rest, is_word_char);
        let len = word.len();
        let after = rest.get(len..).unwrap_or("");
        if let Some(json) = literal_json(word, after.is_empty()) {
            return self.put(len, json);
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

    /// Unquoted strings are data inside objects and in arrays that lead the
    /// reply or its fenced block, not in an array in prose (`[the docs](link)`).
    pub(super) fn unquoted_allowed(&self) -> bool {
        self.leads || self.stack.iter().any(|frame| frame.kind == Kind::Object)
    }

    /// Repair: an unquoted string value (`{"city": New York}`, `[a, b]`) runs
    /// to the next separator (see `unquoted_len`), trimmed. A `"` ending it
    /// is a missing opening quote's twin (`[a", "b"]`) and is dropped; in an
    /// object the string runs to such a quote, commas and all (`{"a": b, c.",}`).
    pub(super) fn unquoted(&mut self) -> Result<(), RepairError> {
        let rest = self.cursor.rest();
        let member = self.stack.last().is_some_and(|f| f.kind == Kind::Object);
        let tail = quoted_tail_len(rest).filter(|_| member);
        let len = tail.unwrap_or_else(|| unquoted_len(rest));
        let text = rest.get(..len).unwrap_or("").trim_end();
        let after = rest.get(len..).unwrap_or("");
        let quote = usize::from(after.strip_prefix('"').is_some_and(strings::ends_string_at));
        self.cursor.pos += len + quote;
        self.out.push('"');
        strings::push_escaped_str(&mut self.out, text);
        self.out.push('"');
        self.content = true;
        let in_object = self.stack.iter().any(|frame| frame.kind == Kind::Object);
        self.guessed |= !self.leads || !in_object;
        Ok(())
    }

    /// `-Infinity`, `+inf`, `-NaN`: all null; another signed word is an
    /// unquoted string where one is allowed.
    pub(super) fn signed_word(&mut self) -> Result<(), RepairError> {
        let start = self.cursor.pos;
        self.cursor.bump();
        let word = leading(self.cursor.rest(), is_word_char);
        let len = word.len();
        let word = word.to_ascii_lowercase();
        if matches!(word.as_str(), "infinity" | "inf" | "nan") {
            return self.put(len, "null");
        }
        self.cursor.pos = start;
        if self.unquoted_allowed() {
            return self.unquoted();
        }
        Err(self.error_here("expected a value"))
    }

    /// Consumes `len` bytes that are the complete value `json`.
    fn put(&mut self, len: usize, json: &str) -> Result<(), RepairError> {
        self.cursor.pos += len;
        self.out.push_str(json);
        self.content = true;
        Ok(())
    }
}

/// Whether what follows a number makes it part of an unquoted string: a
/// letter or digit (`57eeeeb1`), `-` `.` `:` and one (`1.1.1`, a date), or a
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
            word.starts_with(char::is_alphabetic) && literal_json(word, false).is_none() && !is_key
        }
        _ => false,
    }
}

/// The length of an unquoted string at the start of `text`: up to a `,` `}`
/// `]` `)` line break, `"` or comment (brackets that pair up are kept).
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

/// The JSON of a Python or JavaScript literal (JSON has no NaN or infinity);
/// with `cut_off` (at the very end of the text), of a prefix of one (`tru`).
fn literal_json(word: &str, cut_off: bool) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    match lower.as_str() {
        "true" => Some("true"),
        "false" => Some("false"),
        "null" | "none" | "nil" | "undefined" | "nan" | "infinity" | "inf" => Some("null"),
        "" => None,
        _ if cut_off => ["true", "false", "null"]
            .into_iter()
            .find(|literal| literal.starts_with(lower.as_str())),
        _ => None,
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
    let rest = strings::after_string(text, strings::is_quote, strings::is_quote);
    rest.is_some_and(|rest| rest.starts_with([',', '}']))
}
