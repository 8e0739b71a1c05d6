//! The connection pool a client's clones share, with the endpoint and the
//! credential it serves: how it is built, and built anew in a forked child.

use std::fmt;
use std::sync::{Mutex, TryLockError};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::tls::TlsConfig;

use crate::config::{self, Address, Api, Credential, Network, Settings};
use crate::error::{Error, Result};
use crate::http::proxy::{self, Route};
use crate::http::{decompress, tls};
use crate::log::shown_url;
use crate::secrets::Secrets;

/// Room in the input buffer past the header limit, for a body's first bytes.
const INPUT_SLACK: usize = 16 * 1024;

/// The connection pool, the endpoint and the credential, shared by every clone of a client.
#[derive(Debug)]
pub(crate) struct Pool {
    pub(super) agent: ProcessAgent,
    pub(crate) destination: Destination,
}

/// Where a pool's requests go and how: the endpoint, the credential, and
/// the route and trust read once for them (a pool built again for other
/// settings routes and trusts as before, even when a file has gone since).
#[derive(Debug, Clone)]
pub(crate) struct Destination {
    /// What the endpoint is derived from, and the API it is derived for.
    pub(crate) address: Address,
    pub(crate) api: Api,
    /// The URL requests go to: the address's URL for the API.
    pub(crate) endpoint: String,
    pub(crate) credential: Credential,
    pub(crate) network: Network,
    /// The endpoint, parsed once rather than by every send.
    pub(super) uri: Uri,
    pub(super) route: Route,
    tls: TlsConfig,
}

impl Destination {
    /// Reads the route and the trust for the endpoint of `api` at
    /// `address`; an unusable proxy, CA file or client certificate is an
    /// [`Error::Config`](crate::Error::Config).
    pub(crate) fn read(
        (address, api): (Address, Api),
        credential: Credential,
        network: Network,
    ) -> Result<Destination> {
        let endpoint = address.url(api);
        let uri: Uri = endpoint
            .parse()
            .map_err(|_| Error::Config(format!("bad URL {}", shown_url(&endpoint))))?;
        let route = proxy::route(&uri, &network.proxy)?;
        let tls = tls::config(&network, uri.scheme_str() == Some("https"))?;
        Ok(Destination {
            address,
            api,
            endpoint,
            credential,
            network,
            uri,
            route,
            tls,
        })
    }
}

impl Pool {
    /// The one way a pool is made. Its agent holds the timeouts and header
    /// limit of `settings`: a request's own config would be copied per
    /// request, and kept off the pool when its input buffer differs.
    pub(crate) fn new(
        destination: Destination,
        max_idle_connections: usize,
        settings: &Settings,
    ) -> Pool {
        let header_limit = usize::try_from(settings.limits.headers).unwrap_or(usize::MAX);
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(settings.timeout))
            // chatwire's connect timeout also covers the name lookup, which
            // ureq's leaves out (http::resolve, http::connect).
            .timeout_connect(Some(settings.connect_timeout))
            .max_response_header_size(header_limit)
            // The most it grows to (`http::buffers`): the headers must fit.
            .input_buffer_size(header_limit.saturating_add(INPUT_SLACK))
            .output_buffer_size(config::OUTPUT_BUFFER_BYTES)
            .http_status_as_error(false)
            // Redirects are judged by chatwire's own policy (http::redirect).
            .max_redirects(0)
            .user_agent(concat!("chatwire/", env!("CARGO_PKG_VERSION")))
            // Unless the client's own headers name one.
            .accept_encoding(decompress::ACCEPTED)
            .max_idle_connections(max_idle_connections)
            .max_idle_connections_per_host(max_idle_connections)
            .tls_config(destination.tls.clone())
            // chatwire chooses the proxy itself (ureq's own choice would
            // tunnel plain http and send http_proxy's to https).
            .proxy(match &destination.route {
                Route::Tunnel(proxy) => Some(proxy.clone()),
                _ => None,
            })
            .build();
        let agent = ProcessAgent {
            built: destination.route.agent(config.clone()),
            pid: std::process::id(),
            config,
            route: destination.route.clone(),
            child: Mutex::new(None),
        };
        Pool { agent, destination }
    }

    /// Every secret a request with these settings carries.
    pub(crate) fn secrets(&self, settings: &Settings) -> Secrets {
        let mut secrets = config::secrets(&self.destination.credential, &settings.headers);
        for secret in self.destination.route.secrets() {
            secrets.add(&secret);
        }
        secrets
    }
}

