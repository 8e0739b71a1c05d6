//! Turning a URL's host into addresses: IP literals and `localhost` at once,
//! a name at most every [`CACHE_FOR`], and again after a failed connect
//! ([`Names::forget`]). What ureq's resolver lacks: a cancel of its wait, and
//! no lookup per request (it starts a thread for each). The wait keeps to
//! the connect timeout; the connect that follows counts from the lookup's start
//! ([`lookup_began`]), so that the two keep to one connect timeout.

use std::cell::Cell;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

use crate::http::cancel::{self, Interrupt};
use crate::sync;

/// How long a looked-up name's addresses are used before asking again.
pub(crate) const CACHE_FOR: Duration = Duration::from_secs(30);

/// The most addresses ureq takes from a resolver.
const MAX_ADDRS: usize = 16;

thread_local! {
    /// When this thread's last lookup began; `None` when the last resolve
    /// needed none. ureq calls the resolver and then the connector on the
    /// request's own thread, and starts the connect timeout only once the
    /// lookup is done: the connect steps count from here instead.
    static LOOKUP_BEGAN: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// When the lookup of this thread's last resolve began (`None` when its
/// addresses needed none: an IP literal, `localhost`, a name found
/// recently).
pub(crate) fn lookup_began() -> Option<Instant> {
    LOOKUP_BEGAN.get()
}

/// A resolver that starts no thread for IP literals, `localhost` and a
/// recent name. One per agent, which reaches one host (or its proxy): a
/// forked child's agent gets a new one, so the child never waits on a lock
/// its parent's thread held at the fork.
#[derive(Debug, Default)]
pub(crate) struct Resolve {
    last: Names,
    /// The one URL whose host is looked up (a forward proxy's), for every
    /// URL: the connection goes there.
    only: Option<Uri>,
}

/// What a resolver found last, shared with the agent's TCP step, which
/// forgets it when no address answers: a retry then looks the name up again
/// rather than going back to the same dead addresses.
#[derive(Debug, Default, Clone)]
pub(crate) struct Names(Arc<Mutex<Option<Found>>>);

impl Names {
    /// Drops what was found, so that the next request looks it up again.
    pub(crate) fn forget(&self) {
        *sync::lock(&self.0) = None;
    }
}

/// The addresses of the last URL's scheme and authority: a send to where
/// the last one went parses no host.
#[derive(Debug)]
struct Found {
    scheme: String,
    authority: String,
    addrs: Vec<SocketAddr>,
    /// When a looked-up name must be looked up again.
    until: Option<Instant>,
}

impl Resolver for Resolve {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        LOOKUP_BEGAN.set(None);
        let uri = self.only.as_ref().unwrap_or(uri);
        let scheme = uri.scheme_str().unwrap_or_default();
        let authority = uri.authority().map_or("", |authority| authority.as_str());
        let mut addrs = self.empty();
        let family = config.ip_family();
        let mut keep = |found: &[SocketAddr]| {
            for addr in family.keep_wanted(found.iter().copied()).take(MAX_ADDRS) {
                addrs.push(addr);
            }
        };
        let last = || sync::lock(&self.last.0);
        let fresh = |found: &&Found| {
            found.authority == authority
                && found.scheme == scheme
                && found.until.is_none_or(|until| Instant::now() < until)
        };
        if last()
            .as_ref()
            .filter(fresh)
            .map(|found| keep(&found.addrs))
            .is_none()
        {
            let target = target(uri)?;
            let (found, until) = match without_lookup(&target) {
                Some(found) => (found, None),
                None => {
                    LOOKUP_BEGAN.set(Some(Instant::now()));
                    let patience = within_connect_timeout(timeout, config);
                    let found = wait_for_lookup(move || system_lookup(target), patience)?;
                    (found, Some(Instant::now() + CACHE_FOR))
                }
            };
            keep(&found);
            *last() = Some(Found {
                scheme: scheme.to_owned(),
                authority: authority.to_owned(),
                addrs: found,
                until,
            });
        }
        if addrs.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(addrs)
    }
}

impl Resolve {
    /// A resolver that gives the addresses of `uri` for every URL (a forward
    /// proxy's: the endpoint's name is the proxy's to look up).
    pub(crate) fn only(uri: Uri) -> Resolve {
        Resolve {
            only: Some(uri),
            ..Resolve::default()
        }
    }

    /// What it finds, for the TCP step to forget.
    pub(crate) fn names(&self) -> Names {
        self.last.clone()
    }
}

/// Looks `host:port` up with the system's resolver (in tests, a name
/// [`scripted`] answers as its test says).
fn system_lookup(target: String) -> io::Result<Vec<SocketAddr>> {
    #[cfg(test)]
    if let Some(answer) = scripted::answer(&target) {
        return answer;
    }
    target.to_socket_addrs().map(Iterator::collect)
}

