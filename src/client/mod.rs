//! [`Client`], its plain send, and the token budget every send runs
//! through; the other ways to send ([`stream`], [`background`], [`json`])
//! and the [`builder`] each have a file; [`config`] holds the one value
//! every client is made from.

mod background;
mod batch;
mod builder;
mod config;
mod in_flight;
mod json;
mod models;
mod stream;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::log::Level;

use crate::config::{Api, Limit, Settings};
use crate::conversation::budget::{LeftOut, Trim};
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::http::cancel::CancelToken;
use crate::http::pool::Destination;
use crate::http::pool::Pool;
use crate::log;
use crate::reply::Reply;
use crate::wire;
use crate::wire::request::Delivery;

pub use background::PendingReply;
pub(crate) use background::{BackgroundSend, Signal};
pub(crate) use builder::provider_of;
pub use builder::ClientBuilder;
pub(crate) use config::Config;

/// A connection to one chat completions endpoint with one key; cheap to
/// clone (clones share the connection pool) and `Send + Sync`.
#[derive(Clone)]
pub struct Client {
    /// What the client was made from, validated; it never changes.
    config: Arc<Config>,
    pool: Arc<Pool>,
    /// What each request carries, made from `config` once.
    settings: Settings,
    stream_usage: stream::StreamUsage,
    /// The cap on background requests in flight, shared by the clones.
    in_flight: Arc<in_flight::Gate>,
    /// `config`'s worker stack size, where a background send reads it.
    worker_stack: usize,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let config = &self.config;
        let network = &self.pool.destination.network;
        f.debug_struct("Client")
            .field("endpoint", &self.pool.destination.endpoint)
            .field("api", &self.pool.destination.api)
            .field("api_key", &"[redacted]")
            .field("timeout", &config.timeout)
            .field("connect_timeout", &config.connect_timeout)
            .field("idle_timeout", &config.idle_timeout)
            .field("max_retries", &config.max_retries)
            .field("max_idle_connections", &config.max_idle_connections)
            .field("max_in_flight", &self.in_flight.limit())
            .field("worker_stack_size", &config.worker_stack_size)
            .field("headers", &self.settings.headers)
            .field("limits", &config.limits)
            .field("stream_usage", &config.stream_usage)
            .field("json_corrections", &config.json.corrections)
            .field("schema_delivery", &config.json.delivery)
            .field("proxy", &network.proxy)
            .field("ca_file", &network.ca_file)
            .field("client_cert", &network.client_cert)
            .finish()
    }
}

impl Client {
    /// Starts configuring a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The client `config` makes, once [`Config::validate`] has checked it
    /// (and read its place, which `config` keeps, so that it is not read
    /// again). `previous`, the client it replaces (the C handle's), lends
    /// its connection pool when the [`PoolKey`](config::PoolKey) is the
    /// same (else a new pool is made for the place `config` holds), and
    /// what its running requests hold: the cap on requests in flight (set
    /// to the new value, which lets waiting requests go on) and a refused
    /// `stream_options`.
    pub(crate) fn from_config(config: &mut Config, previous: Option<&Client>) -> Result<Client> {
        config.validate()?;
        let settings = config.settings()?;
        let pool = match previous {
            Some(previous) if previous.config.pool_key() == config.pool_key() => {
                Arc::clone(&previous.pool)
            }
            _ => {
                let destination = Destination::clone(config.read_place()?);
                let size = config.max_idle_connections;
                Arc::new(Pool::new(destination, size, &settings))
            }
        };
        let (in_flight, mut stream_usage) = match previous {
            Some(previous) => {
                previous.in_flight.set_limit(config.max_in_flight);
                let stream_usage = previous.stream_usage.clone();
                (Arc::clone(&previous.in_flight), stream_usage)
            }
            None => (
                in_flight::Gate::new(config.max_in_flight),
                stream::StreamUsage::default(),
            ),
        };
        stream_usage.asked = config.stream_usage;
        Ok(Client {
            worker_stack: config.worker_stack_size,
            config: Arc::new(config.clone()),
            pool,
            settings,
            stream_usage,
            in_flight,
        })
    }

