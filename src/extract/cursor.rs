//! A position in the text, and the runs of chars the readers share.

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
}

/// The start of `text` whose chars all satisfy `keep` (possibly empty).
pub(super) fn leading(text: &str, keep: impl Fn(char) -> bool) -> &str {
    let len = text.find(|c| !keep(c)).unwrap_or(text.len());
    text.get(..len).unwrap_or("")
}

/// The chars of `text` and their offsets, without each backslash and the
/// char it escapes.
pub(super) fn unescaped(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut escaped = false;
    text.char_indices().filter(move |&(_, c)| {
        let keep = !escaped && c != '\\';
        escaped = !escaped && c == '\\';
        keep
    })
}
