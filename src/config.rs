//! Where the client's settings come from: arguments first, then the
//! environment, then a `.env` file in the current directory.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ureq::http::header::{HeaderName, HeaderValue};

use crate::error::{Error, Result};
use crate::secrets::Secrets;

/// The base URL used when none is given and `$OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com";

/// The path appended to a base URL.
const CHAT_PATH: &str = "/v1/chat/completions";

/// An API key that never prints itself.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// Checks that the key can travel in an HTTP header without saying what it is.
    pub(crate) fn new(key: String) -> Result<ApiKey> {
        if key.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Err(Error::Config(
                "the API key contains control characters (a stray newline?)".into(),
            ));
        }
        Ok(ApiKey(key))
    }

    /// The `Authorization` header value, marked sensitive.
    pub(crate) fn authorization(&self) -> Result<ureq::http::HeaderValue> {
        let mut value = ureq::http::HeaderValue::from_str(&format!("Bearer {}", self.0))
            .map_err(|_| Error::Config("the API key cannot be sent in a header".into()))?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// Where a client's requests go, and whom it trusts: fixed when its
/// connection pool is made (a change makes a new pool).
#[derive(Debug, Clone, Default)]
pub(crate) struct Network {
    pub(crate) proxy: ProxySetting,
    /// A PEM bundle trusted besides the system's roots.
    pub(crate) ca_file: Option<PathBuf>,
}

/// Which proxy to use.
#[derive(Debug, Clone, Default)]
pub(crate) enum ProxySetting {
    /// The environment's, as curl reads it (`https_proxy`, `http_proxy`,
    /// `all_proxy`, `no_proxy`, and their upper-case forms).
    #[default]
    Environment,
    /// None, whatever the environment says.
    Off,
    /// This one, for every request of the client.
    Url(ProxyUrl),
}

impl ProxySetting {
    /// `""` means no proxy; any other text is the proxy's URL.
    pub(crate) fn from_text(text: &str) -> ProxySetting {
        if text.trim().is_empty() {
            ProxySetting::Off
        } else {
            ProxySetting::Url(text.into())
        }
    }
}

/// A proxy URL, which may hold a user name and password: `Debug` shows
/// neither.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ProxyUrl(String);

impl ProxyUrl {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for ProxyUrl {
    fn from(text: &str) -> ProxyUrl {
        ProxyUrl(text.to_owned())
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProxyUrl({})", crate::log::shown_url(&self.0))
    }
}

/// Per-request settings that may differ between clones of one client.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_retries: u32,
    pub(crate) headers: Headers,
    pub(crate) limits: Limits,
}

/// One of the limits on what chatwire keeps of a server's answer; see
/// [`Client::set_limit`](crate::Client::set_limit). Every limit counts bytes
/// as chatwire holds them, after decompression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// A whole response body: a reply that is not streamed, an error body,
    /// or a server's one JSON answer to a streamed request. Default
    /// [`DEFAULT_MAX_BODY_BYTES`].
    Body,
    /// One line, and one event's data, of a streamed reply. Default
    /// [`DEFAULT_MAX_EVENT_BYTES`].
    Event,
    /// Everything a streamed reply adds up to: content, refusal, tool calls
    /// (ids, names, arguments). Default [`DEFAULT_MAX_STREAM_BYTES`].
    Stream,
    /// The status line and headers of a response. Default
    /// [`DEFAULT_MAX_HEADER_BYTES`], at most [`MAX_HEADER_LIMIT`].
    Headers,
}

/// The default [`Limit::Body`]: no chat completion comes near it.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;
/// The default [`Limit::Event`].
pub const DEFAULT_MAX_EVENT_BYTES: u64 = 16 * 1024 * 1024;
/// The default [`Limit::Stream`].
pub const DEFAULT_MAX_STREAM_BYTES: u64 = 64 * 1024 * 1024;
/// The default [`Limit::Headers`].
pub const DEFAULT_MAX_HEADER_BYTES: u64 = 64 * 1024;
/// The smallest value any limit accepts: less cannot hold an error body.
pub const MIN_LIMIT: u64 = 1024;
/// The largest [`Limit::Headers`] accepted.
pub const MAX_HEADER_LIMIT: u64 = 1024 * 1024;
/// The largest [`Limit::Body`], [`Limit::Event`] or [`Limit::Stream`] accepted.
pub const MAX_LIMIT: u64 = 4 * 1024 * 1024 * 1024;

/// The limits of one client; see [`Limit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) body: u64,
    pub(crate) event: u64,
    pub(crate) stream: u64,
    pub(crate) headers: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            body: DEFAULT_MAX_BODY_BYTES,
            event: DEFAULT_MAX_EVENT_BYTES,
            stream: DEFAULT_MAX_STREAM_BYTES,
            headers: DEFAULT_MAX_HEADER_BYTES,
        }
    }
}

