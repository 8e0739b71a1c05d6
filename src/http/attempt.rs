//! One attempt: the request sent once (and through the redirects the
//! policy allows), its status read, an error body turned into an error.

use std::io::Read;
use std::time::SystemTime;

use ureq::http::header::{CONTENT_TYPE, PROXY_AUTHORIZATION};
use ureq::http::{HeaderValue, Method, Request, Response, Uri};
use ureq::{AsSendBody, Body};

use crate::config::{CredentialHeader, Settings};
use crate::error::Error;
use crate::http::decompress::Coding;
use crate::http::failure;
use crate::http::pool::Pool;
use crate::http::proxy::{Forward, Route};
use crate::http::redirect;
use crate::http::retry::{self, Attempt, Call, Seen};
use crate::response_headers::{RequestId, ResponseHeaders};
use crate::wire;

impl Pool {
    /// A call that posts `body` to the endpoint.
    pub(crate) fn to_endpoint<'a>(&'a self, body: &'a [u8]) -> Call<'a> {
        Call {
            url: &self.destination.endpoint,
            uri: &self.destination.uri,
            body: Some(body),
            content_type: None,
        }
    }

    /// Sends the request, following the redirects [`redirect::follow`]
    /// allows: a 2xx response with its body unread, or an error. The
    /// credential is taken per attempt (a failing callback fails for good).
    pub(crate) fn open(
        &self,
        call: &Call<'_>,
        settings: &Settings,
        seen: &mut Seen,
    ) -> Attempt<Response<Body>> {
        let credential = match self.destination.credential.header() {
            Ok(header) => header,
            Err(error) => return Attempt::Failed(error),
        };
        let mut url = call.uri;
        let mut redirected;
        let mut hops = 0;
        loop {
            let response =
                match self.open_once(url.clone(), call, credential.as_ref(), settings, seen) {
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
            redirected = match redirect::follow(
                url,
                status,
                location,
                hops,
                head_of(&response).request_id,
            ) {
                Ok(next) => next,
                Err(error) => return Attempt::Failed(error),
            };
            url = &redirected;
            hops += 1;
        }
    }

    /// One request to `url`: a 2xx or 3xx response, or an error.
    fn open_once(
        &self,
        url: Uri,
        call: &Call<'_>,
        credential: Option<&CredentialHeader>,
        settings: &Settings,
        seen: &mut Seen,
    ) -> Attempt<Response<Body>> {
        let agent = self.agent.current();
        let sent = match call.body {
            Some(body) => {
                agent.run(self.request(body, Method::POST, url, credential, call, settings))
            }
            // No body at all: not even a `content-length: 0`.
            None => agent.run(self.request((), Method::GET, url, credential, call, settings)),
        };
        let mut response = match sent {
            Ok(response) => response,
            Err(error) => return failure::of_transport(call.url, error, settings),
        };
        let status = response.status().as_u16();
        seen.status = Some(status);
        if (200..400).contains(&status) {
            return Attempt::Done(response);
        }
        refused(status, &mut response, settings, seen)
    }

    /// The request with the client's headers: the credential, the
    /// content type of a body, the extra headers, the proxy's credential.
    fn request<B: AsSendBody>(
        &self,
        body: B,
        method: Method,
        url: Uri,
        credential: Option<&CredentialHeader>,
        call: &Call<'_>,
        settings: &Settings,
    ) -> Request<B> {
        // Made in place: each step of ureq's request builder moves it whole.
        let mut request = Request::new(body);
        let is_post = method == Method::POST;
        *request.method_mut() = method;
        *request.uri_mut() = url;
        let headers = request.headers_mut();
        if let Some((name, value)) = credential {
            headers.append(name.clone(), value.clone());
        }
        if is_post {
            let json = || HeaderValue::from_static("application/json");
            let content_type = call.content_type.map_or_else(json, HeaderValue::clone);
            headers.append(CONTENT_TYPE, content_type);
        }
        for (name, value) in settings.headers.iter() {
            headers.append(name.clone(), value.clone());
        }
        if let Route::Forward(Forward {
            authorization: Some(authorization),
            ..
        }) = &self.destination.route
        {
            headers.append(PROXY_AUTHORIZATION, authorization.clone());
        }
        request
    }
}

/// A 4xx or 5xx answer as an error, retryable as the policy says. Out of
/// line: its body reader (a decompressor's state) would otherwise sit in
/// the frame under which every request waits for its answer.
#[inline(never)]
fn refused<T>(
    status: u16,
    response: &mut Response<Body>,
    settings: &Settings,
    seen: &mut Seen,
) -> Attempt<T> {
    let head = head_of(response);
    let retry_after = retry::retry_after(response.headers(), SystemTime::now());
    // What an error body says is read up to the limit; the rest is not needed.
    let mut bytes = Vec::new();
    let limited = head
        .coding
        .decode(response.body_mut().as_reader())
        .take(settings.limits.body);
    let _ = { limited }.read_to_end(&mut bytes);
    seen.received = Some(bytes.len());
    let text = String::from_utf8_lossy(&bytes);
    let api = wire::error::decode(status, &text, head.request_id);
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
    pub(crate) headers: ResponseHeaders,
    pub(crate) request_id: Option<String>,
    pub(crate) coding: Coding,
    /// The body is one JSON document (a server that did not stream).
    pub(crate) is_json: bool,
}

/// The head of `response`, from one pass over its headers.
pub(crate) fn head_of(response: &Response<Body>) -> Head {
    let all = response.headers();
    let mut headers = ResponseHeaders::with_capacity(all.len() * 48);
    let mut request_id = RequestId::default();
    let mut coding = Coding::AsSent;
    let mut is_json = None;
    for (name, value) in all {
        let name = name.as_str();
        // Nearly every value is visible ASCII: taken without the lossy scan.
        let Ok(text) = value.to_str() else {
            let text = String::from_utf8_lossy(value.as_bytes());
            headers.push_without_nul(name, &text);
            continue;
        };
        headers.push_without_nul(name, text);
        request_id.consider(name, text);
        match name {
            "content-encoding" => coding = Coding::named(Some(text)),
            // The first, as a lookup by name gives it.
            "content-type" if is_json.is_none() => {
                is_json = Some(text.trim_start().starts_with("application/json"));
            }
            _ => {}
        }
    }
    Head {
        headers,
        request_id: request_id.best(),
        coding,
        is_json: is_json.unwrap_or(false),
    }
}
