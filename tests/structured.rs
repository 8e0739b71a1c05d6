//! Structured output against a mock server: a wrong first answer corrected
//! by one correction turn, corrections used up, the schema sent as
//! `response_format`, and what the conversation holds after each.

mod common;

use chatwire::{Error, SchemaDelivery};
use common::*;
use mockito::{Server, ServerGuard};
use serde_json::{json, Value};

#[derive(Debug, PartialEq, serde::Deserialize)]
struct City {
    name: String,
    population: u64,
}

fn city_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "population": {"type": "integer", "minimum": 0}
        },
        "required": ["name", "population"],
        "additionalProperties": false
    })
}

const QUESTION: &str = "Which is the largest city of France?";
const CORRECTION: &str = "That reply is not valid";

fn question() -> chatwire::Conversation {
    let mut conversation = chatwire::Conversation::new("gpt-4o-mini");
    conversation.set_system("You are terse.");
    conversation.user(QUESTION).unwrap();
    conversation
}

/// A mock answering `body` to requests whose body does (or does not)
/// contain a correction turn, recording each body.
fn answer(
    server: &mut ServerGuard,
    bodies: &Bodies,
    correction: bool,
    body: &str,
) -> mockito::Mock {
    let record = bodies.recorder();
    server
        .mock("POST", PATH)
        .match_request(move |request| {
            let text =
                String::from_utf8_lossy(request.body().map_or(&[][..], Vec::as_slice)).into_owned();
            text.contains(CORRECTION) == correction && record(request)
        })
        .with_body(body)
        .create()
}

fn messages(body: &[u8]) -> Vec<Value> {
    let value: Value = serde_json::from_slice(body).unwrap();
    value["messages"].as_array().unwrap().clone()
}

#[test]
fn a_wrong_first_answer_is_corrected_and_only_the_answer_is_kept() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let wrong = "```json\n{\"name\": \"Paris\", \"population\": \"about two million\"}\n```";
    let first = answer(&mut server, &bodies, false, &completion(wrong)).expect(1);
    let right = "Sorry!\n```json\n{\"name\": \"Paris\", \"population\": 2102650,}\n```";
    let second = answer(&mut server, &bodies, true, &completion(right)).expect(1);

    let client = client(&server.url());
    let mut conversation = question();
    let city: City = client.send_json(&mut conversation, &city_schema()).unwrap();
    assert_eq!(
        city,
        City {
            name: "Paris".into(),
            population: 2_102_650
        }
    );
    first.assert();
    second.assert();

    // The conversation: the question as asked, then the valid JSON, compact.
    assert_eq!(conversation.len(), 3);
    assert_eq!(conversation.messages()[1].content, QUESTION);
    assert_eq!(
        conversation.messages()[2].content,
        r#"{"name":"Paris","population":2102650}"#
    );

    let bodies = bodies.all();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        assert_valid_request(body);
    }
    // The question went out with the schema in the prompt.
    let sent = messages(&bodies[0]);
    let asked = sent[1]["content"].as_str().unwrap();
    assert!(asked.starts_with(QUESTION), "{asked}");
    assert!(asked.contains("JSON Schema"), "{asked}");
    assert!(
        asked.contains(r#""required":["name","population"]"#),
        "{asked}"
    );
    // The correction turn repeats the wrong answer and names the problem.
    let sent = messages(&bodies[1]);
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[2]["role"], "assistant");
    assert_eq!(sent[2]["content"], wrong);
    let correction = sent[3]["content"].as_str().unwrap();
    assert!(
        correction.contains(r#"at /population: expected an integer, got "about two million""#),
        "{correction}"
    );
}

