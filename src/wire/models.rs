//! The server's list of models (`GET /v1/models`): `{"object": "list",
//! "data": [...]}`, each model kept whole. Fields beside `data` (llama.cpp's
//! `models`) are passed over; a model needs only a string `id`.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::wire::error::ErrorReport;

/// The message of an error in a 2xx body that came without one.
const NO_MESSAGE: &str = "the server answered the model list with an error";

/// One model a server offers, as [`Client::models`](crate::Client::models)
/// lists it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Model {
    /// The model's name, to give a [`Conversation`](crate::Conversation).
    pub id: String,
    /// Who owns it (`"openai"`, `"llamacpp"`, ...), when the server said so
    /// as a string.
    pub owned_by: Option<String>,
    /// When it was made, in seconds since 1970, when the server said so as
    /// a whole number (Azure's classic route says `created_at`, kept in
    /// [`extra`](Self::extra)).
    pub created: Option<u64>,
    /// Every other field of the server's object (`object`, llama.cpp's
    /// `meta`, Azure's `capabilities`, and `owned_by` or `created` when they
    /// are not a string and a whole number), as it came.
    pub extra: Map<String, Value>,
}

impl Model {
    /// The server's whole object as JSON text: [`id`](Self::id),
    /// [`owned_by`](Self::owned_by), [`created`](Self::created) and the
    /// [`extra`](Self::extra) fields, keys in alphabetical order.
    pub fn to_json(&self) -> String {
        let mut object = self.extra.clone();
        object.insert("id".into(), self.id.clone().into());
        if let Some(owned_by) = &self.owned_by {
            object.insert("owned_by".into(), owned_by.clone().into());
        }
        if let Some(created) = self.created {
            object.insert("created".into(), created.into());
        }
        Value::Object(object).to_string()
    }

    /// The model the server's object `fields` describes; `None` without a
    /// string `id`.
    fn from_fields(mut fields: Map<String, Value>) -> Option<Model> {
        let Some(Value::String(id)) = fields.remove("id") else {
            return None;
        };
        let owned_by = match fields.remove("owned_by") {
            Some(Value::String(owner)) => Some(owner),
            other => put_back(&mut fields, "owned_by", other),
        };
        let created = match fields.remove("created") {
            Some(Value::Number(n)) if n.is_u64() => n.as_u64(),
            other => put_back(&mut fields, "created", other),
        };
        Some(Model {
            id,
            owned_by,
            created,
            extra: fields,
        })
    }
}

/// Keeps a field that is not of the type its name promises with the others.
fn put_back<T>(fields: &mut Map<String, Value>, name: &str, value: Option<Value>) -> Option<T> {
    if let Some(value) = value {
        fields.insert(name.to_owned(), value);
    }
    None
}

/// The fields of a list that chatwire reads.
#[derive(Deserialize)]
struct List {
    data: Vec<Map<String, Value>>,
}

/// The models of a 2xx body, in the server's order: a body that is not a
/// list is an [`Error::Decode`] quoting its start, or the server's own error
/// when it is an error object.
pub(crate) fn decode(body: &str, request_id: Option<String>) -> Result<Vec<Model>> {
    let list = match serde_json::from_str::<List>(body) {
        Ok(list) => list,
        Err(err) => {
            return Err(in_band_error(body, request_id)
                .unwrap_or_else(|| Error::decode(format!("not a list of models: {err}"), body)))
        }
    };
    let mut models = Vec::with_capacity(list.data.len());
    for (index, fields) in list.data.into_iter().enumerate() {
        let model = Model::from_fields(fields).ok_or_else(|| {
            let why = format!("not a list of models: model {index} has no string \"id\"");
            Error::decode(why, body)
        })?;
        models.push(model);
    }
    Ok(models)
}

/// The error a 2xx body without a list reports, if it is an error object.
fn in_band_error(body: &str, request_id: Option<String>) -> Option<Error> {
    let value: Value = serde_json::from_str(body).ok()?;
    let api = ErrorReport::from_value(&value)?.into_api_error(None, NO_MESSAGE, request_id);
    Some(crate::wire::error::in_band(api))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded from llama.cpp (tests/data/spec/recorded/llamacpp-models.json):
    /// a `models` array beside `data`.
    const LLAMA_CPP: &str = include_str!("../../tests/data/spec/recorded/llamacpp-models.json");

    #[test]
    fn openai_list_in_order() {
        let body = r#"{"object":"list","data":[
            {"id":"gpt-4o","object":"model","created":1715367049,"owned_by":"system"},
            {"id":"o3","object":"model","created":1744225308,"owned_by":"openai"}]}"#;
        let models = decode(body, None).unwrap();
        let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["gpt-4o", "o3"]);
        assert_eq!(models[0].owned_by.as_deref(), Some("system"));
        assert_eq!(models[0].created, Some(1715367049));
        assert_eq!(models[0].extra["object"], "model");
    }

    #[test]
    fn llama_cpp_list_with_models_beside_data() {
        let models = decode(LLAMA_CPP, None).unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].id, "smollm2-135m-instruct");
        assert_eq!(models[0].owned_by.as_deref(), Some("llamacpp"));
        assert_eq!(models[0].extra["meta"]["n_ctx"], 2048);
        // The whole object is the server's, field for field.
        let recorded: Value = serde_json::from_str(LLAMA_CPP).unwrap();
        let written: Value = serde_json::from_str(&models[0].to_json()).unwrap();
        assert_eq!(written, recorded["data"][0]);
    }

    #[test]
    fn owner_and_date_may_be_missing_or_of_another_type() {
        let body = r#"{"data":[{"id":"a"},{"id":"b","owned_by":null,"created":"yesterday"}]}"#;
        let models = decode(body, None).unwrap();
        assert_eq!(
            (models[0].owned_by.as_ref(), models[0].created),
            (None, None)
        );
        assert_eq!(models[0].to_json(), r#"{"id":"a"}"#);
        assert_eq!(
            (models[1].owned_by.as_ref(), models[1].created),
            (None, None)
        );
        // Kept as they came.
        assert_eq!(
            models[1].to_json(),
            r#"{"created":"yesterday","id":"b","owned_by":null}"#
        );
    }

    #[test]
    fn a_body_that_is_no_list_is_a_decode_error_quoting_it() {
        for body in [
            "<html>gateway</html>",
            r#"{"object":"list"}"#,
            r#"{"data":{"id":"a"}}"#,
            r#"{"data":[{"id":"a"},{"name":"b"}]}"#,
            r#"{"data":[{"id":7}]}"#,
            "",
        ] {
            match decode(body, None) {
                Err(Error::Decode { message, excerpt }) => {
                    assert!(message.contains("not a list of models"), "{message}");
                    assert_eq!(excerpt, body);
                }
                other => panic!("{body:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn an_error_object_in_a_2xx_body_is_the_servers_error() {
        let body = r#"{"error":{"message":"no such org","code":403}}"#;
        match decode(body, Some("req-1".into())) {
            Err(Error::Auth(api)) => {
                assert_eq!(api.message, "no such org");
                assert_eq!(api.request_id.as_deref(), Some("req-1"));
            }
            other => panic!("{other:?}"),
        }
    }
}
