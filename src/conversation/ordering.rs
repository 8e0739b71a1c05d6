//! The ordering rules of a [`Conversation`](crate::Conversation); tool results
//! come in any order, then the next user message or the assistant's reply.

use crate::conversation::message::{Message, Role};
use crate::error::{Error, Result};

/// Where a conversation stands, as far as the next message is concerned.
enum State<'a> {
    Start,
    After(Role),
    /// Tool results still missing for these calls.
    AwaitingResults(Vec<&'a str>),
    /// Every tool call of the last assistant message has its result.
    ResultsComplete,
}

fn state(messages: &[Message]) -> State<'_> {
    let Some(last) = messages.last() else {
        return State::Start;
    };
    if !matches!(last.role, Role::Tool) && last.tool_calls.is_empty() {
        return State::After(last.role);
    }
    // The assistant message whose calls the trailing tool messages answer.
    let Some(at) = messages.iter().rposition(|m| m.role != Role::Tool) else {
        return State::After(Role::Tool);
    };
    let results = &messages[at + 1..];
    let answered = |id: &str| {
        results
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some(id))
    };
    let calls = messages[at].tool_calls.iter().map(|call| call.id.as_str());
    let missing: Vec<&str> = calls.filter(|id| !answered(id)).collect();
    if missing.is_empty() {
        State::ResultsComplete
    } else {
        State::AwaitingResults(missing)
    }
}

/// Checks that `next` may follow `messages`.
pub(crate) fn check_next(messages: &[Message], next: &Message) -> Result<()> {
    check_shape(next)?;
    let allowed: &[Role] = match state(messages) {
        State::Start => &[Role::System, Role::User],
        State::After(Role::User) => &[Role::Assistant],
        State::After(_) => &[Role::User],
        State::ResultsComplete => &[Role::User, Role::Assistant],
        State::AwaitingResults(missing) => return check_result(next, &missing),
    };
    if allowed.contains(&next.role) {
        return Ok(());
    }
    let wanted: Vec<String> = allowed.iter().map(|role| a(*role)).collect();
    let after = match messages.last() {
        None => "at the start".to_owned(),
        Some(last) if last.role == Role::Tool => "after the tool results".to_owned(),
        Some(last) => format!("after {} message", a(last.role)),
    };
    Err(invalid(format!(
        "expected {} message {after}, got {} message",
        wanted.join(" or "),
        a(next.role)
    )))
}

/// While tool results are missing, only a result for one of those calls fits.
fn check_result(next: &Message, missing: &[&str]) -> Result<()> {
    let list = missing.join(", ");
    match next.tool_call_id.as_deref() {
        Some(id) if next.role == Role::Tool && missing.contains(&id) => Ok(()),
        Some(id) if next.role == Role::Tool => Err(invalid(format!(
            "no tool call {id:?} is waiting for a result (missing: {list})"
        ))),
        _ => Err(invalid(format!(
            "expected a tool result for call {} (missing: {list}), got {} message",
            missing[0],
            a(next.role)
        ))),
    }
}

/// What each role may carry.
fn check_shape(message: &Message) -> Result<()> {
    let role = message.role;
    let only = |what: &str| Err(invalid(format!("only {what}, not {role} messages")));
    if role != Role::User && !message.images.is_empty() {
        return only("user messages carry images");
    }
    if role != Role::User && !message.files.is_empty() {
        return only("user messages carry files");
    }
    if role != Role::Assistant && !message.tool_calls.is_empty() {
        return only("assistant messages call tools");
    }
    match (role, message.tool_call_id.as_deref()) {
        (Role::Tool, None | Some("")) => {
            return Err(invalid("a tool result needs the id of the call it answers"))
        }
        (Role::Tool, Some(_)) | (_, None) => {}
        (_, Some(_)) => return Err(invalid(format!("{} message answers no tool call", a(role)))),
    }
    let calls = &message.tool_calls;
    for (position, call) in calls.iter().enumerate() {
        if call.id.is_empty() {
            return Err(invalid(format!("tool call {position} has no id")));
        }
        if calls[..position]
            .iter()
            .any(|earlier| earlier.id == call.id)
        {
            return Err(invalid(format!("tool call id {:?} appears twice", call.id)));
        }
    }
    Ok(())
}

