//! Where the JSON might be: fenced code blocks, then every `{` or `[`.

use super::cursor::unescaped;

/// A fenced code block (three or more backticks or tildes) whose content
/// may hold JSON.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fence<'a> {
    /// The first word of the info string (`json`, `jsonc`, or empty).
    pub info: &'a str,
    /// The lines between the opening and the closing fence.
    pub content: &'a str,
    /// Byte offset of `content` in the whole text.
    pub offset: usize,
}

/// Whether an info word marks a block as JSON.
fn is_json_info(info: &str) -> bool {
    ["json", "jsonc", "json5", "jsonl", "ndjson"]
        .iter()
        .any(|json| info.eq_ignore_ascii_case(json))
}

/// The fenced blocks worth trying, in the order to try them: blocks marked
/// as JSON, then unmarked blocks, each group in text order. Blocks marked
/// with another language are skipped (the bare scan still sees them). An
/// unclosed block runs to the end of the text (output cut off).
pub(crate) fn json_fences(text: &str) -> Vec<Fence<'_>> {
    let mut fences = Vec::new();
    // Looking past a fence line that sits inside a string costs a scan; the
    // budget keeps the total linear in the text length.
    let mut budget = text.len().saturating_mul(2);
    let mut from = 0;
    while let Some((offset, (fence, info))) =
        lines(text, from).find_map(|(_, end, line)| opener(line).map(|open| (end, open)))
    {
        let json_like = info.is_empty() || is_json_info(info);
        let (content_end, resume) = find_close(text, offset, fence, json_like, &mut budget);
        fences.push(Fence {
            info,
            content: text.get(offset..content_end).unwrap_or(""),
            offset,
        });
        from = resume;
    }
    let marked = fences.iter().filter(|fence| is_json_info(fence.info));
    let unmarked = fences.iter().filter(|fence| fence.info.is_empty());
    marked.chain(unmarked).cloned().collect()
}

/// The next `{` or `[` at or after byte `from`.
pub(crate) fn next_opener(text: &str, from: usize) -> Option<usize> {
    text.get(from..)?.find(['{', '[']).map(|i| from + i)
}

/// The lines of `text` from byte `start` on: where each starts, where the
/// next one starts, and its text without the line break.
fn lines(text: &str, mut start: usize) -> impl Iterator<Item = (usize, usize, &str)> {
    text.get(start..)
        .unwrap_or("")
        .split_inclusive('\n')
        .map(move |raw| {
            start += raw.len();
            (start - raw.len(), start, raw.trim_end_matches(['\n', '\r']))
        })
}

/// Reads an opening fence line: its run of marks and its info word. Any indentation is accepted, because models
/// indent fences inside list items. As in `CommonMark`, the info string of a
/// backtick fence may not contain a backtick, so ```` ```json {"a": 1}``` ````
/// on one line is not a fence (the bare scan finds its JSON).
fn opener(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let mark = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let info = trimmed.trim_start_matches(mark);
    let len = trimmed.len() - info.len();
    if len < 3 || (mark == '`' && info.contains('`')) {
        return None;
    }
    let info = info.trim();
    // `json title="x"` or `json:data` is still json.
    let word_len = info.bytes().take_while(u8::is_ascii_alphanumeric).count();
    Some((trimmed.get(..len)?, info.get(..word_len)?))
}

/// The end of the content of the block that starts at `content_start`, and
/// the offset after its closing line. In a JSON-like block, a closing line
/// inside an open string is passed over unless no later one is outside.
fn find_close(
    text: &str,
    content_start: usize,
    fence: &str,
    json_like: bool,
    budget: &mut usize,
) -> (usize, usize) {
    // Whether a JSON string is open after a line: a fence line inside a
    // multi-line string does not end the block.
    let mut in_string = false;
    let mut first_close = None;
    for (start, end, line) in lines(text, content_start) {
        // The same character, at least as many of them, and nothing else.
        let trimmed = line.trim_matches([' ', '\t']);
        if trimmed.starts_with(fence)
            && trimmed
                .trim_start_matches(|c| fence.starts_with(c))
                .is_empty()
        {
            if !json_like || !in_string {
                return (start, end);
            }
            first_close.get_or_insert((start, end));
        }
        if first_close.is_some() {
            *budget = budget.saturating_sub(end - start);
            if *budget == 0 {
                break;
            }
        }
        in_string ^= unescaped(line).filter(|&(_, c)| c == '"').count() % 2 == 1;
    }
    first_close.unwrap_or((text.len(), text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(text: &str) -> Vec<(&str, &str)> {
        json_fences(text)
            .into_iter()
            .map(|f| (f.info, f.content))
            .collect()
    }

    #[test]
    fn finds_marked_and_unmarked_fences() {
        let text = "a\n```\n[1]\n```\nb\n```json\n[2]\n```\n~~~JSON\n[3]\n~~~\n";
        assert_eq!(
            contents(text),
            vec![("json", "[2]\n"), ("JSON", "[3]\n"), ("", "[1]\n")]
        );
    }

    #[test]
    fn other_languages_are_skipped() {
        assert_eq!(contents("```python\nx = [1]\n```\n"), vec![]);
    }

    #[test]
    fn content_offset_points_into_the_text() {
        let text = "intro\n```json\n{}\n```";
        let fence = &json_fences(text)[0];
        assert_eq!(text.get(fence.offset..fence.offset + 2), Some("{}"));
    }

    #[test]
    fn closing_fence_must_be_long_enough_and_alone() {
        let text = "````json\n[1]\n```\n[2]\n```` \nafter";
        assert_eq!(contents(text), vec![("json", "[1]\n```\n[2]\n")]);
    }

    #[test]
    fn unclosed_fence_runs_to_the_end() {
        assert_eq!(contents("```json\n[1, 2"), vec![("json", "[1, 2")]);
    }

    #[test]
    fn inline_fence_is_not_a_fence() {
        assert_eq!(contents("```json {\"a\": 1}```"), vec![]);
    }

    #[test]
    fn info_word_stops_at_punctuation() {
        assert_eq!(contents("```json:data\n{}\n```"), vec![("json", "{}\n")]);
    }

    #[test]
    fn indented_fences_count() {
        assert_eq!(
            contents("1. list\n   ```json\n   [1]\n   ```\n"),
            vec![("json", "   [1]\n")]
        );
    }

    #[test]
    fn fence_line_inside_a_string_does_not_close_the_block() {
        let text = "```json\n{\"code\": \"a\n```\nb\"}\n```\n";
        assert_eq!(
            contents(text),
            vec![("json", "{\"code\": \"a\n```\nb\"}\n")]
        );
    }

    #[test]
    fn unbalanced_quote_falls_back_to_the_first_closing_line() {
        let text = "```json\n{\"a\": \"b}\n```\nprose\n";
        assert_eq!(contents(text), vec![("json", "{\"a\": \"b}\n")]);
    }

    #[test]
    fn next_opener_finds_braces_and_brackets() {
        assert_eq!(next_opener("ab{c[", 0), Some(2));
        assert_eq!(next_opener("ab{c[", 3), Some(4));
        assert_eq!(next_opener("ab{c[", 5), None);
        assert_eq!(next_opener("ab", 9), None);
    }
}