impl Limits {
    /// The value of one limit.
    pub(crate) fn get(&self, limit: Limit) -> u64 {
        match limit {
            Limit::Body => self.body,
            Limit::Event => self.event,
            Limit::Stream => self.stream,
            Limit::Headers => self.headers,
        }
    }

    /// Sets one limit; below [`MIN_LIMIT`] or above its maximum is an
    /// [`Error::InvalidArgument`] and changes nothing.
    pub(crate) fn set(&mut self, limit: Limit, bytes: u64) -> Result<()> {
        let max = match limit {
            Limit::Headers => MAX_HEADER_LIMIT,
            _ => MAX_LIMIT,
        };
        if !(MIN_LIMIT..=max).contains(&bytes) {
            return Err(Error::InvalidArgument(format!(
                "the {} limit must be from {MIN_LIMIT} to {max} bytes, not {bytes}",
                limit.what()
            )));
        }
        *self.slot(limit) = bytes;
        Ok(())
    }

    fn slot(&mut self, limit: Limit) -> &mut u64 {
        match limit {
            Limit::Body => &mut self.body,
            Limit::Event => &mut self.event,
            Limit::Stream => &mut self.stream,
            Limit::Headers => &mut self.headers,
        }
    }
}

impl Limit {
    /// What the limit bounds, as [`Error::TooLarge`] names it.
    pub(crate) fn what(self) -> &'static str {
        match self {
            Limit::Body => "the response body",
            Limit::Event => "one event of the stream",
            Limit::Stream => "the streamed reply",
            Limit::Headers => "the response headers",
        }
    }

    /// The error for something that grew past this limit.
    pub(crate) fn exceeded(self, limit: u64) -> Error {
        Error::TooLarge {
            what: self.what().to_owned(),
            limit,
        }
    }
}

/// Headers chatwire sets itself, or the HTTP layer does; a caller's own
/// value would contradict them.
const OWN_HEADERS: [&str; 6] = [
    "authorization",
    "content-type",
    "content-length",
    "transfer-encoding",
    "host",
    "connection",
];

/// The caller's extra request headers, sent with every request. Cheap to
/// clone (a send takes a copy); the values may be secrets, so `Debug` shows
/// the names only and no error quotes a value.
#[derive(Clone, Default)]
pub(crate) struct Headers(Arc<Vec<(HeaderName, HeaderValue)>>);

impl Headers {
    /// Sets (replaces) or, with `None`, removes a header. Names are checked
    /// as HTTP header names, case-insensitively; values as header values.
    pub(crate) fn set(&mut self, text: &str, value: Option<&str>) -> Result<()> {
        let name = HeaderName::from_bytes(text.as_bytes()).map_err(|_| {
            Error::InvalidArgument(format!("{text:?} is not a valid HTTP header name"))
        })?;
        if OWN_HEADERS.contains(&name.as_str()) {
            let why = match name.as_str() {
                "authorization" => "it carries the API key, which is given to the client",
                _ => "chatwire or the HTTP layer sets it",
            };
            return Err(Error::InvalidArgument(format!(
                "the {text} header cannot be set: {why}"
            )));
        }
        let value = value
            .map(|value| {
                let mut value = HeaderValue::from_str(value).map_err(|_| {
                    Error::InvalidArgument(format!(
                        "the value of the {text} header is not a valid HTTP header value (a control character, such as a newline?)"
                    ))
                })?;
                value.set_sensitive(true);
                Ok::<_, Error>(value)
            })
            .transpose()?;
        let headers = Arc::make_mut(&mut self.0);
        headers.retain(|(old, _)| *old != name);
        if let Some(value) = value {
            headers.push((name, value));
        }
        Ok(())
    }

    /// True when a header of that name (in any case) is set.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0
            .iter()
            .any(|(set, _)| set.as_str().eq_ignore_ascii_case(name))
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &(HeaderName, HeaderValue)> {
        self.0.iter()
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name.as_str()))
            .finish()
    }
}

/// Where a setting came from, from the least trusted to the most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Source {
    /// An entry of `./.env`: a file that came with whatever directory the
    /// program runs in (a cloned project, say).
    DotEnv,
    /// The process environment.
    Environment,
    /// An argument, or chatwire's own default.
    Explicit,
}

impl Source {
    fn describe(self, variable: &str) -> String {
        match self {
            Source::DotEnv => format!("{variable} in ./.env"),
            Source::Environment => format!("${variable}"),
            Source::Explicit => "the argument".to_owned(),
        }
    }
}

/// Looks a setting up in the environment, then in `./.env`; empty values count as unset.
pub(crate) fn lookup(name: &str) -> Option<String> {
    lookup_with_source(name).map(|(value, _)| value)
}