/// ureq's agent (which holds the pool) of the process a request runs in.
/// What ureq lacks: fork safety (a child would read its parent's answers).
pub(crate) struct ProcessAgent {
    built: ureq::Agent,
    pid: u32,
    /// What a child's agent is built from.
    config: Config,
    route: Route,
    /// The agent of the forked child that built it last, with that child's id.
    child: Mutex<Option<(u32, ureq::Agent)>>,
}

impl ProcessAgent {
    /// The agent of this process's pool. In the process that built the
    /// pool this costs one `getpid` more than a clone of the agent.
    pub(super) fn current(&self) -> ureq::Agent {
        let pid = std::process::id();
        if pid == self.pid {
            return self.built.clone();
        }
        self.in_child(pid)
    }

    /// The agent of a forked child. Only `try_lock`: a lock a thread of the
    /// parent held at the fork stays held, and the child then gets a new
    /// pool per request (correct, without reuse).
    #[cold]
    fn in_child(&self, pid: u32) -> ureq::Agent {
        let mut child = match self.child.try_lock() {
            Ok(child) => child,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return self.fresh(),
        };
        match &*child {
            Some((owner, agent)) if *owner == pid => agent.clone(),
            _ => child.insert((pid, self.fresh())).1.clone(),
        }
    }

    /// A new agent with empty pool and caches, built as the first was.
    fn fresh(&self) -> ureq::Agent {
        self.route.agent(self.config.clone())
    }
}

