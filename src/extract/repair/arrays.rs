//! Arrays and groups: items, ellipses, concatenated strings.

use super::*;

impl Scanner<'_> {
    pub(super) fn array_item(&mut self, c: char, frame: Frame) -> Result<(), RepairError> {
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

    /// Repair: `...` or `…` standing for "and so on" in place of an element
    /// or member is dropped.
    pub(super) fn skip_ellipsis(&mut self) -> bool {
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
                self.string(false);
                self.out.remove(joint);
                return true;
            }
        }
        self.cursor.pos = before;
        false
    }
}
