//! Reading numbers the way models write them (`+1`, `.5`, `1 1/2`, `½`, `¹⁄₂`,
//! ...), for the repairing scanner and for quantities given as strings.

use super::cursor::{leading, Cursor};

/// A number read from text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Number {
    /// A decimal number rewritten in JSON syntax. Kept as text so that an
    /// integer stays an integer in the parsed `serde_json::Value`.
    Literal(String),
    /// The value of a fraction; fractions always become `f64`.
    Computed(f64),
}

impl Number {
    /// The JSON text for this number; a value that is not finite (`1e400`,
    /// a fraction with a huge numerator) has no JSON form and becomes `null`.
    pub(crate) fn to_json(&self) -> String {
        match (self, self.as_f64()) {
            (Number::Literal(text), Some(_)) => text.clone(),
            (_, value) => serde_json::Value::from(value).to_string(),
        }
    }

    /// The value as `f64`, or `None` when it is not finite.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        let value = match self {
            Number::Literal(text) => text.parse::<f64>().ok()?,
            Number::Computed(value) => *value,
        };
        value.is_finite().then_some(value)
    }
}

/// Why no number could be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NumberError {
    /// The text does not start with a number.
    NotANumber,
    /// A fraction with a zero denominator; `offset` is where the fraction starts.
    DivisionByZero { offset: usize },
}

/// The Unicode vulgar-fraction characters, and their numerators and
/// denominators at the same place.
const VULGAR: [char; 19] = [
    '¼', '½', '¾', '⅐', '⅑', '⅒', '⅓', '⅔', '⅕', '⅖', '⅗', '⅘', '⅙', '⅚', '⅛', '⅜', '⅝', '⅞', '↉',
];
const NUMERATORS: [u8; 19] = [1, 1, 3, 1, 1, 1, 1, 2, 1, 2, 3, 4, 1, 5, 1, 3, 5, 7, 0];
const DENOMINATORS: [u8; 19] = [4, 2, 4, 7, 9, 10, 3, 3, 5, 5, 5, 5, 6, 6, 8, 8, 8, 8, 3];

/// U+215F FRACTION NUMERATOR ONE: written before a denominator, `⅟8` is 1/8.
const NUMERATOR_ONE: char = '⅟';

const SUPERSCRIPT_DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
const SUBSCRIPT_DIGITS: [char; 10] = ['₀', '₁', '₂', '₃', '₄', '₅', '₆', '₇', '₈', '₉'];

/// `/`, U+2044 FRACTION SLASH and U+2215 DIVISION SLASH all separate a fraction.
fn is_fraction_slash(c: char) -> bool {
    matches!(c, '/' | '⁄' | '∕')
}

fn vulgar_value(c: char) -> Option<f64> {
    let at = VULGAR.iter().position(|&symbol| symbol == c)?;
    Some(f64::from(NUMERATORS[at]) / f64::from(DENOMINATORS[at]))
}

/// The run of superscript or subscript digits (`set`) that starts `text`,
/// and its value (0 when empty).
fn small_digits<'t>(text: &'t str, set: &[char; 10]) -> (&'t str, f64) {
    let digits = leading(text, |c| set.contains(&c));
    let value = digits.chars().fold(0.0, |value, c| {
        value * 10.0 + set.iter().position(|&d| d == c).unwrap_or(0) as f64
    });
    (digits, value)
}

/// True when `c` (followed by `next`) starts a number this module can read.
pub(crate) fn starts_number(c: char, next: Option<char>) -> bool {
    match c {
        '-' | '+' => {
            next.is_some_and(|n| n.is_ascii_digit() || n == '.' || starts_unicode_fraction(n))
        }
        '.' => next.is_some_and(|n| n.is_ascii_digit()),
        _ => c.is_ascii_digit() || starts_unicode_fraction(c),
    }
}

fn starts_unicode_fraction(c: char) -> bool {
    vulgar_value(c).is_some() || c == NUMERATOR_ONE || SUPERSCRIPT_DIGITS.contains(&c)
}

