//! Structured output: an answer that must be JSON matching a JSON Schema,
//! read with the tolerant extraction and corrected by the model until it
//! matches. Correction turns stay in a working copy. This module gets a
//! function that completes a conversation, not a client, so it sits below
//! `client/`.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::conversation::budget::LeftOut;
use crate::conversation::message::{Message, Role};
use crate::conversation::options::ResponseFormat;
use crate::conversation::Conversation;
use crate::error::{excerpt, Error, Keep, Result};
use crate::reply::Reply;

pub(crate) use crate::schema::Schema;

/// How [`Client::send_json`](crate::Client::send_json) tells the model
/// about the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SchemaDelivery {
    /// In the prompt (the default; any server): an instruction and the schema
    /// follow the last user message as sent; the conversation keeps the
    /// question as asked.
    #[default]
    Prompt,
    /// As the request's `response_format` (`json_schema`, named `reply`), for
    /// servers that constrain the reply to it (strict mode is not asked for:
    /// it needs a narrower kind of schema). The reply is still checked.
    ResponseFormat,
    /// Not sent: the caller's prompt already describes the form (as
    /// [`ingredients_prompt`](crate::ingredients_prompt) does), and the
    /// schema only checks the reply.
    CheckOnly,
}

/// The settings of a structured exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JsonSettings {
    /// Correction turns allowed after the first reply.
    pub(crate) corrections: u32,
    /// How the schema reaches the model.
    pub(crate) delivery: SchemaDelivery,
}

/// Runs the exchange on `sent` (borrowed, or a copy that is not copied
/// again); `complete` sends a conversation and returns the reply. Gives the
/// answer, the assistant message (the valid JSON, compact) to append, and
/// what the request that brought it left out of the exchange's working copy.
pub(crate) fn exchange<T: DeserializeOwned>(
    sent: Cow<'_, Conversation>,
    schema: &Schema,
    settings: JsonSettings,
    mut complete: impl FnMut(&Conversation) -> Result<Reply>,
) -> Result<(T, Message, LeftOut)> {
    let mut work = first_request(sent, schema, settings.delivery)?;
    let mut turn = 0;
    loop {
        let reply = complete(&work)?;
        let mut errors = match read_answer::<T>(reply.content(), schema) {
            Ok((value, answer)) => {
                let message = Message::new(Role::Assistant, value.to_string());
                return Ok((answer, message, reply.left_out));
            }
            Err(errors) => errors,
        };
        if reply.finish_reason() == Some("length") {
            errors.insert(0, CUT_SHORT.to_owned());
        }
        if turn == settings.corrections {
            return Err(Error::InvalidReply {
                errors,
                last_reply: reply.into_content(),
            });
        }
        // The wrong reply's text (a correction is about the text), and a
        // user turn that names the problems.
        let said = excerpt(reply.content(), REPEATED_REPLY_BYTES, Keep::Start);
        work.push_message(Message::new(Role::Assistant, said))?;
        work.user(correction(&errors, settings.delivery))?;
        turn += 1;
    }
}

/// The first problem named when a reply that does not match was cut by the
/// token limit, whose JSON's own problems would hide the cause.
const CUT_SHORT: &str = "the reply was cut short by the token limit \
     (finish_reason \"length\"), so its JSON is incomplete: \
     raise max_tokens or ask for less";

/// The first JSON in a reply that matches the schema and fits `T`; else
/// what is wrong with the first JSON found, or why none was found.
fn read_answer<T: DeserializeOwned>(
    text: &str,
    schema: &Schema,
) -> std::result::Result<(Value, T), Vec<String>> {
    let mut first_problems: Option<Vec<String>> = None;
    let found = crate::extract::find_json(text, |value| {
        let mut problems = schema.check(&value);
        if problems.is_empty() {
            match T::deserialize(&value) {
                Ok(answer) => return Ok((value, answer)),
                Err(error) => {
                    problems.push(format!("the JSON does not fit the program's type: {error}"))
                }
            }
        }
        let summary = problems.join("; ");
        first_problems.get_or_insert(problems);
        Err(summary)
    });
    found.map_err(|error| match (first_problems, error) {
        (Some(problems), _) => problems,
        (None, Error::NoJson(why)) => vec![format!("no JSON found: {why}")],
        (None, other) => vec![other.to_string()],
    })
}

