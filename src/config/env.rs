//! Settings from the process environment, then `./.env`, and the trust
//! rule: which place may send a credential where.

use crate::error::{Error, Result};

/// Where a setting came from, from the least trusted to the most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Source {
    /// An entry of `./.env`, which came with whatever directory the
    /// program runs in.
    DotEnv,
    /// The process environment.
    Environment,
    /// An argument, or chatwire's own default.
    Explicit,
}

/// The place, as an error names it: `$NAME`, `NAME in ./.env`, or `given`.
fn place(source: Source, variable: &str, given: &str) -> String {
    match source {
        Source::DotEnv => format!("{variable} in ./.env"),
        Source::Environment => format!("${variable}"),
        Source::Explicit => given.to_owned(),
    }
}

/// Looks a setting up in the environment, then in `./.env` (empty values
/// count as unset), saying which of the two places had it.
pub(crate) fn lookup(name: &str) -> Option<(String, Source)> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.is_empty())
        .map(|value| (value, Source::Environment))
        .or_else(|| {
            // The last entry `[export ]NAME=value` of `./.env`, the value
            // optionally quoted, `#` starting a comment outside quotes.
            let text = std::fs::read_to_string(".env").ok()?;
            let mut entries = text.lines().filter_map(parse_dotenv_line);
            let (_, value) = entries.rfind(|(key, _)| *key == name)?;
            Some((value, Source::DotEnv)).filter(|(value, _)| !value.is_empty())
        })
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

/// The names a trust refusal uses for the credential and the endpoint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrustNames {
    /// The credential's environment variable, or what it is.
    pub(crate) key: &'static str,
    /// The endpoint's environment variable.
    pub(crate) url: &'static str,
    /// What a credential the program gave itself is called.
    pub(crate) given: &'static str,
}

impl TrustNames {
    pub(crate) const OPENAI: TrustNames = TrustNames {
        key: "OPENAI_API_KEY",
        url: "OPENAI_BASE_URL",
        given: "the argument",
    };
    /// Azure OpenAI's variables, as openai-python reads them.
    pub(crate) const AZURE: TrustNames = TrustNames {
        key: "AZURE_OPENAI_API_KEY",
        url: "AZURE_OPENAI_ENDPOINT",
        given: "the argument",
    };
}

/// The trust rule, and the only place it is written: a `./.env` file may
/// never send a key from an argument or the environment to a host it
/// names (see `docs/security.md`). A refusal names both places.
pub(crate) fn check_trust(key: Source, url: Source, names: TrustNames) -> Result<()> {
    if url != Source::DotEnv || key == Source::DotEnv {
        return Ok(());
    }
    Err(Error::Config(format!(
        "the credential comes from {} but the endpoint from {}, which a .env file \
         may not choose for a credential from elsewhere: it is not sent there. Give the base \
         URL as an argument or in the environment (or remove {} from ./.env)",
        place(key, names.key, names.given),
        place(url, names.url, names.given),
        names.url,
    )))
}

#[cfg(test)]
mod tests {
    use crate::config::env::*;

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

    const PLACES: [Source; 3] = [Source::DotEnv, Source::Environment, Source::Explicit];

    #[test]
    fn only_a_dotenv_url_refuses_a_key_from_elsewhere() {
        for key in PLACES {
            for url in PLACES {
                let allowed = check_trust(key, url, TrustNames::OPENAI).is_ok();
                let refused = url == Source::DotEnv && key != Source::DotEnv;
                assert_eq!(allowed, !refused, "key from {key:?}, URL from {url:?}");
            }
        }
        // The case that fought the user: a key argument with $OPENAI_BASE_URL.
        assert!(check_trust(Source::Explicit, Source::Environment, TrustNames::OPENAI).is_ok());
        assert!(check_trust(Source::Environment, Source::DotEnv, TrustNames::OPENAI).is_err());
        assert!(check_trust(Source::Explicit, Source::DotEnv, TrustNames::OPENAI).is_err());
        assert!(check_trust(Source::DotEnv, Source::Environment, TrustNames::OPENAI).is_ok());
    }

    #[test]
    fn a_refusal_names_both_places() {
        match check_trust(Source::Explicit, Source::DotEnv, TrustNames::OPENAI) {
            Err(Error::Config(message)) => {
                assert!(message.contains("from the argument"), "{message}");
                assert!(message.contains("OPENAI_BASE_URL in ./.env"), "{message}");
            }
            other => panic!("expected a configuration error, got {other:?}"),
        }
        match check_trust(Source::Environment, Source::DotEnv, TrustNames::AZURE) {
            Err(Error::Config(message)) => {
                assert!(message.contains("$AZURE_OPENAI_API_KEY"), "{message}");
                assert!(
                    message.contains("AZURE_OPENAI_ENDPOINT in ./.env"),
                    "{message}"
                );
            }
            other => panic!("expected a configuration error, got {other:?}"),
        }
    }
}
