//! One HTTP exchange with the server, repeated under the retry policy:
//! whole bodies for plain requests, a reader for streamed ones.

use std::io::{ErrorKind, Read};
use std::time::{Duration, Instant, SystemTime};

use ureq::http::header::{AUTHORIZATION, CONTENT_TYPE};
use ureq::http::{HeaderValue, Response};
use ureq::tls::TlsConfig;
use ureq::Body;

use crate::config::{self, ApiKey, Limit, Network, Settings};
use crate::error::{Error, Result, TimeoutKind};
use crate::http::cancel::CancelToken;
use crate::http::connect;
use crate::http::proxy::{self, Route};
use crate::http::redirect;
use crate::http::response;
use crate::http::retry;
use crate::http::tls;
use crate::log;
use crate::secrets::Secrets;

/// The most room made for a body before its bytes arrive.
const PRESIZE_BYTES: u64 = 1024 * 1024;

/// ureq's own input buffer size, kept when the header limit is below it.
const DEFAULT_INPUT_BUFFER: usize = 128 * 1024;

/// How long a streamed body's end may take to arrive after the reply's end
/// for the connection to be kept, and how much may come.
const LEFTOVER_PATIENCE: Duration = Duration::from_millis(20);
const LEFTOVER_BYTES: usize = 16 * 1024;

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
    network: Network,
    route: Route,
    /// Whose certificates the pool trusts, as read from `network`.
    tls: TlsConfig,
    max_idle_connections: usize,
    /// The settings the agent was built with.
    tuning: Tuning,
    /// `Bearer <key>`, made once (marked sensitive, so that the http
    /// crate's Debug does not show it).
    authorization: HeaderValue,
}

/// What a pool is built from besides the endpoint and the key.
struct Pool {
    network: Network,
    route: Route,
    tls: TlsConfig,
    max_idle_connections: usize,
    tuning: Tuning,
}

/// The settings ureq keeps in its agent. A client whose settings change
/// them gets a new agent ([`Transport::retuned`]): a request carrying a
/// config of its own copies the agent's each time, and one whose input
/// buffer differs from the agent's is kept off the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tuning {
    timeout: Duration,
    connect_timeout: Duration,
    header_limit: usize,
}

impl Tuning {
    pub(crate) fn of(settings: &Settings) -> Tuning {
        Tuning {
            timeout: settings.timeout,
            connect_timeout: settings.connect_timeout,
            header_limit: usize::try_from(settings.limits.headers).unwrap_or(usize::MAX),
        }
    }

    /// The connection's input buffer: the headers must fit in it.
    fn input_buffer(&self) -> usize {
        DEFAULT_INPUT_BUFFER.max(self.header_limit.saturating_add(16 * 1024))
    }
}

/// Sets a [`Tuning`] on one of ureq's config builders (the agent's or a
/// request's: ureq gives their types no common name to write a function
/// over).
macro_rules! tuned {
    ($builder:expr, $tuning:expr) => {{
        let tuning: &Tuning = $tuning;
        $builder
            .timeout_global(Some(tuning.timeout))
            .timeout_connect(Some(tuning.connect_timeout))
            .max_response_header_size(tuning.header_limit)
            .input_buffer_size(tuning.input_buffer())
    }};
}

/// What one attempt saw of the response, for its log line.
#[derive(Default)]
struct Seen {
    status: Option<u16>,
    received: Option<usize>,
}

/// What one attempt came to.
enum Attempt<T> {
    Done(T),
    Retryable {
        error: Error,
        retry_after: Option<Duration>,
    },
    Failed(Error),
}

