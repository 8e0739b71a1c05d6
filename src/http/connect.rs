//! A TCP step of our own in ureq's connector chain. What ureq's TCP step
//! lacks: a cancel of one request in every phase (its `ShutdownHandle` is
//! agent-wide and registered only once connected), a read's patience
//! changed mid-body, buffers that grow (`http::buffers`), and a worker that
//! waits holding no output.

use std::cell::Cell;
use std::fmt;
use std::io::{self, Read};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use ureq::config::Config;
use ureq::unversioned::transport::time::Instant as ClockInstant;
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, NextTimeout, Transport,
};

use crate::http::buffers::GrowingBuffers;
use crate::http::cancel::{self, Interrupt};
use crate::http::resolve::{self, Names};
use crate::http::stack;
use crate::sync;

thread_local! {
    static PATIENCE: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Runs `work` with every read on the calling thread waiting at most
/// `patience` (a stream's idle timeout, or a short wait for a body's rest),
/// then failing with ureq's per-read timeout ([`is_silence`]). ureq's own
/// `timeout_per_read` is fixed when the request is sent.
pub(crate) fn with_patience<T>(patience: Duration, work: impl FnOnce() -> T) -> T {
    /// Puts the patience back also when `work` unwinds (a panic the C
    /// boundary catches).
    struct Restore(Option<Duration>);
    impl Drop for Restore {
        fn drop(&mut self) {
            PATIENCE.set(self.0);
        }
    }
    let _restore = Restore(PATIENCE.replace(Some(patience)));
    work()
}

/// True when `error` is a read that ran out of patience ([`with_patience`]),
/// as a request returns it or wrapped in a body reader's I/O error.
pub(crate) fn is_silence(error: &(dyn std::error::Error + 'static)) -> bool {
    match error.downcast_ref::<ureq::Error>() {
        Some(ureq::Error::Timeout(ureq::Timeout::PerRead)) => true,
        Some(ureq::Error::Io(io)) => is_silence(io),
        _ => error
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
            .is_some_and(|inner| is_silence(inner)),
    }
}

/// Each address of a host gets at least this much of the connect timeout.
const MIN_ATTEMPT: Duration = Duration::from_millis(10);

/// Opens TCP connections a cancel can interrupt; passes on one a proxy made.
/// When no address answers, the agent's resolver forgets them.
#[derive(Debug)]
pub(crate) struct TcpConnect(pub(crate) Names);

impl<In: Transport> Connector<In> for TcpConnect {
    type Out = Either<In, Interruptible>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        if let Some(transport) = chained {
            return Ok(Some(Either::A(transport)));
        }
        let tcp = open(&details.addrs, details.config, connect_time_left(details));
        Ok(Some(Either::B(tcp.inspect_err(|_| self.0.forget())?)))
    }
}

/// What is left of the connect timeout for the next step of a connect (the
/// TCP connect, the TLS handshake). ureq counts it from the start of the
/// connect, after the name lookup; chatwire's connect timeout covers the
/// lookup too, so it counts from the lookup's start when there was one (a
/// proxy's lookup, made within the connect, starts later and changes
/// nothing).
pub(crate) fn connect_time_left(details: &ConnectionDetails) -> NextTimeout {
    let mut timeout = details.timeout;
    let clock = ((details.current_time)(), details.now);
    let (ClockInstant::Exact(now), ClockInstant::Exact(connect_began)) = clock else {
        return timeout;
    };
    if timeout.after.is_not_happening() {
        return timeout;
    }
    let began = resolve::lookup_began().map_or(connect_began, |lookup| lookup.min(connect_began));
    timeout.after = timeout
        .after
        .saturating_sub(now.saturating_duration_since(began))
        .into();
    timeout
}

/// A new connection to one of `addrs`, with buffers as `config` sizes them.
fn open(
    addrs: &[SocketAddr],
    config: &Config,
    timeout: NextTimeout,
) -> Result<Interruptible, ureq::Error> {
    let socket = connect_any(addrs, timeout)?;
    if config.no_delay() {
        socket.socket.set_tcp_nodelay(true)?;
    }
    let buffers = GrowingBuffers::new(config.input_buffer_size(), config.output_buffer_size());
    Ok(Interruptible {
        target: socket.clone(),
        socket,
        buffers,
        held: Vec::new(),
        read_timeout: None,
        write_timeout: None,
        just_read: false,
    })
}

/// Tries the addresses in turn, each but the last with half of the time
/// left, and moves on when one refuses, is unreachable or times out.
fn connect_any(
    addrs: &[SocketAddr],
    timeout: NextTimeout,
) -> Result<Arc<SharedSocket>, ureq::Error> {
    let deadline = (!timeout.after.is_not_happening()).then(|| Instant::now() + *timeout.after);
    let mut last = ureq::Error::HostNotFound;
    for (index, addr) in addrs.iter().enumerate() {
        let left = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
        if left.is_some_and(|left| left.is_zero()) {
            return Err(ureq::Error::Timeout(timeout.reason));
        }
        let last_one = index + 1 == addrs.len();
        let budget = left.map(|left| if last_one { left } else { left / 2 }.max(MIN_ATTEMPT));
        match connect_one(*addr, budget) {
            Ok(socket) => return Ok(socket),
            Err(error) if error.kind() == io::ErrorKind::TimedOut => {
                last = ureq::Error::Timeout(ureq::Timeout::Connect);
            }
            Err(error) if tries_next_address(&error) => last = error.into(),
            Err(error) => return Err(error.into()),
        }
    }
    let over = deadline.is_some_and(|deadline| Instant::now() >= deadline);
    match last {
        ureq::Error::Timeout(_) if over => Err(ureq::Error::Timeout(timeout.reason)),
        error => Err(error),
    }
}

/// Errors that concern one address only: the next may still work (a host
/// with an IPv6 address first and no IPv6 route, say).
fn tries_next_address(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
            | io::ErrorKind::AddrNotAvailable
    )
}

