//! The credential a client sends: where it goes ([`Auth`]), and where it
//! comes from: the key, or a callback asked before every attempt.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

use ureq::http::header::{HeaderName, HeaderValue, AUTHORIZATION};

use super::defaults::{MAX_CREDENTIAL_BYTES, REMEMBERED_TOKENS};
use super::env::{check_trust, Source, TrustNames};
use super::headers::Headers;
use crate::error::{ApiError, Error, Result};
use crate::secrets::Secrets;
use crate::sync::lock;

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

    /// The key itself, for its header and the list of secrets.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// Where a client puts its credential in each request (`CHATWIRE_AUTH_*` in C).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Auth {
    /// `Authorization: Bearer <credential>`: the default, except for a key
    /// on Azure's classic route.
    #[default]
    Bearer,
    /// `api-key: <credential>`: Azure OpenAI's keys.
    ApiKey,
    /// No credential at all, whatever key or callback the client has.
    None,
}

/// The header carrying `secret` as `auth` says, marked sensitive; `Err(())`
/// when it cannot be a header value (the caller words the error).
fn header_for(auth: Auth, secret: &str) -> std::result::Result<Option<Header>, ()> {
    let (name, text) = match auth {
        Auth::Bearer => (AUTHORIZATION, format!("Bearer {secret}")),
        Auth::ApiKey => (HeaderName::from_static("api-key"), secret.to_owned()),
        Auth::None => return Ok(None),
    };
    let mut value = HeaderValue::from_str(&text).map_err(|_| ())?;
    value.set_sensitive(true);
    Ok(Some((name, value)))
}

fn key_header(key: &Option<ApiKey>, auth: Auth) -> Result<Option<Header>> {
    let Some(key) = key else { return Ok(None) };
    header_for(auth, key.expose())
        .map_err(|()| Error::Config("the API key cannot be sent in a header".into()))
}

/// A credential header: its name and its (sensitive) value.
pub(crate) type Header = (HeaderName, HeaderValue);

/// A credential callback: gives a token or says why it cannot.
pub(crate) type TokenFn = dyn Fn() -> std::result::Result<String, String> + Send + Sync;

/// A credential callback and the tokens it gave, which are secrets.
#[derive(Clone)]
pub(crate) struct Provider {
    token: Arc<TokenFn>,
    /// The latest distinct tokens, oldest first, shared by the clones of a
    /// client: text from a server is cleaned of them.
    issued: Arc<Mutex<VecDeque<String>>>,
}

impl Provider {
    pub(crate) fn new(token: Arc<TokenFn>) -> Provider {
        Provider {
            token,
            issued: Arc::default(),
        }
    }

    /// A fresh token from the callback, remembered as a secret.
    fn token(&self) -> Result<String> {
        let token = (self.token)().map_err(|why| provider_failed(&why))?;
        if token.is_empty() {
            return Err(provider_failed("it gave an empty token"));
        }
        // Remembered before any check, so that even a refused token is
        // taken out of whatever text follows.
        self.remember(&token);
        if token.len() > MAX_CREDENTIAL_BYTES {
            return Err(provider_failed(&format!(
                "it gave a token of more than {MAX_CREDENTIAL_BYTES} bytes"
            )));
        }
        Ok(token)
    }

    fn remember(&self, token: &str) {
        let mut issued = lock(&self.issued);
        if issued.back().is_some_and(|last| last == token) {
            return;
        }
        issued.retain(|old| old != token);
        if issued.len() == REMEMBERED_TOKENS {
            issued.pop_front();
        }
        issued.push_back(token.to_owned());
    }
}

/// A credential callback's failure: an authentication error with no HTTP
/// status, which is not retried (the request was never sent).
fn provider_failed(why: &str) -> Error {
    Error::Auth(Box::new(ApiError {
        message: format!("the credential callback failed, so the request was not sent: {why}"),
        ..ApiError::default()
    }))
}

/// The credential of one client: the key and the callback (if any), where
/// each goes, and where the endpoint came from ([`check_trust`]).
#[derive(Clone)]
pub(crate) struct Credential {
    key: Option<ApiKey>,
    key_auth: Auth,
    provider: Option<Provider>,
    token_auth: Auth,
    /// The key's header, made once rather than per attempt.
    fixed: Option<Header>,
    /// Where the endpoint this credential goes to came from.
    destination: Source,
    /// The variables that endpoint and key are read from, for errors.
    names: TrustNames,
}