impl Transport {
    /// A pool for `endpoint` that trusts and routes as `network` says and
    /// keeps up to `max_idle_connections` idle connections. Fails with
    /// [`Error::Config`] for an unusable proxy or CA file.
    pub(crate) fn new(
        endpoint: String,
        key: ApiKey,
        network: Network,
        max_idle_connections: usize,
        tuning: Tuning,
    ) -> Result<Transport> {
        let route = proxy::route(&endpoint, &network.proxy)?;
        let speaks_tls = endpoint
            .get(..6)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https:"));
        let tls = tls::config(network.ca_file.as_deref(), speaks_tls)?;
        let pool = Pool {
            network,
            route,
            tls,
            max_idle_connections,
            tuning,
        };
        Transport::build(endpoint, key, pool)
    }

    /// A pool from what [`new`](Self::new) has read and checked.
    fn build(endpoint: String, key: ApiKey, pool: Pool) -> Result<Transport> {
        let Pool {
            network,
            route,
            tls,
            max_idle_connections,
            tuning,
        } = pool;
        let config = tuned!(ureq::Agent::config_builder(), &tuning)
            .http_status_as_error(false)
            // Redirects are judged by chatwire's own policy (http::redirect).
            .max_redirects(0)
            .user_agent(concat!("chatwire/", env!("CARGO_PKG_VERSION")))
            .max_idle_connections(max_idle_connections)
            .max_idle_connections_per_host(max_idle_connections)
            .tls_config(tls.clone())
            // chatwire chooses the proxy itself (ureq's own choice would
            // tunnel plain http and send http_proxy's to https).
            .proxy(route.tunnel())
            .build();
        Ok(Transport {
            agent: route.agent(config),
            endpoint,
            authorization: key.authorization()?,
            key,
            network,
            route,
            tls,
            max_idle_connections,
            tuning,
        })
    }

    /// The same endpoint, key, route and trust over a new pool: nothing is
    /// read again, so only what changes can fail.
    fn rebuilt(&self, max_idle_connections: usize, tuning: Tuning) -> Result<Transport> {
        let pool = Pool {
            network: self.network.clone(),
            route: self.route.clone(),
            tls: self.tls.clone(),
            max_idle_connections,
            tuning,
        };
        Transport::build(self.endpoint.clone(), self.key.clone(), pool)
    }

    /// The same endpoint and key with other network settings, in a new pool.
    pub(crate) fn with_network(&self, network: Network) -> Result<Transport> {
        let (endpoint, key) = (self.endpoint.clone(), self.key.clone());
        Transport::new(
            endpoint,
            key,
            network,
            self.max_idle_connections,
            self.tuning,
        )
    }

    pub(crate) fn network(&self) -> &Network {
        &self.network
    }

    pub(crate) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Every secret a request with these settings carries.
    pub(crate) fn secrets(&self, settings: &Settings) -> Secrets {
        let mut secrets = config::secrets(&self.key, &settings.headers);
        for secret in self.route.secrets() {
            secrets.add(&secret);
        }
        secrets
    }

    /// The same endpoint, key and network over a new pool of another size.
    pub(crate) fn resized(&self, max_idle_connections: usize) -> Result<Transport> {
        self.rebuilt(max_idle_connections, self.tuning)
    }

    /// The settings this pool's agent was built with.
    pub(crate) fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// The same endpoint, key and network over a new pool built for
    /// `settings`.
    pub(crate) fn retuned(&self, settings: &Settings) -> Result<Transport> {
        self.rebuilt(self.max_idle_connections, Tuning::of(settings))
    }

