//! Reading the strings models write (any quote style, unescaped quotes and
//! newlines, broken escapes) and writing them as JSON strings.

use std::fmt::Write as _;

use super::cursor::{unescaped, Cursor};

pub(crate) fn is_quote(c: char) -> bool {
    quote_family(c).is_some()
}

/// What the reader learned about the line it was on, kept between the
/// candidates of one text so that no line is scanned over and over.
#[derive(Debug, Default)]
pub(crate) struct LineCache {
    closers: Option<Closers>,
    /// Bytes read ahead for embedded JSON so far (see `embedded_len`).
    lookahead: usize,
}

/// Reads the string whose opening quote is at the cursor, writes it to `out`
/// as a JSON string, and leaves the cursor just after it. In an object's
/// value (`member`), `, "key":` ends a string missing its closing quote.
pub(crate) fn read_string(
    cursor: &mut Cursor<'_>,
    out: &mut String,
    lines: &mut LineCache,
    member: bool,
) {
    let Some(family) = cursor.bump().and_then(quote_family) else {
        return;
    };
    out.push('"');
    let member = member && family == ASCII;
    while let Some(c) = cursor.peek() {
        let rest = cursor.rest();
        let after = rest.get(1..).unwrap_or("");
        if member && c == ',' && key_follows(after) {
            break;
        }
        if member && c == '{' && after.starts_with('"') {
            if let Some(len) = lines.embedded_len(cursor) {
                push_escaped_str(out, rest.get(..len).unwrap_or(""));
                cursor.pos += len;
                continue;
            }
        }
        cursor.bump();
        if c == '\\' {
            escape(cursor, out);
        } else if closes(family, c)
            && (ends_string_at(cursor.rest()) || !lines.later_closer_on_line(cursor, family))
        {
            break;
        } else {
            push_escaped_char(out, c);
        }
    }
    out.push('"');
}

impl LineCache {
    /// Repair: the length of JSON written unescaped inside a string, from the
    /// `{` at the cursor, when its braces pair up on the line. Reading ahead
    /// at most twice the text's length in a search keeps it linear.
    fn embedded_len(&mut self, cursor: &Cursor<'_>) -> Option<usize> {
        if self.lookahead > cursor.text.len().saturating_mul(2) {
            return None;
        }
        let mut depth = 0_usize;
        for (i, c) in cursor.rest().char_indices() {
            self.lookahead += c.len_utf8();
            match c {
                '{' | '[' => depth += 1,
                '}' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                '\n' => return None,
                _ => {}
            }
        }
        None
    }

    /// Whether a quote later on the line could close the string (then one that
    /// cannot end it stays in it: `'Ben's pie'`). Computed once a line (the
    /// last such quote of each family), which keeps it linear.
    fn later_closer_on_line(&mut self, cursor: &Cursor<'_>, family: usize) -> bool {
        let (text, pos) = (cursor.text, cursor.pos);
        let cached = self
            .closers
            .filter(|closers| closers.answers(pos, text.len()));
        let closers = cached.unwrap_or_else(|| Closers::scan(text, pos));
        self.closers = Some(closers);
        closers.last[family].is_some_and(|last| last >= pos)
    }
}

/// Handles what follows a backslash.
fn escape(cursor: &mut Cursor<'_>, out: &mut String) {
    match cursor.peek() {
        Some(c @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't')) => {
            cursor.bump();
            out.push('\\');
            out.push(c);
        }
        // `\uXXXX`, with surrogate pairs checked: a lone one becomes
        // U+FFFD, which `serde_json` would refuse.
        Some('u') => {
            let Some(code) = hex4(cursor.rest().get(1..).unwrap_or("")) else {
                out.push_str("\\\\");
                return;
            };
            cursor.pos += 5;
            let low = cursor.rest().strip_prefix("\\u").and_then(hex4);
            match char::decode_utf16([code, low.unwrap_or(0)]).next() {
                Some(Ok(pair)) if pair.len_utf16() == 2 => {
                    cursor.pos += 6;
                    let _ = write!(out, "\\u{code:04x}\\u{:04x}", low.unwrap_or(0));
                }
                Some(Ok(_)) => {
                    let _ = write!(out, "\\u{code:04x}");
                }
                _ => out.push_str("\\ufffd"),
            }
        }
        Some(c) if is_quote(c) => {
            cursor.bump();
            push_escaped_char(out, c);
        }
        // A backslash before anything else (or at the end) is literal.
        _ => out.push_str("\\\\"),
    }
}

/// Writes `text` as the inside of a JSON string.
pub(crate) fn push_escaped_str(out: &mut String, text: &str) {
    text.chars().for_each(|c| push_escaped_char(out, c));
}

