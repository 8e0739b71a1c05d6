//! A leading `<think>…</think>` block taken out of streamed content as it
//! arrives, also when a tag is split across deltas: the thinking goes out
//! as reasoning, the rest as content.

use crate::wire::reasoning::{THINK_CLOSE, THINK_OPEN};

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but blanks yet: the content may still open with `<think>`.
    #[default]
    Start,
    /// Inside the block; blanks right after `<think>` are skipped.
    Thinking { started: bool },
    /// Just after `</think>`: blanks are skipped.
    After,
    /// Plain content from here on.
    Content,
}

/// Splits streamed content into reasoning and content.
#[derive(Debug, Default)]
pub(crate) struct ThinkSplitter {
    state: State,
    /// Text held back: blanks or a part of `<think>` at the start, a part
    /// of `</think>` at the end of the thinking so far.
    held: String,
    found: bool,
}

impl ThinkSplitter {
    /// Whether the content opened with a think block.
    pub(crate) fn found(&self) -> bool {
        self.found
    }

    /// Whether content now passes as it is (a caller may skip [`push`](Self::push)).
    pub(crate) fn passes_through(&self) -> bool {
        self.state == State::Content && self.held.is_empty()
    }

    /// Takes the next piece of content; returns the reasoning and the
    /// content it completes (either may be empty).
    pub(crate) fn push(&mut self, text: &str) -> (String, String) {
        let mut reasoning = String::new();
        let mut content = String::new();
        let mut rest = std::mem::take(&mut self.held) + text;
        loop {
            match self.state {
                State::Start => {
                    let trimmed = rest.trim_start();
                    if let Some(inner) = trimmed.strip_prefix(THINK_OPEN) {
                        self.found = true;
                        self.state = State::Thinking { started: false };
                        rest = inner.to_owned();
                    } else if trimmed.is_empty() || THINK_OPEN.starts_with(trimmed) {
                        self.held = rest;
                        break;
                    } else {
                        self.state = State::Content;
                    }
                }
                State::Thinking { started } => {
                    let text = if started { &rest } else { rest.trim_start() };
                    if text.is_empty() {
                        break;
                    }
                    self.state = State::Thinking { started: true };
                    if let Some(end) = text.find(THINK_CLOSE) {
                        reasoning.push_str(text[..end].trim_end());
                        rest = text[end + THINK_CLOSE.len()..].to_owned();
                        self.state = State::After;
                        continue;
                    }
                    // Held back: a part of `</think>` at the end, and the
                    // blanks before it, which end the thinking if it closes.
                    let cut = text.len() - partial_suffix(text, THINK_CLOSE);
                    let cut = text[..cut].trim_end().len();
                    reasoning.push_str(&text[..cut]);
                    self.held = text[cut..].to_owned();
                    break;
                }
                State::After => {
                    let trimmed = rest.trim_start();
                    if trimmed.is_empty() {
                        break;
                    }
                    self.state = State::Content;
                    rest = trimmed.to_owned();
                }
                State::Content => {
                    content.push_str(&rest);
                    break;
                }
            }
        }
        (reasoning, content)
    }

    /// The end of the content: what was held back goes out as what it was
    /// taken for (a block never closed is all reasoning).
    pub(crate) fn finish(&mut self) -> (String, String) {
        let held = std::mem::take(&mut self.held);
        match self.state {
            State::Thinking { .. } => (held, String::new()),
            _ => (String::new(), held),
        }
    }
}

/// The length of the longest end of `text` that `tag` starts with.
fn partial_suffix(text: &str, tag: &str) -> usize {
    (1..tag.len().min(text.len() + 1))
        .rev()
        .find(|&len| {
            text.is_char_boundary(text.len() - len) && tag.starts_with(&text[text.len() - len..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(pieces: &[&str]) -> (String, String, bool) {
        let mut splitter = ThinkSplitter::default();
        let (mut reasoning, mut content) = (String::new(), String::new());
        for piece in pieces {
            let (r, c) = splitter.push(piece);
            reasoning += &r;
            content += &c;
        }
        let (r, c) = splitter.finish();
        (reasoning + &r, content + &c, splitter.found())
    }

    #[test]
    fn tags_split_anywhere_are_found() {
        let whole = "\n<think>\nI think.\n</think>\n\nAnswer <b>.";
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            let (reasoning, content, found) = split(&[a, b]);
            assert_eq!(reasoning, "I think.", "cut at {cut}");
            assert_eq!(content, "Answer <b>.", "cut at {cut}");
            assert!(found);
        }
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(split(&pieces).0, "I think.");
        assert_eq!(split(&pieces).1, "Answer <b>.");
    }

    #[test]
    fn content_without_a_block_passes_untouched() {
        assert_eq!(
            split(&["  <thi", "nk about it"]),
            (String::new(), "  <think about it".into(), false)
        );
        assert_eq!(split(&["Hi <think>x</think>"]).1, "Hi <think>x</think>");
        assert_eq!(split(&["<", "b>bold"]).1, "<b>bold");
        assert_eq!(
            split(&["<think>never closed </thi"]).0,
            "never closed </thi"
        );
    }
}
