//! Token counts: any may be missing or `null`, a missing total is the sum
//! of the others, cached and reasoning tokens come from the details.

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::reply::Usage;
use crate::wire::Key;

#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    total_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_tokens_details: Option<PromptDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(wire: WireUsage) -> Self {
        let prompt_tokens = wire.prompt_tokens.unwrap_or(0);
        let completion_tokens = wire.completion_tokens.unwrap_or(0);
        Self {
            prompt_tokens,
            completion_tokens,
            total_tokens: wire
                .total_tokens
                .unwrap_or(prompt_tokens.saturating_add(completion_tokens)),
            cached_tokens: wire.prompt_tokens_details.and_then(|d| d.cached_tokens),
            reasoning_tokens: wire
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens),
        }
    }
}

impl Serialize for Usage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WireUsage {
            prompt_tokens: Some(self.prompt_tokens),
            completion_tokens: Some(self.completion_tokens),
            total_tokens: Some(self.total_tokens),
            prompt_tokens_details: self.cached_tokens.map(|cached| PromptDetails {
                cached_tokens: Some(cached),
            }),
            completion_tokens_details: self.reasoning_tokens.map(|reasoning| CompletionDetails {
                reasoning_tokens: Some(reasoning),
            }),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Usage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Usage, D::Error> {
        WireUsage::deserialize(deserializer).map(Usage::from)
    }
}

impl WireUsage {
    /// Sets a field by its place from a value; `false` if of the wrong shape.
    /// A count is read without a deserializer: a number of tokens, or `null`.
    fn set(&mut self, at: u8, value: Value) -> bool {
        fn read<T: serde::de::DeserializeOwned>(slot: &mut T, value: Value) -> bool {
            T::deserialize(value).map(|read| *slot = read).is_ok()
        }
        let slot = match at {
            0 => &mut self.prompt_tokens,
            1 => &mut self.completion_tokens,
            2 => &mut self.total_tokens,
            3 => return read(&mut self.prompt_tokens_details, value),
            _ => return read(&mut self.completion_tokens_details, value),
        };
        match value.as_u64() {
            Some(count) => *slot = Some(count),
            None if value.is_null() => *slot = None,
            None => return false,
        }
        true
    }
}

/// Visitor methods for values that are no usage object.
macro_rules! no_usage {
    ($($visit:ident$(: $kind:ty)?),*) => {$(
        fn $visit<E: serde::de::Error>(self $(, _: $kind)?) -> Result<Option<Usage>, E> {
            Ok(None)
        }
    )*};
}

/// A body's `usage` read in one pass, as leniently as from its own text: a
/// value that is no usage (a wrong shape, a field twice) is `None`, never a
/// failed body.
pub(crate) fn lenient<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Usage>, D::Error> {
    struct Any;
    impl<'de> Visitor<'de> for Any {
        type Value = Option<Usage>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Usage>, A::Error> {
            let mut wire = WireUsage::default();
            // Known fields seen, by bit: a second one spoils the usage.
            let (mut seen, mut good) = (0u8, true);
            while let Some(Key(name)) = map.next_key()? {
                let at = match &*name {
                    "prompt_tokens" => 0,
                    "completion_tokens" => 1,
                    "total_tokens" => 2,
                    "prompt_tokens_details" => 3,
                    "completion_tokens_details" => 4,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                };
                good &= seen & (1 << at) == 0;
                seen |= 1 << at;
                good &= wire.set(at, map.next_value()?);
            }
            Ok(good.then(|| Usage::from(wire)))
        }
        /// As a derived struct reads it (rare enough to go through a tree).
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<Usage>, A::Error> {
            let items = Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
            Ok(Usage::deserialize(Value::Array(items)).ok())
        }
        no_usage!(visit_unit, visit_bool: bool, visit_i64: i64, visit_u64: u64);
        no_usage!(visit_f64: f64, visit_str: &str);
    }
    deserializer.deserialize_any(Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_total_is_the_sum_and_nulls_are_zero() {
        let usage: Usage =
            serde_json::from_str(r#"{"prompt_tokens":3,"completion_tokens":null}"#).unwrap();
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.total_tokens
            ),
            (3, 0, 3)
        );
        assert_eq!((usage.cached_tokens, usage.reasoning_tokens), (None, None));
    }

    #[test]
    fn details_are_read() {
        let usage: Usage = serde_json::from_str(
            r#"{"prompt_tokens":9,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":4},
                "completion_tokens_details":{"reasoning_tokens":3,"audio_tokens":0}}"#,
        )
        .unwrap();
        assert_eq!(
            (usage.cached_tokens, usage.reasoning_tokens),
            (Some(4), Some(3))
        );
    }

    #[test]
    fn a_usage_read_in_one_pass_is_the_same_as_from_its_text() {
        for text in [
            r#"{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}"#,
            r#"{"prompt_tokens":9,"completion_tokens":null,"x":[1,{"y":2}],
                "prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":null}"#,
            r#"{"prompt_tokens":"3"}"#,
            r#"{"prompt_tokens":-1}"#,
            r#"{"prompt_tokens":1.5}"#,
            r#"{"prompt_tokens":1,"prompt_tokens":2}"#,
            r#"{"prompt_tokens_details":{"cached_tokens":"a"}}"#,
            r#"{"completion_tokens_details":[1]}"#,
            r#"null"#,
            r#"[1,2]"#,
            r#"[1,null,3,{"cached_tokens":2}]"#,
            r#"[1,2,3,null,null,6]"#,
            r#"["a"]"#,
            r#"[]"#,
            r#""text""#,
            r#"7"#,
            r#"true"#,
        ] {
            let whole = serde_json::from_str::<Usage>(text).ok();
            let lenient = lenient(&mut serde_json::Deserializer::from_str(text)).unwrap();
            assert_eq!(lenient, whole, "{text}");
        }
    }
}
