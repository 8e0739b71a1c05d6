//! One attempt: the request sent once (and through the redirects the
//! policy allows), its status read, an error body turned into an error.

use std::io::Read;
use std::time::SystemTime;

use ureq::http::header::CONTENT_TYPE;
use ureq::http::{HeaderValue, Response, Uri};
use ureq::Body;

use crate::config::{CredentialHeader, Settings};
use crate::error::Error;
use crate::http::decompress::Coding;
use crate::http::failure;
use crate::http::outcome::{Attempt, Seen};
use crate::http::pool::Pool;
use crate::http::redirect;
use crate::http::retry;
use crate::response_headers::ResponseHeaders;
use crate::wire;

impl Pool {
    /// Sends the request and returns a 2xx response with its body unread,
    /// following the redirects [`redirect::follow`] allows; any other status
    /// is read and turned into an error. The credential header is taken
    /// once per attempt: a callback's fresh token (a failing callback fails
    /// the attempt for good), else the key's header made once.
    pub(crate) fn open(
        &self,
        body: &[u8],
        settings: &Settings,
        seen: &mut Seen,
    ) -> Attempt<Response<Body>> {
        let credential = match self.credential.header() {
            Ok(header) => header,
            Err(error) => return Attempt::Failed(error),
        };
        let mut url = &self.uri;
        let mut redirected;
        let mut hops = 0;
        loop {
            let response =
                match self.open_once(url.clone(), body, credential.as_ref(), settings, seen) {
                    Attempt::Done(response) => response,
                    other => return other,
                };
            let status = response.status().as_u16();
            if !(300..400).contains(&status) {
                return Attempt::Done(response);
            }
            let location = response
                .headers()
                .get("location")
                .and_then(|value| value.to_str().ok());
            match redirect::follow(url, status, location, hops, request_id(&response)) {
                Ok(next) => {
                    redirected = next;
                    url = &redirected;
                }
                Err(error) => return Attempt::Failed(error),
            }
            hops += 1;
        }
    }

    /// One request to `url`: a 2xx or 3xx response with its body unread;
    /// any other status is read and turned into an error.
    fn open_once(
        &self,
        url: Uri,
        body: &[u8],
        credential: Option<&CredentialHeader>,
        settings: &Settings,
        seen: &mut Seen,
    ) -> Attempt<Response<Body>> {
        let mut request = self.agent.post(url);
        if let Some((name, value)) = credential {
            request = request.header(name, value.clone());
        }
        let mut request =
            request.header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in settings.headers.iter() {
            request = request.header(name, value);
        }
        if let Some(authorization) = self.route.proxy_authorization() {
            request = request.header("Proxy-Authorization", authorization);
        }
        let mut response = match request.send(body) {
            Ok(response) => response,
            Err(error) => return failure::of_transport(&self.endpoint, error, settings),
        };
        let status = response.status().as_u16();
        seen.status = Some(status);
        if (200..400).contains(&status) {
            return Attempt::Done(response);
        }
        refused(status, &mut response, settings, seen)
    }
}

/// A 4xx or 5xx answer as an error, retryable as the policy says.
fn refused<T>(
    status: u16,
    response: &mut Response<Body>,
    settings: &Settings,
    seen: &mut Seen,
) -> Attempt<T> {
    let request_id = request_id(response);
    let retry_after = retry::retry_after(response.headers(), SystemTime::now());
    // What an error body says is read up to the limit; the rest is not needed.
    let mut bytes = Vec::new();
    let coding = Coding::of(response.headers());
    let limited = coding
        .decode(response.body_mut().as_reader())
        .take(settings.limits.body);
    let _ = { limited }.read_to_end(&mut bytes);
    seen.received = Some(bytes.len());
    let text = String::from_utf8_lossy(&bytes);
    let api = wire::error::decode(status, &text, request_id);
    let retryable = retry::status_is_retryable(&api);
    let error = Error::from_api(api);
    if retryable {
        Attempt::Retryable { error, retry_after }
    } else {
        Attempt::Failed(error)
    }
}

/// What chatwire keeps of a 2xx response's head.
pub(crate) struct Head {
    /// Every header, for the reply.
    pub(crate) headers: ResponseHeaders,
    pub(crate) request_id: Option<String>,
    /// How the body is coded.
    pub(crate) coding: Coding,
}

/// The head of `response`, from one pass over its headers (the request id
/// and the coding are then read from chatwire's own copy).
pub(crate) fn head_of(response: &Response<Body>) -> Head {
    let all = response.headers();
    let mut headers = ResponseHeaders::with_capacity(all.len() * 48);
    for (name, value) in all {
        // Nearly every value is visible ASCII: taken without the lossy scan.
        match value.to_str() {
            Ok(text) => headers.push_without_nul(name.as_str(), text),
            Err(_) => {
                let text = String::from_utf8_lossy(value.as_bytes());
                headers.push_without_nul(name.as_str(), &text);
            }
        }
    }
    Head {
        request_id: best_request_id(headers.iter()),
        coding: Coding::named(headers.get("content-encoding")),
        headers,
    }
}

/// Response headers that carry a request id, in order of preference:
/// OpenAI and most gateways, Anthropic-style APIs, Azure API Management,
/// Azure, AWS API Gateway and Bedrock, LiteLLM, Kong (Mistral), and last
/// Cloudflare's ray id, which names the edge hop rather than the request.
/// The one list: the docs of `Reply::request_id` and of the C API point here.
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

/// The request id of a response that is not kept, by
/// [`REQUEST_ID_HEADERS`]' preference.
pub(crate) fn request_id(response: &Response<Body>) -> Option<String> {
    let headers = response.headers().iter();
    best_request_id(headers.filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?))))
}

/// The request id among `headers`, by [`REQUEST_ID_HEADERS`]' preference,
/// in one pass.
fn best_request_id<'a>(headers: impl Iterator<Item = (&'a str, &'a str)>) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for (name, value) in headers {
        let Some(rank) = REQUEST_ID_HEADERS.iter().position(|id| *id == name) else {
            continue;
        };
        let value = value.trim();
        if !value.is_empty() && best.is_none_or(|(best, _)| rank < best) {
            best = Some((rank, value));
        }
    }
    best.map(|(_, value)| value.to_owned())
}
