//! A batch's results: the output and error files as they came, each kept
//! once, with an index from `custom_id` to its line; a line is decoded into
//! a reply or an error only when it is applied.

use std::collections::HashMap;
use std::ops::Range;

use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::wire;
use crate::wire::batch::{ResultId, ResultLine};
use crate::wire::error::ErrorReport;

/// The codes of a request that never ran (OpenAI's error file).
const NEVER_RAN: [&str; 2] = ["batch_expired", "batch_cancelled"];

/// The result files read so far and where each request's line is.
#[derive(Debug, Default, Clone)]
pub(crate) struct Results {
    files: Vec<String>,
    index: HashMap<String, Place>,
}

/// Where one result is: its file, the bytes of its line, and its number.
#[derive(Debug, Clone)]
struct Place {
    file: usize,
    bytes: Range<usize>,
    line: usize,
}

impl Results {
    /// Keeps a result file and indexes its lines; a request already indexed
    /// keeps its first result. A line that is not a result is an
    /// [`Error::Decode`] naming it (the first of them), and the other lines
    /// stay indexed.
    pub(crate) fn read(&mut self, mut text: String) -> Result<()> {
        // A body read whole grew by doubling: keep what it holds, no more.
        text.shrink_to_fit();
        let file = self.files.len();
        let mut first_bad = None;
        let mut bad = 0usize;
        let mut start = 0;
        for (number, line) in text.split_inclusive('\n').enumerate() {
            let bytes = start..start + line.len();
            start = bytes.end;
            let line = line.trim_end();
            if line.is_empty() {
                continue;
            }
            match serde_json::from_str::<ResultId>(line) {
                Ok(id) => {
                    let place = Place {
                        file,
                        bytes,
                        line: number + 1,
                    };
                    self.index.entry(id.custom_id.into_owned()).or_insert(place);
                }
                Err(err) => {
                    bad += 1;
                    first_bad.get_or_insert_with(|| (number + 1, err.to_string(), line.to_owned()));
                }
            }
        }
        self.files.push(text);
        match first_bad {
            None => Ok(()),
            Some((number, why, line)) => Err(Error::decode(
                format!(
                    "line {number} of the results is not a result ({why}); {bad} such \
                     line(s), the other results are kept"
                ),
                &line,
            )),
        }
    }

    /// How many requests have a result.
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// The reply, or the error, that the request `custom_id` got; an
    /// [`Error::Unavailable`] when it has no result.
    pub(crate) fn outcome(&self, custom_id: &str) -> Result<Reply> {
        let Some(place) = self.index.get(custom_id) else {
            return Err(Error::Unavailable(format!(
                "no result for the request {custom_id:?} (results read: {})",
                self.len()
            )));
        };
        let line = self.files[place.file][place.bytes.clone()].trim_end();
        outcome_of(line, place.line)
    }
}

/// What one result line says: a reply decoded as a send's whole body is, or
/// the error a send would have given.
fn outcome_of(line: &str, number: usize) -> Result<Reply> {
    let result: ResultLine = serde_json::from_str(line).map_err(|err| {
        Error::decode(
            format!("line {number} of the results is not a result: {err}"),
            line,
        )
    })?;
    match (result.response, result.error) {
        (Some(response), _) if (200..300).contains(&response.status_code) => {
            // The one place a batch's reply is decoded: as a send's body,
            // of the API the body is of (a batch opened by its id has no
            // requests to say which).
            let body = response.body.get();
            let api = wire::api::api_of_body(body);
            wire::api::decode(api, body.to_owned(), response.request_id)
        }
        (Some(response), _) => {
            let body = response.body.get();
            let api = wire::error::decode(response.status_code, body, response.request_id);
            Err(Error::from_api(api))
        }
        (None, Some(error)) => Err(error_without_response(error.get())),
        (None, None) => Err(Error::decode(
            format!("line {number} of the results has neither a response nor an error"),
            line,
        )),
    }
}

/// A request that got no response: one that never ran is unavailable, any
/// other failure an error without an HTTP status, as the server named it.
fn error_without_response(error: &str) -> Error {
    let report = ErrorReport::from_text(error);
    let never_ran = report
        .code
        .as_deref()
        .is_some_and(|code| NEVER_RAN.contains(&code));
    let api = report.into_api_error(None, "the request failed", None);
    if never_ran {
        Error::Unavailable(format!("the request never ran: {api}"))
    } else {
        Error::from_api(api)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str = r#"{"choices":[{"message":{"role":"assistant","content":"hi"}}]}"#;

    fn ok_line(id: &str) -> String {
        format!(
            r#"{{"id":"r","custom_id":"{id}","response":{{"status_code":200,"request_id":"req_{id}","body":{REPLY}}},"error":null}}"#
        )
    }

    #[test]
    fn a_result_is_found_in_any_order_and_keeps_its_body_as_it_came() {
        let mut results = Results::default();
        let text = format!("{}\n{}\n", ok_line("b"), ok_line("a"));
        results.read(text).unwrap();
        let reply = results.outcome("a").unwrap();
        assert_eq!(reply.content, "hi");
        assert_eq!(reply.json(), REPLY);
        assert_eq!(reply.request_id.as_deref(), Some("req_a"));
        assert!(matches!(results.outcome("c"), Err(Error::Unavailable(_))));
    }

    #[test]
    fn a_malformed_line_is_named_and_the_others_stay() {
        let mut results = Results::default();
        let text = format!("{}\nnot json\n{}", ok_line("a"), ok_line("b"));
        let error = results.read(text).unwrap_err();
        assert!(
            error.to_string().contains("line 2 of the results"),
            "{error}"
        );
        assert_eq!(results.outcome("b").unwrap().content, "hi");
    }

    #[test]
    fn failures_map_as_a_send_would_and_expiry_is_unavailable() {
        let mut results = Results::default();
        let text = [
            r#"{"custom_id":"quota","response":{"status_code":429,"request_id":"r1","body":{"error":{"message":"slow down","type":"requests"}}},"error":null}"#,
            r#"{"custom_id":"late","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#,
            r#"{"custom_id":"bad","response":null,"error":{"code":"invalid_request","message":"no"}}"#,
        ]
        .join("\n");
        results.read(text).unwrap();
        let error = results.outcome("quota").unwrap_err();
        assert!(matches!(error, Error::RateLimited(_)), "{error:?}");
        assert_eq!(error.http_status(), Some(429));
        assert!(matches!(
            results.outcome("late"),
            Err(Error::Unavailable(_))
        ));
        assert!(matches!(results.outcome("bad"), Err(Error::Http(_))));
    }
}
