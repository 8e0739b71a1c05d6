//! The endpoint URL: from a base URL, given whole, or Azure's classic route,
//! for the API a client speaks; and the URLs derived from it: the models
//! list's, the Files and Batches APIs', and a batch line's `url`.

use crate::error::{Error, Result};

const CHAT_PATH: &str = "/v1/chat/completions";
const RESPONSES_PATH: &str = "/v1/responses";

/// The API a client speaks (`docs/responses.md`): the same conversation and
/// the same [`Reply`](crate::Reply) over either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Api {
    /// `POST {base_url}/v1/chat/completions`, the default.
    #[default]
    ChatCompletions,
    /// `POST {base_url}/v1/responses`, stateless: `"store": false` and the
    /// whole history as input items on every send.
    Responses,
}

impl Api {
    /// The path a base URL gets for this API.
    fn path(self) -> &'static str {
        match self {
            Api::ChatCompletions => CHAT_PATH,
            Api::Responses => RESPONSES_PATH,
        }
    }
}

/// Where requests go, as read: what each API's URL is derived from, so that
/// a change of the API (a C setter, after the place is read) derives it again.
#[derive(Debug, Clone)]
pub(crate) enum Address {
    /// A base URL without its `/v1` (or an API's whole path): each API's
    /// path is added to it.
    Base(String),
    /// The whole URL, used as given whatever the API.
    Exact(String),
    /// Azure: the resource endpoint, and the classic route's chat
    /// completions URL; the Responses API is on the v1 route.
    Azure { resource: String, classic: String },
}

impl Address {
    /// The URL requests of `api` go to.
    pub(crate) fn url(&self, api: Api) -> String {
        match (self, api) {
            (Address::Base(prefix), api) => format!("{prefix}{}", api.path()),
            (Address::Exact(url), _) => url.clone(),
            (Address::Azure { classic, .. }, Api::ChatCompletions) => classic.clone(),
            (Address::Azure { resource, .. }, Api::Responses) => {
                format!("{resource}/openai{RESPONSES_PATH}")
            }
        }
    }
}

/// A whole endpoint URL, the one kind that may carry a query.
const ENDPOINT_URL: &str = "endpoint URL";

/// Reads a base URL (with or without `/v1`, a path prefix kept) as the
/// address each API's path is added to; a URL that already names an API's
/// endpoint is the base URL before it.
pub(crate) fn base_address(base: &str) -> Result<Address> {
    let trimmed = base.trim().trim_end_matches('/');
    check_url(trimmed, base, "base URL")?;
    let prefix = [CHAT_PATH, RESPONSES_PATH, "/v1"]
        .iter()
        .find_map(|tail| trimmed.strip_suffix(tail))
        .unwrap_or(trimmed);
    Ok(Address::Base(prefix.to_owned()))
}

/// The whole URL requests go to, used as given (path and query kept), such
/// as a gateway's own path; a fragment is refused: it is never sent.
pub(crate) fn exact_endpoint_url(url: &str) -> Result<String> {
    let trimmed = url.trim();
    check_url(trimmed, url, ENDPOINT_URL)?;
    Ok(trimmed.to_owned())
}

/// Azure OpenAI's classic route for a resource endpoint, a deployment and
/// an API version (both percent-encoded), and its v1 route for Responses.
pub(crate) fn azure_address(
    endpoint: &str,
    deployment: &str,
    api_version: &str,
) -> Result<Address> {
    let trimmed = endpoint.trim().trim_end_matches('/');
    check_url(trimmed, endpoint, "Azure endpoint")?;
    for (what, value) in [("deployment", deployment), ("API version", api_version)] {
        if value.trim().is_empty() {
            let why = format!("the Azure {what} must not be empty");
            return Err(Error::InvalidArgument(why));
        }
    }
    let (deployment, version) = (encode(deployment.trim()), encode(api_version.trim()));
    Ok(Address::Azure {
        resource: trimmed.to_owned(),
        classic: format!(
            "{trimmed}/openai/deployments/{deployment}/chat/completions?api-version={version}"
        ),
    })
}

/// The tail of every chat endpoint that a models URL can be derived from.
const CHAT_TAIL: &str = "/chat/completions";
/// The same, of a Responses endpoint.
const RESPONSES_TAIL: &str = "/responses";

/// Where the server lists its models, derived from the endpoint: the
/// tail `/chat/completions` (or `/responses`) of its path becomes `/models` (OpenAI's
/// `/v1/models`, Azure's `/openai/v1/models`, a gateway's own prefix), the
/// query kept; Azure's classic route lists at `{endpoint}/openai/models`,
/// with its `api-version`. An endpoint URL with another path names no list.
pub(crate) fn models_url(endpoint: &str) -> Result<String> {
    sibling_url(
        endpoint,
        "models",
        "where its server lists models (there, /models)",
    )
}

