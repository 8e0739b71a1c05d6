//! Numbers, literals and unquoted words.

use super::*;

impl Scanner<'_> {
    /// Reads one value; the caller has already begun the item.
    pub(super) fn value(&mut self, c: char) -> Result<(), RepairError> {
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
                "division by zero in a fraction".to_owned(),
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
        self.placement == Placement::Leading
            || self.stack.iter().any(|frame| frame.kind == Kind::Object)
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
