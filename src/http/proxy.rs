//! Which proxy a client's requests go through, chosen as curl chooses it.
//! What ureq lacks: a plain `http://` request sent to an HTTP proxy in
//! absolute form (`POST http://host/path HTTP/1.1`), and curl's NO_PROXY
//! ([`bypasses`]). ureq drives CONNECT tunnels itself.

use std::fmt;
use std::net::IpAddr;

use base64::Engine;
use ureq::config::Config;
use ureq::http::{HeaderValue, Uri};
use ureq::unversioned::transport::{
    Buffers, ConnectProxyConnector, ConnectionDetails, Connector, NextTimeout, Transport,
};
use ureq::{Agent, Proxy};

use crate::config::ProxySetting;
use crate::error::{Error, Result};
use crate::http::connect::TcpConnect;
use crate::http::resolve::Resolve;
use crate::http::tls_transport::TlsConnect;
use crate::log::shown_url;

/// How a client reaches its endpoint.
#[derive(Clone)]
pub(crate) enum Route {
    Direct,
    /// A CONNECT tunnel for `https://`, which ureq drives.
    Tunnel(Proxy),
    /// A plain `http://` request handed to an HTTP proxy in absolute form.
    Forward(Forward),
}

impl Route {
    /// The proxy's password and the `Proxy-Authorization` value: secrets
    /// that a proxy or server may echo back.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let (proxy, authorization) = match self {
            Route::Direct => return Vec::new(),
            Route::Tunnel(proxy) => (proxy, None),
            Route::Forward(forward) => (&forward.proxy, forward.authorization.as_ref()),
        };
        let authorization =
            authorization.map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        authorization
            .into_iter()
            .chain(proxy.password().map(str::to_owned))
            .collect()
    }

    /// An agent that connects as this route says, through chatwire's own
    /// resolver and TCP step (in ureq's chain), whose sockets a cancel reaches.
    pub(crate) fn agent(&self, config: Config) -> Agent {
        if let Route::Forward(forward) = self {
            // The endpoint's name is the proxy's to look up (a company proxy
            // knows names this host may not): only the proxy's is looked up here.
            let names = Resolve::only(forward.proxy.uri().clone());
            let chain = ().chain(TcpConnect(names.names())).chain(forward.clone());
            return Agent::with_parts(config, chain, names);
        }
        let names = Resolve::default();
        let chain = ().chain(ConnectProxyConnector::default());
        let chain = chain.chain(TcpConnect(names.names()));
        Agent::with_parts(config, chain.chain(TlsConnect::default()), names)
    }
}

/// An HTTP proxy that takes requests in absolute form, as a connector (ureq
/// would tunnel them with CONNECT, which most proxies allow to 443 only).
#[derive(Clone)]
pub(crate) struct Forward {
    proxy: Proxy,
    /// `http://host:port` of the endpoint, put before the path.
    origin: String,
    /// `Basic ...` for the proxy's user name and password, if any: each
    /// request carries it (a tunnel sends it with its CONNECT).
    pub(super) authorization: Option<HeaderValue>,
}

// Shown without user name or password (ureq's `Debug` of a proxy keeps
// the user name's first letter).
impl fmt::Debug for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Route::Direct => f.write_str("Direct"),
            Route::Tunnel(proxy) => write!(f, "Tunnel({})", shown_url(&proxy.uri().to_string())),
            Route::Forward(forward) => forward.fmt(f),
        }
    }
}

impl fmt::Debug for Forward {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let proxy = shown_url(&self.proxy.uri().to_string());
        write!(f, "Forward({proxy} for {})", self.origin)
    }
}

/// Where requests to `target` go, given the client's setting and the
/// environment (`https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`, or
/// `http_` for `http://`).
pub(crate) fn route(target: &Uri, setting: &ProxySetting) -> Result<Route> {
    let https = target.scheme_str() == Some("https");
    let host = target.host().unwrap_or_default();
    let port = target.port_u16().unwrap_or(if https { 443 } else { 80 });
    let (text, source) = match setting {
        ProxySetting::Off => return Ok(Route::Direct),
        ProxySetting::Url(url) => (url.as_str().to_owned(), "the proxy URL"),
        ProxySetting::Environment => {
            // ureq's Proxy::try_from_env reads ALL_PROXY first for every scheme.
            let names = if https {
                ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
            } else {
                ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
            };
            let Some((name, value)) = env_value(&names) else {
                return Ok(Route::Direct);
            };
            let no_proxy = env_value(&["no_proxy", "NO_PROXY"]);
            if no_proxy.is_some_and(|(_, rules)| bypasses(&rules, host, port)) {
                crate::log::debug(format_args!(
                    "proxy: {host} is in NO_PROXY; connecting directly"
                ));
                return Ok(Route::Direct);
            }
            (value, name)
        }
    };
    let route = parse_route(&text, https, host, port).map_err(|why| {
        Error::Config(format!(
            "proxy {} from {source} is not usable: {why}",
            shown_url(&text)
        ))
    })?;
    crate::log::debug(format_args!(
        "proxy: {} goes through {} (from {source})",
        shown_url(&target.to_string()),
        shown_url(&text)
    ));
    Ok(route)
}