    /// A client configured from the environment alone: `$OPENAI_BASE_URL` and
    /// `$OPENAI_API_KEY`, or their entries in `./.env`.
    pub fn from_env() -> Result<Client> {
        Client::builder().build()
    }

    /// Sends the conversation and appends the assistant's reply to it; on
    /// any error the conversation is left as it was.
    pub fn send(&self, conversation: &mut Conversation) -> Result<String> {
        self.send_reply(conversation).map(Reply::into_content)
    }

    /// Like [`send`](Self::send), returning the whole [`Reply`] (finish
    /// reason, usage, request id, the body as received).
    pub fn send_reply(&self, conversation: &mut Conversation) -> Result<Reply> {
        let (reply, trim) = self.fetch_planned(conversation)?;
        conversation.append_answer(reply.to_message(), trim, reply.tokens())?;
        Ok(reply)
    }

    /// Fetches the reply within the token budget, and what the request left out.
    fn fetch_planned(&self, conversation: &Conversation) -> Result<(Reply, Option<Trim>)> {
        Outgoing::plan(conversation)?
            .send(self.api(), Delivery::Whole, |body| self.fetch(body, None))
    }

    /// Posts a body and reads the whole reply; an error is cleaned of secrets.
    fn fetch(&self, body: &[u8], token: Option<&CancelToken>) -> Result<Reply> {
        self.pool
            .post(body, &self.settings, token)
            .and_then(|received| {
                let (body, request_id) = (received.body, received.head.request_id);
                let mut reply = wire::api::decode(self.api(), body, request_id)?;
                reply.headers = received.head.headers;
                Ok(reply)
            })
            // Read after the post, since a credential callback's tokens are
            // among them; and only for an error, which a reply is not.
            .map_err(|error| error.redact(&self.pool.secrets(&self.settings)))
    }

    /// Sends the conversation and returns the reply without appending it
    /// (which [`Conversation::append_reply`] does).
    pub fn complete(&self, conversation: &Conversation) -> Result<Reply> {
        let (reply, trim) = self.fetch_planned(conversation)?;
        Ok(reply.left_out(LeftOut::new(conversation.len(), trim)))
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        &self.pool.destination.endpoint
    }

    /// The API requests speak.
    pub fn api(&self) -> Api {
        self.pool.destination.api
    }

    /// The whole-request timeout (connecting, sending, and reading the reply).
    pub fn timeout(&self) -> Duration {
        self.config.timeout
    }

    /// How long a stream may stay silent before it fails with [`Error::Timeout`](crate::Error::Timeout).
    pub fn idle_timeout(&self) -> Duration {
        self.config.idle_timeout
    }

    /// How many times a failed request is retried.
    pub fn max_retries(&self) -> u32 {
        self.config.max_retries
    }

    /// The value of one of the limits on what chatwire keeps of an answer.
    pub fn limit(&self, limit: Limit) -> u64 {
        self.config.limits.get(limit)
    }

    /// How many idle connections this client keeps open for reuse.
    pub fn max_idle_connections(&self) -> usize {
        self.config.max_idle_connections
    }

    /// How many background requests of this client and its clones run at
    /// once; see [`ClientBuilder::max_in_flight`](crate::ClientBuilder::max_in_flight).
    pub fn max_in_flight(&self) -> usize {
        self.in_flight.limit()
    }

    /// The stack size of a background request's worker thread.
    pub fn worker_stack_size(&self) -> usize {
        self.config.worker_stack_size
    }
}

/// A conversation on its way out, and what its budget left out of it.
pub(crate) struct Outgoing<'c> {
    sent: Cow<'c, Conversation>,
    trim: Option<Trim>,
}

