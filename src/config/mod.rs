//! Every setting, and where it comes from: arguments first, then the
//! environment, then `./.env`; [`defaults`] holds every default and maximum.

use std::time::Duration;

mod credential;
pub(crate) mod defaults;
mod endpoint;
mod env;
mod headers;
mod network;
mod target;

// The files' tests name their own file by its full path, never by
// `super`, which the import-circle check takes for this module.
pub use self::{credential::Auth, defaults::*, endpoint::Api};
pub(crate) use self::{
    credential::{secrets, Credential, Header as CredentialHeader, Provider},
    defaults::Limits,
    endpoint::{
        batch_api_url, batch_line_url, exact_endpoint_url, models_url, path_segment, Address,
    },
    env::Source,
    headers::{checked_headers, environment_headers},
    network::{ClientCertFiles, Network, ProxySetting},
    target::{resolve_target, CredentialChoice, Target},
};

/// What every request of a client carries down to `http/`, copied out of
/// the client's configuration (`client::Config`) when the client is made.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub(crate) timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_retries: u32,
    pub(crate) headers: headers::Headers,
    pub(crate) limits: Limits,
}
