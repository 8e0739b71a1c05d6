//! The conversation: the history the client resends on every call.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub(crate) mod budget;
pub(crate) mod file;
pub(crate) mod image;
pub(crate) mod message;
pub(crate) mod options;
pub(crate) mod ordering;

use crate::error::{Error, Result};
use message::{Attachment, Image, Message, ReasoningReplay, Role, Tool, ToolCall};

/// A model name and the messages exchanged so far, all sent with every
/// request, checked on every change against the ordering rules: one system
/// message at most, first; then user and assistant messages alternate; an
/// assistant message that calls tools is followed by one result per call.
/// Its JSON form is the request's; the token budget is in neither it nor equality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Unchecked")]
pub struct Conversation {
    model: String,
    messages: Vec<Message>,
    /// Functions the model may call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool>,
    /// Further top-level request fields (`max_tokens`, `temperature`, ...).
    #[serde(flatten)]
    options: Map<String, Value>,
    /// Which assistant messages carry their reasoning back.
    #[serde(skip)]
    reasoning_replay: ReasoningReplay,
    /// The token budget and the server's last count.
    #[serde(skip)]
    budget: budget::Budget,
}

/// The serialized shape before the ordering rules are checked.
#[derive(Deserialize)]
struct Unchecked {
    model: String,
    messages: Vec<Message>,
    #[serde(default)]
    tools: Vec<Tool>,
    #[serde(flatten)]
    options: Map<String, Value>,
}

/// Request fields that the conversation itself provides.
const RESERVED_FIELDS: [&str; 5] = ["model", "messages", "stream", "stream_options", "tools"];

impl TryFrom<Unchecked> for Conversation {
    type Error = Error;

    fn try_from(raw: Unchecked) -> Result<Conversation> {
        let mut conversation = Conversation::with_model(raw.model)?;
        // Taken as they are: the JSON form cannot say which options were set
        // with set_option_unchecked, and it must load whatever to_json wrote.
        for (name, value) in raw.options {
            conversation.set_option_unchecked(&name, Some(value))?;
        }
        conversation.tools = raw.tools;
        for message in raw.messages {
            conversation.push_message(message)?;
        }
        Ok(conversation)
    }
}

/// An empty model name is refused before any request is made.
fn check_model(model: &str) -> Result<()> {
    if model.trim().is_empty() {
        return Err(Error::InvalidArgument("the model name is empty".into()));
    }
    Ok(())
}

impl Conversation {
    /// An empty conversation with the given model; an empty name is refused
    /// when it is sent ([`with_model`](Self::with_model) refuses it at once).
    pub fn new(model: impl Into<String>) -> Conversation {
        Conversation {
            model: model.into(),
            messages: Vec::new(),
            tools: Vec::new(),
            options: Map::new(),
            reasoning_replay: ReasoningReplay::Auto,
            budget: budget::Budget::default(),
        }
    }

    /// An empty conversation with the given model, refusing an empty model
    /// name with [`Error::InvalidArgument`].
    pub fn with_model(model: impl Into<String>) -> Result<Conversation> {
        let model = model.into();
        check_model(&model)?;
        Ok(Conversation::new(model))
    }

    /// The model every request of this conversation asks for.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Changes the model for the next requests; an empty name is refused
    /// with [`Error::InvalidArgument`] and changes nothing.
    pub fn set_model(&mut self, model: impl Into<String>) -> Result<()> {
        let model = model.into();
        check_model(&model)?;
        self.model = model;
        Ok(())
    }

    /// Sets a top-level request field sent with every request (`None` removes
    /// it), checked as the official schema checks it; the fields the
    /// conversation provides (`model`, `messages`, `stream`, ...) are refused.
    pub fn set_option(&mut self, name: &str, value: Option<Value>) -> Result<()> {
        if let Some(value) = &value {
            options::check(name, value)?;
        }
        self.set_option_unchecked(name, value)
    }

    /// Like [`set_option`](Self::set_option) without checking the value, for a
    /// server's own form of a field.
    pub fn set_option_unchecked(&mut self, name: &str, value: Option<Value>) -> Result<()> {
        if RESERVED_FIELDS.contains(&name) {
            return Err(Error::InvalidArgument(format!(
                "{name:?} cannot be set as an option: the conversation and the send call provide it"
            )));
        }
        if name.is_empty() {
            return Err(Error::InvalidArgument("the option name is empty".into()));
        }
        match value {
            Some(value) => self.options.insert(name.to_owned(), value),
            None => self.options.remove(name),
        };
        Ok(())
    }