/// The URL of `route` (`files`, `batches/{id}/cancel`, ...) of the Files and
/// Batches APIs beside the chat endpoint, derived as [`models_url`] derives
/// the list's: `{base}/v1/files`, Azure's `{endpoint}/openai/files?api-version=...`
/// (its how-to for batches, "Global batch", uses these routes). `route` is
/// chatwire's own text, its ids percent-encoded by [`path_segment`].
pub(crate) fn batch_api_url(endpoint: &str, route: &str) -> Result<String> {
    sibling_url(endpoint, route, "where its server takes files and batches")
}

/// The `url` of each line of a batch input file, and the `endpoint` its
/// batch is created with: the one place that chooses it. OpenAI's reference
/// ("The batch request input object") names `/v1/chat/completions` and
/// `/v1/responses`; Azure's how-to for global batch writes
/// `/chat/completions` for its classic route, which has no `/v1`.
pub(crate) fn batch_line_url(endpoint: &str, api: Api) -> &'static str {
    if api == Api::Responses {
        return RESPONSES_PATH;
    }
    let path = endpoint.split_once('?').map_or(endpoint, |(path, _)| path);
    let azure = path
        .strip_suffix(CHAT_TAIL)
        .is_some_and(|prefix| azure_resource(prefix).is_some());
    if azure {
        CHAT_TAIL
    } else {
        CHAT_PATH
    }
}

/// An id (a batch's, a file's) as one segment of a URL path.
pub(crate) fn path_segment(id: &str) -> String {
    encode(id)
}

/// `{prefix}/{route}` for an endpoint whose path ends in `/chat/completions`,
/// its query kept; Azure's classic route by its resource. `what` says what
/// the URL is for, in the error of an endpoint of another path.
fn sibling_url(endpoint: &str, route: &str, what: &str) -> Result<String> {
    let (path, query) = match endpoint.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (endpoint, None),
    };
    let prefix = path
        .strip_suffix(CHAT_TAIL)
        .or_else(|| path.strip_suffix(RESPONSES_TAIL));
    let Some(prefix) = prefix else {
        return Err(Error::Config(format!(
            "no {route} URL for the endpoint URL {}: only one whose path ends in \
             {CHAT_TAIL} or {RESPONSES_TAIL} says {what}",
            crate::log::shown_url(endpoint)
        )));
    };
    let prefix = azure_resource(prefix).map_or_else(
        || prefix.to_owned(),
        |resource| format!("{resource}/openai"),
    );
    Ok(match query {
        Some(query) => format!("{prefix}/{route}?{query}"),
        None => format!("{prefix}/{route}"),
    })
}

/// The resource endpoint of an Azure classic route's prefix
/// (`{resource}/openai/deployments/{deployment}`), if it is one.
fn azure_resource(prefix: &str) -> Option<&str> {
    let (rest, deployment) = prefix.rsplit_once('/')?;
    let resource = rest.strip_suffix("/openai/deployments")?;
    (!deployment.is_empty()).then_some(resource)
}