    /// Posts a JSON body and reads the whole 2xx answer, retrying what is
    /// worth retrying. With a token, the request can be cancelled.
    pub(crate) fn post(
        &self,
        body: &[u8],
        settings: &Settings,
        token: Option<&CancelToken>,
    ) -> Result<Received> {
        self.with_retries(settings, token, body.len(), |seen| {
            let mut response = match self.open(body, settings, seen) {
                Attempt::Done(response) => response,
                Attempt::Retryable { error, retry_after } => {
                    return Attempt::Retryable { error, retry_after }
                }
                Attempt::Failed(error) => return Attempt::Failed(error),
            };
            let request_id = request_id(&response);
            let limit = settings.limits.body;
            let announced = response.body().content_length();
            match read_limited(response.body_mut().as_reader(), announced, limit) {
                Ok(Some(bytes)) => match String::from_utf8(bytes).inspect(|body| {
                    seen.received = Some(body.len());
                }) {
                    Ok(body) => Attempt::Done(Received { body, request_id }),
                    Err(err) => Attempt::Failed(Error::decode(
                        "the body is not UTF-8",
                        &String::from_utf8_lossy(err.as_bytes()),
                    )),
                },
                Ok(None) => Attempt::Failed(Limit::Body.exceeded(limit)),
                Err(error) => self.transport_failure(ureq::Error::Io(error), settings),
            }
        })
    }