    /// Like [`set_option_unchecked`](Self::set_option_unchecked), with the
    /// value as JSON text.
    pub fn set_option_unchecked_json(&mut self, name: &str, json: Option<&str>) -> Result<()> {
        let value = message::json_text(json, || format!("the value of {name:?} is"))?;
        self.set_option_unchecked(name, value)
    }

    /// Like [`set_option`](Self::set_option), with the value as JSON text
    /// (`"64"`, `"{\"type\":\"json_object\"}"`).
    pub fn set_option_json(&mut self, name: &str, json: Option<&str>) -> Result<()> {
        let value = message::json_text(json, || format!("the value of {name:?} is"))?;
        self.set_option(name, value)
    }

    /// The request fields set with [`set_option`](Self::set_option).
    pub fn options(&self) -> &Map<String, Value> {
        &self.options
    }

    /// Puts the system message at the start, or replaces the one there.
    pub fn set_system(&mut self, text: impl Into<String>) {
        let message = Message::new(Role::System, text);
        match self.messages.first_mut() {
            Some(first) if first.role == Role::System => *first = message,
            _ => self.messages.insert(0, message),
        }
    }

    /// Appends a message, or fails with [`Error::InvalidConversation`] (and
    /// changes nothing) when the role breaks the ordering rules.
    pub fn push(&mut self, role: Role, text: impl Into<String>) -> Result<()> {
        self.push_message(Message::new(role, text))
    }

    /// Appends a message of any kind (with images, tool calls, or answering
    /// a tool call), checked against the ordering rules.
    pub fn push_message(&mut self, message: Message) -> Result<()> {
        ordering::check_next(&self.messages, &message)?;
        self.messages.push(message);
        Ok(())
    }

    /// Appends a user message with images; see [`Image::from_source`].
    pub fn user_with_images(&mut self, text: impl Into<String>, images: Vec<Image>) -> Result<()> {
        self.push_message(Message {
            images,
            ..Message::new(Role::User, text)
        })
    }

    /// Appends a user message with one image: an `http(s)` URL, a `data:`
    /// URL, or a local file (sent as a `data:` URL); see [`Image::from_source`].
    pub fn user_image(&mut self, text: impl Into<String>, image: &str) -> Result<()> {
        self.user_with_images(text, vec![Image::from_source(image)?])
    }

    /// Appends a user message with files (PDF, WAV, MP3); see [`Attachment`].
    pub fn user_with_files(
        &mut self,
        text: impl Into<String>,
        files: Vec<Attachment>,
    ) -> Result<()> {
        self.push_message(Message {
            files,
            ..Message::new(Role::User, text)
        })
    }

    /// Appends a user message with text (may be empty) and one local PDF,
    /// WAV or MP3 file; see [`Attachment::from_file`].
    pub fn user_file(
        &mut self,
        text: impl Into<String>,
        file: impl AsRef<std::path::Path>,
    ) -> Result<()> {
        self.user_with_files(text, vec![Attachment::from_file(file)?])
    }

    /// Appends a tool's result for the call with the given id.
    pub fn tool_result(&mut self, tool_call_id: &str, content: impl Into<String>) -> Result<()> {
        self.push_message(Message::tool_result(tool_call_id, content))
    }

    /// Offers a function to the model with every request; a tool of the same
    /// name is replaced.
    pub fn add_tool(&mut self, tool: Tool) {
        match self.tools.iter_mut().find(|known| known.name == tool.name) {
            Some(known) => *known = tool,
            None => self.tools.push(tool),
        }
    }

    /// The tools offered to the model.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Chooses which assistant messages carry their reasoning back (default
    /// [`ReasoningReplay::Auto`]); not part of the JSON form.
    pub fn set_reasoning_replay(&mut self, replay: ReasoningReplay) {
        self.reasoning_replay = replay;
    }

    /// Which assistant messages carry their reasoning back, with `Auto`
    /// resolved for this conversation's model.
    pub fn reasoning_replay(&self) -> ReasoningReplay {
        self.reasoning_replay.resolved(&self.model)
    }

    /// Appends a user message; see [`push`](Self::push).
    pub fn user(&mut self, text: impl Into<String>) -> Result<()> {
        self.push(Role::User, text)
    }

