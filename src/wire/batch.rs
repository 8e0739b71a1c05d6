//! The Files and Batches APIs on the wire: a batch input line, the file and
//! batch objects, and a line of an output or error file. The shapes are
//! those of OpenAI's API reference ("Batch", "Files"), which vLLM's
//! `run-batch` and the providers that copy the API write too.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::error::{Error, Result};

/// The start of one input line, up to its body: `{"custom_id": ...,
/// "method": "POST", "url": ..., "body": ` (the body and `}` follow).
#[derive(Serialize)]
struct LineHead<'a> {
    custom_id: &'a str,
    method: &'static str,
    url: &'a str,
}

/// Appends the input line of one request, its `body` the JSON a send would
/// post, as it is, and a newline.
pub(crate) fn write_line(out: &mut Vec<u8>, custom_id: &str, url: &str, body: &[u8]) {
    let head = LineHead {
        custom_id,
        method: "POST",
        url,
    };
    // Serializing strings into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, &head);
    // Reopens the object the head closed.
    out.pop();
    out.extend_from_slice(b",\"body\":");
    out.extend_from_slice(body);
    out.extend_from_slice(b"}\n");
}

/// The length of the line [`write_line`] writes, without writing it.
pub(crate) fn line_len(custom_id: &str, url: &str, body: &[u8]) -> usize {
    let mut head = Vec::with_capacity(custom_id.len() + url.len() + 48);
    write_line(&mut head, custom_id, url, b"");
    head.len() + body.len()
}

/// An uploaded file (`POST /v1/files`): only its id matters here.
#[derive(Deserialize)]
pub(crate) struct FileObject {
    pub(crate) id: String,
}

/// The body of `POST /v1/batches`.
#[derive(Serialize)]
pub(crate) struct CreateBatch<'a> {
    pub(crate) input_file_id: &'a str,
    pub(crate) endpoint: &'a str,
    pub(crate) completion_window: &'static str,
}

/// A batch object: where the batch stands.
#[derive(Deserialize)]
pub(crate) struct BatchObject {
    pub(crate) id: String,
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) input_file_id: Option<String>,
    #[serde(default)]
    pub(crate) output_file_id: Option<String>,
    #[serde(default)]
    pub(crate) error_file_id: Option<String>,
    #[serde(default)]
    pub(crate) request_counts: Option<RequestCounts>,
    #[serde(default)]
    pub(crate) errors: Option<BatchErrors>,
}

/// How many of a batch's requests have run, and how.
#[derive(Deserialize, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RequestCounts {
    #[serde(default)]
    pub(crate) total: u64,
    #[serde(default)]
    pub(crate) completed: u64,
    #[serde(default)]
    pub(crate) failed: u64,
}

/// Why a batch failed validation: `{"object": "list", "data": [...]}`.
#[derive(Deserialize)]
pub(crate) struct BatchErrors {
    #[serde(default)]
    pub(crate) data: Vec<BatchError>,
}

/// One validation error of an input file.
#[derive(Deserialize)]
pub(crate) struct BatchError {
    #[serde(default)]
    pub(crate) code: Option<String>,
    #[serde(default)]
    pub(crate) message: Option<String>,
    #[serde(default)]
    pub(crate) line: Option<u64>,
    #[serde(default)]
    pub(crate) param: Option<String>,
}

impl BatchError {
    /// `line 3: message (code c, param p)`, on one line: the server's
    /// control characters escaped.
    pub(crate) fn text(&self) -> String {
        crate::error::one_line::escape(&self.raw_text()).into_owned()
    }

    fn raw_text(&self) -> String {
        let mut text = match self.line {
            Some(line) => format!("line {line}: "),
            None => String::new(),
        };
        text.push_str(self.message.as_deref().unwrap_or("no message"));
        let details: Vec<String> = [("code", &self.code), ("param", &self.param)]
            .iter()
            .filter_map(|(label, value)| value.as_ref().map(|value| format!("{label} {value}")))
            .collect();
        if !details.is_empty() {
            text.push_str(&format!(" ({})", details.join(", ")));
        }
        text
    }
}

/// Decodes a file or batch object, or says what the body is.
pub(crate) fn decode<'a, T: Deserialize<'a>>(body: &'a str, what: &str) -> Result<T> {
    serde_json::from_str(body).map_err(|err| Error::decode(format!("not {what}: {err}"), body))
}

/// Only the `custom_id` of a result line, read to index the file.
#[derive(Deserialize)]
pub(crate) struct ResultId<'a> {
    #[serde(borrow)]
    pub(crate) custom_id: std::borrow::Cow<'a, str>,
}

/// A whole result line: the response the request got, or why it got none.
#[derive(Deserialize)]
pub(crate) struct ResultLine<'a> {
    #[serde(borrow, default)]
    pub(crate) response: Option<ResultResponse<'a>>,
    #[serde(borrow, default)]
    pub(crate) error: Option<&'a RawValue>,
}

/// The response of one request: its HTTP status, request id and body.
#[derive(Deserialize)]
pub(crate) struct ResultResponse<'a> {
    pub(crate) status_code: u16,
    #[serde(default)]
    pub(crate) request_id: Option<String>,
    #[serde(borrow)]
    pub(crate) body: &'a RawValue,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_the_head_then_the_body_as_it_is() {
        let mut out = Vec::new();
        let body = br#"{"model":"m","messages":[]}"#;
        write_line(&mut out, "q\"1", "/v1/chat/completions", body);
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "{\"custom_id\":\"q\\\"1\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\
             \"body\":{\"model\":\"m\",\"messages\":[]}}\n"
        );
        assert_eq!(line_len("q\"1", "/v1/chat/completions", body), out.len());
    }

    #[test]
    fn a_validation_error_reads_on_one_line() {
        let error: BatchError =
            serde_json::from_str(r#"{"code":"invalid_url","message":"bad","line":3}"#).unwrap();
        assert_eq!(error.text(), "line 3: bad (code invalid_url)");
    }
}