/// Four hex digits at the start of `text` (`from_str_radix` alone would take a `+`).
fn hex4(text: &str) -> Option<u16> {
    let digits = text
        .get(..4)
        .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))?;
    u16::from_str_radix(digits, 16).ok()
}

/// The quote families: the quotes that open a string of each, and those
/// that may close it. The first is the ASCII `"`.
const FAMILIES: [(&[char], &[char]); 4] = [
    (&['"'], &['"']),
    (&['“', '”', '„'], &['"', '“', '”']),
    (&['\'', '‘', '’'], &['\'', '‘', '’']),
    (&['`'], &['`', '´']),
];
const ASCII: usize = 0;

/// The index in `FAMILIES` of the family that `c` opens.
fn quote_family(c: char) -> Option<usize> {
    FAMILIES.iter().position(|(opens, _)| opens.contains(&c))
}

fn closes(family: usize, c: char) -> bool {
    FAMILIES[family].1.contains(&c)
}

/// Whether a quote followed by `after` ends a string: `,` `:` `}` `]`, a
/// comment or the line's end follows, as in valid JSON. Repair: or a string
/// that one of these or a third string follows (`["a" "b" "c"]`).
pub(crate) fn ends_string_at(after: &str) -> bool {
    let after = after.trim_start_matches([' ', '\t']);
    match after_string(after, is_quote, is_closing_quote) {
        Some(rest) => ends_token(rest) || rest.starts_with(is_quote),
        None => ends_token(after),
    }
}

/// Whether `after` (spaces trimmed) starts with `,` `:` `}` `]`, a line
/// break, a comment, or is empty.
fn ends_token(after: &str) -> bool {
    matches!(
        after.chars().next(),
        None | Some(',' | ':' | '}' | ']' | '\n' | '\r' | '/')
    )
}

/// What follows, spaces trimmed, the string that `text` starts with: its
/// opening quote one that `opens`, its closing quote the first char on the
/// same line that `closes`; `None` when there is no such string.
pub(crate) fn after_string(
    text: &str,
    opens: impl Fn(char) -> bool,
    closes: impl Fn(char) -> bool,
) -> Option<&str> {
    let body = text.strip_prefix(opens)?;
    let (end, quote) = body.char_indices().find(|&(_, c)| c == '\n' || closes(c))?;
    let rest = body
        .get(end + quote.len_utf8()..)
        .filter(|_| quote != '\n')?;
    Some(rest.trim_start_matches([' ', '\t']))
}

fn is_closing_quote(c: char) -> bool {
    FAMILIES.iter().any(|(_, closers)| closers.contains(&c))
}

/// Whether `text` (after a comma) is `"key":`: a string on one line and a
/// colon.
pub(crate) fn key_follows(text: &str) -> bool {
    let text = text.trim_start_matches([' ', '\t']);
    after_string(text, |c| c == '"', is_closing_quote).is_some_and(|rest| rest.starts_with(':'))
}

/// For one line, from a given offset to its end: the last quote of each
/// family that `ends_string_at` accepts.
#[derive(Debug, Clone, Copy)]
struct Closers {
    /// Where the scan started; the answers hold from there on.
    from: usize,
    line_end: usize,
    /// The length of the text scanned: a candidate may end before the text.
    text_len: usize,
    last: [Option<usize>; 4],
}

impl Closers {
    /// Scans from `from` to the end of its line (backslash escapes skipped).
    fn scan(text: &str, from: usize) -> Closers {
        let rest = text.get(from..).unwrap_or("");
        let line = rest.split('\n').next().unwrap_or(rest);
        let mut last = [None; 4];
        for (i, c) in unescaped(line) {
            let after = line.get(i + c.len_utf8()..).unwrap_or("");
            for (family, slot) in last.iter_mut().enumerate() {
                if closes(family, c) && ends_string_at(after) {
                    *slot = Some(from + i);
                }
            }
        }
        Closers {
            from,
            line_end: from + line.len(),
            text_len: text.len(),
            last,
        }
    }

    /// Whether this holds for offset `pos` of a candidate text of length
    /// `text_len` (the texts of one search are prefixes of one another): the
    /// same line, and a line that ends the same way in both texts.
    fn answers(&self, pos: usize, text_len: usize) -> bool {
        let same_line = self.from <= pos && pos <= self.line_end;
        let same_end = text_len == self.text_len
            || (self.line_end < self.text_len && self.line_end < text_len);
        same_line && same_end
    }
}

/// Writes `c` as it must appear inside a JSON string.
fn push_escaped_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        c if u32::from(c) < 0x20 => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests;
