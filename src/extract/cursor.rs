//! A position in the text, moved a character at a time; shared by the
//! repairing scanner and the number reader.

/// A tiny cursor over a `&str` that only ever stops on char boundaries.
pub(super) struct Cursor<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(super) fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Consumes a run of ASCII digits and returns it (possibly empty).
    pub(super) fn digits(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest.bytes().take_while(u8::is_ascii_digit).count();
        self.pos += len;
        // ASCII digits are one byte each, so `len` is a char boundary.
        rest.get(..len).unwrap_or("")
    }
}
