//! Closers: stray, missing, and the end of cut-off output.

use super::*;

impl Scanner<'_> {
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
            self.out.push(frame.kind.json().1);
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
pub(super) fn skip_to_close(text: &str, from: usize, depth: usize) -> usize {
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