fn parse_route(text: &str, https: bool, host: &str, port: u16) -> Result<Route, String> {
    let proxy = Proxy::new(text.trim()).map_err(|err| err.to_string())?;
    let scheme = proxy.uri().scheme_str().unwrap_or("http");
    // ureq's SOCKS step would connect on its own, out of a cancel's reach.
    if scheme.to_ascii_lowercase().starts_with("socks") {
        return Err(format!(
            "{scheme}:// proxies are not supported; use an HTTP proxy (http://host:port)"
        ));
    }
    if https {
        return Ok(Route::Tunnel(proxy));
    }
    if !scheme.eq_ignore_ascii_case("http") {
        return Err(format!(
            "a plain http:// endpoint needs an http:// proxy, not {scheme}://"
        ));
    }
    let authorization = match (proxy.username(), proxy.password()) {
        (None, None) => None,
        (user, password) => {
            let pair = format!("{}:{}", user.unwrap_or(""), password.unwrap_or(""));
            let basic = base64::engine::general_purpose::STANDARD.encode(pair);
            let mut value = HeaderValue::from_str(&format!("Basic {basic}"))
                .map_err(|_| "the credentials cannot be sent in a header".to_owned())?;
            value.set_sensitive(true);
            Some(value)
        }
    };
    Ok(Route::Forward(Forward {
        proxy,
        origin: format!("http://{host}:{port}"),
        authorization,
    }))
}

/// The first of the variables `names` that is set and not empty.
fn env_value(names: &[&'static str]) -> Option<(&'static str, String)> {
    names.iter().find_map(|name| {
        let value = std::env::var(name).ok()?;
        (!value.trim().is_empty()).then_some((*name, value))
    })
}

/// Whether `NO_PROXY`-style `rules` send `host:port` around the proxy, as
/// curl reads them: entries split by commas or spaces; `*` matches all;
/// `example.com` and `.example.com` match it and every name under it (not
/// so in ureq); `:port` limits to that port; IP addresses match exactly or
/// as a range (`10.0.0.0/8`), IPv6 ones also in brackets; case is ignored.
pub(crate) fn bypasses(rules: &str, host: &str, port: u16) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let address = host.parse::<IpAddr>().ok();
    let matches = |rule: &str| {
        let (name, rule_port) = split_port(rule);
        let name = name.trim_start_matches("*.").trim_start_matches('.');
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let host_matches = match address {
            Some(address) => in_range(&name, address),
            None => host == name || host.strip_suffix(&name).is_some_and(|s| s.ends_with('.')),
        };
        rule == "*" || (host_matches && rule_port.is_none_or(|rule_port| rule_port == port))
    };
    rules
        .split([',', ' '])
        .map(str::trim)
        .any(|rule| !rule.is_empty() && matches(rule))
}

/// `host:port`, `[v6]:port`, `[v6]` or a bare name or address (an IPv6
/// address without brackets has no port).
fn split_port(rule: &str) -> (&str, Option<u16>) {
    let (name, port) = match rule.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') || name.ends_with(']') => {
            (name, port.parse().ok())
        }
        _ => (rule, None),
    };
    (name.trim_start_matches('[').trim_end_matches(']'), port)
}

/// Whether the address or range `rule` (`10.0.0.0/8`, `::1`) holds `address`.
fn in_range(rule: &str, address: IpAddr) -> bool {
    let (network, bits) = rule
        .split_once('/')
        .map_or((rule, None), |(n, b)| (n, Some(b)));
    let Ok(network) = network.parse::<IpAddr>() else {
        return false;
    };
    let width = if network.is_ipv4() { 32 } else { 128 };
    let bits: u32 = match bits.map_or(Ok(width), str::parse) {
        Ok(bits) if bits <= width => bits,
        _ => return false,
    };
    let wide = |ip: IpAddr| match ip {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    };
    let differ = wide(network) ^ wide(address);
    network.is_ipv4() == address.is_ipv4() && differ.checked_shr(width - bits).unwrap_or(0) == 0
}

/// Wraps the connection the TCP step before it made to the proxy (the
/// agent's resolver gives the proxy's addresses for every URL).
impl<In: Transport> Connector<In> for Forward {
    type Out = AbsoluteForm;

