//! The OpenAI wire formats (chat completions, and the Responses API in
//! `responses/`), both ways, as serde types, with
//! no I/O (ARCHITECTURE.md has a line per file).

pub(crate) mod api;
pub(crate) mod batch;
pub(crate) mod chunk;
pub(crate) mod completion;
pub(crate) mod error;
pub(crate) mod message;
pub(crate) mod models;
pub(crate) mod overflow;
pub(crate) mod reasoning;
pub(crate) mod request;
pub(crate) mod responses;
mod usage;

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

/// A field name, borrowed when it has no escapes: the hot paths' visitors
/// match it in one pass and copy only an unknown one.
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl<'de> Visitor<'de> for Name {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                name: &'de str,
            ) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(name)))
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

/// `Deserialize` for a `Default` struct read from a map one field at a
/// time: `$read` takes the struct, the field's [`Key`] name and the map. By
/// hand: a flattened map would make serde buffer every value.
macro_rules! read_fields {
    ($type:ty, $expecting:literal, |$value:ident, $name:ident, $map:ident| $read:expr) => {
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> std::result::Result<Self, D::Error> {
                struct Fields;
                impl<'de> serde::de::Visitor<'de> for Fields {
                    type Value = $type;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut $map: A,
                    ) -> std::result::Result<$type, A::Error> {
                        let mut $value = <$type>::default();
                        while let Some(crate::wire::Key($name)) = $map.next_key()? {
                            $read
                        }
                        Ok($value)
                    }
                }
                deserializer.deserialize_map(Fields)
            }
        }
    };
}
pub(crate) use read_fields;

/// A list of choices, with room for one to start with: nearly every reply
/// has one, and serde's first room for four takes the allocator's slow road.
/// With `OR_NULL`, `null` is none.
pub(crate) fn choices<'de, D, T, const OR_NULL: bool>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    match OR_NULL {
        true => deserializer.deserialize_option(Choices(PhantomData)),
        false => deserializer.deserialize_seq(Choices(PhantomData)),
    }
}

struct Choices<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Choices<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut choices = Vec::with_capacity(seq.size_hint().unwrap_or(1).clamp(1, 16));
        while let Some(choice) = seq.next_element()? {
            choices.push(choice);
        }
        Ok(choices)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}