/// Connects one socket, handed to the cancel token before the handshake.
fn connect_one(addr: SocketAddr, budget: Option<Duration>) -> io::Result<Arc<SharedSocket>> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    #[cfg(target_vendor = "apple")]
    socket.set_nosigpipe(true)?;
    let socket = Arc::new(SharedSocket {
        socket,
        owner: Mutex::new(0),
        pid: std::process::id(),
    });
    let target: Arc<dyn Interrupt> = socket.clone();
    cancel::hold(&target)?;
    let addr = SockAddr::from(addr);
    match budget {
        Some(budget) => socket.socket.connect_timeout(&addr, budget)?,
        None => socket.socket.connect(&addr)?,
    }
    Ok(socket)
}

/// A connection's socket, shared by its transport and, while a request
/// uses it, that request's cancel token.
pub(crate) struct SharedSocket {
    socket: Socket,
    /// The token of the request that uses it (0: none); see
    /// [`Interrupt::claim`]. A lock, not an atomic, so that no claim can
    /// come between a cancel's check and its shutdown.
    owner: Mutex<u64>,
    pid: u32,
}

impl Interrupt for SharedSocket {
    /// Shuts the socket down (ending a blocked call and failing every later
    /// one; Windows needs its pending I/O cancelled too), but not in a
    /// forked child: a shutdown acts on the connection its parent still uses.
    fn interrupt(&self) {
        if std::process::id() == self.pid {
            // An error means the socket is closed or shut down already.
            let _ = self.socket.shutdown(std::net::Shutdown::Both);
            crate::sys::cancel_pending_io(&self.socket);
        }
    }

    fn claim(&self, owner: u64) {
        *sync::lock(&self.owner) = owner;
    }

    fn interrupt_for(&self, owner: u64) {
        let current = sync::lock(&self.owner);
        if *current == owner {
            self.interrupt();
        }
    }
}

/// A TCP transport that hands its socket to the cancel token of the request
/// doing each read and write (a pooled socket serves many). A request's head
/// and body leave in one write, held until ureq waits for the answer.
pub(crate) struct Interruptible {
    socket: Arc<SharedSocket>,
    /// The same socket, as the token holds it.
    target: Arc<dyn Interrupt>,
    buffers: GrowingBuffers,
    /// Output ureq has handed over that is not written yet.
    held: Vec<u8>,
    /// The socket's timeouts as last set.
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// True from a read until the next `is_open`: see there.
    just_read: bool,
}

/// Output is held back until this much has gathered.
const HOLD_BYTES: usize = 64 * 1024;

impl Interruptible {
    fn flush(&mut self, timeout: NextTimeout) -> Result<(), ureq::Error> {
        if self.held.is_empty() {
            return Ok(());
        }
        let deadline = Deadline::new(timeout.for_write())?;
        let socket = &self.socket.socket;
        let mut written = 0;
        while written < self.held.len() {
            deadline.fit(socket, &mut self.write_timeout, Socket::set_write_timeout)?;
            match send(socket, &self.held[written..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero).into()),
                Ok(sent) => written += sent,
                Err(error) => deadline.retry_or_fail(error)?,
            }
        }
        self.held.clear();
        Ok(())
    }
}

/// When a read or write must be over, and why.
struct Deadline {
    at: Option<Instant>,
    reason: ureq::Timeout,
}