fn lookup_with_source(name: &str) -> Option<(String, Source)> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.is_empty())
        .map(|value| (value, Source::Environment))
        .or_else(|| dotenv_value(Path::new(".env"), name).map(|value| (value, Source::DotEnv)))
}

/// The endpoint and the key, each from the first place that has it:
///
/// | setting | 1. argument | 2. environment | 3. `./.env` | else |
/// |---|---|---|---|---|
/// | base URL | `base_url` | `$OPENAI_BASE_URL` | `OPENAI_BASE_URL=` | `https://api.openai.com` |
/// | API key | `api_key` (not empty) | `$OPENAI_API_KEY` | `OPENAI_API_KEY=` | [`Error::MissingApiKey`] |
///
/// The key is only sent to a URL from the same place or a more trusted one
/// (argument or default > environment > `./.env`): a `.env` that names only
/// a base URL must not receive the key from the environment. The mixed case
/// is an [`Error::Config`] naming both places.
pub(crate) fn resolve_target(
    base_url: Option<String>,
    api_key: Option<String>,
) -> Result<(String, ApiKey)> {
    let (base, url_source) = match base_url {
        Some(base) => (base, Source::Explicit),
        None => lookup_with_source("OPENAI_BASE_URL")
            .unwrap_or_else(|| (DEFAULT_BASE_URL.to_owned(), Source::Explicit)),
    };
    let endpoint = endpoint_url(&base)?;
    let (key, key_source) = match api_key.filter(|key| !key.is_empty()) {
        Some(key) => (key, Source::Explicit),
        None => lookup_with_source("OPENAI_API_KEY").ok_or(Error::MissingApiKey)?,
    };
    if url_source < key_source {
        return Err(Error::Config(format!(
            "the API key comes from {} but the base URL from {}, which is less trusted: \
             the key is not sent there. Give the base URL the same way as the key \
             (or remove OPENAI_BASE_URL from where it should not be)",
            key_source.describe("OPENAI_API_KEY"),
            url_source.describe("OPENAI_BASE_URL"),
        )));
    }
    Ok((endpoint, ApiKey::new(key)?))
}

/// Every secret a client holds: the key and every header value. A setting
/// that adds a secret (proxy credentials, say) registers it here, and every
/// text built from a server's answer is cleaned of all of them.
pub(crate) fn secrets(key: &ApiKey, headers: &Headers) -> Secrets {
    let mut secrets = Secrets::default();
    secrets.add(&key.0);
    for (_, value) in headers.iter() {
        secrets.add(&String::from_utf8_lossy(value.as_bytes()));
    }
    secrets
}

/// Headers taken from the environment (or `./.env`) unless given: the
/// OpenAI organization and project that requests count against.
pub(crate) const ENV_HEADERS: [(&str, &str); 2] = [
    ("OpenAI-Organization", "OPENAI_ORG_ID"),
    ("OpenAI-Project", "OPENAI_PROJECT_ID"),
];

/// The extra headers: those given (checked, later ones replacing earlier
/// ones of the same name), then each of [`ENV_HEADERS`] not given whose
/// variable is set. A variable that cannot be a header value is a
/// [`Error::Config`] error that does not quote it.
pub(crate) fn resolve_headers(explicit: Vec<(String, String)>) -> Result<Headers> {
    let mut headers = Headers::default();
    for (name, value) in &explicit {
        headers.set(name, Some(value))?;
    }
    for (name, variable) in ENV_HEADERS {
        if headers.contains(name) {
            continue;
        }
        if let Some(value) = lookup(variable) {
            headers.set(name, Some(&value)).map_err(|_| {
                Error::Config(format!(
                    "{variable} cannot be sent as the {name} header: it contains a control character"
                ))
            })?;
        }
    }
    Ok(headers)
}

/// Turns a base URL into the chat completions endpoint.
///
/// `http://host:8080`, `http://host:8080/`, `http://host:8080/v1` and
/// `http://host:8080/v1/` all give `http://host:8080/v1/chat/completions`;
/// a path prefix is kept (`https://host/proxy` gives
/// `https://host/proxy/v1/chat/completions`), and a URL that already names the
/// endpoint is used as it is.
pub(crate) fn endpoint_url(base: &str) -> Result<String> {
    let trimmed = base.trim().trim_end_matches('/');
    check_base_url(trimmed, base)?;
    let url = if trimmed.ends_with(CHAT_PATH) {
        trimmed.to_owned()
    } else if let Some(prefix) = trimmed.strip_suffix("/v1") {
        format!("{prefix}{CHAT_PATH}")
    } else {
        format!("{trimmed}{CHAT_PATH}")
    };
    Ok(url)
}

