//! What a built client can be asked; a client never changes once built.

use std::time::Duration;

use crate::config::Limit;

use super::Client;

impl Client {
    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.pool.endpoint()
    }

    /// The whole-request timeout (connecting, sending, and reading the reply).
    pub fn timeout(&self) -> Duration {
        self.settings.timeout
    }

    /// How long a stream may stay silent before it fails with [`Error::Timeout`](crate::Error::Timeout).
    pub fn idle_timeout(&self) -> Duration {
        self.settings.idle_timeout
    }

    /// How many times a failed request is retried.
    pub fn max_retries(&self) -> u32 {
        self.settings.max_retries
    }

    /// The value of one of the limits on what chatwire keeps of an answer.
    ///
    /// ```
    /// use chatwire::Limit;
    /// let client = chatwire::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("sk-local")
    ///     .limit(Limit::Stream, 1024 * 1024)
    ///     .build()?;
    /// assert_eq!(client.limit(Limit::Stream), 1024 * 1024);
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn limit(&self, limit: Limit) -> u64 {
        self.settings.limits.get(limit)
    }

    /// How many idle connections this client keeps open for reuse.
    pub fn max_idle_connections(&self) -> usize {
        self.max_idle_connections
    }

    /// How many background requests of this client and its clones run at
    /// once; see [`ClientBuilder::max_in_flight`](crate::ClientBuilder::max_in_flight).
    pub fn max_in_flight(&self) -> usize {
        self.in_flight.limit()
    }

    /// The stack size of a background request's worker thread.
    pub fn worker_stack_size(&self) -> usize {
        self.worker_stack
    }
}
