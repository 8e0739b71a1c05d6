//! Reasoning ("thinking") in every field servers use (docs/reasoning.md),
//! read, and written back in the field it came in.

use serde_json::Value;

use crate::conversation::message::{Reasoning, ReasoningField};

pub(crate) const THINK_OPEN: &str = "<think>";
pub(crate) const THINK_CLOSE: &str = "</think>";

/// The reasoning fields of an assistant message as a server sent them.
#[derive(Debug, Default)]
pub(crate) struct ReasoningFields {
    pub(crate) reasoning_content: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) reasoning_details: Option<Value>,
    /// The text of the `thinking` chunks of a `content` list (Mistral).
    pub(crate) thinking: Option<String>,
}

impl ReasoningFields {
    /// The reasoning these fields hold and the content without its think
    /// block. A field with text wins over a think block.
    pub(crate) fn read(self, content: Option<String>) -> (Option<Reasoning>, Option<String>) {
        let parts = self.reasoning_details.as_ref().and_then(Value::as_array);
        let details_text = parts.and_then(|parts| details_text(parts));
        let details = self
            .reasoning_details
            .as_ref()
            .filter(|details| !details.is_null())
            .map(Value::to_string);
        let found = first_text([
            (self.reasoning_content, ReasoningField::ReasoningContent),
            (self.reasoning, ReasoningField::Reasoning),
            (details_text, ReasoningField::ReasoningDetails),
            (self.thinking, ReasoningField::ContentChunks),
        ]);
        let think = found
            .is_none()
            .then(|| content.as_deref().and_then(split_think));
        if let Some(Some((thinking, rest))) = think {
            let reasoning = Reasoning::new(thinking, ReasoningField::ThinkTags);
            return (Some(reasoning), Some(rest));
        }
        // Details without text (only encrypted or summarised parts) are
        // still the server's, to send back: a reasoning with no text.
        let textless = details.as_deref().is_some_and(|details| details != "[]");
        let found = found.or(textless.then(|| (String::new(), ReasoningField::ReasoningDetails)));
        let reasoning = found.map(|(text, field)| Reasoning {
            text,
            field,
            details,
        });
        (reasoning, content)
    }
}

/// The first of the fields that holds text, in the order given.
pub(crate) fn first_text(
    fields: [(Option<String>, ReasoningField); 4],
) -> Option<(String, ReasoningField)> {
    let mut fields = fields.into_iter();
    fields.find_map(|(text, field)| Some((text.filter(|text| !text.is_empty())?, field)))
}

/// Splits a leading `<think>…</think>` block (after blanks) off `content`:
/// the thinking, trimmed, and the rest, its leading blanks dropped. A block
/// that never closes (a reply cut by the token limit) is all thinking.
pub(crate) fn split_think(content: &str) -> Option<(String, String)> {
    let inner = content.trim_start().strip_prefix(THINK_OPEN)?;
    let (thinking, rest) = match inner.find(THINK_CLOSE) {
        Some(end) => (&inner[..end], &inner[end + THINK_CLOSE.len()..]),
        None => (inner, ""),
    };
    Some((thinking.trim().to_owned(), rest.trim_start().to_owned()))
}

/// The text of `reasoning_details`: its parts' `text` fields (the
/// `reasoning.text` parts; summaries and encrypted parts carry none), joined.
pub(crate) fn details_text(details: &[Value]) -> Option<String> {
    let text: String = details
        .iter()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    (!text.is_empty()).then_some(text)
}

/// Adds streamed `reasoning_details` parts to those kept, as OpenRouter
/// streams them: a part with the `type` and `index` of the last one kept
/// continues it (`text`, `summary` and `data` appended, other fields such
/// as a closing `signature` taken); parts without an `index` never join.
pub(crate) fn merge_details(kept: &mut Vec<Value>, more: Vec<Value>) {
    for part in more {
        let index = part.get("index").filter(|index| !index.is_null());
        let continues = index.is_some()
            && kept.last().is_some_and(|last| {
                last.get("index") == index && last.get("type") == part.get("type")
            });
        if let (true, Some(Value::Object(last)), Value::Object(fields)) =
            (continues, kept.last_mut(), &part)
        {
            for (key, value) in fields {
                match (last.get_mut(key), value) {
                    (Some(Value::String(text)), Value::String(piece))
                        if matches!(key.as_str(), "text" | "summary" | "data") =>
                    {
                        text.push_str(piece)
                    }
                    (_, Value::Null) => {}
                    (_, value) => _ = last.insert(key.clone(), value.clone()),
                }
            }
            continue;
        }
        kept.push(part);
    }
}

