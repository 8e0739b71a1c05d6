//! What came back from a successful request, besides the text.

/// Token counts the server reported for one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Usage {
    /// Tokens in the request (the whole history).
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens in the reply.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Both together.
    #[serde(default)]
    pub total_tokens: u64,
}

/// A decoded chat completion.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The assistant's text; empty when the model sent none.
    pub content: String,
    /// Why the model stopped: `stop`, `length`, `content_filter`, ...
    pub finish_reason: Option<String>,
    /// Token counts, when the server sent them.
    pub usage: Option<Usage>,
    /// The completion's `id`, when the server sent one.
    pub id: Option<String>,
    /// The model that answered, as the server names it.
    pub model: Option<String>,
    /// The `x-request-id` response header, when the server sent one.
    pub request_id: Option<String>,
    /// The response body exactly as received.
    pub json: String,
}