/// Names whose lookups a test scripts, answer by answer: the whole road of
/// a send runs, but the system's resolver is not asked.
#[cfg(test)]
pub(crate) mod scripted {
    use std::collections::VecDeque;
    use std::io;
    use std::net::SocketAddr;
    use std::sync::Mutex;
    use std::time::Duration;

    /// One lookup's answer; `None`: it never answers.
    pub(crate) type Answer = Option<Vec<SocketAddr>>;

    /// A scripted name: its answers, and how long each takes to come.
    struct Script {
        target: String,
        answers: VecDeque<Answer>,
        delay: Duration,
    }

    static NAMES: Mutex<Vec<Script>> = Mutex::new(Vec::new());

    /// The lookups of `target` (`host:port`) give these answers in turn,
    /// then fail.
    pub(crate) fn script(target: &str, answers: impl IntoIterator<Item = Answer>) {
        script_after(target, Duration::ZERO, answers);
    }

    /// As [`script`], each answer coming only after `delay`.
    pub(crate) fn script_after(
        target: &str,
        delay: Duration,
        answers: impl IntoIterator<Item = Answer>,
    ) {
        let mut names = NAMES.lock().unwrap();
        names.retain(|script| script.target != target);
        names.push(Script {
            target: target.to_owned(),
            answers: answers.into_iter().collect(),
            delay,
        });
    }

    /// How many answers for `target` are not given yet.
    pub(crate) fn left(target: &str) -> usize {
        let names = NAMES.lock().unwrap();
        let found = names.iter().find(|script| script.target == target);
        found.map_or(0, |script| script.answers.len())
    }

    /// The next answer for `target`; `None` for a name no test scripted.
    pub(super) fn answer(target: &str) -> Option<io::Result<Vec<SocketAddr>>> {
        let (next, delay) = {
            let mut names = NAMES.lock().unwrap();
            let script = names.iter_mut().find(|script| script.target == target)?;
            (script.answers.pop_front(), script.delay)
        };
        std::thread::sleep(delay);
        match next {
            Some(Some(addrs)) => Some(Ok(addrs)),
            Some(None) => loop {
                std::thread::park();
            },
            None => Some(Err(io::Error::new(
                io::ErrorKind::NotFound,
                "the test scripted no more answers",
            ))),
        }
    }
}

/// `host:port` of a URL, the port explicit or its scheme's (proxies are
/// resolved here too).
fn target(uri: &Uri) -> Result<String, ureq::Error> {
    let found = uri.scheme().zip(uri.authority());
    found
        .and_then(|(scheme, authority)| DefaultResolver::host_and_port(scheme, authority))
        .ok_or_else(|| ureq::Error::BadUri(format!("{uri}: no host or no port")))
}

/// The address of an IP literal, or those of `localhost` (which names the
/// loopback addresses on every system, IPv4 first as most local servers
/// listen there); `None` for a name that needs a lookup.
fn without_lookup(target: &str) -> Option<Vec<SocketAddr>> {
    if let Ok(addr) = target.parse::<SocketAddr>() {
        return Some(vec![addr]);
    }
    let (host, port) = target.rsplit_once(':')?;
    let port = port
        .parse()
        .ok()
        .filter(|_| host.eq_ignore_ascii_case("localhost"))?;
    Some(vec![
        SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port),
        SocketAddr::new(Ipv6Addr::LOCALHOST.into(), port),
    ])
}

/// How long a lookup may take: ureq's timeout for it (what is left of the
/// whole request), and at most the connect timeout, which covers the
/// lookup. Set here rather than as ureq's `timeout_resolve`, which would
/// make ureq work out one more timeout on every send, lookup or not.
fn within_connect_timeout(timeout: NextTimeout, config: &Config) -> NextTimeout {
    let Some(connect) = config.timeouts().connect else {
        return timeout;
    };
    if !timeout.after.is_not_happening() && *timeout.after <= connect {
        return timeout;
    }
    NextTimeout {
        after: connect.into(),
        reason: ureq::Timeout::Resolve,
        ..timeout
    }
}

/// The lookup's outcome, or `None` from a cancel.
type Outcome = Option<io::Result<Vec<SocketAddr>>>;

/// Runs a lookup on a helper thread and waits for it no longer than the
/// timeout, or until the request is cancelled. A lookup given up on
/// finishes on its own and is dropped.
fn wait_for_lookup(
    lookup: impl FnOnce() -> io::Result<Vec<SocketAddr>> + Send + 'static,
    timeout: NextTimeout,
) -> Result<Vec<SocketAddr>, ureq::Error> {
    let (sender, receiver) = mpsc::sync_channel::<Outcome>(2);
    let wake: Arc<dyn Interrupt> = Arc::new(WakeWaiter(sender.clone()));
    cancel::hold(&wake)?;
    std::thread::Builder::new()
        .name("chatwire-resolve".into())
        .spawn(move || {
            let _ = sender.try_send(Some(lookup()));
        })?;
    let outcome = if timeout.after.is_not_happening() {
        receiver.recv().map_err(|_| RecvTimeoutError::Disconnected)
    } else {
        receiver.recv_timeout(*timeout.after)
    };
    match outcome {
        Ok(Some(found)) => Ok(found?),
        Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(ureq::Error::Io(io::Error::new(
            io::ErrorKind::ConnectionAborted,
            "the name lookup was stopped",
        ))),
        Err(RecvTimeoutError::Timeout) => Err(ureq::Error::Timeout(timeout.reason)),
    }
}