    fn connect(
        &self,
        _details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<AbsoluteForm>, ureq::Error> {
        Ok(chained.map(|tcp| AbsoluteForm {
            inner: Box::new(tcp),
            origin: self.origin.clone(),
            head_next: true,
        }))
    }
}

/// A connection to a forward proxy that rewrites each request line from
/// `POST /path HTTP/1.1` to `POST http://host:port/path HTTP/1.1`.
#[derive(Debug)]
pub(crate) struct AbsoluteForm {
    inner: Box<dyn Transport>,
    origin: String,
    /// True when the next bytes written start a request (a new connection,
    /// or a reused one after its response was read).
    head_next: bool,
}

/// Where the request target starts in a request line (`METHOD SP /...`).
fn origin_form_target(bytes: &[u8]) -> Option<usize> {
    let space = bytes.iter().take(16).position(|&b| b == b' ')?;
    let method = &bytes[..space];
    let is_method = !method.is_empty() && method.iter().all(u8::is_ascii_uppercase);
    (is_method && bytes.get(space + 1) == Some(&b'/')).then_some(space + 1)
}

impl Transport for AbsoluteForm {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let output = &self.inner.buffers().output()[..amount];
        let target = std::mem::take(&mut self.head_next)
            .then(|| origin_form_target(output))
            .flatten();
        let Some(target) = target else {
            return self.inner.transmit_output(amount, timeout);
        };
        let rewritten = [&output[..target], self.origin.as_bytes(), &output[target..]].concat();
        // The line is longer now: sent in pieces as large as the buffer.
        for piece in rewritten.chunks(self.inner.buffers().output().len().max(1)) {
            self.inner.buffers().output()[..piece.len()].copy_from_slice(piece);
            self.inner.transmit_output(piece.len(), timeout)?;
        }
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        // Reading means the request was sent: what is written after the
        // response is the next request's head.
        self.head_next = true;
        self.inner.await_input(timeout)
    }

    fn is_open(&mut self) -> bool {
        self.inner.is_open()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_proxy_rules_as_curl_reads_them() {
        let rules = "localhost, .internal.example, corp.example,10.0.0.0/8, api.local:8080,[::1], 192.168.1.5";
        for (host, port) in [
            ("localhost", 80),
            ("LOCALHOST", 443),
            ("a.internal.example", 443),
            ("internal.example", 443),
            ("corp.example", 443),
            ("x.y.corp.example", 443),
            ("10.1.2.3", 80),
            ("api.local", 8080),
            ("::1", 80),
            ("[::1]", 80),
            ("192.168.1.5", 80),
            ("corp.example.", 80),
        ] {
            assert!(bypasses(rules, host, port), "{host}:{port}");
        }
        for (host, port) in [
            ("notcorp.example", 443),
            ("example", 443),
            ("11.0.0.1", 80),
            ("api.local", 443),
            ("192.168.1.6", 80),
            ("::2", 80),
            ("localhost.evil", 80),
        ] {
            assert!(!bypasses(rules, host, port), "{host}:{port}");
        }
        assert!(bypasses("*", "anything", 1));
        assert!(bypasses("*.example.com", "a.example.com", 1));
        assert!(!bypasses("", "a", 1));
        assert!(bypasses("::1/128", "::1", 1));
        assert!(bypasses("0.0.0.0/0", "8.8.8.8", 1));
        assert!(!bypasses("10.0.0.0/99", "10.0.0.1", 1));
    }

    #[test]
    fn request_lines_are_found() {
        assert_eq!(origin_form_target(b"POST /v1 HTTP/1.1\r\n"), Some(5));
        assert_eq!(origin_form_target(b"{\"model\": 1}"), None);
        assert_eq!(origin_form_target(b"POST http://x/ HTTP/1.1"), None);
    }

    #[test]
    fn routes_by_scheme_and_setting() {
        let url = |text: &str| ProxySetting::Url(text.into());
        let http = route(
            &"http://h:8080/v1/chat/completions".parse().unwrap(),
            &url("http://u:p@proxy:3128"),
        )
        .unwrap();
        let Route::Forward(forward) = http else {
            panic!("{http:?}")
        };
        assert_eq!(forward.origin, "http://h:8080");
        assert_eq!(forward.authorization.as_ref().unwrap(), "Basic dTpw");
        assert!(!format!("{forward:?}").contains("u:p"));
        assert_eq!(Route::Forward(forward).secrets(), ["Basic dTpw", "p"]);
        let https = route(
            &"https://h/v1/chat/completions".parse().unwrap(),
            &url("proxy:3128"),
        )
        .unwrap();
        assert!(matches!(https, Route::Tunnel(_)), "{https:?}");
        assert!(matches!(
            route(&"https://h/x".parse().unwrap(), &ProxySetting::Off).unwrap(),
            Route::Direct
        ));
        let socks = route(&"https://h/x".parse().unwrap(), &url("socks5://proxy:1080"));
        let socks = socks.unwrap_err().to_string();
        assert!(
            socks.contains("socks5:// proxies are not supported"),
            "{socks}"
        );
        let bad = route(&"http://h/x".parse().unwrap(), &url("ftp://u:secret@proxy")).unwrap_err();
        assert!(!bad.to_string().contains("secret"), "{bad}");
    }
}