    /// Appends an assistant message; see [`push`](Self::push).
    pub fn assistant(&mut self, text: impl Into<String>) -> Result<()> {
        self.push(Role::Assistant, text)
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// How many messages there are, the system message included.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True when there are no messages at all.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Keeps the first `len` messages and drops the rest, to undo the last
    /// turns; a `len` beyond the length is [`Error::InvalidArgument`].
    pub fn truncate(&mut self, len: usize) -> Result<()> {
        if len > self.messages.len() {
            return Err(Error::InvalidArgument(format!(
                "cannot truncate to {len} messages: the conversation has {}",
                self.messages.len()
            )));
        }
        self.messages.truncate(len);
        Ok(())
    }

    /// Removes every message except the system message.
    pub fn clear(&mut self) {
        self.messages.retain(|message| message.role == Role::System);
    }

    /// Removes `count` messages from `index` on; [`Error::InvalidConversation`]
    /// (nothing removed) when what is left breaks the ordering rules.
    pub fn remove(&mut self, index: usize, count: usize) -> Result<()> {
        let len = self.messages.len();
        let end = index
            .checked_add(count)
            .filter(|end| *end <= len)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "cannot remove {count} messages from index {index}: the conversation has {len}"
                ))
            })?;
        if count == 0 {
            return Ok(());
        }
        // A removal may neither start on a tool result (its call stays before)
        // nor end right before one (its call goes, or some of its fellow results).
        let is_result = |at: usize| self.messages.get(at).is_some_and(|m| m.role == Role::Tool);
        if is_result(index) || is_result(end) {
            return Err(Error::InvalidConversation(format!(
                "removing messages {index} to {} would part a tool call from its results: \
                 remove the assistant message that calls tools together with all its results",
                end - 1
            )));
        }
        let removed: Vec<Message> = self.messages.drain(index..end).collect();
        // Each message from `index` on, against those before it.
        for at in index..self.messages.len() {
            if let Err(error) = ordering::check_next(&self.messages[..at], &self.messages[at]) {
                // Put back as it was: the refusal changes nothing.
                self.messages.splice(index..index, removed);
                return Err(match error {
                    Error::InvalidConversation(why) => Error::InvalidConversation(format!(
                        "the removal would leave message {at} out of order: {why}"
                    )),
                    other => other,
                });
            }
        }
        Ok(())
    }

    /// Appends an assistant message (its text often empty) that calls tools,
    /// each with an id unique in it; results follow with [`tool_result`](Self::tool_result).
    pub fn assistant_tool_calls(
        &mut self,
        content: impl Into<String>,
        calls: Vec<ToolCall>,
    ) -> Result<()> {
        if calls.is_empty() {
            return Err(Error::InvalidConversation(
                "an assistant message with tool calls needs at least one call".into(),
            ));
        }
        self.push_message(Message {
            tool_calls: calls,
            ..Message::new(Role::Assistant, content)
        })
    }

    /// Reads a conversation from its JSON form, its options unchecked;
    /// [`Error::InvalidConversation`] for broken ordering.
    pub fn from_json(json: &str) -> Result<Conversation> {
        let raw: Unchecked = serde_json::from_str(json)
            .map_err(|err| Error::InvalidArgument(format!("not a conversation in JSON: {err}")))?;
        Conversation::try_from(raw)
    }

    /// The conversation's JSON form, the request shape `{"model", "messages"}`.
    pub fn to_json(&self) -> String {
        // Plain strings and enums always serialize.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Checks that a request can be made: the last message must be a user
    /// message or the last missing tool result.
    pub(crate) fn check_ready_to_send(&self) -> Result<()> {
        check_model(&self.model)?;
        ordering::check_ready(&self.messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_only_first_and_once() {
        let mut c = Conversation::new("m");
        c.push(Role::System, "s").unwrap();
        let err = c.push(Role::System, "again").unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid conversation: expected a user message after a system message, got a system message"
        );
        c.user("u").unwrap();
        assert!(c.push(Role::System, "late").is_err());
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn must_start_with_user_or_system() {
        let mut c = Conversation::new("m");
        let err = c.assistant("hi").unwrap_err().to_string();
        assert!(
            err.contains("expected a system or a user message at the start"),
            "{err}"
        );
        assert!(c.is_empty());
    }

    #[test]
    fn user_and_assistant_alternate() {
        let mut c = Conversation::new("m");
        c.user("a").unwrap();
        assert!(c.user("b").is_err());
        c.assistant("c").unwrap();
        assert!(c.assistant("d").is_err());
        c.user("e").unwrap();
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn set_system_inserts_then_replaces() {
        let mut c = Conversation::new("m");
        c.user("u").unwrap();
        c.set_system("one");
        c.set_system("two");
        assert_eq!(c.len(), 2);
        assert_eq!(c.messages()[0], Message::new(Role::System, "two"));
        assert_eq!(c.messages()[1].role, Role::User);
    }

    #[test]
    fn ready_to_send_needs_a_trailing_user_message() {
        let mut c = Conversation::new("m");
        assert!(c.check_ready_to_send().is_err());
        c.set_system("s");
        assert!(c.check_ready_to_send().is_err());
        c.user("u").unwrap();
        assert!(c.check_ready_to_send().is_ok());
    }

    #[test]
    fn json_round_trip_keeps_everything() {
        let mut c = Conversation::new("m\"odel");
        c.set_system("sys\n\u{1F600}");
        c.user("q").unwrap();
        c.assistant("").unwrap();
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.starts_with(r#"{"model":"m\"odel","messages":[{"role":"system""#));
        let back: Conversation = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn json_with_broken_ordering_is_refused() {
        let json = r#"{"model":"m","messages":[{"role":"assistant","content":"x"}]}"#;
        let err = serde_json::from_str::<Conversation>(json).unwrap_err();
        assert!(err
            .to_string()
            .contains("expected a system or a user message"));
        let json = r#"{"model":"m","messages":[{"role":"wizard","content":"x"}]}"#;
        assert!(serde_json::from_str::<Conversation>(json).is_err());
    }

    #[test]
    fn from_json_sorts_its_errors() {
        assert!(matches!(
            Conversation::from_json("{"),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            Conversation::from_json(
                r#"{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}"#
            ),
            Err(Error::InvalidConversation(_))
        ));
        let c = Conversation::from_json(r#"{"model":"m","messages":[]}"#).unwrap();
        assert_eq!(c.to_json(), r#"{"model":"m","messages":[]}"#);
    }

    #[test]
    fn from_json_refuses_missing_content_as_append_does() {
        for message in [
            r#"{"role":"user","content":null}"#,
            r#"{"role":"user"}"#,
            r#"{"role":"system","content":null}"#,
            r#"{"role":"assistant","content":null}"#,
        ] {
            let json = format!(r#"{{"model":"m","messages":[{message}]}}"#);
            match Conversation::from_json(&json) {
                Err(Error::InvalidArgument(why)) => assert!(why.contains("content"), "{why}"),
                other => panic!("{message}: {other:?}"),
            }
        }
        // An assistant message that only calls tools has no content.
        let json = r#"{"model":"m","messages":[{"role":"user","content":"q"},
            {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#;
        assert!(Conversation::from_json(json).is_ok());
    }

    #[test]
    fn truncate_undoes_turns() {
        let mut c = Conversation::new("m");
        c.user("a").unwrap();
        c.assistant("b").unwrap();
        c.truncate(1).unwrap();
        assert!(c.truncate(2).is_err());
        assert_eq!(c.len(), 1);
        assert!(c.truncate(5).is_err());
        assert_eq!(c.len(), 1);
        c.assistant("again").unwrap();
    }

    #[test]
    fn options_travel_in_the_json_form_and_reserved_names_are_refused() {
        let mut c = Conversation::new("m");
        c.set_option("max_tokens", Some(serde_json::json!(16)))
            .unwrap();
        c.set_option("temperature", Some(serde_json::json!(0.5)))
            .unwrap();
        c.set_option("temperature", None).unwrap();
        for name in ["model", "messages", "stream", "stream_options", ""] {
            assert!(c.set_option(name, Some(Value::Null)).is_err(), "{name}");
        }
        let json = c.to_json();
        assert_eq!(json, r#"{"model":"m","messages":[],"max_tokens":16}"#);
        assert_eq!(Conversation::from_json(&json).unwrap(), c);
    }

    #[test]
    fn clear_keeps_the_system_message() {
        let mut c = Conversation::new("m");
        c.set_system("s");
        c.user("u").unwrap();
        c.clear();
        assert_eq!(c.messages(), &[Message::new(Role::System, "s")]);
    }

    #[test]
    fn an_unchecked_option_survives_the_json_form() -> crate::Result<()> {
        use serde_json::json;
        let mut conversation = crate::Conversation::new("m");
        let bias = json!([[15043, -1.0]]); // llama.cpp's form
        assert!(conversation
            .set_option("logit_bias", Some(bias.clone()))
            .is_err());
        conversation.set_option_unchecked("logit_bias", Some(bias))?;
        let back = crate::Conversation::from_json(&conversation.to_json())?;
        assert_eq!(back, conversation);
        Ok(())
    }

    #[test]
    fn set_option_checks_known_fields_and_refuses_reserved_ones() -> crate::Result<()> {
        use serde_json::json;
        let mut conversation = crate::Conversation::new("m");
        conversation.set_option("max_tokens", Some(json!(64)))?;
        conversation.set_option("top_k", Some(json!(40)))?; // a llama.cpp extension
        assert!(conversation
            .set_option("temperature", Some(json!(5)))
            .is_err());
        assert!(conversation
            .set_option("stream", Some(true.into()))
            .is_err());
        Ok(())
    }

    #[test]
    fn the_ordering_rules_in_brief() -> crate::Result<()> {
        let mut conversation = crate::Conversation::new("gpt-4o-mini");
        conversation.set_system("You are terse.");
        conversation.user("Name three colours.")?;
        assert_eq!(conversation.len(), 2);
        assert!(conversation.assistant("again").is_ok());
        assert!(conversation.assistant("twice").is_err());
        Ok(())
    }

    fn chat() -> Conversation {
        let mut c = Conversation::new("m");
        c.set_system("s");
        c.user("q1").unwrap();
        c.assistant_tool_calls(
            "",
            vec![
                ToolCall::new("c1", "f", "{}"),
                ToolCall::new("c2", "f", "{}"),
            ],
        )
        .unwrap();
        c.tool_result("c1", "r1").unwrap();
        c.tool_result("c2", "r2").unwrap();
        c.assistant("a1").unwrap();
        c.user("q2").unwrap();
        c.assistant("a2").unwrap();
        c
    }

    #[test]
    fn removes_a_whole_exchange_with_its_tool_calls() {
        let mut c = chat();
        c.remove(1, 5).unwrap();
        let contents: Vec<&str> = c.messages().iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["s", "q2", "a2"]);
    }

    #[test]
    fn refuses_to_part_a_call_from_its_results_and_changes_nothing() {
        for (index, count) in [(2, 1), (2, 2), (3, 1), (4, 1), (3, 3), (1, 2)] {
            let mut c = chat();
            let before = c.clone();
            let err = c.remove(index, count).unwrap_err();
            assert!(
                matches!(err, Error::InvalidConversation(_)),
                "{index},{count}: {err}"
            );
            assert_eq!(c.messages(), before.messages(), "{index},{count}");
        }
    }

    #[test]
    fn refuses_broken_ordering_and_puts_everything_back() {
        let mut c = chat();
        let before = c.clone();
        // Leaves q1's tool results' exchange followed by q2 without a1: fine;
        // removing q2 alone leaves a1 then a2.
        let err = c.remove(6, 1).unwrap_err().to_string();
        assert!(err.contains("out of order"), "{err}");
        assert_eq!(c.messages(), before.messages());
        assert!(c.remove(7, 2).is_err());
        assert!(matches!(
            c.remove(usize::MAX, 2),
            Err(Error::InvalidArgument(_))
        ));
        c.remove(3, 0).unwrap();
        assert_eq!(c.messages(), before.messages());
    }

    #[test]
    fn tool_calls_need_at_least_one_call_and_an_assistant_turn() {
        let mut c = Conversation::new("m");
        assert!(c
            .assistant_tool_calls("", vec![ToolCall::new("c1", "f", "{}")])
            .is_err());
        c.user("q").unwrap();
        assert!(c.assistant_tool_calls("", Vec::new()).is_err());
        c.assistant_tool_calls("thinking", vec![ToolCall::new("c1", "f", "{}")])
            .unwrap();
        assert!(c.check_ready_to_send().is_err());
        c.tool_result("c1", "r").unwrap();
        assert!(c.check_ready_to_send().is_ok());
    }

    #[test]
    fn remove_takes_whole_exchanges() -> crate::Result<()> {
        let mut conversation = crate::Conversation::new("m");
        conversation.set_system("s");
        for turn in ["a", "b", "c"] {
            conversation.user(turn)?;
            conversation.assistant("ok")?;
        }
        conversation.remove(1, 2)?; // the oldest exchange
        assert_eq!(conversation.messages()[1].content, "b");
        assert!(conversation.remove(1, 1).is_err()); // an assistant message first
        Ok(())
    }
}