impl Deadline {
    fn new(timeout: NextTimeout) -> Result<Deadline, ureq::Error> {
        if timeout.after.is_zero() {
            return Err(ureq::Error::Timeout(timeout.reason));
        }
        let at = (!timeout.after.is_not_happening()).then(|| Instant::now() + *timeout.after);
        Ok(Deadline {
            at,
            reason: timeout.reason,
        })
    }

    /// Sets the socket's timeout so that a blocked call ends by the deadline:
    /// one between half the time left and all of it is kept (a call it ends
    /// early is retried), else it becomes nine tenths of the time left.
    fn fit(
        &self,
        socket: &Socket,
        current: &mut Option<Duration>,
        set: fn(&Socket, Option<Duration>) -> io::Result<()>,
    ) -> Result<(), ureq::Error> {
        let wanted = match self.at {
            None => None,
            Some(at) => {
                let left = at.saturating_duration_since(Instant::now());
                if left < Duration::from_micros(1) {
                    return Err(ureq::Error::Timeout(self.reason));
                }
                if current.is_some_and(|current| current <= left && current >= left / 2) {
                    return Ok(());
                }
                Some(whole_millis(if left > Duration::from_millis(10) {
                    left / 10 * 9
                } else {
                    left
                }))
            }
        };
        if wanted != *current {
            set(socket, wanted)?;
            *current = wanted;
        }
        Ok(())
    }

    /// After a failed call: Ok to try again when the socket's timeout ended
    /// it before the deadline (or a signal interrupted it), else the error.
    fn retry_or_fail(&self, error: io::Error) -> Result<(), ureq::Error> {
        match error.kind() {
            io::ErrorKind::Interrupted => Ok(()),
            // A socket timeout, as Unix (WouldBlock) or Windows spells it.
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => match self.at {
                Some(at) if Instant::now() < at => Ok(()),
                _ => Err(ureq::Error::Timeout(self.reason)),
            },
            _ => Err(error.into()),
        }
    }
}

impl Transport for Interruptible {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        cancel::hold(&self.target)?;
        stack::request_written();
        self.held
            .extend_from_slice(&self.buffers.output()[..amount]);
        if self.held.len() >= HOLD_BYTES {
            self.flush(timeout)?;
        }
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        cancel::hold(&self.target)?;
        self.flush(timeout)?;
        if stack::before_wait() {
            // A background worker waits holding nothing of what it wrote.
            self.held = Vec::new();
            self.buffers.release_output();
        }
        let patience = PATIENCE.get().map(Into::into);
        let deadline = Deadline::new(
            NextTimeout {
                per_read: patience,
                ..timeout
            }
            .for_read(),
        )?;
        let socket = &self.socket.socket;
        let read = loop {
            deadline.fit(socket, &mut self.read_timeout, Socket::set_read_timeout)?;
            let mut reader = socket;
            match reader.read(self.buffers.input_append_buf()) {
                Ok(read) => break read,
                Err(error) => deadline.retry_or_fail(error)?,
            }
        };
        self.buffers.input_appended(read);
        // A read of nothing is the server's end: the next check must ask.
        self.just_read = read > 0;
        Ok(read > 0)
    }

    /// A pooled connection is fit for another request when nothing can be
    /// read from it. ureq asks when the connection goes back to the pool
    /// and when a request takes it out: only the second asks the socket,
    /// and claims it first for the request that takes it, whose thread
    /// asks, so that a late cancel of the request before spares it.
    fn is_open(&mut self) -> bool {
        if !self.held.is_empty() {
            return false;
        }
        if std::mem::take(&mut self.just_read) {
            return true;
        }
        cancel::claim(&*self.target);
        is_idle(&self.socket.socket)
    }
}

