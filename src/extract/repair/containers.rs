//! Walking the containers: opening, items, closers (stray, missing, cut off).

use super::*;

impl Scanner<'_> {
    /// Reads one object or array to its end, or the text's (closing it).
    pub(super) fn container(&mut self) -> Result<(), RepairError> {
        self.content = false;
        self.keyed = false;
        self.last_closed = None;
        self.open()?;
        loop {
            while let Some(frame) = self.stack.last().copied() {
                self.skip_trivia();
                // Repair: a closing fence glued to the JSON ends it, as the
                // end of the text would.
                let fence = self.cursor.rest().starts_with("```");
                let Some(c) = self.cursor.peek().filter(|_| !fence) else {
                    self.close_truncated()?;
                    continue;
                };
                match (frame.kind, frame.expect) {
                    (Kind::Object, Expect::Key) => self.object_key(c, frame),
                    (Kind::Object, Expect::Colon) => self.object_colon(c, frame),
                    (Kind::Object, Expect::Value) => self.object_value(c),
                    (Kind::Array | Kind::Group, _) => self.array_item(c, frame),
                }?;
            }
            if !self.reopen() {
                return Ok(());
            }
        }
    }

    /// Consumes `{`, `[` or `(` and pushes its frame.
    pub(super) fn open(&mut self) -> Result<(), RepairError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error_here(&format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let Some(kind) = self.cursor.peek().and_then(Kind::of) else {
            return Err(self.error_here("expected '{' or '['"));
        };
        self.cursor.bump();
        let out_start = self
            .stack
            .last()
            .map_or(self.out.len(), |parent| parent.item_start);
        let open_at = self.out.len();
        self.out.push(if kind == Kind::Object { '{' } else { '[' });
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
    pub(super) fn reopen(&mut self) -> bool {
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

    /// Starts a member or element, after a comma if it is not the first.
    pub(super) fn begin_item(&mut self) {
        if let Some(frame) = self.stack.last_mut() {
            frame.item_start = self.out.len();
            frame.count += 1;
            if frame.count > 1 {
                self.out.push(',');
            }
        }
    }

    pub(super) fn set_expect(&mut self, expect: Expect) {
        if let Some(frame) = self.stack.last_mut() {
            frame.expect = expect;
        }
    }

    /// A closer, comma or ellipsis between items; `None` when `c` starts one.
    pub(super) fn between_items(&mut self, c: char) -> Option<Result<(), RepairError>> {
        match c {
            '}' | ']' | ')' => Some(self.close(c)),
            // Repair: trailing, leading and doubled commas are dropped, and a
            // missing comma is supplied (commas are written lazily); `...` or
            // `…` standing for "and so on" is dropped.
            ',' | '…' => {
                self.cursor.bump();
                Some(Ok(()))
            }
            '.' if self.cursor.rest().starts_with("...") => {
                self.cursor.pos += leading(self.cursor.rest(), |d| d == '.').len();
                Some(Ok(()))
            }
            _ => None,
        }
    }

    /// Undoes `begin_item` for an element that turned out to be nothing.
    pub(super) fn unbegin_item(&mut self) {
        let Some(frame) = self.stack.last_mut() else {
            return;
        };
        if frame.kind == Kind::Object {
            frame.expect = Expect::Value;
        } else {
            self.out.truncate(frame.item_start);
            frame.count = frame.count.saturating_sub(1);
        }
    }

    /// Repair: whitespace includes the byte-order mark and zero-width space,
    /// and `//` line comments and `/* */` block comments are skipped.
    pub(super) fn skip_trivia(&mut self) {
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

    pub(super) fn array_item(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
        if let Some(done) = self.between_items(c) {
            return done;
        }
        if c == ':' && self.string_item_is_a_key(frame) {
            return self.item_to_member(frame);
        }
        self.begin_item();
        self.value(c)
    }

    /// Whether the last item of the array is a string that a colon now
    /// follows (`["key": "value"]`).
    fn string_item_is_a_key(&self, frame: Frame) -> bool {
        let item = self.out.get(frame.item_start..).unwrap_or("");
        let item = item.strip_prefix(',').unwrap_or(item);
        frame.count > 0 && item.len() >= 2 && item.starts_with('"') && item.ends_with('"')
    }

    /// Repair: JavaScript string concatenation (`'hello' + 'world'`) is one
    /// string. Returns whether a `+` and a string were read.
    pub(super) fn concatenation(&mut self) -> bool {
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
                strings::read_string(&mut self.cursor, &mut self.out, self.lines, false);
                self.out.remove(joint);
                return true;
            }
        }
        self.cursor.pos = before;
        false
    }

    /// Consumes a closer. Repair: a wrong closer closes up to the container it
    /// matches, or only the innermost one when a comma follows (a typo),
    /// unless a member follows that only the outer one can hold; one that
    /// matches nothing is dropped when a comma follows.
    pub(super) fn close(&mut self, c: char) -> Result<(), RepairError> {
        let wanted = Kind::of(c);
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
            Some(depth) if member_follows && self.parent_kind() != Some(Kind::Object) => depth,
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

    pub(super) fn close_one(&mut self) -> Result<(), RepairError> {
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
            self.out
                .push(if frame.kind == Kind::Object { '}' } else { ']' });
        }
        if self.stack.is_empty() {
            self.last_closed = Some(frame);
        }
        Ok(())
    }

    /// Repair: output cut off by a token limit. Unfinished members (a key
    /// without a value) and containers opened just before the cut are
    /// dropped, then every open container is closed.
    pub(super) fn close_truncated(&mut self) -> Result<(), RepairError> {
        while let Some(frame) = self.stack.last().copied() {
            if frame.kind == Kind::Object && frame.expect != Expect::Key {
                self.out.truncate(frame.item_start);
                if let Some(top) = self.stack.last_mut() {
                    top.count = top.count.saturating_sub(1);
                    top.expect = Expect::Key;
                }
            } else if frame.count == 0 && self.stack.len() > 1 {
                // The parent's item is unfinished too: an array element
                // disappears, an object member loses its value (and is
                // dropped next round).
                self.out.truncate(frame.out_start);
                self.stack.pop();
                self.unbegin_item();
            } else {
                break;
            }
        }
        if !self.content {
            return Err(self.error_here("expected a complete value"));
        }
        while !self.stack.is_empty() {
            self.close_one()?;
        }
        self.last_closed = None;
        Ok(())
    }
}

/// From byte `from`, inside `depth` open containers: the offset just past
/// the closer of the outermost one (brackets counted outside `"` strings),
/// or the end of the text.
pub(super) fn skip_to_close(text: &str, from: usize, mut depth: usize) -> usize {
    let rest = text.get(from..).unwrap_or("");
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
