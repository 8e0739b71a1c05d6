//! The two ways a request is posted: for a whole body, and for a body read
//! as it arrives. Both run their attempts under the retry loop.

use std::time::Instant;

use crate::config::Settings;
use crate::error::Result;
use crate::http::attempt::{head_of, Head};
use crate::http::cancel::CancelToken;
use crate::http::connect;
use crate::http::failure;
use crate::http::pool::Pool;
use crate::http::reader::{self, BodyError, StreamReader};
use crate::http::retry::Attempt;

/// A 2xx body and the head that came with it.
pub(crate) struct Received {
    pub(crate) body: String,
    pub(crate) head: Head,
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
        self.with_retries(settings, token, body.len(), |seen| {
            self.open(body, settings, seen).and_then(|mut response| {
                let head = head_of(&response);
                let announced = response.body().content_length();
                let reader = head.coding.decode(response.body_mut().as_reader());
                match reader::read_text(reader, announced, settings.limits.body) {
                    Ok(body) => {
                        seen.received = Some(body.len());
                        Attempt::Done(Received { body, head })
                    }
                    Err(BodyError::Refused(error)) => Attempt::Failed(error),
                    Err(BodyError::Io(error)) => failure::of_transport(
                        &self.destination.endpoint,
                        ureq::Error::Io(error),
                        settings,
                    ),
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
            self.with_retries(settings, Some(token), body.len(), |seen| {
                self.open(body, settings, seen)
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