fn check_base_url(url: &str, original: &str) -> Result<()> {
    // A URL with '@' may carry a password: never quote it.
    let shown = if original.contains('@') {
        "(not shown: it contains '@')".to_owned()
    } else {
        format!("{original:?}")
    };
    let bad = |why: &str| Error::Config(format!("base URL {shown} {why}"));
    let uri: ureq::http::Uri = url.parse().map_err(|_| bad("is not a valid URL"))?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        Some(_) => return Err(bad("must start with http:// or https://")),
        None => return Err(bad("needs a scheme, e.g. http://localhost:8080")),
    }
    let authority = uri.authority().map_or("", |authority| authority.as_str());
    if authority.contains('@') {
        return Err(bad(
            "must not hold a user name or password: the API key (or a header) authenticates",
        ));
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(bad("has no host"));
    }
    // The text after the last ':' is a port, except in a bare IPv6 address ("[::1]").
    let port = authority
        .rsplit_once(':')
        .map(|(_, port)| port)
        .filter(|_| !authority.ends_with(']'));
    if port.is_some_and(|port| !matches!(port.parse::<u16>(), Ok(1..))) {
        return Err(bad("has a port that is not a number from 1 to 65535"));
    }
    if uri.query().is_some() || url.contains('#') {
        return Err(bad("must not have a query or a fragment"));
    }
    Ok(())
}

/// Reads one entry of a dotenv file: `NAME=value`, optionally `export NAME=value`,
/// the value optionally in single or double quotes; `#` starts a comment
/// outside quotes. A missing or unreadable file holds nothing.
pub(crate) fn dotenv_value(path: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .filter_map(parse_dotenv_line)
        .filter(|(key, _)| *key == name)
        .map(|(_, value)| value)
        .next_back()
        .filter(|value| !value.is_empty())
}

fn parse_dotenv_line(line: &str) -> Option<(&str, String)> {
    let line = line.trim();
    let line = line.strip_prefix("export ").unwrap_or(line);
    let (key, value) = line.split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.starts_with('#') {
        return None;
    }
    Some((key, unquote(value.trim())))
}

fn unquote(value: &str) -> String {
    for quote in ['"', '\''] {
        if let Some(rest) = value.strip_prefix(quote) {
            if let Some(end) = rest.find(quote) {
                return rest[..end].to_owned();
            }
        }
    }
    match value.find(" #") {
        Some(comment) => value[..comment].trim_end().to_owned(),
        None if value.starts_with('#') => String::new(),
        None => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_from_every_base_url_shape() {
        let want = "http://localhost:8080/v1/chat/completions";
        for base in [
            "http://localhost:8080",
            "http://localhost:8080/",
            "http://localhost:8080/v1",
            "http://localhost:8080/v1/",
            " http://localhost:8080/v1/chat/completions ",
        ] {
            assert_eq!(endpoint_url(base).unwrap(), want, "{base}");
        }
        assert_eq!(
            endpoint_url("https://host/proxy/").unwrap(),
            "https://host/proxy/v1/chat/completions"
        );
        assert_eq!(
            endpoint_url("http://[::1]").unwrap(),
            "http://[::1]/v1/chat/completions"
        );
        assert!(endpoint_url("http://[::1]:8080").is_ok());
    }

    #[test]
    fn unusable_base_urls_are_config_errors() {
        for base in [
            "",
            "localhost:8080",
            "ftp://host",
            "http://",
            "not a url",
            "http://host?x=1",
            "http://host/#frag",
            "http://127.0.0.1:99999",
            "http://user:pw@host",
        ] {
            match endpoint_url(base) {
                Err(Error::Config(message)) => {
                    assert!(message.contains("base URL"), "{message}");
                    assert!(!message.contains("pw"), "{message}");
                }
                other => panic!("{base:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn dotenv_lines() {
        assert_eq!(parse_dotenv_line("A=b"), Some(("A", "b".into())));
        assert_eq!(parse_dotenv_line("export A = b "), Some(("A", "b".into())));
        assert_eq!(
            parse_dotenv_line("A=\"b c\" # note"),
            Some(("A", "b c".into()))
        );
        assert_eq!(parse_dotenv_line("A='b#c'"), Some(("A", "b#c".into())));
        assert_eq!(parse_dotenv_line("A=b # note"), Some(("A", "b".into())));
        assert_eq!(parse_dotenv_line("# A=b"), None);
        assert_eq!(parse_dotenv_line("junk"), None);
    }

    #[test]
    fn key_debug_and_redaction_hide_the_key() {
        let key = ApiKey::new("sk-secret-123".into()).unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey([redacted])");
        assert!(ApiKey::new("sk\nx".into()).is_err());
    }
}
