//! The caller's extra request headers, and those from the environment.

use std::fmt;
use std::sync::Arc;

use ureq::http::header::{HeaderName, HeaderValue};

use super::env::lookup;
use crate::error::{Error, Result};

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

/// Headers taken from the environment (or `./.env`) unless given: the
/// OpenAI organization and project that requests count against.
pub(crate) const ENV_HEADERS: [(&str, &str); 2] = [
    ("OpenAI-Organization", "OPENAI_ORG_ID"),
    ("OpenAI-Project", "OPENAI_PROJECT_ID"),
];

/// The caller's extra request headers, cheap to clone; the values may be
/// secrets, so `Debug` shows the names only and no error quotes a value.
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
        // Checked and marked sensitive; the error names the header, never the value.
        let value = value.map(HeaderValue::from_str).transpose().map_err(|_| {
            Error::InvalidArgument(format!(
                "the value of the {text} header is not a valid HTTP header value (a control character, such as a newline?)"
            ))
        })?;
        let headers = Arc::make_mut(&mut self.0);
        headers.retain(|(old, _)| *old != name);
        if let Some(mut value) = value {
            value.set_sensitive(true);
            headers.push((name, value));
        }
        Ok(())
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

/// The extra headers a list of them makes: each in turn (a later one
/// replacing or, with `None`, removing an earlier one), checked.
pub(crate) fn checked_headers(given: &[(String, Option<String>)]) -> Result<Headers> {
    let mut headers = Headers::default();
    for (name, value) in given {
        headers.set(name, value.as_deref())?;
    }
    Ok(headers)
}

/// Each of [`ENV_HEADERS`] that `given` does not name (in any case), with
/// its value from the environment or `./.env`, when it has one.
pub(crate) fn environment_headers(
    given: &[(String, Option<String>)],
) -> Result<Vec<(String, Option<String>)>> {
    let named = |name: &str| given.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    let mut found = Vec::new();
    for (name, variable) in ENV_HEADERS.into_iter().filter(|(name, _)| !named(name)) {
        if let Some((value, _)) = lookup(variable) {
            if HeaderValue::from_str(&value).is_err() {
                return Err(Error::Config(format!(
                    "{variable} cannot be sent as the {name} header: it contains a control character"
                )));
            }
            found.push((name.to_owned(), Some(value)));
        }
    }
    Ok(found)
}