/// `reasoning_details` for a reasoning whose details were not kept (a
/// streamed reply's): one text part.
pub(crate) fn details_of_text(text: &str) -> Value {
    serde_json::json!([{"type": "reasoning.text", "text": text, "index": 0}])
}

/// The fields to write for `reasoning` on the wire: `(name, value)` pairs;
/// think tags and chunks go back into the content, which the caller writes.
pub(crate) fn wire_fields(reasoning: &Reasoning) -> Vec<(&'static str, Value)> {
    let text = || Value::from(reasoning.text.as_str());
    let mut fields = match reasoning.field {
        ReasoningField::ReasoningContent => vec![("reasoning_content", text())],
        ReasoningField::Reasoning => vec![("reasoning", text())],
        ReasoningField::ReasoningDetails => Vec::new(),
        ReasoningField::ThinkTags | ReasoningField::ContentChunks => return Vec::new(),
    };
    let details = reasoning.details.as_deref();
    match details.and_then(|details| serde_json::from_str(details).ok()) {
        Some(details) => fields.push(("reasoning_details", details)),
        None if reasoning.field == ReasoningField::ReasoningDetails => {
            fields.push(("reasoning_details", details_of_text(&reasoning.text)))
        }
        None => {}
    }
    fields
}

/// The content as sent back with think-tag reasoning in front of it.
pub(crate) fn with_think_block(thinking: &str, content: &str) -> String {
    format!("{THINK_OPEN}\n{thinking}\n{THINK_CLOSE}\n\n{content}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_leading_think_block_is_split_off() {
        assert_eq!(
            split_think("\n<think>\nhmm\n</think>\n\nHello"),
            Some(("hmm".into(), "Hello".into()))
        );
        assert_eq!(
            split_think("<think>cut off"),
            Some(("cut off".into(), "".into()))
        );
        assert_eq!(split_think("Hello <think>x</think>"), None);
    }

    #[test]
    fn fields_win_over_think_tags_in_order() {
        let fields = ReasoningFields {
            reasoning: Some("r".into()),
            reasoning_details: Some(json!([{"type": "reasoning.text", "text": "d"}])),
            ..ReasoningFields::default()
        };
        let (reasoning, content) = fields.read(Some("<think>t</think>a".into()));
        let reasoning = reasoning.unwrap();
        assert_eq!(
            (reasoning.text.as_str(), reasoning.field),
            ("r", ReasoningField::Reasoning)
        );
        assert!(reasoning.details.is_some());
        assert_eq!(content.as_deref(), Some("<think>t</think>a"));
        let details = ReasoningFields {
            reasoning_details: Some(json!([{"type": "reasoning.encrypted", "data": "x"},
                {"type": "reasoning.text", "text": "d1"}, {"type": "reasoning.text", "text": "d2"}])),
            ..ReasoningFields::default()
        };
        let (reasoning, _) = details.read(None);
        assert_eq!(reasoning.unwrap().text, "d1d2");
        // Encrypted parts alone are kept, to go back.
        let encrypted = ReasoningFields {
            reasoning_details: Some(json!([{"type": "reasoning.encrypted", "data": "x"}])),
            ..ReasoningFields::default()
        };
        let reasoning = encrypted.read(None).0.unwrap();
        assert_eq!(reasoning.text, "");
        assert_eq!(wire_fields(&reasoning)[0].1[0]["data"], "x");
    }

    #[test]
    fn streamed_details_merge_by_type_and_index() {
        // https://openrouter.ai/docs/guides/best-practices/reasoning-tokens
        let mut kept = Vec::new();
        merge_details(
            &mut kept,
            vec![json!({"type": "reasoning.text", "text": "Two ", "index": 0, "format": "f"})],
        );
        merge_details(
            &mut kept,
            vec![
                json!({"type": "reasoning.text", "text": "and two.", "index": 0, "signature": null}),
            ],
        );
        merge_details(
            &mut kept,
            vec![json!({"type": "reasoning.text", "text": "", "index": 0, "signature": "sig"})],
        );
        merge_details(
            &mut kept,
            vec![
                json!({"type": "reasoning.encrypted", "data": "ab", "index": 1}),
                json!({"type": "reasoning.encrypted", "data": "cd", "index": 1}),
                json!({"type": "reasoning.summary", "summary": "s"}),
                json!({"type": "reasoning.summary", "summary": "t"}),
            ],
        );
        assert_eq!(
            Value::Array(kept),
            json!([
                {"type": "reasoning.text", "text": "Two and two.", "index": 0, "format": "f", "signature": "sig"},
                {"type": "reasoning.encrypted", "data": "abcd", "index": 1},
                {"type": "reasoning.summary", "summary": "s"},
                {"type": "reasoning.summary", "summary": "t"}
            ])
        );
    }
}
