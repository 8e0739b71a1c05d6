//! A client's secrets, taken out of the texts chatwire composes (errors,
//! log lines), since a server may echo the key or a gateway's token. A
//! reply is never edited: what the model wrote is the caller's.

use crate::error::one_line;

pub(crate) const REDACTED: &str = "[redacted]";

/// Shorter values are not treated as secrets: they would match ordinary
/// text ("on", "1") and hide nothing worth hiding.
pub(crate) const MIN_SECRET_BYTES: usize = 4;

/// Every secret of one client, in the forms a server may echo it: as sent,
/// escaped as inside a JSON string, and escaped as a one-line text shows it.
#[derive(Clone, Default)]
pub(crate) struct Secrets(Vec<String>);

impl Secrets {
    /// Registers a secret (unless shorter than [`MIN_SECRET_BYTES`]).
    pub(crate) fn add(&mut self, value: &str) {
        if value.len() < MIN_SECRET_BYTES {
            return;
        }
        let escaped = serde_json::to_string(value).unwrap_or_default();
        let escaped = escaped.trim_matches('"');
        // A log line escapes an error's text before it is redacted.
        let shown = one_line::escape(value);
        for form in [escaped, &shown] {
            if form != value && !self.0.iter().any(|known| known == form) {
                self.0.push(form.to_owned());
            }
        }
        self.0.push(value.to_owned());
        // Longest first, so a secret that contains another is replaced whole.
        self.0.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    }

    /// `text` with every secret replaced, the longest first.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for secret in &self.0 {
            text = text.replace(secret.as_str(), REDACTED);
        }
        text
    }

    /// An excerpt without any secret, nor a piece of one at either end, where
    /// the cut may have gone through a secret.
    pub(crate) fn redact_excerpt(&self, text: &str) -> String {
        let mut text = self.redact(text);
        for secret in &self.0 {
            redact_cut_ends(&mut text, secret);
        }
        text
    }

    /// Redacts a text in place, copying it only when it holds a secret.
    pub(crate) fn scrub(&self, text: &mut String) {
        // The length first: most texts are shorter than any key.
        let holds = |secret: &String| text.len() >= secret.len() && text.contains(secret.as_str());
        if self.0.iter().any(holds) {
            *text = self.redact(text);
        }
    }
}

/// Replaces a piece of `secret` at either end of `text`, at least
/// [`MIN_SECRET_BYTES`] long.
fn redact_cut_ends(text: &mut String, secret: &str) {
    let longest = secret.len().saturating_sub(1).min(text.len());
    let tail = (MIN_SECRET_BYTES..=longest).rev().find(|&n| {
        let at = text.len() - n;
        text.is_char_boundary(at) && secret.as_bytes().starts_with(&text.as_bytes()[at..])
    });
    if let Some(n) = tail {
        text.replace_range(text.len() - n.., REDACTED);
    }
    let longest = secret.len().saturating_sub(1).min(text.len());
    let head = (MIN_SECRET_BYTES..=longest)
        .rev()
        .find(|&n| text.is_char_boundary(n) && secret.as_bytes().ends_with(&text.as_bytes()[..n]));
    if let Some(n) = head {
        text.replace_range(..n, REDACTED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(values: &[&str]) -> Secrets {
        let mut secrets = Secrets::default();
        for value in values {
            secrets.add(value);
        }
        secrets
    }

    #[test]
    fn every_secret_is_replaced() {
        let secrets = secrets(&["sk-secret-123", "gw-token-9"]);
        assert_eq!(
            secrets.redact("key sk-secret-123 and gw-token-9 again sk-secret-123."),
            "key [redacted] and [redacted] again [redacted]."
        );
    }

    #[test]
    fn json_escaped_secrets_are_replaced() {
        let secrets = secrets(&[r#"a"b\c-token"#]);
        assert_eq!(
            secrets.redact(r#"{"echo":"a\"b\\c-token"}"#),
            r#"{"echo":"[redacted]"}"#
        );
        assert_eq!(secrets.redact(r#"echo a"b\c-token"#), "echo [redacted]");
    }

    #[test]
    fn a_secret_cut_at_either_end_is_replaced() {
        let secrets = secrets(&["sk-secret-123"]);
        assert_eq!(
            secrets.redact_excerpt("the key is sk-secr"),
            "the key is [redacted]"
        );
        assert_eq!(
            secrets.redact_excerpt("ret-123 was the key"),
            "[redacted] was the key"
        );
        assert_eq!(secrets.redact_excerpt("short sk-"), "short sk-");
        // Whole texts (a reply) keep pieces: only an excerpt may have been cut.
        assert_eq!(secrets.redact("ret-123 was the key"), "ret-123 was the key");
    }

    #[test]
    fn secrets_are_found_in_a_one_line_text() {
        // A header value may hold U+0085 (bytes a header allows), which
        // JSON leaves as it is and a one-line text shows as `\u{85}`.
        let secrets = secrets(&["nel\u{85}-token", "tab\tted-token"]);
        let shown = one_line::escape("echo nel\u{85}-token tab\tted-token\n");
        assert_eq!(secrets.redact(&shown), "echo [redacted] [redacted]\\n");
    }

    #[test]
    fn short_values_are_not_secrets() {
        let secrets = secrets(&["on"]);
        assert_eq!(secrets.redact("turn on"), "turn on");
    }
}