/// The text of [`INGREDIENTS_SCHEMA`], as a literal for `concat!`.
macro_rules! ingredients_schema {
    () => {
        r#"{"type":"array","minItems":1,"items":{"type":"object","properties":{"ingredient":{"type":"string","minLength":1},"quantity":{"type":"number","minimum":0},"unit":{"type":["string","null"]}},"required":["ingredient","quantity","unit"],"additionalProperties":false}}"#
    };
}

/// The JSON Schema of the ingredient-list convention, strict where
/// [`extract_ingredients`](crate::extract_ingredients) is lenient: a
/// non-empty array of `{"ingredient", "quantity", "unit"}` and no other keys.
/// With [`Client::send_json`](crate::Client::send_json) it gives a
/// `Vec<`[`Ingredient`](crate::Ingredient)`>`.
///
/// ```
/// let schema: serde_json::Value = serde_json::from_str(chatwire::INGREDIENTS_SCHEMA)?;
/// assert_eq!(schema["items"]["required"][0], "ingredient");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub const INGREDIENTS_SCHEMA: &str = ingredients_schema!();

/// [`INGREDIENTS_SCHEMA`] with a NUL at the end, for C.
pub(crate) const INGREDIENTS_SCHEMA_NUL: &str = concat!(ingredients_schema!(), "\0");

/// The name of the `response_format` schema; servers require one.
const FORMAT_NAME: &str = "reply";

/// How much of a wrong reply a correction turn repeats: the model needs to
/// see its own answer, and a long one would crowd out the problems.
const REPEATED_REPLY_BYTES: usize = 2000;

/// The conversation to send first: the caller's, with the schema where
/// `delivery` puts it.
fn first_request(
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
            // After the last user message's text, or, when the last message
            // is a tool result, in the system message.
            let last = work.len() - 1;
            match work.messages().get(last) {
                Some(message) if message.role == Role::User => {
                    let mut question = message.clone();
                    question.content = format!("{}\n\n{instruction}", question.content.trim_end());
                    work.truncate(last)?;
                    work.push_message(question)?;
                }
                _ => {
                    let system = match work.messages().first() {
                        Some(first) if first.role == Role::System => {
                            format!("{}\n\n{instruction}", first.content.trim_end())
                        }
                        _ => instruction,
                    };
                    work.set_system(system);
                }
            }
        }
        SchemaDelivery::ResponseFormat => work.set_response_format(ResponseFormat::json_schema(
            FORMAT_NAME,
            schema.value().clone(),
        ))?,
        SchemaDelivery::CheckOnly => {}
    }
    Ok(work)
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
    use crate::extract::Ingredient;
    use serde_json::json;

    fn schema(value: Value) -> Schema {
        Schema::new(value).unwrap()
    }

    #[test]
    fn the_ingredients_schema_is_usable_and_fits_the_type() {
        let schema = schema(serde_json::from_str(INGREDIENTS_SCHEMA).unwrap());
        let reply =
            "```json\n[{\"ingredient\": \"flour\", \"quantity\": 1 1/2, \"unit\": \"cup\"}]\n```";
        let (_, items) = read_answer::<Vec<Ingredient>>(reply, &schema).unwrap();
        assert_eq!(items[0].quantity, 1.5);
        let errors = read_answer::<Vec<Ingredient>>(
            "[{\"ingredient\": \"egg\", \"quantity\": \"two\"}]",
            &schema,
        )
        .unwrap_err();
        assert_eq!(
            errors,
            [
                "at /0: the property \"unit\" is missing",
                "at /0/quantity: expected a number, got \"two\""
            ]
        );
    }

    #[test]
    fn an_example_before_the_answer_is_passed_over() {
        let schema = schema(json!({"type": "object", "required": ["city"]}));
        let reply = "Like {\"name\": \"x\"}, here: {\"city\": \"Lyon\"}";
        let (value, _) = read_answer::<Value>(reply, &schema).unwrap();
        assert_eq!(value, json!({"city": "Lyon"}));
    }

    #[test]
    fn no_json_is_a_problem_too() {
        let schema = schema(json!({"type": "object"}));
        let errors = read_answer::<Value>("I cannot.", &schema).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("no JSON found"), "{errors:?}");
    }

    #[test]
    fn a_type_that_does_not_fit_is_a_problem() {
        let schema = schema(json!({"type": "object"}));
        let errors = read_answer::<Vec<u8>>("{\"a\": 1}", &schema).unwrap_err();
        assert!(
            errors[0].contains("does not fit the program's type"),
            "{errors:?}"
        );
    }
}

#[cfg(test)]
mod turn_tests {
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
