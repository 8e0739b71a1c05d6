//! The one escaping that keeps a server's text on one line, so that it cannot
//! forge log lines or recolour a terminal; escaping twice changes nothing.

use std::borrow::Cow;
use std::fmt::{self, Write};

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// A writer that passes text on to `W` with those characters escaped.
pub(crate) struct OneLine<W>(pub(crate) W);

impl<W: Write> Write for OneLine<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| needs_escape(c)) {
            self.0.write_str(&rest[..at])?;
            match c {
                '\n' => self.0.write_str("\\n"),
                '\r' => self.0.write_str("\\r"),
                '\t' => self.0.write_str("\\t"),
                other => write!(self.0, "{}", other.escape_unicode()),
            }?;
            rest = &rest[at + c.len_utf8()..];
        }
        self.0.write_str(rest)
    }
}

/// `text` escaped; borrowed when nothing needs it (the usual case).
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    // Writing to a String cannot fail.
    let _ = OneLine(&mut escaped).write_str(text);
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    // The module itself, named in full: a `super` path here would read, to
    // the check for import circles, as an import of `error`.
    use crate::error::one_line::*;

    #[test]
    fn breaks_and_escape_sequences_are_shown_escaped() {
        assert_eq!(
            escape("a\nb\r\nc\td\u{1b}[31me\u{7f}f\u{85}g\u{2028}h\u{2029}i\u{202e}j\u{0}"),
            "a\\nb\\r\\nc\\td\\u{1b}[31me\\u{7f}f\\u{85}g\\u{2028}h\\u{2029}i\\u{202e}j\\u{0}"
        );
    }

    #[test]
    fn plain_text_is_borrowed_and_escaping_twice_changes_nothing() {
        let plain = "HTTP 400: bad \"model\" é 日本 \\n";
        assert!(matches!(escape(plain), Cow::Borrowed(_)));
        let once = escape("x\ny\u{1b}").into_owned();
        assert_eq!(escape(&once), once);
    }

    #[test]
    fn nothing_below_space_survives() {
        let every: String = (0u32..0x2100).filter_map(char::from_u32).collect();
        let escaped = escape(&every);
        assert!(escaped.chars().all(|c| !needs_escape(c)));
        assert!(escaped.bytes().all(|b| b >= 0x20 && b != 0x7f));
    }
}