impl<'c> Outgoing<'c> {
    /// Checks that the conversation can be sent and plans what its budget
    /// leaves out (see [`Conversation::plan_trim`]).
    pub(crate) fn plan(conversation: &'c Conversation) -> Result<Outgoing<'c>> {
        conversation.check_ready_to_send()?;
        let trim = conversation.plan_trim()?;
        let sent = match &trim {
            None => Cow::Borrowed(conversation),
            Some(trim) => {
                log::line(
                    Level::Info,
                    format_args!(
                        "dropping the {} oldest messages of {}: the conversation is estimated \
                         at {} tokens, over its token budget of {}; {} tokens are sent",
                        trim.dropped(),
                        conversation.len(),
                        trim.tokens_before,
                        conversation.token_budget().unwrap_or_default(),
                        trim.tokens_after
                    ),
                );
                Cow::Owned(conversation.selection(trim))
            }
        };
        Ok(Outgoing { sent, trim })
    }

    /// The body a send over `api` would post first, and what it leaves out
    /// of the conversation: a batch's request is this send, made later.
    pub(crate) fn encoded(&self, api: Api, delivery: Delivery) -> Result<(Vec<u8>, Option<Trim>)> {
        Ok((wire::api::encode(api, &self.sent, delivery)?, self.trim))
    }

    /// The same, owning what it sends, for a worker thread.
    pub(crate) fn into_owned(self) -> Outgoing<'static> {
        Outgoing {
            sent: Cow::Owned(self.sent.into_owned()),
            trim: self.trim,
        }
    }

    /// Makes the request, its body encoded for `api` and `delivery`, with `post`; when
    /// the server answers [`Error::ContextLength`] under a budget, more old
    /// exchanges are left out and `post` runs once more. Gives what `post`
    /// gave, and all that the request left out, for the append.
    pub(crate) fn send<R>(
        self,
        api: Api,
        delivery: Delivery,
        mut post: impl FnMut(&[u8]) -> Result<R>,
    ) -> Result<(R, Option<Trim>)> {
        let mut post = |sent: &Conversation| post(&wire::api::encode(api, sent, delivery)?);
        match post(&self.sent) {
            Err(Error::ContextLength(api)) if self.sent.token_budget().is_some() => {
                self.send_shorter(api, &mut post)
            }
            outcome => outcome.map(|outcome| (outcome, self.trim)),
        }
    }

    /// After the server said the conversation is over its context window:
    /// leaves out more old exchanges and posts once more. Out of line, so
    /// that a background worker's frame, under which it waits for every
    /// answer, does not hold a second inlined post for this rare road.
    #[inline(never)]
    fn send_shorter<R>(
        &self,
        api: Box<crate::error::ApiError>,
        post: &mut dyn FnMut(&Conversation) -> Result<R>,
    ) -> Result<(R, Option<Trim>)> {
        let Some(more) = self.sent.plan_retry() else {
            return Err(Error::ContextLength(api));
        };
        log::warn(format_args!(
            "the server says the conversation is longer than the context window \
             ({}); dropping the {} oldest messages left and trying once more \
             (estimated {} tokens)",
            api.message,
            more.dropped(),
            more.tokens_after
        ));
        let outcome = post(&self.sent.selection(&more))?;
        Ok((outcome, Some(Trim::then(self.trim, more))))
    }
}

/// A callback for the pieces of a background send: `false` stops the request.
pub(crate) type DeltaHandler = Box<dyn FnMut(&crate::StreamDelta) -> bool + Send>;

#[cfg(test)]
mod tests {
    #[test]
    fn the_limit_set_is_the_limit_read() -> crate::Result<()> {
        use crate::Limit;
        let client = crate::Client::builder()
            .base_url("http://127.0.0.1:8080")
            .api_key("sk-local")
            .limit(Limit::Stream, 1024 * 1024)
            .build()?;
        assert_eq!(client.limit(Limit::Stream), 1024 * 1024);
        Ok(())
    }
}