/// Checks that a request can be made from `messages`.
pub(crate) fn check_ready(messages: &[Message]) -> Result<()> {
    match state(messages) {
        State::After(Role::User) | State::ResultsComplete => Ok(()),
        State::Start => Err(invalid(
            "the conversation is empty: append a user message before sending",
        )),
        State::AwaitingResults(missing) => Err(invalid(format!(
            "missing a tool result for call {} (missing: {})",
            missing[0],
            missing.join(", ")
        ))),
        State::After(role) => Err(invalid(format!(
            "the last message must be a user message to send, but it is {} message",
            a(role)
        ))),
    }
}

/// The role with its article, for messages: "a user", "an assistant".
fn a(role: Role) -> String {
    let article = if role == Role::Assistant { "an" } else { "a" };
    format!("{article} {role}")
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidConversation(message.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::message::ToolCall;

    fn calling(ids: &[&str]) -> Message {
        let mut message = Message::new(Role::Assistant, "");
        message.tool_calls = ids.iter().map(|id| ToolCall::new(*id, "f", "{}")).collect();
        message
    }

    fn build(messages: &[Message]) -> Result<Vec<Message>> {
        let mut built = Vec::new();
        for message in messages {
            check_next(&built, message)?;
            built.push(message.clone());
        }
        Ok(built)
    }

    #[test]
    fn tool_calls_need_one_result_each_then_a_send() {
        let user = Message::new(Role::User, "weather?");
        let built = build(&[user.clone(), calling(&["a", "b"])]).unwrap();
        let err = check_ready(&built).unwrap_err().to_string();
        assert!(err.contains("missing a tool result for call a"), "{err}");
        let err = check_next(&built, &user).unwrap_err().to_string();
        assert!(
            err.contains("expected a tool result for call a (missing: a, b)"),
            "{err}"
        );
        let err = check_next(&built, &Message::tool_result("zz", "x"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no tool call \"zz\""), "{err}");

        let built = build(&[
            user.clone(),
            calling(&["a", "b"]),
            Message::tool_result("b", "2"),
            Message::tool_result("a", "1"),
        ])
        .unwrap();
        assert!(check_ready(&built).is_ok());
        assert!(check_next(&built, &Message::tool_result("a", "again")).is_err());
        assert!(check_next(&built, &user).is_ok());
        assert!(check_next(&built, &Message::new(Role::Assistant, "done")).is_ok());
    }

    #[test]
    fn roles_carry_only_their_own_extras() {
        assert!(build(&[Message::new(Role::Tool, "x")]).is_err());
        let mut user = Message::new(Role::User, "x");
        user.tool_call_id = Some("a".into());
        assert!(build(&[user]).is_err());
        let duplicate = calling(&["a", "a"]);
        assert!(build(&[Message::new(Role::User, "q"), duplicate]).is_err());
        let unnamed = calling(&[""]);
        assert!(build(&[Message::new(Role::User, "q"), unnamed]).is_err());
    }

    #[test]
    fn plain_alternation_still_holds() {
        let system = Message::new(Role::System, "s");
        let user = Message::new(Role::User, "u");
        let assistant = Message::new(Role::Assistant, "a");
        assert!(build(&[
            system.clone(),
            user.clone(),
            assistant.clone(),
            user.clone()
        ])
        .is_ok());
        assert!(build(std::slice::from_ref(&assistant)).is_err());
        assert!(build(&[user.clone(), user.clone()]).is_err());
        assert!(build(&[user.clone(), assistant.clone(), assistant]).is_err());
        assert!(build(&[user, system]).is_err());
    }
}
