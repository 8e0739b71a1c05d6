//! Every setting, and where it comes from: arguments first, then the
//! environment, then a `.env` file in the current directory.
//!
//! One job per file:
//! - [`defaults`]: every default and maximum of chatwire, and
//!   [`checks`], which holds a setting to its maximum;
//! - [`env`]: the environment and `./.env` lookup, and which of them a
//!   value came from;
//! - [`endpoint`]: which base URLs are accepted and how one becomes the
//!   endpoint;
//! - [`target`]: where requests go and with which credential
//!   (`resolve_target`), for a base URL, a whole endpoint URL or Azure's
//!   classic route;
//! - [`trust`]: which place may send a credential where (`check_trust`);
//! - [`credential`]: where the credential goes ([`Auth`]) and where it
//!   comes from: the key, or a callback asked before each attempt; and
//!   `secrets`, the list of every secret a client holds;
//! - [`key`]: the API key, which never prints itself;
//! - [`headers`]: the caller's extra headers and those from the environment;
//! - [`network`]: the proxy and the CA file, fixed per connection pool;
//! - [`limits`]: how much of a server's answer is kept;
//! - [`settings`]: what each request carries.
//!
//! Everything is re-exported here, so the rest of the crate names
//! `crate::config::X` and does not care which file holds it.

mod checks;
mod credential;
mod defaults;
mod endpoint;
mod env;
mod headers;
mod key;
mod limits;
mod network;
mod settings;
mod target;
mod trust;

// This module names every file, so the files' tests name their own file
// by its full path (`crate::config::limits::*`), never by `super`, which a
// file-level reading takes for this module: a circle.
pub use self::{credential::Auth, defaults::*, limits::Limit};
pub(crate) use self::{
    credential::{secrets, Credential, Header as CredentialHeader, Provider},
    endpoint::exact_endpoint_url,
    headers::resolve_headers,
    limits::Limits,
    network::{ClientCertFiles, Network, ProxySetting},
    settings::Settings,
    target::{resolve_target, CredentialChoice, Target},
};
// Named nowhere outside `config/` today; kept so that every path
// `crate::config::X` of the single-file module still works, and so that a
// caller never needs to know which file holds what.
#[allow(unused_imports)]
pub(crate) use self::{
    checks::{
        checked_corrections, checked_in_flight, checked_pool_size, checked_retries,
        checked_stack_size, checked_timeout,
    },
    endpoint::endpoint_url,
    env::{dotenv_value, lookup, Source},
    headers::{Headers, ENV_HEADERS},
    network::ProxyUrl,
};
