//! Objects: keys quoted or not, missing colons, items that are members.

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
                self.string(false);
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
        let next = self.cursor.peek_second();
        let starts_value = strings::is_quote(c)
            || matches!(c, '{' | '[')
            || numbers::starts_number(c, next)
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

    /// Whether the last item of the array is a string that a colon now
    /// follows (`["key": "value"]`).
    pub(super) fn string_item_is_a_key(&self, frame: Frame) -> bool {
        let item = self.out.get(frame.item_start..).unwrap_or("");
        let item = item.strip_prefix(',').unwrap_or(item);
        frame.count > 0 && item.len() >= 2 && item.starts_with('"') && item.ends_with('"')
    }

    /// Reads a string (see `strings` for its repairs); `member` says it is
    /// an object's value, where a `, "key":` inside it ends it.
    pub(super) fn string(&mut self, member: bool) {
        strings::read_string(&mut self.cursor, &mut self.out, &mut self.lines, member);
    }
}

/// Whether `text` is a string and then the end of a member (`'b'}` or
/// `"b",`): what may follow a key whose colon is missing.
pub(super) fn string_member_follows(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(strings::is_quote)
        && strings::skip_quoted(chars.as_str(), strings::is_quote)
            .trim_start_matches([' ', '\t'])
            .starts_with([',', '}'])
}