/// Ends the wait for a lookup.
struct WakeWaiter(SyncSender<Outcome>);

impl Interrupt for WakeWaiter {
    fn interrupt(&self) {
        let _ = self.0.try_send(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_localhost_need_no_lookup() {
        let v4 = without_lookup("127.0.0.1:80").unwrap();
        assert_eq!(v4, vec!["127.0.0.1:80".parse().unwrap()]);
        let uri: Uri = "http://[::1]:8080/v1".parse().unwrap();
        assert_eq!(
            without_lookup(&target(&uri).unwrap()).unwrap(),
            vec!["[::1]:8080".parse().unwrap()]
        );
        let local = without_lookup("LocalHost:443").unwrap();
        assert_eq!(local[0], "127.0.0.1:443".parse().unwrap());
        assert_eq!(local[1], "[::1]:443".parse().unwrap());
        assert!(without_lookup("example.com:443").is_none());
    }

    #[test]
    fn a_forward_proxy_s_resolver_answers_every_url_with_the_proxy() {
        // ureq's contract: at least one address, or HostNotFound.
        let names = Resolve::only("http://127.0.0.1:3128".parse().unwrap());
        let config = ureq::Agent::config_builder().build();
        let endpoint: Uri = "http://api.example.com/v1".parse().unwrap();
        let addrs = names
            .resolve(&endpoint, &config, NextTimeout::default())
            .unwrap();
        assert_eq!(&addrs[..], ["127.0.0.1:3128".parse().unwrap()]);
    }

    #[test]
    fn ports_default_by_scheme() {
        let https: Uri = "https://api.example.com/v1".parse().unwrap();
        assert_eq!(target(&https).unwrap(), "api.example.com:443");
        let proxy: Uri = "http://proxy.internal".parse().unwrap();
        assert_eq!(target(&proxy).unwrap(), "proxy.internal:80");
        let socks: Uri = "socks5://proxy.internal".parse().unwrap();
        assert_eq!(target(&socks).unwrap(), "proxy.internal:1080");
    }

    /// A lookup that hangs until the test lets it go (drops the sender);
    /// it says when it has begun.
    fn stuck_lookup(
        begun: mpsc::Sender<()>,
        release: mpsc::Receiver<()>,
    ) -> impl FnOnce() -> io::Result<Vec<SocketAddr>> + Send + 'static {
        move || {
            let _ = begun.send(());
            let _ = release.recv();
            Ok(vec!["10.0.0.1:80".parse().unwrap()])
        }
    }

    fn within(after: Duration) -> NextTimeout {
        NextTimeout {
            after: after.into(),
            reason: ureq::Timeout::Resolve,
            ..NextTimeout::default()
        }
    }

    #[test]
    fn a_cancel_ends_the_wait_for_a_lookup() {
        let token = cancel::CancelToken::new();
        let canceller = token.clone();
        let (begun, has_begun) = mpsc::channel();
        let (release, held) = mpsc::channel();
        std::thread::spawn(move || {
            has_begun.recv().unwrap();
            canceller.cancel();
        });
        let _entered = token.enter();
        let error = wait_for_lookup(stuck_lookup(begun, held), within(Duration::from_secs(30)))
            .unwrap_err();
        // The lookup still hangs: only the cancel ended the wait (a timeout
        // would be a Timeout error).
        assert!(matches!(error, ureq::Error::Io(_)), "{error:?}");
        drop(release);
        // Once cancelled, no lookup starts.
        let (begun, has_begun) = mpsc::channel();
        let (_release, held) = mpsc::channel();
        assert!(
            wait_for_lookup(stuck_lookup(begun, held), within(Duration::from_secs(30))).is_err()
        );
        assert!(has_begun.try_recv().is_err(), "a lookup started");
    }

    #[test]
    fn a_lookup_keeps_to_its_timeout() {
        let (begun, _has_begun) = mpsc::channel();
        let (release, held) = mpsc::channel();
        let error = wait_for_lookup(stuck_lookup(begun, held), within(Duration::from_millis(50)))
            .unwrap_err();
        // The lookup hangs until let go below: the timeout ended the wait.
        assert!(matches!(
            error,
            ureq::Error::Timeout(ureq::Timeout::Resolve)
        ));
        drop(release);
    }
}