    /// Posts a JSON body and returns a reader over the 2xx answer as it
    /// arrives. The reader fails with [`Error::Timeout`] when nothing arrives
    /// for the idle timeout, and with [`Error::Cancelled`] once the token is
    /// cancelled.
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
        let is_json = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with("application/json"));
        Ok(StreamReader {
            request_id: request_id(&response),
            is_json,
            reader: Box::new(response.into_body().into_reader()),
            token: token.clone(),
            settings: settings.clone(),
            endpoint: self.endpoint.clone(),
            opened: Instant::now(),
            received: 0,
            ended: false,
        })
    }

    /// Runs attempts until one succeeds, fails for good, or the retries
    /// run out; logs one line per attempt. `sent` is the body's size.
    fn with_retries<T>(
        &self,
        settings: &Settings,
        token: Option<&CancelToken>,
        sent: usize,
        mut attempt: impl FnMut(&mut Seen) -> Attempt<T>,
    ) -> Result<T> {
        let mut retries = 0;
        loop {
            if let Some(token) = token {
                token.check()?;
            }
            let started = Instant::now();
            let mut seen = Seen::default();
            // The attempt's sockets and lookups answer to the token while it
            // runs, and only then.
            let outcome = {
                let _entered = token.map(CancelToken::enter);
                attempt(&mut seen)
            };
            // A cancel closes the connection under the attempt, which then
            // fails with a plain I/O error: say why instead.
            let outcome = match token.and_then(stop_reason) {
                Some(error) => Attempt::Failed(error),
                None => outcome,
            };
            let verdict = match outcome {
                Attempt::Done(value) => Ok(value),
                Attempt::Failed(error) => Err((error, None)),
                Attempt::Retryable { error, retry_after } => {
                    let pause = (retries < settings.max_retries)
                        .then(|| pause(retries, retry_after))
                        .flatten();
                    Err((error, pause))
                }
            };
            let line = |outcome| log::Attempt {
                method: "POST",
                url: &self.endpoint,
                status: seen.status,
                sent,
                received: seen.received,
                elapsed: started.elapsed(),
                number: retries + 1,
                outcome,
            };
            // The log line quotes the error, which may quote the server: the
            // secrets are taken out here, as the client does for the caller.
            let why = |error: &Error| self.secrets(settings).redact(&error.to_string());
            let (error, pause) = match verdict {
                Ok(value) => {
                    log::attempt(&line(log::Outcome::Done));
                    return Ok(value);
                }
                Err((Error::Cancelled, _)) => {
                    log::attempt(&line(log::Outcome::Cancelled));
                    return Err(Error::Cancelled);
                }
                Err((error, None)) => {
                    log::attempt(&line(log::Outcome::Failed { why: &why(&error) }));
                    return Err(error);
                }
                Err((error, Some(pause))) => (error, pause),
            };
            log::attempt(&line(log::Outcome::Retry {
                pause,
                why: &why(&error),
            }));
            match token {
                Some(token) => token.sleep(pause)?,
                None => std::thread::sleep(pause),
            }
            retries += 1;
        }
    }

    /// Sends the request and returns a 2xx response with its body unread,
    /// following the redirects [`redirect::follow`] allows; any other status
    /// is read and turned into an error.
    fn open(&self, body: &[u8], settings: &Settings, seen: &mut Seen) -> Attempt<Response<Body>> {
        let mut url = self.endpoint.clone();
        let mut hops = 0;
        loop {
            let response = match self.open_once(&url, body, settings, seen) {
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
            match redirect::follow(&url, status, location, hops, request_id(&response)) {
                Ok(next) => url = next,
                Err(error) => return Attempt::Failed(error),
            }
            hops += 1;
        }
    }

    /// One request to `url`: a 2xx or 3xx response with its body unread;
    /// any other status is read and turned into an error.
    fn open_once(
        &self,
        url: &str,
        body: &[u8],
        settings: &Settings,
        seen: &mut Seen,
    ) -> Attempt<Response<Body>> {
        let mut request = self.agent.post(url);
        let tuning = Tuning::of(settings);
        if tuning != self.tuning {
            request = tuned!(request.config(), &tuning).build();
        }
        let mut request = request
            .header(AUTHORIZATION, self.authorization.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in settings.headers.iter() {
            request = request.header(name, value);
        }
        if let Some(authorization) = self.route.proxy_authorization() {
            request = request.header("Proxy-Authorization", authorization);
        }
        let sent = request.send(body);
        let mut response = match sent {
            Ok(response) => response,
            Err(error) => return self.transport_failure(error, settings),
        };
        let status = response.status().as_u16();
        seen.status = Some(status);
        if (200..400).contains(&status) {
            return Attempt::Done(response);
        }
        let request_id = request_id(&response);
        let retry_after = retry::retry_after(response.headers(), SystemTime::now());
        // What an error body says is read up to the limit; the rest is not needed.
        let mut bytes = Vec::new();
        let limited = response.body_mut().as_reader().take(settings.limits.body);
        let _ = { limited }.read_to_end(&mut bytes);
        seen.received = Some(bytes.len());
        let text = String::from_utf8_lossy(&bytes);
        let api = response::decode_error(status, &text, request_id);
        let retryable = retry::status_is_retryable(&api);
        let error = Error::from_api(api);
        if retryable {
            Attempt::Retryable { error, retry_after }
        } else {
            Attempt::Failed(error)
        }
    }

    /// Sorts ureq's errors into timeouts, retryable connection trouble, and the rest.
    fn transport_failure<T>(&self, error: ureq::Error, settings: &Settings) -> Attempt<T> {
        let endpoint = &self.endpoint;
        // A refused certificate is refused again on a retry.
        if let Some(detail) = tls::certificate_failure(&error) {
            return Attempt::Failed(Error::Tls {
                message: format!("{}: {detail}", log::shown_url(endpoint)),
            });
        }
        match error {
            ureq::Error::Io(ref io) if connect::is_silence(io) => {
                Attempt::Failed(silent(endpoint, settings))
            }
            ureq::Error::Timeout(which) => retryable(timed_out(endpoint, settings, which)),
            ureq::Error::Io(ref io) if is_timeout(io) => {
                retryable(timed_out(endpoint, settings, ureq::Timeout::Global))
            }
            ureq::Error::Io(_) | ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                retryable(transport_error(endpoint, error))
            }
            ureq::Error::BadUri(ref why) => {
                Attempt::Failed(Error::Config(format!("bad URL {endpoint}: {why}")))
            }
            ureq::Error::BodyExceedsLimit(limit) => Attempt::Failed(Limit::Body.exceeded(limit)),
            ureq::Error::LargeResponseHeader(_, limit) => {
                Attempt::Failed(Limit::Headers.exceeded(limit as u64))
            }
            other => Attempt::Failed(transport_error(endpoint, other)),
        }
    }
}

