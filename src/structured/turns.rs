//! The messages of a structured exchange: the question as sent (with the
//! schema, when it goes in the prompt) and the correction turns.

use std::borrow::Cow;

use super::SchemaDelivery;
use crate::conversation::message::{Message, Role};
use crate::conversation::options::ResponseFormat;
use crate::conversation::Conversation;
use crate::error::{excerpt, Keep, Result};
use crate::reply::Reply;
use crate::schema::Schema;

/// The name of the `response_format` schema; servers require one.
const FORMAT_NAME: &str = "reply";

/// How much of a wrong reply a correction turn repeats: the model needs to
/// see its own answer, and a long one would crowd out the problems.
const REPEATED_REPLY_BYTES: usize = 2000;

/// The conversation to send first: the caller's, with the schema where
/// `delivery` puts it.
pub(super) fn first_request(
    conversation: Cow<'_, Conversation>,
    schema: &Schema,
    delivery: SchemaDelivery,
) -> Result<Conversation> {
    let mut work = conversation.into_owned();
    match delivery {
        // The form of `json_prompt`. Small models tend to answer with the
        // schema itself; the text says not to.
        SchemaDelivery::Prompt => {
            let instruction = format!(
                "Reply with the JSON only, in a fenced ```json code block. \
                 It must match this JSON Schema (write the data, not the schema):\n\n\
                 ```json\n{}\n```",
                schema.value()
            );
            with_instruction(&mut work, &instruction)?;
        }
        SchemaDelivery::ResponseFormat => work.set_response_format(ResponseFormat::json_schema(
            FORMAT_NAME,
            schema.value().clone(),
        ))?,
        SchemaDelivery::CheckOnly => {}
    }
    Ok(work)
}

/// Adds `instruction` after the last user message's text, or, when the
/// last message is a tool result, to the system message.
fn with_instruction(work: &mut Conversation, instruction: &str) -> Result<()> {
    let last = work.len() - 1;
    match work.messages().get(last) {
        Some(message) if message.role == Role::User => {
            let mut question = message.clone();
            question.content = format!("{}\n\n{instruction}", question.content.trim_end());
            work.truncate(last)?;
            work.push_message(question)
        }
        _ => {
            let system = match work.messages().first() {
                Some(first) if first.role == Role::System => {
                    format!("{}\n\n{instruction}", first.content.trim_end())
                }
                _ => instruction.to_owned(),
            };
            work.set_system(system);
            Ok(())
        }
    }
}

/// Appends the wrong reply (its text only: a correction is about the text)
/// and a user turn that names the problems.
pub(super) fn push_correction(
    work: &mut Conversation,
    reply: &Reply,
    errors: &[String],
    delivery: SchemaDelivery,
) -> Result<()> {
    let said = excerpt(&reply.content, REPEATED_REPLY_BYTES, Keep::Start);
    work.push_message(Message::new(Role::Assistant, said))?;
    work.user(correction(errors, delivery))
}

/// The correction turn's text.
fn correction(errors: &[String], delivery: SchemaDelivery) -> String {
    let problems: String = errors.iter().map(|error| format!("- {error}\n")).collect();
    let end = match delivery {
        SchemaDelivery::ResponseFormat => ".",
        _ => ", in a fenced ```json code block.",
    };
    format!("That reply is not valid:\n{problems}Reply again with the corrected JSON only{end}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        Schema::new(json!({"type": "object"})).unwrap()
    }

    #[test]
    fn the_prompt_carries_the_schema_and_the_question_stays_first() {
        let mut conversation = Conversation::new("m");
        conversation.user("Where is Lyon?  ").unwrap();
        let work = first_request(
            Cow::Borrowed(&conversation),
            &schema(),
            SchemaDelivery::Prompt,
        )
        .unwrap();
        let sent = &work.messages()[0].content;
        assert!(
            sent.starts_with("Where is Lyon?\n\nReply with the JSON only"),
            "{sent}"
        );
        assert!(
            sent.ends_with("```json\n{\"type\":\"object\"}\n```"),
            "{sent}"
        );
        assert_eq!(conversation.messages()[0].content, "Where is Lyon?  ");
    }

    #[test]
    fn after_a_tool_result_the_schema_goes_to_the_system_message() {
        let mut conversation = Conversation::new("m");
        conversation.user("q").unwrap();
        let call = crate::ToolCall::new("c1", "f", "{}");
        let mut asked = Message::new(Role::Assistant, "");
        asked.tool_calls = vec![call];
        conversation.push_message(asked).unwrap();
        conversation.tool_result("c1", "42").unwrap();
        let work = first_request(
            Cow::Borrowed(&conversation),
            &schema(),
            SchemaDelivery::Prompt,
        )
        .unwrap();
        assert_eq!(work.messages()[0].role, Role::System);
        assert!(work.messages()[0].content.contains("JSON Schema"));
        assert_eq!(work.len(), 4);
    }

    #[test]
    fn response_format_carries_the_schema_and_check_only_sends_nothing() {
        let mut conversation = Conversation::new("m");
        conversation.user("q").unwrap();
        let work = first_request(
            Cow::Borrowed(&conversation),
            &schema(),
            SchemaDelivery::ResponseFormat,
        )
        .unwrap();
        assert_eq!(
            work.options()["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "reply", "schema": {"type": "object"}}})
        );
        assert_eq!(work.messages()[0].content, "q");
        let work = first_request(
            Cow::Borrowed(&conversation),
            &schema(),
            SchemaDelivery::CheckOnly,
        )
        .unwrap();
        assert_eq!(work, conversation);
    }

    #[test]
    fn a_correction_names_each_problem() {
        let text = correction(
            &["at /a: x".into(), "at /b: y".into()],
            SchemaDelivery::Prompt,
        );
        assert_eq!(
            text,
            "That reply is not valid:\n- at /a: x\n- at /b: y\n\
             Reply again with the corrected JSON only, in a fenced ```json code block."
        );
    }
}