impl Credential {
    /// The key (`None`: no credential), sent as `key_auth` says, to an
    /// endpoint from `destination`; callback tokens go as Bearer.
    pub(crate) fn new(
        key: Option<ApiKey>,
        key_auth: Auth,
        destination: Source,
        names: TrustNames,
    ) -> Result<Credential> {
        Ok(Credential {
            fixed: key_header(&key, key_auth)?,
            key,
            key_auth,
            provider: None,
            token_auth: Auth::Bearer,
            destination,
            names,
        })
    }

    /// No credential, for tests of the layers below.
    #[cfg(test)]
    pub(crate) fn none() -> Credential {
        Credential {
            key: None,
            key_auth: Auth::Bearer,
            provider: None,
            token_auth: Auth::Bearer,
            fixed: None,
            destination: Source::Explicit,
            names: TrustNames::OPENAI,
        }
    }

    /// The same credential, key and tokens both sent as `auth` says.
    pub(crate) fn with_auth(&self, auth: Auth) -> Result<Credential> {
        Ok(Credential {
            fixed: key_header(&self.key, auth)?,
            key_auth: auth,
            token_auth: auth,
            ..self.clone()
        })
    }

    /// The same credential asking `provider` before each attempt (`None`: the
    /// key again); refused for an endpoint named by `./.env`.
    pub(crate) fn with_provider(&self, provider: Option<Provider>) -> Result<Credential> {
        if provider.is_some() {
            let names = TrustNames {
                given: "the credential callback",
                ..self.names
            };
            check_trust(Source::Explicit, self.destination, names)?;
        }
        Ok(Credential {
            provider,
            ..self.clone()
        })
    }

    /// The same credential for an endpoint from `destination`.
    pub(crate) fn to(&self, destination: Source) -> Credential {
        Credential {
            destination,
            ..self.clone()
        }
    }

    /// The header for one attempt (`None`: no credential): the callback's
    /// fresh token, else the key's; fails when the callback does.
    pub(crate) fn header(&self) -> Result<Option<Header>> {
        let Some(provider) = &self.provider else {
            return Ok(self.fixed.clone());
        };
        if self.token_auth == Auth::None {
            return Ok(None);
        }
        let token = provider.token()?;
        header_for(self.token_auth, &token).map_err(|()| {
            provider_failed(
                "it gave a token that cannot be sent in a header (a control character?)",
            )
        })
    }

    /// Adds the key and every token the callback gave to `secrets`.
    pub(crate) fn add_secrets(&self, secrets: &mut Secrets) {
        if let Some(key) = &self.key {
            secrets.add(key.expose());
        }
        if let Some(provider) = &self.provider {
            for token in lock(&provider.issued).iter() {
                secrets.add(token);
            }
        }
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credential")
            .field("key", &self.key.as_ref().map(|_| "[redacted]"))
            .field("key_auth", &self.key_auth)
            .field("callback", &self.provider.is_some())
            .field("token_auth", &self.token_auth)
            .finish()
    }
}

/// Every secret a client holds: the key, the callback's tokens, and every
/// header value. A setting that adds a secret registers it here.
pub(crate) fn secrets(credential: &Credential, headers: &Headers) -> Secrets {
    let mut secrets = Secrets::default();
    credential.add_secrets(&mut secrets);
    for (_, value) in headers.iter() {
        secrets.add(&String::from_utf8_lossy(value.as_bytes()));
    }
    secrets
}

#[cfg(test)]
mod tests {
    use crate::config::credential::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn key(text: &str) -> Option<ApiKey> {
        Some(ApiKey::new(text.into()).unwrap())
    }

    fn header_text(credential: &Credential) -> Option<(String, String)> {
        credential
            .header()
            .unwrap()
            .map(|(name, value)| (name.as_str().to_owned(), value.to_str().unwrap().to_owned()))
    }

    #[test]
    fn each_auth_puts_the_key_in_its_header() {
        let bearer = Credential::new(
            key("sk-1"),
            Auth::Bearer,
            Source::Explicit,
            TrustNames::OPENAI,
        )
        .unwrap();
        let pair = |name: &str, value: &str| Some((name.to_owned(), value.to_owned()));
        assert_eq!(header_text(&bearer), pair("authorization", "Bearer sk-1"));
        let api_key = bearer.with_auth(Auth::ApiKey).unwrap();
        assert_eq!(header_text(&api_key), pair("api-key", "sk-1"));
        assert!(api_key.header().unwrap().unwrap().1.is_sensitive());
        assert_eq!(header_text(&bearer.with_auth(Auth::None).unwrap()), None);
        let keyless =
            Credential::new(None, Auth::Bearer, Source::Explicit, TrustNames::OPENAI).unwrap();
        assert_eq!(header_text(&keyless), None);
    }