#[test]
fn used_up_corrections_leave_the_conversation_unchanged_with_the_errors() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let first = answer(&mut server, &bodies, false, &completion("Paris!")).expect(1);
    let wrong = r#"{"name": "Paris"}"#;
    let again = answer(&mut server, &bodies, true, &completion(wrong)).expect(2);

    let client = client(&server.url());
    assert_eq!(
        client.json_corrections(),
        chatwire::DEFAULT_JSON_CORRECTIONS
    );
    let mut conversation = question();
    let before = conversation.clone();
    let error = client
        .send_json::<City>(&mut conversation, &city_schema())
        .unwrap_err();
    first.assert();
    again.assert();
    assert_eq!(conversation, before);
    match &error {
        Error::InvalidReply { errors, last_reply } => {
            assert_eq!(
                errors,
                &[r#"at the top level: the property "population" is missing"#]
            );
            assert_eq!(last_reply, wrong);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        error.to_string(),
        r#"invalid reply: at the top level: the property "population" is missing (last reply: "{\"name\": \"Paris\"}")"#
    );
    // The second correction turn holds only the latest wrong answer's problem.
    let last = messages(bodies.all().last().unwrap());
    assert_eq!(last.len(), 6);
    assert!(last[3]["content"]
        .as_str()
        .unwrap()
        .contains("no JSON found"));

    // No correction turn at all: one request, then the error.
    let client = builder(&server.url()).json_corrections(0).build().unwrap();
    let error = client
        .send_json::<City>(&mut conversation, &city_schema())
        .unwrap_err();
    assert!(matches!(error, Error::InvalidReply { .. }), "{error}");
    assert_eq!(bodies.all().len(), 4);
    assert!(builder(&server.url()).json_corrections(11).build().is_err());
    assert_eq!(client.json_corrections(), 0);
}

/// A list the token limit cut in its last item: the cause comes first, in
/// the error and in the correction turn, before the missing keys.
#[test]
fn a_reply_cut_by_the_token_limit_says_so_first() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let cut = r#"[{"ingredient": "flour", "quantity": 2, "unit": "cup"}, {"ingredient": "egg", ""#;
    let mut body: Value = serde_json::from_str(&completion(cut)).unwrap();
    body["choices"][0]["finish_reason"] = json!("length");
    let mock = answer(&mut server, &bodies, false, &body.to_string()).expect(1);
    let again = answer(&mut server, &bodies, true, &body.to_string()).expect(1);

    let client = builder(&server.url()).json_corrections(1).build().unwrap();
    let schema: Value = serde_json::from_str(chatwire::INGREDIENTS_SCHEMA).unwrap();
    let mut conversation = question();
    let before = conversation.clone();
    let error = client
        .send_json::<Vec<chatwire::Ingredient>>(&mut conversation, &schema)
        .unwrap_err();
    mock.assert();
    again.assert();
    assert_eq!(conversation, before);
    let Error::InvalidReply { errors, .. } = &error else {
        panic!("{error:?}");
    };
    assert!(
        errors[0].starts_with("the reply was cut short by the token limit"),
        "{errors:?}"
    );
    assert!(
        errors[1..].iter().any(|e| e.starts_with("at /1")),
        "{errors:?}"
    );
    let turn = messages(bodies.all().last().unwrap());
    let correction = turn.last().unwrap()["content"].as_str().unwrap();
    assert!(
        correction.contains("raise max_tokens or ask for less"),
        "{correction}"
    );
}