/// Percent-encodes all but RFC 3986's unreserved characters.
fn encode(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// Checks a URL of the kind `name` says ("base URL").
fn check_url(url: &str, original: &str, name: &str) -> Result<()> {
    // A URL with '@' may carry a password: never quote it.
    let shown = if original.contains('@') {
        "(not shown: it contains '@')".to_owned()
    } else {
        format!("{original:?}")
    };
    let bad = |why: &str| Error::Config(format!("{name} {shown} {why}"));
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
    if url.contains('#') {
        return Err(bad("must not have a fragment: it is never sent"));
    }
    if uri.query().is_some() && name != ENDPOINT_URL {
        return Err(bad(
            "must not have a query: give the whole URL as the endpoint URL to keep one",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::endpoint::*;

    fn endpoint_url(base: &str) -> Result<String> {
        base_address(base).map(|address| address.url(Api::ChatCompletions))
    }

    fn azure_url(endpoint: &str, deployment: &str, api_version: &str) -> Result<String> {
        azure_address(endpoint, deployment, api_version)
            .map(|address| address.url(Api::ChatCompletions))
    }

    #[test]
    fn each_api_has_its_url_and_an_endpoint_url_is_used_as_given() {
        for base in [
            "http://localhost:8080",
            "http://localhost:8080/v1/",
            "http://localhost:8080/v1/chat/completions",
            "http://localhost:8080/v1/responses",
        ] {
            let address = base_address(base).unwrap();
            assert_eq!(
                address.url(Api::Responses),
                "http://localhost:8080/v1/responses"
            );
            assert_eq!(
                address.url(Api::ChatCompletions),
                "http://localhost:8080/v1/chat/completions"
            );
        }
        let azure = azure_address("https://res.openai.azure.com/", "gpt-4o", "2024-10-21").unwrap();
        assert_eq!(
            azure.url(Api::Responses),
            "https://res.openai.azure.com/openai/v1/responses"
        );
        let gateway = "http://gw.local:8000/tenant/7/chat?route=fast";
        let exact = Address::Exact(exact_endpoint_url(gateway).unwrap());
        assert_eq!(exact.url(Api::Responses), gateway);
        assert_eq!(
            models_url("https://res.openai.azure.com/openai/v1/responses").unwrap(),
            "https://res.openai.azure.com/openai/v1/models"
        );
    }

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
    fn azure_v1_base_url_gets_no_second_v1() {
        assert_eq!(
            endpoint_url("https://res.openai.azure.com/openai/v1/").unwrap(),
            "https://res.openai.azure.com/openai/v1/chat/completions"
        );
    }

    #[test]
    fn an_endpoint_url_is_kept_with_its_path_and_query() {
        let gemini = "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions";
        assert_eq!(exact_endpoint_url(gemini).unwrap(), gemini);
        let gateway = "http://gw.local:8000/tenant/7/chat?route=fast&x=%20";
        assert_eq!(
            exact_endpoint_url(&format!(" {gateway} ")).unwrap(),
            gateway
        );
        for bad in [
            "http://host/chat#frag",
            "ftp://host/chat",
            "http://u:pw@host/c",
        ] {
            match exact_endpoint_url(bad) {
                Err(Error::Config(message)) => {
                    assert!(message.contains("endpoint URL"), "{message}");
                    assert!(!message.contains("pw"), "{message}");
                }
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn the_models_url_of_every_kind_of_endpoint() {
        for (endpoint, want) in [
            (
                "http://localhost:8080/v1/chat/completions",
                "http://localhost:8080/v1/models",
            ),
            (
                "https://host/proxy/v1/chat/completions",
                "https://host/proxy/v1/models",
            ),
            (
                "https://res.openai.azure.com/openai/v1/chat/completions",
                "https://res.openai.azure.com/openai/v1/models",
            ),
            (
                "https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
                "https://res.openai.azure.com/openai/models?api-version=2024-10-21",
            ),
            (
                "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
                "https://generativelanguage.googleapis.com/v1beta/openai/models",
            ),
            (
                "http://gw.local:8000/tenant/7/chat/completions?route=fast",
                "http://gw.local:8000/tenant/7/models?route=fast",
            ),
        ] {
            assert_eq!(models_url(endpoint).unwrap(), want, "{endpoint}");
        }
    }

    #[test]
    fn the_batch_routes_and_line_url_of_every_kind_of_endpoint() {
        for (endpoint, files, line) in [
            (
                "http://localhost:8080/v1/chat/completions",
                "http://localhost:8080/v1/files",
                "/v1/chat/completions",
            ),
            (
                "https://res.openai.azure.com/openai/v1/chat/completions",
                "https://res.openai.azure.com/openai/v1/files",
                "/v1/chat/completions",
            ),
            (
                "https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
                "https://res.openai.azure.com/openai/files?api-version=2024-10-21",
                "/chat/completions",
            ),
        ] {
            assert_eq!(batch_api_url(endpoint, "files").unwrap(), files, "{endpoint}");
            assert_eq!(batch_line_url(endpoint, Api::ChatCompletions), line, "{endpoint}");
        }
        for endpoint in [
            "http://localhost:8080/v1/responses",
            "https://res.openai.azure.com/openai/v1/responses",
        ] {
            assert_eq!(batch_line_url(endpoint, Api::Responses), "/v1/responses");
            let files = batch_api_url(endpoint, "files").unwrap();
            assert!(files.ends_with("/v1/files"), "{files}");
        }
        assert_eq!(path_segment("batch_1/../x"), "batch_1%2F..%2Fx");
    }

    #[test]
    fn an_endpoint_url_of_another_path_names_no_models_url() {
        for endpoint in [
            "http://gw.local:8000/tenant/7/chat?key=sk-secret",
            "http://gw.local:8000/v1/completions",
            "http://gw.local:8000/",
        ] {
            match models_url(endpoint) {
                Err(Error::Config(message)) => {
                    assert!(message.contains("/chat/completions"), "{message}");
                    assert!(message.contains("gw.local:8000"), "{message}");
                    assert!(!message.contains("sk-secret"), "{message}");
                }
                other => panic!("{endpoint:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn azure_classic_route() {
        assert_eq!(
            azure_url("https://res.openai.azure.com/", "gpt-4o", "2024-10-21").unwrap(),
            "https://res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21"
        );
        // A deployment stays one path segment, a version one query value.
        assert_eq!(
            azure_url("http://127.0.0.1:9", "a/b c", "v&x=1").unwrap(),
            "http://127.0.0.1:9/openai/deployments/a%2Fb%20c/chat/completions?api-version=v%26x%3D1"
        );
        assert!(matches!(
            azure_url("https://res.openai.azure.com", " ", "v"),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            azure_url("https://res.openai.azure.com?x=1", "d", "v"),
            Err(Error::Config(_))
        ));
    }
}
