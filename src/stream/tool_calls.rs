//! Tool calls put together from a stream's fragments.

use std::collections::HashMap;

use super::ToolCallDelta;
use crate::conversation::message::{ToolCall, FUNCTION};
use crate::wire::message::{made_up_call_id, without_nulls};

/// Puts tool-call fragments together.
///
/// Fragments are matched to calls by `index`. For servers that leave
/// `index` out (Ollama), calls go by order: a fragment that names a
/// function while the last call has a name, or has an id unlike the last
/// call's, starts a new call; any other fragment continues the last call.
#[derive(Debug, Default)]
pub(crate) struct ToolCallAssembler {
    calls: Vec<ToolCall>,
    /// Position in `calls` of each wire `index` seen.
    by_index: HashMap<u32, usize>,
    /// Position in `calls` of the call the last fragment went to.
    last: Option<usize>,
}

impl ToolCallAssembler {
    /// Adds a fragment to its call: arguments are concatenated; id, type
    /// and name are taken from the first fragment that has them (some
    /// servers repeat them on every fragment).
    pub(crate) fn push(&mut self, fragment: ToolCallDelta) {
        let slot = self.slot_for(&fragment);
        self.last = Some(slot);
        let call = &mut self.calls[slot];
        fill_empty(&mut call.id, fragment.id);
        fill_empty(&mut call.kind, fragment.kind);
        fill_empty(&mut call.name, fragment.function.name);
        fill_empty(&mut call.name, fragment.custom.name);
        // A free-form tool's input is its arguments.
        let texts = [fragment.function.arguments, fragment.custom.input];
        for text in texts.into_iter().flatten() {
            call.arguments.push_str(&text);
        }
        // Unknown fields (Gemini's extra_content) go with the call; the last value wins.
        call.extra.extend(without_nulls(fragment.extra));
    }

    /// Which call a fragment belongs to, starting a new one if needed.
    fn slot_for(&mut self, fragment: &ToolCallDelta) -> usize {
        let id = fragment.id.as_deref().filter(|id| !id.is_empty());
        if let Some(index) = fragment.index {
            // Ollama gives every call index 0 (ollama/ollama#15457): a new
            // id under a used index is a new call.
            let reused =
                |call: &ToolCall| id.is_some_and(|id| !call.id.is_empty() && call.id != id);
            let known = self.by_index.get(&index);
            if let Some(&slot) = known.filter(|&&slot| !reused(&self.calls[slot])) {
                return slot;
            }
            let slot = self.start_call();
            self.by_index.insert(index, slot);
            return slot;
        }
        let named = [&fragment.function.name, &fragment.custom.name]
            .into_iter()
            .any(|name| name.as_deref().is_some_and(|name| !name.is_empty()));
        match (self.last, id) {
            (Some(last), Some(id)) if self.calls[last].id == id => last,
            (Some(last), None) if !named || self.calls[last].name.is_empty() => last,
            _ => self.start_call(),
        }
    }

    fn start_call(&mut self) -> usize {
        self.calls.push(ToolCall::default());
        self.calls.len() - 1
    }

    /// The calls; one without a type is a `function`, one without an id
    /// gets one.
    pub(crate) fn finish(mut self) -> Vec<ToolCall> {
        for call in &mut self.calls {
            if call.kind.is_empty() {
                call.kind = FUNCTION.to_owned();
            }
            if call.id.is_empty() {
                call.id = made_up_call_id();
            }
        }
        self.calls
    }
}

fn fill_empty(slot: &mut String, value: Option<String>) {
    if slot.is_empty() {
        *slot = value.unwrap_or_default();
    }
}
