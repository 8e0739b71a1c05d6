//! One HTTP exchange with the server, repeated under the retry policy.

use std::io::ErrorKind;
use std::time::{Duration, SystemTime};

use crate::config::ApiKey;
use crate::error::{Error, Result};
use crate::response;
use crate::retry;

/// No chat completion comes near this; a larger body is a broken server.
const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// Per-request settings that may differ between clones of one client.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub(crate) timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) max_retries: u32,
}

/// A 2xx body and the request id that came with it.
pub(crate) struct Received {
    pub(crate) body: String,
    pub(crate) request_id: Option<String>,
}

/// The connection pool, the endpoint and the key, shared by every clone of a client.
#[derive(Debug)]
pub(crate) struct Transport {
    agent: ureq::Agent,
    endpoint: String,
    key: ApiKey,
}

/// What one attempt came to.
enum Attempt {
    Received(Received),
    Retryable {
        error: Error,
        retry_after: Option<std::time::Duration>,
    },
    Failed(Error),
}

impl Transport {
    pub(crate) fn new(endpoint: String, key: ApiKey) -> Transport {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("chatwire/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Transport {
            agent,
            endpoint,
            key,
        }
    }

    pub(crate) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Posts a JSON body, retrying what is worth retrying, and returns the 2xx body.
    pub(crate) fn post(&self, body: &[u8], settings: &Settings) -> Result<Received> {
        let mut retries = 0;
        loop {
            let (error, retry_after) = match self.attempt(body, settings) {
                Attempt::Received(received) => return Ok(received),
                Attempt::Failed(error) => return Err(error),
                Attempt::Retryable { error, retry_after } => (error, retry_after),
            };
            if retries >= settings.max_retries {
                return Err(error);
            }
            let pause = match retry_after {
                Some(pause) if pause > retry::MAX_RETRY_AFTER => return Err(error),
                Some(pause) => pause,
                None => retry::backoff(retries),
            };
            std::thread::sleep(pause);
            retries += 1;
        }
    }

    fn attempt(&self, body: &[u8], settings: &Settings) -> Attempt {
        let sent = self
            .agent
            .post(&self.endpoint)
            .config()
            .timeout_global(Some(settings.timeout))
            .timeout_connect(Some(settings.connect_timeout))
            .build()
            .header("Authorization", self.key.bearer())
            .content_type("application/json")
            .send(body);
        let mut response = match sent {
            Ok(response) => response,
            Err(error) => return self.transport_failure(error, settings),
        };
        let status = response.status().as_u16();
        let request_id = response
            .headers()
            .get("x-request-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let retry_after = retry::retry_after(response.headers(), SystemTime::now());
        let bytes = match response
            .body_mut()
            .with_config()
            .limit(MAX_BODY_BYTES)
            .read_to_vec()
        {
            Ok(bytes) => bytes,
            Err(error) => return self.transport_failure(error, settings),
        };
        if (200..300).contains(&status) {
            return match String::from_utf8(bytes) {
                Ok(body) => Attempt::Received(Received { body, request_id }),
                Err(err) => Attempt::Failed(Error::decode(
                    "the body is not UTF-8",
                    &String::from_utf8_lossy(err.as_bytes()),
                )),
            };
        }
        self.http_failure(status, &bytes, request_id, retry_after)
    }

    fn http_failure(
        &self,
        status: u16,
        bytes: &[u8],
        request_id: Option<String>,
        retry_after: Option<Duration>,
    ) -> Attempt {
        let mut api = response::decode_error(status, &String::from_utf8_lossy(bytes), request_id);
        api.message = self.key.redact(api.message);
        let retryable = retry::status_is_retryable(&api);
        let error = Error::from_api(api);
        if retryable {
            Attempt::Retryable { error, retry_after }
        } else {
            Attempt::Failed(error)
        }
    }

    /// Sorts ureq's errors into timeouts, retryable connection trouble, and the rest.
    fn transport_failure(&self, error: ureq::Error, settings: &Settings) -> Attempt {
        let endpoint = &self.endpoint;
        let timed_out = || {
            Error::Timeout(format!(
                "no complete response from {endpoint} within {:?} (connect timeout {:?})",
                settings.timeout, settings.connect_timeout
            ))
        };
        let transport = |error: ureq::Error| Error::Transport {
            message: format!("{endpoint}: {error}"),
            source: Some(Box::new(error)),
        };
        match error {
            ureq::Error::Timeout(_) => retryable(timed_out()),
            ureq::Error::Io(ref io) if io.kind() == ErrorKind::TimedOut => retryable(timed_out()),
            ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                retryable(transport(error))
            }
            ureq::Error::BadUri(ref why) => {
                Attempt::Failed(Error::Config(format!("bad URL {endpoint}: {why}")))
            }
            ureq::Error::BodyExceedsLimit(limit) => Attempt::Failed(Error::decode(
                format!("the body is larger than {limit} bytes"),
                "",
            )),
            other => Attempt::Failed(transport(other)),
        }
    }
}

fn retryable(error: Error) -> Attempt {
    Attempt::Retryable {
        error,
        retry_after: None,
    }
}
