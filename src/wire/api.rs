//! The one place a request's API picks its encoder and its decoder: chat
//! completions (`request.rs`, `completion.rs`) or the Responses API
//! (`responses/`).

use crate::config::Api;
use crate::conversation::Conversation;
use crate::reply::Reply;
use crate::wire::request::Delivery;

/// The body of a request of `conversation` over `api`; over the Responses
/// API, an option it lacks is an error here, before anything is sent.
pub(crate) fn encode(
    api: Api,
    conversation: &Conversation,
    delivery: Delivery,
) -> crate::Result<Vec<u8>> {
    match api {
        Api::ChatCompletions => Ok(crate::wire::request::encode(conversation, delivery)),
        Api::Responses => crate::wire::responses::request::encode(conversation, delivery),
    }
}

/// The API a whole 2xx body is of: the Responses API's say `"object":
/// "response"`; any other is read as a chat completion (as a server that
/// names no object is).
pub(crate) fn api_of_body(body: &str) -> Api {
    #[derive(serde::Deserialize)]
    struct Object<'a> {
        #[serde(borrow)]
        object: Option<std::borrow::Cow<'a, str>>,
    }
    match serde_json::from_str::<Object<'_>>(body) {
        Ok(Object {
            object: Some(object),
        }) if object == "response" => Api::Responses,
        _ => Api::ChatCompletions,
    }
}

/// A whole 2xx body of `api` read into a [`Reply`].
pub(crate) fn decode(api: Api, body: String, request_id: Option<String>) -> crate::Result<Reply> {
    match api {
        Api::ChatCompletions => crate::wire::completion::decode(body, request_id),
        Api::Responses => crate::wire::responses::response::decode(body, request_id),
    }
}