impl fmt::Debug for ProcessAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessAgent")
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TimeoutKind;
    use crate::http::resolve::scripted;
    use std::hint::black_box;
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpListener, TcpStream};
    use std::time::Duration;
    use std::time::Instant;

    /// A pool for `endpoint`, and the settings of its requests.
    fn pool_for(
        endpoint: &str,
        connect: Duration,
        whole: Duration,
        retries: u32,
    ) -> (Pool, Settings) {
        let settings = Settings {
            timeout: whole,
            connect_timeout: connect,
            idle_timeout: Duration::from_secs(5),
            max_retries: retries,
            headers: Default::default(),
            limits: config::Limits::default(),
        };
        let network = Network::default();
        let address = (Address::Exact(endpoint.into()), Api::ChatCompletions);
        let destination = Destination::read(address, Credential::none(), network).unwrap();
        (Pool::new(destination, 4, &settings), settings)
    }

    fn pool() -> Pool {
        let timeouts = (Duration::from_secs(5), Duration::from_secs(10));
        pool_for("http://127.0.0.1:9/v1", timeouts.0, timeouts.1, 0).0
    }

    /// A server that answers one request `{}` with `{}`.
    fn answers_once() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let (mut seen, mut buffer) = (Vec::new(), [0u8; 1024]);
            while !seen.ends_with(b"\r\n\r\n{}") {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => return,
                    Ok(read) => seen.extend_from_slice(&buffer[..read]),
                }
            }
            let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
            let _ = stream.write_all(answer);
        });
        addr
    }

    #[test]
    fn a_lookup_that_never_answers_ends_at_the_connect_timeout() {
        scripted::script("never-answers.test:80", [None]);
        let (connect, whole) = (Duration::from_millis(300), Duration::from_secs(30));
        let (pool, settings) = pool_for("http://never-answers.test/v1", connect, whole, 0);
        let started = Instant::now();
        let Err(error) = pool.post(b"{}", &settings, None) else {
            panic!("a send without addresses succeeded");
        };
        let took = started.elapsed();
        assert_eq!(error.timeout_kind(), Some(TimeoutKind::Connect), "{error}");
        assert!(
            error.to_string().contains("the name lookup did not answer"),
            "{error}"
        );
        // Well before the whole request's 30 s.
        assert!(took < Duration::from_secs(10), "took {took:?}");
    }

    /// A loopback address where connects hang: a listener with the smallest
    /// backlog, filled by connections nobody accepts, so the kernel drops
    /// further handshakes. Kept open while the listener and fillers live.
    fn stuck_listener() -> (SocketAddr, socket2::Socket, Vec<TcpStream>) {
        use socket2::{Domain, Socket, Type};
        let listener = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
        let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
        listener.bind(&loopback.into()).unwrap();
        listener.listen(0).unwrap();
        let addr = listener.local_addr().unwrap().as_socket().unwrap();
        let mut fillers = Vec::new();
        while let Ok(stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            fillers.push(stream);
            assert!(fillers.len() < 64, "the backlog never filled");
        }
        (addr, listener, fillers)
    }

    #[test]
    fn a_slow_lookup_and_a_slow_connect_keep_to_one_connect_timeout() {
        let (stuck, _listener, _fillers) = stuck_listener();
        let lookup = Duration::from_millis(1000);
        scripted::script_after("slow-name.test:80", lookup, [Some(vec![stuck])]);
        let (connect, whole) = (Duration::from_millis(1500), Duration::from_secs(30));
        let (pool, settings) = pool_for("http://slow-name.test/v1", connect, whole, 0);
        let started = Instant::now();
        let Err(error) = pool.post(b"{}", &settings, None) else {
            panic!("a send to a listener that never accepts succeeded");
        };
        let took = started.elapsed();
        assert_eq!(error.timeout_kind(), Some(TimeoutKind::Connect), "{error}");
        // One connect timeout for both: 1.5 s, not the lookup's 1 s and then
        // the connect's 1.5 s (2.5 s).
        assert!(took < Duration::from_millis(2200), "took {took:?}");
    }

    #[test]
    fn a_retry_after_a_failed_connect_looks_the_name_up_again() {
        // Nothing listens there any more: the connect is refused.
        let dead = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let live = answers_once();
        scripted::script("moved.test:80", [Some(vec![dead]), Some(vec![live])]);
        let (connect, whole) = (Duration::from_secs(5), Duration::from_secs(30));
        let (pool, settings) = pool_for("http://moved.test/v1", connect, whole, 1);
        let received = pool.post(b"{}", &settings, None);
        assert_eq!(
            received
                .map(|received| received.body)
                .map_err(|e| e.to_string()),
            Ok("{}".to_owned())
        );
        assert_eq!(scripted::left("moved.test:80"), 0);
    }

    #[test]
    fn the_process_that_built_the_pool_uses_it() {
        let transport = pool();
        assert_eq!(transport.agent.pid, std::process::id());
        // Nothing is built for a child until one asks.
        let _ = transport.agent.current();
        assert!(transport.agent.child.lock().unwrap().is_none());
    }

    /// The fork check's share of a request's start: run with
    /// `cargo test --release --lib fork_check -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn fork_check_cost() {
        let transport = pool();
        const ROUNDS: u32 = 2_000_000;
        for round in 0..3 {
            let started = Instant::now();
            for _ in 0..ROUNDS {
                black_box(transport.agent.built.clone());
            }
            let plain = started.elapsed() / ROUNDS;
            let started = Instant::now();
            for _ in 0..ROUNDS {
                black_box(transport.agent.current());
            }
            let checked = started.elapsed() / ROUNDS;
            let started = Instant::now();
            for _ in 0..ROUNDS {
                black_box(std::process::id() == black_box(transport.agent.pid));
            }
            let check = started.elapsed() / ROUNDS;
            println!("round {round}: the agent {plain:?}, with the fork check {checked:?}, the check alone {check:?}");
        }
    }
}