/// Reads the number at the start of `text` and returns it with the number
/// of bytes it took; what follows is the caller's business (`1/2/3` reads
/// `1/2` and leaves `/3`).
pub(crate) fn lex_number(text: &str) -> Result<(Number, usize), NumberError> {
    let negative = text.starts_with('-');
    let pos = usize::from(text.starts_with(['-', '+']));
    let mut cursor = Cursor { text, pos };
    let sign = if negative { -1.0 } else { 1.0 };

    if let Some((value, len)) = unicode_fraction(cursor.rest()) {
        return Ok((Number::Computed(sign * value), cursor.pos + len));
    }

    let integer = leading_digits(cursor.rest());
    cursor.pos += integer.len();
    let fraction = decimal_fraction(&mut cursor, integer.is_empty());
    if integer.is_empty() && fraction.is_none_or(str::is_empty) {
        return Err(NumberError::NotANumber);
    }
    let exponent = exponent(&mut cursor);

    if fraction.is_none() && exponent.is_none() {
        if let Some((value, len)) = fraction_tail(integer, cursor.rest(), cursor.pos)? {
            return Ok((Number::Computed(sign * value), cursor.pos + len));
        }
    }

    // Strict JSON: no `+`, no leading zeros, a `0` around a lone dot.
    let sign = if negative { "-" } else { "" };
    let integer = integer.trim_start_matches('0');
    let integer = if integer.is_empty() { "0" } else { integer };
    let (dot, fraction) = match fraction {
        Some("") => (".", "0"),
        Some(digits) => (".", digits),
        None => ("", ""),
    };
    let literal = format!("{sign}{integer}{dot}{fraction}{}", exponent.unwrap_or(""));
    Ok((Number::Literal(literal), cursor.pos))
}

/// Reads `.digits` after the integer part. A bare trailing dot (`1.`) is
/// taken as part of the number, but not the first dot of an ellipsis (`1...`).
fn decimal_fraction<'a>(cursor: &mut Cursor<'a>, no_integer: bool) -> Option<&'a str> {
    let next = cursor.peek_second();
    let digit_next = next.is_some_and(|d| d.is_ascii_digit());
    if cursor.peek() != Some('.') || next == Some('.') || (no_integer && !digit_next) {
        return None;
    }
    cursor.bump();
    let digits = leading_digits(cursor.rest());
    cursor.pos += digits.len();
    Some(digits)
}

/// Reads an exponent (`e5`, `E-3`). One without digits (`2e`, `1e+`, cut
/// off or mistyped) is dropped when no letter or digit follows it, and not
/// taken otherwise (`1eggs` is not a number).
fn exponent<'a>(cursor: &mut Cursor<'a>) -> Option<&'a str> {
    let rest = cursor.rest();
    let after_e = rest.strip_prefix(['e', 'E'])?;
    let unsigned = after_e.strip_prefix(['+', '-']).unwrap_or(after_e);
    let digits = leading_digits(unsigned);
    let len = rest.len() - unsigned.len() + digits.len();
    if digits.is_empty() {
        let after = rest.get(len..).unwrap_or("");
        if !after.starts_with(char::is_alphanumeric) {
            cursor.pos += len;
        }
        return None;
    }
    cursor.pos += len;
    rest.get(..len)
}

/// After an integer, what makes it a fraction (`/2`) or a mixed number (`½`,
/// ` 1/2`, `-1/2`, not `[1 2]`): the whole value and the bytes taken.
fn fraction_tail(
    integer: &str,
    rest: &str,
    offset: usize,
) -> Result<Option<(f64, usize)>, NumberError> {
    let whole = digits_value(integer);
    if rest.starts_with(is_fraction_slash) {
        let at = offset.saturating_sub(integer.len());
        return Ok(over(rest, at)?.map(|(denominator, len)| (whole / denominator, len)));
    }
    let gap = if rest.starts_with('-') {
        1
    } else {
        rest.len() - rest.trim_start_matches([' ', '\t']).len()
    };
    let after = rest.get(gap..).unwrap_or("");
    if let Some((part, len)) = unicode_fraction(after) {
        return Ok(Some((whole + part, gap + len)));
    }
    let numerator = leading_digits(after);
    if numerator.is_empty() {
        return Ok(None);
    }
    let tail = over(after.get(numerator.len()..).unwrap_or(""), offset + gap)?;
    Ok(tail.map(|(denominator, len)| {
        let value = whole + digits_value(numerator) / denominator;
        (value, gap + numerator.len() + len)
    }))
}

