//! The ways a request is made: posted for a whole body or for a body read
//! as it arrives, and a GET for a whole body. All run their attempts under
//! the retry loop.

use std::time::Instant;

use crate::config::Settings;
use ureq::http::Uri;

use crate::error::{Error, Result};
use crate::http::attempt::{head_of, Head};
use crate::http::cancel::CancelToken;
use crate::http::connect;
use crate::http::failure;
use crate::http::pool::Pool;
use crate::http::reader::{self, BodyError, StreamReader};
use crate::http::retry::{Attempt, Call};
use crate::log::shown_url;

/// A 2xx body and the head that came with it.
pub(crate) struct Received {
    pub(crate) body: String,
    pub(crate) head: Head,
}

/// A URL of chatwire's own making (on the endpoint's origin) as ureq takes it.
pub(crate) fn parse_url(url: &str) -> Result<Uri> {
    url.parse()
        .map_err(|_| Error::Config(format!("bad URL {}", shown_url(url))))
}

impl Pool {
    /// Posts a JSON body and reads the whole 2xx answer, retrying what is
    /// worth retrying. With a token, the request can be cancelled.
    pub(crate) fn post(
        &self,
        body: &[u8],
        settings: &Settings,
        token: Option<&CancelToken>,
    ) -> Result<Received> {
        self.whole(&self.to_endpoint(body), settings, token)
    }

    /// GETs `url`, a URL on the endpoint's origin (its route and trust are
    /// the endpoint's), and reads the whole 2xx answer as a post's is read.
    pub(crate) fn get(&self, url: &str, settings: &Settings) -> Result<Received> {
        let uri = parse_url(url)?;
        let call = Call {
            url,
            uri: &uri,
            body: None,
            content_type: None,
        };
        self.whole(&call, settings, None)
    }

    /// Makes the call and reads the whole 2xx answer, up to the body limit.
    pub(super) fn whole(
        &self,
        call: &Call<'_>,
        settings: &Settings,
        token: Option<&CancelToken>,
    ) -> Result<Received> {
        self.with_retries(settings, token, call, |seen| {
            self.open(call, settings, seen).and_then(|mut response| {
                let head = head_of(&response);
                let announced = response.body().content_length();
                let reader = head.coding.decode(response.body_mut().as_reader());
                match reader::read_text(reader, announced, settings.limits.body) {
                    Ok(body) => {
                        seen.received = Some(body.len());
                        Attempt::Done(Received { body, head })
                    }
                    Err(BodyError::Refused(error)) => Attempt::Failed(error),
                    Err(BodyError::Io(error)) => {
                        failure::of_transport(call.url, ureq::Error::Io(error), settings)
                    }
                }
            })
        })
    }

    /// Posts a JSON body and returns a reader over the 2xx answer as it
    /// arrives, which answers to the idle timeout and the token.
    pub(crate) fn post_stream(
        &self,
        body: &[u8],
        settings: &Settings,
        token: &CancelToken,
    ) -> Result<StreamReader> {
        // The wait for the answer's head is silence too: every read of
        // the stream waits at most the idle timeout.
        let response = connect::with_patience(settings.idle_timeout, || {
            let call = self.to_endpoint(body);
            self.with_retries(settings, Some(token), &call, |seen| {
                self.open(&call, settings, seen)
            })
        })?;
        let head = head_of(&response);
        Ok(StreamReader {
            reader: Box::new(head.coding.decode(response.into_body().into_reader())),
            head,
            token: token.clone(),
            settings: settings.clone(),
            endpoint: self.destination.endpoint.clone(),
            opened: Instant::now(),
            received: 0,
            ended: false,
        })
    }
}
