//! Where requests go and with which credential.

use super::credential::{ApiKey, Auth, Credential, Provider};
use super::defaults::{DEFAULT_AZURE_API_VERSION, DEFAULT_BASE_URL};
use super::endpoint::{azure_address, base_address, exact_endpoint_url, Address};
use super::env::{check_trust, lookup, Source, TrustNames};
use crate::error::{Error, Result};

/// Where requests go, as the caller described it.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A base URL that `/v1/chat/completions` is added to; `None`:
    /// `$OPENAI_BASE_URL`, then `./.env`, then [`DEFAULT_BASE_URL`].
    Base(Option<String>),
    /// The whole endpoint URL, used as given.
    Exact(String),
    /// Azure OpenAI's classic route; `None`: `$AZURE_OPENAI_ENDPOINT`, and
    /// `$OPENAI_API_VERSION` or [`DEFAULT_AZURE_API_VERSION`].
    Azure {
        endpoint: Option<String>,
        deployment: String,
        api_version: Option<String>,
    },
}

impl Default for Target {
    fn default() -> Target {
        Target::Base(None)
    }
}

/// How the credential is given: the key (`Some("")`: none; `None`: look it
/// up), where it goes (`None`: the target's default), and a callback.
#[derive(Clone, Default)]
pub(crate) struct CredentialChoice {
    pub(crate) api_key: Option<String>,
    pub(crate) auth: Option<Auth>,
    pub(crate) provider: Option<Provider>,
}

/// The address and the credential, each from the argument, the environment
/// or `./.env`; the key goes there only if [`check_trust`] allows it.
pub(crate) fn resolve_target(
    target: Target,
    choice: CredentialChoice,
) -> Result<(Address, Credential)> {
    // Azure's keys go in `api-key`; everything else (Entra ID tokens
    // included) as a bearer token, as openai-python sends them.
    let (names, key_auth) = match target {
        Target::Azure { .. } => (TrustNames::AZURE, Auth::ApiKey),
        _ => (TrustNames::OPENAI, Auth::Bearer),
    };
    let (endpoint, url_source) = resolve_endpoint(target)?;
    // No key when the argument is empty or a provider gives the credential.
    let found = match choice.api_key {
        Some(key) if key.is_empty() => None,
        Some(key) => Some((key, Source::Explicit)),
        None if choice.provider.is_some() => None,
        None => Some(lookup(names.key).ok_or(Error::MissingApiKey)?),
    };
    let key = match found {
        Some((key, key_source)) => {
            check_trust(key_source, url_source, names)?;
            Some(ApiKey::new(key)?)
        }
        None => None,
    };
    let mut credential = Credential::new(key, key_auth, url_source, names)?;
    if let Some(auth) = choice.auth {
        credential = credential.with_auth(auth)?;
    }
    let credential = credential.with_provider(choice.provider)?;
    Ok((endpoint, credential))
}

fn resolve_endpoint(target: Target) -> Result<(Address, Source)> {
    match target {
        Target::Base(Some(base)) => Ok((base_address(&base)?, Source::Explicit)),
        Target::Base(None) => {
            let (base, source) = lookup("OPENAI_BASE_URL")
                .unwrap_or_else(|| (DEFAULT_BASE_URL.to_owned(), Source::Explicit));
            Ok((base_address(&base)?, source))
        }
        Target::Exact(url) => Ok((Address::Exact(exact_endpoint_url(&url)?), Source::Explicit)),
        Target::Azure {
            endpoint,
            deployment,
            api_version,
        } => {
            let (endpoint, source) = match endpoint {
                Some(endpoint) => (endpoint, Source::Explicit),
                None => {
                    let missing = "no Azure endpoint: pass one \
                        (https://RESOURCE.openai.azure.com) or set AZURE_OPENAI_ENDPOINT";
                    lookup("AZURE_OPENAI_ENDPOINT").ok_or_else(|| Error::Config(missing.into()))?
                }
            };
            let api_version = api_version
                .or_else(|| lookup("OPENAI_API_VERSION").map(|(version, _)| version))
                .unwrap_or_else(|| DEFAULT_AZURE_API_VERSION.to_owned());
            Ok((azure_address(&endpoint, &deployment, &api_version)?, source))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::target::*;

    #[test]
    fn an_empty_key_is_no_credential_and_looks_nothing_up() {
        let choice = CredentialChoice {
            api_key: Some(String::new()),
            ..CredentialChoice::default()
        };
        let target = Target::Base(Some("http://127.0.0.1:9".into()));
        let (address, credential) = resolve_target(target, choice).unwrap();
        let endpoint = address.url(crate::config::Api::ChatCompletions);
        assert_eq!(endpoint, "http://127.0.0.1:9/v1/chat/completions");
        assert!(credential.header().unwrap().is_none());
    }

    #[test]
    fn azure_keys_go_in_api_key_unless_told() {
        let target = || Target::Azure {
            endpoint: Some("https://res.openai.azure.com".into()),
            deployment: "gpt-4o".into(),
            api_version: Some("2024-10-21".into()),
        };
        let choice = |auth| CredentialChoice {
            api_key: Some("azure-key".into()),
            auth,
            provider: None,
        };
        let (_, credential) = resolve_target(target(), choice(None)).unwrap();
        assert_eq!(credential.header().unwrap().unwrap().0.as_str(), "api-key");
        let (_, credential) = resolve_target(target(), choice(Some(Auth::Bearer))).unwrap();
        assert_eq!(
            credential.header().unwrap().unwrap().0.as_str(),
            "authorization"
        );
    }
}