/// Reads a whole body, `None` when it is longer than `limit` bytes. The
/// reader decompresses, so the count is of what is kept: a compressed bomb
/// stops at the limit, whatever its size on the wire.
fn read_limited(
    reader: impl Read,
    announced: Option<u64>,
    limit: u64,
) -> std::io::Result<Option<Vec<u8>>> {
    // Room for the length the server announced saves the small reads that
    // grow an empty buffer; no more than PRESIZE_BYTES before any arrive.
    let room = announced.unwrap_or(0).min(limit).min(PRESIZE_BYTES) as usize;
    let mut bytes = Vec::with_capacity(room + 1);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// The pause before the next attempt, or `None` when the server asks for
/// a longer one than chatwire waits.
fn pause(retries: u32, retry_after: Option<Duration>) -> Option<Duration> {
    match retry_after {
        Some(pause) if pause > retry::MAX_RETRY_AFTER => None,
        Some(pause) => Some(pause),
        None => Some(retry::backoff(retries)),
    }
}

/// ureq reports a timeout while reading a body as an I/O error wrapping its own.
fn is_timeout(error: &std::io::Error) -> bool {
    error.kind() == ErrorKind::TimedOut
        || error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
            .is_some_and(|inner| matches!(inner, ureq::Error::Timeout(_)))
}

/// Response headers that carry a request id, in order of preference:
/// OpenAI and most gateways, Anthropic-style APIs, Azure API Management,
/// Azure, AWS API Gateway and Bedrock, LiteLLM, Kong (Mistral), and last
/// Cloudflare's ray id, which names the edge hop rather than the request.
const REQUEST_ID_HEADERS: [&str; 8] = [
    "x-request-id",
    "request-id",
    "apim-request-id",
    "x-ms-request-id",
    "x-amzn-requestid",
    "x-litellm-call-id",
    "x-kong-request-id",
    "cf-ray",
];

/// The request id, by [`REQUEST_ID_HEADERS`]' preference. One pass over
/// the response's few headers: a lookup of each name would hash it eight
/// times per send.
fn request_id(response: &Response<Body>) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for (name, value) in response.headers() {
        let Some(rank) = REQUEST_ID_HEADERS
            .iter()
            .position(|id| *id == name.as_str())
        else {
            continue;
        };
        let Some(value) = value.to_str().ok().map(str::trim) else {
            continue;
        };
        if !value.is_empty() && best.is_none_or(|(best, _)| rank < best) {
            best = Some((rank, value));
        }
    }
    best.map(|(_, value)| value.to_owned())
}

/// A timeout error that says which timeout ran out.
fn timed_out(endpoint: &str, settings: &Settings, which: ureq::Timeout) -> Error {
    match which {
        ureq::Timeout::Resolve | ureq::Timeout::Connect => Error::Timeout {
            kind: TimeoutKind::Connect,
            message: format!(
                "could not connect to {endpoint} within the connect timeout of {:?}",
                settings.connect_timeout
            ),
        },
        _ => Error::Timeout {
            kind: TimeoutKind::Request,
            message: format!(
                "no complete response from {endpoint} within the request timeout of {:?}",
                settings.timeout
            ),
        },
    }
}

fn transport_error(endpoint: &str, error: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Transport {
        message: format!("{endpoint}: {error}"),
        source: Some(Box::new(error)),
    }
}

fn retryable<T>(error: Error) -> Attempt<T> {
    Attempt::Retryable {
        error,
        retry_after: None,
    }
}

/// The body of a streamed answer, read as it arrives.
pub(crate) struct StreamReader {
    pub(crate) request_id: Option<String>,
    /// The server answered with one JSON body instead of a stream.
    pub(crate) is_json: bool,
    reader: Box<dyn Read + Send>,
    token: CancelToken,
    settings: Settings,
    endpoint: String,
    /// When the answer's head came, what the body brought since, and
    /// whether it was read to its end: for the line logged when it closes.
    opened: Instant,
    received: usize,
    ended: bool,
}

