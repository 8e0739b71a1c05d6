//! [`Client::models`]: the server's list of models, asked for with a GET
//! that travels as a send does (retries, timeouts, credential, headers,
//! proxy, trust).

use crate::config::{self, MAX_MODELS_BODY_BYTES};
use crate::error::Result;
use crate::wire;
use crate::wire::models::Model;

use super::Client;

impl Client {
    /// The models the server offers, in its order: `GET {base_url}/v1/models`
    /// (Azure's classic route: `{endpoint}/openai/models?api-version=...`;
    /// an [`endpoint_url`](crate::ClientBuilder::endpoint_url) ending in
    /// `/chat/completions`: the same URL ending in `/models`, any other is
    /// an [`Error::Config`](crate::Error::Config)). An error status fails as a
    /// send's does; a body that is not a list is an
    /// [`Error::Decode`](crate::Error::Decode); one over
    /// [`Limit::Body`](crate::Limit::Body) or [`MAX_MODELS_BODY_BYTES`] an
    /// [`Error::TooLarge`](crate::Error::TooLarge).
    ///
    /// ```no_run
    /// let client = chatwire::Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("")
    ///     .build()?;
    /// for model in client.models()? {
    ///     println!("{} ({})", model.id, model.owned_by.as_deref().unwrap_or("?"));
    /// }
    /// # Ok::<(), chatwire::Error>(())
    /// ```
    pub fn models(&self) -> Result<Vec<Model>> {
        let url = config::models_url(self.endpoint())?;
        let mut settings = self.settings.clone();
        settings.limits.body = settings.limits.body.min(MAX_MODELS_BODY_BYTES);
        self.pool
            .get(&url, &settings)
            .and_then(|received| wire::models::decode(&received.body, received.head.request_id))
            // As a send's: the secrets read after the request.
            .map_err(|error| error.redact(&self.pool.secrets(&self.settings)))
    }
}
