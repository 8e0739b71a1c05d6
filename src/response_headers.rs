//! A response's headers, as a reply keeps them.

use std::ffi::CStr;
use std::fmt;

/// Every header of a response, in the order the server sent them: names in
/// lower case, values as sent (read leniently when not UTF-8).
//
// One buffer, each name and value followed by a NUL (which no header can
// hold): one allocation per reply, and values C gets without a copy.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ResponseHeaders {
    text: String,
}

impl ResponseHeaders {
    /// Room for headers whose names and values total `bytes`.
    pub(crate) fn with_capacity(bytes: usize) -> ResponseHeaders {
        ResponseHeaders {
            text: String::with_capacity(bytes),
        }
    }

    /// Adds a header; a NUL in either text ends it there.
    pub fn push(&mut self, name: &str, value: &str) {
        let [name, value] = [name, value].map(|text| until_nul(text).map_or(text, |(at, _)| at));
        self.push_without_nul(name, value);
    }

    /// Adds a header whose texts hold no NUL (as an HTTP header's cannot).
    pub(crate) fn push_without_nul(&mut self, name: &str, value: &str) {
        self.text.push_str(name);
        self.text.push('\0');
        self.text.push_str(value);
        self.text.push('\0');
    }

    /// Every header as `(name, value)`, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        let mut rest = self.text.as_str();
        std::iter::from_fn(move || {
            let (name, after) = until_nul(rest)?;
            let (value, after) = until_nul(after)?;
            rest = after;
            Some((name, value))
        })
    }

    /// The value of the header `name` (case-insensitive); the first one
    /// when it came twice.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }

    /// [`get`](Self::get)'s value with the NUL that follows it, for C.
    pub(crate) fn get_c(&self, name: &str) -> Option<&CStr> {
        let value = self.get(name)?;
        let start = value.as_ptr() as usize - self.text.as_ptr() as usize;
        let with_nul = &self.text.as_bytes()[start..=start + value.len()];
        CStr::from_bytes_with_nul(with_nul).ok()
    }

    /// How many headers there are.
    pub fn len(&self) -> usize {
        memchr::memchr_iter(0, self.text.as_bytes()).count() / 2
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

fn until_nul(text: &str) -> Option<(&str, &str)> {
    let end = memchr::memchr(0, text.as_bytes())?;
    Some((text.get(..end)?, text.get(end + 1..)?))
}

impl fmt::Debug for ResponseHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> FromIterator<(&'a str, &'a str)> for ResponseHeaders {
    fn from_iter<I: IntoIterator<Item = (&'a str, &'a str)>>(headers: I) -> ResponseHeaders {
        let mut all = ResponseHeaders::default();
        for (name, value) in headers {
            all.push(name, value);
        }
        all
    }
}

/// Response headers that carry a request id, in order of preference:
/// OpenAI and most gateways, Anthropic-style APIs, Azure API Management,
/// Azure, AWS API Gateway and Bedrock, LiteLLM, Kong (Mistral), and last
/// Cloudflare's ray id, which names the edge hop rather than the request.
/// The one list; docs/c-api.md names it for users of `Reply::request_id` and C.
pub(crate) const REQUEST_ID_HEADERS: [&str; 8] = [
    "x-request-id",
    "request-id",
    "apim-request-id",
    "x-ms-request-id",
    "x-amzn-requestid",
    "x-litellm-call-id",
    "x-kong-request-id",
    "cf-ray",
];

/// The best request id among the headers seen so far, by
/// [`REQUEST_ID_HEADERS`]' preference.
#[derive(Default)]
pub(crate) struct RequestId<'a>(Option<(usize, &'a str)>);

impl<'a> RequestId<'a> {
    pub(crate) fn consider(&mut self, name: &str, value: &'a str) {
        let Some(rank) = REQUEST_ID_HEADERS.iter().position(|id| *id == name) else {
            return;
        };
        let value = value.trim();
        if !value.is_empty() && self.0.is_none_or(|(best, _)| rank < best) {
            self.0 = Some((rank, value));
        }
    }

    pub(crate) fn best(self) -> Option<String> {
        self.0.map(|(_, value)| value.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_found_by_name_in_any_case_and_given_to_c_in_place() {
        let headers: ResponseHeaders = [("x-a", "1"), ("empty", ""), ("x-a", "2"), ("b", "ü")]
            .into_iter()
            .collect();
        assert_eq!(headers.len(), 4);
        assert_eq!(headers.get("X-A"), Some("1"));
        assert_eq!(headers.get("empty"), Some(""));
        assert_eq!(headers.get("missing"), None);
        assert_eq!(headers.get_c("b").unwrap().to_str().unwrap(), "ü");
        assert_eq!(headers.get_c("empty").unwrap().to_bytes(), b"");
        let all: Vec<_> = headers.iter().collect();
        assert_eq!(all[2], ("x-a", "2"));
        assert_eq!(
            format!("{headers:?}"),
            r#"{"x-a": "1", "empty": "", "x-a": "2", "b": "ü"}"#
        );
    }

    #[test]
    fn a_nul_ends_a_text_and_nothing_is_empty() {
        let mut headers = ResponseHeaders::default();
        assert!(headers.is_empty());
        headers.push("a\0b", "c\0d");
        assert_eq!(headers.iter().collect::<Vec<_>>(), [("a", "c")]);
        assert!(!headers.is_empty());
    }
}