/// A socket timeout rounded up to whole milliseconds, as std rounds one:
/// Windows keeps it in milliseconds, and socket2 truncates, so under 1 ms
/// would become 0, which means no timeout at all.
fn whole_millis(timeout: Duration) -> Duration {
    let millis = timeout.as_nanos().div_ceil(1_000_000);
    Duration::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

/// Sends without raising SIGPIPE, which would kill a C host (macOS: the
/// socket is made without it; Windows has none).
fn send(socket: &Socket, bytes: &[u8]) -> io::Result<usize> {
    #[cfg(not(any(windows, target_vendor = "apple")))]
    const FLAGS: std::ffi::c_int = libc::MSG_NOSIGNAL;
    #[cfg(any(windows, target_vendor = "apple"))]
    const FLAGS: std::ffi::c_int = 0;
    socket.send_with_flags(bytes, FLAGS)
}

/// True when a read would block: one peek that does not wait.
fn is_idle(socket: &Socket) -> bool {
    let mut probe = [std::mem::MaybeUninit::<u8>::uninit()];
    #[cfg(unix)]
    let peek = socket.recv_with_flags(&mut probe, libc::MSG_PEEK | libc::MSG_DONTWAIT);
    #[cfg(not(unix))]
    let peek = (socket.set_nonblocking(true)).and_then(|()| socket.peek(&mut probe));
    let idle = matches!(peek, Err(error) if error.kind() == io::ErrorKind::WouldBlock);
    #[cfg(not(unix))]
    let idle = idle && socket.set_nonblocking(false).is_ok();
    idle
}

impl fmt::Debug for Interruptible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interruptible").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::cancel::CancelToken;
    use std::net::TcpListener;

    /// A connected socket as the transport holds it, and the server's end.
    fn connected() -> (Arc<SharedSocket>, std::net::TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let socket = connect_one(addr, Some(Duration::from_secs(5))).unwrap();
        let (server, _) = listener.accept().unwrap();
        (socket, server)
    }

    /// Whether the socket still carries bytes to the server.
    fn still_works(socket: &SharedSocket, server: &mut std::net::TcpStream) -> bool {
        if send(&socket.socket, b"x").is_err() {
            return false;
        }
        server
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut byte = [0u8];
        matches!(server.read(&mut byte), Ok(1))
    }

    #[test]
    fn a_cancel_spares_a_socket_of_another_process() {
        let (mut socket, mut server) = connected();
        // As a forked child sees a socket its parent opened.
        Arc::get_mut(&mut socket).unwrap().pid = std::process::id().wrapping_add(1);
        socket.interrupt();
        socket.interrupt_for(0);
        assert!(still_works(&socket, &mut server));
        Arc::get_mut(&mut socket).unwrap().pid = std::process::id();
        socket.interrupt();
        assert!(!still_works(&socket, &mut server));
    }

    #[test]
    fn patience_is_restored_when_the_work_panics() {
        let outer = with_patience(Duration::from_secs(7), || {
            let unwound = std::panic::catch_unwind(|| {
                with_patience(Duration::from_millis(5), || panic!("a panic inside a read"))
            });
            assert!(unwound.is_err());
            PATIENCE.get()
        });
        assert_eq!(outer, Some(Duration::from_secs(7)));
        assert_eq!(PATIENCE.get(), None);
    }

    #[test]
    fn a_late_cancel_spares_a_connection_another_request_took_from_the_pool() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addrs = [listener.local_addr().unwrap()];
        let config = ureq::Agent::config_builder().build();
        let mut transport = open(&addrs, &config, NextTimeout::default()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        let token = CancelToken::new();
        {
            let _entered = token.enter();
            // The request's last read held the socket for its token.
            cancel::hold(&transport.target).unwrap();
            // The connection went back to the pool, and a plain send on
            // another thread took it out (ureq asks the transport whether it
            // is open), before this thread stopped working for the token.
            transport = std::thread::spawn(move || {
                assert!(transport.is_open());
                transport
            })
            .join()
            .unwrap();
            token.cancel();
        }
        assert!(still_works(&transport.socket, &mut server));
    }

    #[test]
    fn socket_timeouts_round_up_to_whole_milliseconds() {
        // Windows would take a truncated 0 ms as no timeout at all.
        assert_eq!(
            whole_millis(Duration::from_micros(1)),
            Duration::from_millis(1)
        );
        assert_eq!(
            whole_millis(Duration::from_micros(999)),
            Duration::from_millis(1)
        );
        assert_eq!(
            whole_millis(Duration::from_millis(7)),
            Duration::from_millis(7)
        );
        assert_eq!(
            whole_millis(Duration::from_nanos(7_000_001)),
            Duration::from_millis(8)
        );
        assert_eq!(whole_millis(Duration::MAX), Duration::from_millis(u64::MAX));
    }

    #[test]
    fn a_late_cancel_spares_the_request_that_took_the_connection() {
        for taken_by_another in [false, true] {
            let (socket, mut server) = connected();
            let target: Arc<dyn Interrupt> = socket.clone();
            let token = CancelToken::new();
            {
                let _entered = token.enter();
                cancel::hold(&target).unwrap();
                if taken_by_another {
                    // The connection went back to the pool and a plain send
                    // on another thread took it, before this thread stopped
                    // working for the token.
                    let taken = target.clone();
                    std::thread::spawn(move || cancel::hold(&taken).unwrap())
                        .join()
                        .unwrap();
                }
                token.cancel();
            }
            assert_eq!(still_works(&socket, &mut server), taken_by_another);
        }
    }
}