#[test]
fn response_format_carries_the_schema_in_the_body() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let reply = completion(r#"{"name":"Lyon","population":522250}"#);
    answer(&mut server, &bodies, false, &reply).expect(1);

    let client = chatwire::Client::builder()
        .base_url(server.url())
        .api_key(KEY)
        .max_retries(0)
        .schema_delivery(SchemaDelivery::ResponseFormat)
        .build()
        .unwrap();
    let mut conversation = question();
    let city: Value = client.send_json(&mut conversation, &city_schema()).unwrap();
    assert_eq!(city["name"], "Lyon");
    // The caller's conversation does not keep the format.
    assert!(conversation.options().is_empty());

    let body = &bodies.all()[0];
    assert_valid_request(body);
    let value: Value = serde_json::from_slice(body).unwrap();
    assert_eq!(
        value["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "reply", "schema": city_schema()}})
    );
    assert_eq!(value["messages"][1]["content"], QUESTION);
}

#[test]
fn check_only_sends_the_conversation_as_it_is() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    let reply = completion(r#"[{"ingredient": "flour", "quantity": ½, "unit": "cup"}]"#);
    answer(&mut server, &bodies, false, &reply).expect(1);

    let client = builder(&server.url())
        .schema_delivery(SchemaDelivery::CheckOnly)
        .build()
        .unwrap();
    let mut conversation = chatwire::Conversation::new("m");
    conversation
        .user(chatwire::ingredients_prompt("Half a cup of flour."))
        .unwrap();
    let asked = conversation.to_json();
    let schema: Value = serde_json::from_str(chatwire::INGREDIENTS_SCHEMA).unwrap();
    let items: Vec<chatwire::Ingredient> = client.send_json(&mut conversation, &schema).unwrap();
    assert_eq!(items[0].quantity, 0.5);
    let sent: Value = serde_json::from_slice(&bodies.all()[0]).unwrap();
    let asked: Value = serde_json::from_str(&asked).unwrap();
    assert_eq!(sent["messages"], asked["messages"]);
}

#[test]
fn a_failed_correction_turn_leaves_the_conversation_unchanged() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    answer(&mut server, &bodies, false, &completion("no idea")).expect(1);
    server
        .mock("POST", PATH)
        .match_body(mockito::Matcher::Regex(CORRECTION.into()))
        .with_status(503)
        .create();

    let client = client(&server.url());
    let mut conversation = question();
    let before = conversation.clone();
    let error = client
        .send_json::<City>(&mut conversation, &city_schema())
        .unwrap_err();
    assert_eq!(error.http_status(), Some(503));
    assert_eq!(conversation, before);
}

#[test]
fn an_unusable_schema_is_refused_before_anything_is_sent() {
    let mut server = Server::new();
    let mock = server.mock("POST", PATH).expect(0).create();
    let client = client(&server.url());
    let mut conversation = question();
    for schema in [
        json!({"type": "text"}),
        json!({"type": "string", "pattern": "^a"}),
        json!({"$ref": "#/$defs/nowhere"}),
        json!("object"),
    ] {
        let error = client
            .send_json::<Value>(&mut conversation, &schema)
            .unwrap_err();
        assert!(
            matches!(error, Error::InvalidArgument(_)),
            "{schema}: {error}"
        );
    }
    // A conversation that cannot be sent is refused as by send.
    let mut empty = chatwire::Conversation::new("m");
    let error = client
        .send_json::<Value>(&mut empty, &json!({}))
        .unwrap_err();
    assert!(matches!(error, Error::InvalidConversation(_)), "{error}");
    mock.assert();
}

/// With the `schemars` feature the schema comes from the type; the derived
/// schema (draft 2020-12, with `$defs` and `format`) is one chatwire checks.
#[cfg(feature = "schemars")]
#[test]
fn send_typed_derives_the_schema_from_the_type() {
    #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    struct Place {
        city: String,
        population: u64,
        tags: Vec<Tag>,
        note: Option<String>,
    }
    #[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
    struct Tag {
        name: String,
    }

    let mut server = Server::new();
    let bodies = Bodies::default();
    let wrong = r#"{"city": "Lyon", "population": -5, "tags": [{}], "note": null}"#;
    answer(&mut server, &bodies, false, &completion(wrong)).expect(1);
    let right =
        r#"{"city": "Lyon", "population": 522250, "tags": [{"name": "food"}], "note": null}"#;
    answer(&mut server, &bodies, true, &completion(right)).expect(1);

    let client = client(&server.url());
    let mut conversation = question();
    let place: Place = client.send_typed(&mut conversation).unwrap();
    assert_eq!(place.population, 522_250);
    assert_eq!(
        place.tags,
        [Tag {
            name: "food".into()
        }]
    );
    let correction = messages(&bodies.all()[1]);
    let text = correction[3]["content"].as_str().unwrap();
    assert!(
        text.contains("at /population: expected a number at least 0, got -5"),
        "{text}"
    );
    assert!(
        text.contains(r#"at /tags/0: the property "name" is missing"#),
        "{text}"
    );
}