    #[test]
    fn a_callback_is_asked_for_every_header_and_its_tokens_are_secrets() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = calls.clone();
        let provider = Provider::new(Arc::new(move || {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            Ok(format!("token-{n}"))
        }));
        let credential = Credential::new(
            key("sk-1"),
            Auth::ApiKey,
            Source::Explicit,
            TrustNames::OPENAI,
        )
        .unwrap()
        .with_provider(Some(provider))
        .unwrap();
        // Tokens go as Bearer although the key went as api-key, as
        // openai-python sends Entra ID tokens to Azure.
        assert_eq!(
            header_text(&credential).unwrap().1,
            "Bearer token-0".to_owned()
        );
        assert_eq!(header_text(&credential).unwrap().1, "Bearer token-1");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let mut secrets = Secrets::default();
        credential.add_secrets(&mut secrets);
        assert_eq!(
            secrets.redact("token-0 token-1 sk-1"),
            "[redacted] [redacted] [redacted]"
        );
        let cleared = credential.with_provider(None).unwrap();
        assert_eq!(header_text(&cleared).unwrap().1, "sk-1");
    }

    #[test]
    fn a_failing_callback_is_an_auth_error_without_status() {
        let credential = |token: std::result::Result<String, String>| {
            let provider = Provider::new(Arc::new(move || token.clone()));
            Credential::new(None, Auth::Bearer, Source::Explicit, TrustNames::OPENAI)
                .unwrap()
                .with_provider(Some(provider))
                .unwrap()
        };
        for (token, why) in [
            (Err("no login".to_owned()), "no login"),
            (Ok(String::new()), "empty token"),
            (Ok("tok\nen".to_owned()), "cannot be sent"),
            (Ok("x".repeat(MAX_CREDENTIAL_BYTES + 1)), "more than"),
        ] {
            match credential(token).header() {
                Err(Error::Auth(api)) => {
                    assert_eq!(api.status, None);
                    assert!(api.message.contains("credential callback failed"), "{api}");
                    assert!(api.message.contains(why), "{api}");
                }
                other => panic!("expected an auth error, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_callback_never_goes_to_an_endpoint_from_dotenv() {
        let provider = Provider::new(Arc::new(|| Ok("token".into())));
        let from_dotenv =
            Credential::new(None, Auth::Bearer, Source::DotEnv, TrustNames::OPENAI).unwrap();
        assert!(matches!(
            from_dotenv.with_provider(Some(provider.clone())),
            Err(Error::Config(_))
        ));
        assert!(from_dotenv
            .to(Source::Explicit)
            .with_provider(Some(provider))
            .is_ok());
    }

    #[test]
    fn remembered_tokens_are_distinct_and_bounded() {
        let provider = Provider::new(Arc::new(|| Ok("t".into())));
        for n in 0..REMEMBERED_TOKENS + 5 {
            provider.remember(&format!("token-{n}"));
            provider.remember(&format!("token-{n}"));
        }
        let issued = provider.issued.lock().unwrap();
        assert_eq!(issued.len(), REMEMBERED_TOKENS);
        assert_eq!(issued.front().unwrap(), "token-5");
    }

    #[test]
    fn secrets_hold_the_key_and_every_header_value() {
        let key = ApiKey::new("sk-secret-123".into()).unwrap();
        let credential = Credential::new(
            Some(key),
            Auth::Bearer,
            Source::Explicit,
            TrustNames::OPENAI,
        )
        .unwrap();
        let mut headers = Headers::default();
        headers.set("X-Token", Some("tok-abcdef")).unwrap();
        headers.set("OpenAI-Project", Some("proj-42xyz")).unwrap();
        let text = "sk-secret-123, tok-abcdef and proj-42xyz";
        assert_eq!(
            secrets(&credential, &headers).redact(text),
            "[redacted], [redacted] and [redacted]"
        );
    }

    #[test]
    fn key_debug_and_redaction_hide_the_key() {
        let key = ApiKey::new("sk-secret-123".into()).unwrap();
        assert_eq!(format!("{key:?}"), "ApiKey([redacted])");
        assert!(ApiKey::new("sk\nx".into()).is_err());
    }
}
