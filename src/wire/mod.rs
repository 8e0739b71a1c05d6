//! The OpenAI chat completions wire format, both ways, and nothing else:
//! what chatwire sends and what it reads back, as serde types.
//!
//! - [`request`]: the request body, serialized once, straight from the
//!   conversation's own messages;
//! - [`message`]: how a [`Message`](crate::Message), a [`ToolCall`](crate::ToolCall)
//!   and a [`Tool`](crate::Tool) look on the wire (the serde forms of the
//!   domain types, also the JSON of `Conversation::to_json`);
//! - [`completion`]: a chat completion, read from a whole body or built from
//!   a stream's chunks, and the [`Reply`](crate::Reply) it amounts to;
//! - [`chunk`]: one streamed event's payload (a chunk, `[DONE]`, an error);
//! - [`error`]: an error body, in whichever shape a server used;
//! - [`overflow`]: a context window overflow, in every server's words;
//! - [`reasoning`]: reasoning in whichever field a server put it, and back;
//! - [`usage`]: token counts.
//!
//! No I/O happens here, and nothing here knows how bytes travel: `http/`
//! moves them, `stream/` cuts a streamed body into events.

pub(crate) mod chunk;
pub(crate) mod completion;
pub(crate) mod error;
pub(crate) mod message;
pub(crate) mod overflow;
pub(crate) mod reasoning;
pub(crate) mod request;
mod usage;

/// A list of choices, read with room for one to start with: nearly every
/// reply and chunk has one, and a choice is large enough that the usual
/// first room for four takes the allocator's slow road on every send.
pub(crate) fn choices<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct Choices<T>(std::marker::PhantomData<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Choices<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut choices = Vec::with_capacity(seq.size_hint().unwrap_or(1).clamp(1, 16));
            while let Some(choice) = seq.next_element()? {
                choices.push(choice);
            }
            Ok(choices)
        }
    }
    deserializer.deserialize_seq(Choices(std::marker::PhantomData))
}

/// [`choices`], or none for `null`.
pub(crate) fn choices_or_null<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct Choices<T>(Vec<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Choices<T> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            choices(deserializer).map(Choices)
        }
    }
    let read: Option<Choices<T>> = serde::Deserialize::deserialize(deserializer)?;
    Ok(read.map_or_else(Vec::new, |choices| choices.0))
}