/// A fraction slash and the digits after it: the denominator and the bytes
/// taken. No slash or no digits is no fraction, and a zero denominator fails
/// the number (at `offset`).
fn over(text: &str, offset: usize) -> Result<Option<(f64, usize)>, NumberError> {
    let Some(slash) = text.chars().next().filter(|&c| is_fraction_slash(c)) else {
        return Ok(None);
    };
    let digits = leading_digits(text.get(slash.len_utf8()..).unwrap_or(""));
    if digits.is_empty() {
        return Ok(None);
    }
    let value = digits_value(digits);
    if value == 0.0 {
        return Err(NumberError::DivisionByZero { offset });
    }
    Ok(Some((value, slash.len_utf8() + digits.len())))
}

fn leading_digits(text: &str) -> &str {
    leading(text, |c| c.is_ascii_digit())
}

/// The value of a run of ASCII digits; a run too long for `u64` still has an
/// `f64` value (possibly infinite, which later becomes `null`).
fn digits_value(digits: &str) -> f64 {
    digits.parse::<f64>().unwrap_or(0.0)
}

/// Reads a fraction written with Unicode characters: a vulgar fraction
/// (`½`), `⅟` and a denominator (`⅟8`), or superscript digits, a slash and
/// subscript digits (`¹⁄₂`). A zero denominator is not a fraction.
fn unicode_fraction(text: &str) -> Option<(f64, usize)> {
    let mut chars = text.chars();
    let first = chars.next()?;
    if let Some(value) = vulgar_value(first) {
        return Some((value, first.len_utf8()));
    }
    if first == NUMERATOR_ONE {
        let digits = leading_digits(chars.as_str());
        let denominator = digits_value(digits);
        return (denominator != 0.0).then(|| (1.0 / denominator, first.len_utf8() + digits.len()));
    }
    // `¹⁄₂`, `³⁄₁₆`: superscript numerator, slash, subscript denominator.
    let (numerator, top) = small_digits(text, &SUPERSCRIPT_DIGITS);
    let rest = text.get(numerator.len()..)?;
    let slash = rest.chars().next().filter(|&c| is_fraction_slash(c))?;
    let (denominator, bottom) = small_digits(rest.get(slash.len_utf8()..)?, &SUBSCRIPT_DIGITS);
    let len = numerator.len() + slash.len_utf8() + denominator.len();
    (!numerator.is_empty() && bottom != 0.0).then(|| (top / bottom, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> f64 {
        let (number, _) = lex_number(text).expect("a number");
        number.as_f64().expect("finite")
    }

    fn json(text: &str) -> (String, usize) {
        let (number, len) = lex_number(text).expect("a number");
        (number.to_json(), len)
    }

    #[test]
    fn plain_json_numbers_are_kept_as_written() {
        assert_eq!(json("42,"), ("42".to_owned(), 2));
        assert_eq!(json("-3.25e-2]"), ("-3.25e-2".to_owned(), 8));
        assert_eq!(json("0"), ("0".to_owned(), 1));
    }

    #[test]
    fn sloppy_decimals_become_json() {
        assert_eq!(json("+5").0, "5");
        assert_eq!(json(".5").0, "0.5");
        assert_eq!(json("-.5").0, "-0.5");
        assert_eq!(json("1.").0, "1.0");
        assert_eq!(json("007").0, "7");
        assert_eq!(json("00.25").0, "0.25");
    }

    #[test]
    fn ellipsis_after_a_number_is_not_a_decimal_point() {
        assert_eq!(json("1..."), ("1".to_owned(), 1));
    }

    #[test]
    fn exponent_without_digits_is_dropped_unless_a_word_goes_on() {
        assert_eq!(json("1e"), ("1".to_owned(), 2));
        assert_eq!(json("1e+ "), ("1".to_owned(), 3));
        assert_eq!(json("2e,"), ("2".to_owned(), 2));
        assert_eq!(json("1eggs"), ("1".to_owned(), 1));
    }

    #[test]
    fn fractions_become_f64() {
        assert_eq!(value("1/2"), 0.5);
        assert_eq!(value("3/4"), 0.75);
        assert_eq!(value("1/3"), 1.0 / 3.0);
        assert_eq!(value("-1/4"), -0.25);
        assert_eq!(json("4/2").0, "2.0");
        assert_eq!(value("1⁄2"), 0.5);
    }

    #[test]
    fn mixed_numbers_add_up() {
        assert_eq!(value("1 1/2"), 1.5);
        assert_eq!(value("2  3/4"), 2.75);
        assert_eq!(value("1-1/2"), 1.5);
        assert_eq!(value("-1 1/2"), -1.5);
        assert_eq!(value("1½"), 1.5);
        assert_eq!(value("1 ½"), 1.5);
        assert_eq!(value("2-¼"), 2.25);
    }

    #[test]
    fn every_vulgar_fraction_has_its_value() {
        let table = VULGAR.into_iter().zip(NUMERATORS).zip(DENOMINATORS);
        for ((symbol, numerator), denominator) in table {
            let (numerator, denominator) = (f64::from(numerator), f64::from(denominator));
            assert_eq!(
                value(&symbol.to_string()),
                numerator / denominator,
                "{symbol}"
            );
        }
        assert_eq!(value("⅓"), value("1/3"));
    }

    #[test]
    fn numerator_one_and_superscript_fractions() {
        assert_eq!(value("⅟8"), 0.125);
        assert_eq!(value("¹⁄₂"), 0.5);
        assert_eq!(value("³⁄₁₆"), 3.0 / 16.0);
        assert_eq!(value("1¹⁄₂"), 1.5);
    }

    #[test]
    fn a_number_not_followed_by_a_fraction_ends_at_the_integer() {
        assert_eq!(json("1 2"), ("1".to_owned(), 1));
        assert_eq!(json("1-2"), ("1".to_owned(), 1));
        assert_eq!(json("1/x"), ("1".to_owned(), 1));
        assert_eq!(json("1 /2"), ("1".to_owned(), 1));
        assert_eq!(json("1.5/2"), ("1.5".to_owned(), 3));
    }

    #[test]
    fn division_by_zero_is_an_error_not_infinity() {
        assert_eq!(
            lex_number("1/0"),
            Err(NumberError::DivisionByZero { offset: 0 })
        );
        assert_eq!(
            lex_number("1 1/0"),
            Err(NumberError::DivisionByZero { offset: 2 })
        );
    }

    #[test]
    fn values_beyond_f64_become_null() {
        assert_eq!(json("1e400").0, "null");
        let huge = format!("{}/1", "9".repeat(400));
        assert_eq!(json(&huge).0, "null");
    }

    #[test]
    fn non_numbers_are_refused() {
        assert_eq!(lex_number("abc"), Err(NumberError::NotANumber));
        assert_eq!(lex_number("-"), Err(NumberError::NotANumber));
        assert_eq!(lex_number("."), Err(NumberError::NotANumber));
        assert_eq!(lex_number("⅟0"), Err(NumberError::NotANumber));
    }

    #[test]
    fn starts_number_matches_the_lexer() {
        assert!(starts_number('1', None));
        assert!(starts_number('-', Some('½')));
        assert!(starts_number('.', Some('5')));
        assert!(!starts_number('.', Some('.')));
        assert!(!starts_number('-', Some('I')));
        assert!(starts_number('¹', Some('⁄')));
    }
}
