use super::*;

/// The JSON string read from the start of `text`, and where it ended.
fn read(text: &str) -> (String, usize) {
    let mut out = String::new();
    let mut cursor = Cursor { text, pos: 0 };
    read_string(&mut cursor, &mut out, &mut LineCache::default(), false);
    (out, cursor.pos)
}

#[test]
fn plain_string_ends_at_its_quote() {
    assert_eq!(read(r#""abc", 1"#), (r#""abc""#.to_owned(), 5));
}

#[test]
fn every_quote_style_opens_a_string() {
    assert_eq!(read("'a'}").0, r#""a""#);
    assert_eq!(read("“a”:").0, r#""a""#);
    assert_eq!(read("“a\":").0, r#""a""#);
    assert_eq!(read("‘a’]").0, r#""a""#);
    assert_eq!(read("„a“,").0, r#""a""#);
}

#[test]
fn double_quote_is_kept_inside_single_quotes() {
    assert_eq!(read(r#"'say "hi"'}"#).0, r#""say \"hi\"""#);
}

#[test]
fn apostrophe_stays_when_a_later_quote_can_close() {
    assert_eq!(read("'Ben's pie', 1").0, r#""Ben's pie""#);
    assert_eq!(read("'it’s'}").0, r#""it’s""#);
}

#[test]
fn unescaped_inner_quotes_stay_when_a_later_quote_can_close() {
    assert_eq!(read(r#""a "b" c"}"#).0, r#""a \"b\" c""#);
}

#[test]
fn without_a_later_closer_the_first_quote_closes() {
    assert_eq!(read(r#""a" 1}"#), (r#""a""#.to_owned(), 3));
    assert_eq!(read("\"a\" b\n\"c\":").0, r#""a""#);
}

#[test]
fn control_characters_are_escaped() {
    assert_eq!(
        read("\"a\nb\tc\u{1}\u{8}\u{c}\r\"").0,
        r#""a\nb\tc\u0001\b\f\r""#
    );
}

#[test]
fn escapes_are_kept_fixed_or_made_literal() {
    assert_eq!(read(r#""\" \\ \/ \n""#).0, r#""\" \\ \/ \n""#);
    assert_eq!(read(r#""it\'s""#).0, r#""it's""#);
    assert_eq!(read(r#""a\qb""#).0, r#""a\\qb""#);
    assert_eq!(read(r#""\u12""#).0, r#""\\u12""#);
    assert_eq!(read("\"a\\").0, r#""a\\""#);
}

#[test]
fn surrogates_are_paired_or_replaced() {
    assert_eq!(read(r#""\u00E9""#).0, r#""\u00e9""#);
    assert_eq!(read(r#""\ud83d\ude00""#).0, r#""\ud83d\ude00""#);
    assert_eq!(read(r#""\ud83d x""#).0, r#""\ufffd x""#);
    assert_eq!(read(r#""\ud83d\u0041""#).0, r#""\ufffd\u0041""#);
    assert_eq!(read(r#""\ude00""#).0, r#""\ufffd""#);
}

#[test]
fn cut_off_string_is_closed_at_the_end() {
    assert_eq!(read("\"abc"), (r#""abc""#.to_owned(), 4));
}

#[test]
fn line_cache_is_reused_only_where_it_holds() {
    let text = "\"a\" x \"b\",\n\"c\" y \"d\",";
    let closers = Closers::scan(text, 1);
    assert_eq!(closers.last[ASCII], Some(8));
    assert!(closers.answers(5, text.len()));
    assert!(!closers.answers(0, text.len()));
    assert!(!closers.answers(12, text.len()));
    assert!(closers.answers(5, 11));
    let cut = Closers::scan(&text[..6], 1);
    assert!(!cut.answers(5, text.len()));
}
