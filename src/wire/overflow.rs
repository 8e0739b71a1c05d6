//! "The conversation is longer than the model's context window", in the
//! words of every server that says it: what turns an HTTP 4xx into
//! [`Error::ContextLength`](crate::Error::ContextLength). Servers agree on no
//! code; `tests/budget.rs` emulates each server's body and cites its source.

/// Codes and types that name the error exactly: OpenAI's (and Groq's,
/// DeepSeek's, LiteLLM's) `code`, and llama.cpp's `type`.
const CODES: [&str; 3] = [
    "context_length_exceeded",
    "exceed_context_size_error",
    "context_window_exceeded",
];

/// Phrases that say it whole, lower case.
const PHRASES: [&str; 5] = [
    // OpenAI, vLLM (before v1), DeepSeek, Mistral, Groq: "This model's
    // maximum context length is 8192 tokens. However, ..."
    "maximum context length",
    // vLLM v1: "... is longer than the maximum model length of 2048."
    "maximum model length",
    // Anthropic's OpenAI-compatible endpoint: "prompt is too long: 209353
    // tokens > 199999 maximum".
    "prompt is too long",
    // Gemini's OpenAI-compatible endpoint: "The input token count (132478)
    // exceeds the maximum number of tokens allowed (131072)."
    "input token count",
    // LiteLLM's wrapper class, named in the messages it passes on.
    "contextwindowexceedederror",
];

/// Things that run over, each with the words servers use for running over
/// them: llama.cpp's "request (15316 tokens) exceeds the available context
/// size (2048 tokens)" (older: "input (N tokens) is larger than the max
/// context size"), Ollama's "input length exceeds the context length",
/// OpenAI's newer "Your input exceeds the context window of this model".
const LIMITS: [&str; 3] = ["context size", "context length", "context window"];
const OVER: [&str; 3] = ["exceed", "larger than", "too long"];

/// Whether a server's error (its message, `type` and `code`) says the
/// request did not fit the context window: the code or type names it, or
/// the message says it in any server's words.
pub(crate) fn is_context_length(message: &str, kind: Option<&str>, code: Option<&str>) -> bool {
    let mut fields = [code, kind].into_iter().flatten();
    if fields.any(|field| CODES.contains(&field.to_ascii_lowercase().as_str())) {
        return true;
    }
    let message = message.to_ascii_lowercase();
    PHRASES.iter().any(|phrase| message.contains(phrase))
        || (LIMITS.iter().any(|limit| message.contains(limit))
            && OVER.iter().any(|over| message.contains(over)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_types_alone_are_enough() {
        assert!(is_context_length(
            "bad request",
            None,
            Some("context_length_exceeded")
        ));
        assert!(is_context_length(
            "bad request",
            Some("exceed_context_size_error"),
            None
        ));
        assert!(!is_context_length(
            "bad request",
            Some("invalid_request_error"),
            Some("400")
        ));
    }

    #[test]
    fn other_errors_are_not_taken_for_it() {
        for message in [
            "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens",
            "Request too large for model on tokens per minute (TPM): Limit 12000",
            "invalid 'messages': expected an array",
            "the context is missing",
            "exceeded your current quota",
        ] {
            assert!(!is_context_length(message, None, None), "{message}");
        }
    }
}