impl StreamReader {
    /// Reads the rest of the body, for a server that did not stream.
    pub(crate) fn read_all(&mut self) -> Result<String> {
        let mut body = Vec::new();
        let mut buffer = [0u8; 16 * 1024];
        let limit = self.settings.limits.body;
        loop {
            let read = self.read(&mut buffer)?;
            if read == 0 {
                break;
            }
            if (body.len() + read) as u64 > limit {
                return Err(Limit::Body.exceeded(limit));
            }
            body.extend_from_slice(&buffer[..read]);
        }
        String::from_utf8(body).map_err(|err| {
            Error::decode(
                "the body is not UTF-8",
                &String::from_utf8_lossy(err.as_bytes()),
            )
        })
    }

    /// Reads what is left of the body after the reply's end (a chunked
    /// body's last chunk, say) if it has arrived or arrives at once: then the
    /// connection goes back to the pool. Otherwise it is closed when the
    /// reader is dropped.
    pub(crate) fn finish(&mut self) {
        let _entered = self.token.enter();
        connect::with_patience(LEFTOVER_PATIENCE, || {
            let mut rest = [0u8; 1024];
            let mut left = LEFTOVER_BYTES;
            loop {
                match self.reader.read(&mut rest) {
                    Ok(0) => {
                        self.ended = true;
                        break;
                    }
                    Ok(read) => {
                        self.received += read;
                        left = match left.checked_sub(read) {
                            Some(left) => left,
                            None => break,
                        };
                    }
                    Err(_) => break,
                }
            }
        });
    }

    /// Reads the next bytes; 0 at the end of the body. No read waits
    /// longer than the idle timeout: a socket timeout, not a thread that
    /// watches the stream.
    pub(crate) fn read(&mut self, buffer: &mut [u8]) -> Result<usize> {
        self.token.check()?;
        let read = {
            let _entered = self.token.enter();
            connect::with_patience(self.settings.idle_timeout, || self.reader.read(buffer))
        };
        match read {
            // A cancel shuts the connection down, which a blocked read may
            // see as a clean end of the body: say why.
            Ok(0) => match stop_reason(&self.token) {
                Some(error) => Err(error),
                None => {
                    self.ended = true;
                    Ok(0)
                }
            },
            Ok(read) => {
                self.received += read;
                Ok(read)
            }
            Err(error) => Err(stop_reason(&self.token)
                .unwrap_or_else(|| read_failure(&self.endpoint, &self.settings, error))),
        }
    }
}

impl Drop for StreamReader {
    /// The stream's own line: the attempt's line was logged when its head
    /// came, before any of its body.
    fn drop(&mut self) {
        log::line(
            ::log::Level::Info,
            format_args!(
                "POST {}: stream closed, received {} bytes in {:.3} s{}",
                log::shown_url(&self.endpoint),
                self.received,
                self.opened.elapsed().as_secs_f64(),
                if self.ended { "" } else { ", before its end" }
            ),
        );
    }
}

/// Why a stoppable request was stopped, if it was.
fn stop_reason(token: &CancelToken) -> Option<Error> {
    token.is_cancelled().then_some(Error::Cancelled)
}

/// The error of a stream that stayed silent for the idle timeout.
fn silent(endpoint: &str, settings: &Settings) -> Error {
    Error::Timeout {
        kind: TimeoutKind::Idle,
        message: format!(
            "the stream from {endpoint} was silent for the idle timeout of {:?}",
            settings.idle_timeout
        ),
    }
}

fn read_failure(endpoint: &str, settings: &Settings, error: std::io::Error) -> Error {
    match error {
        error if connect::is_silence(&error) => silent(endpoint, settings),
        error if is_timeout(&error) => timed_out(endpoint, settings, ureq::Timeout::Global),
        error => transport_error(endpoint, error),
    }
}
