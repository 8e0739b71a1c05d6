//! Opening connections: ureq's connector chain with a TCP step of our own,
//! whose sockets a cancel can reach at every stage, the handshake included.
//!
//! ureq keeps the connections in its pool and reuses them across requests
//! and threads; which request a socket serves right now is known only while
//! that request does I/O on it, so every read and write first hands the
//! socket to the request's cancel token ([`cancel::hold`]).

use std::cell::Cell;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use ureq::unversioned::transport::{
    Buffers, ConnectProxyConnector, ConnectionDetails, Connector, Either, LazyBuffers, NextTimeout,
    RustlsConnector, Transport,
};

use crate::http::cancel::{self, Interrupt};

/// The connector chain: a CONNECT proxy when one is configured (the
/// connection to the proxy itself is made by this same chain), else a
/// direct TCP connection; then TLS for `https`. It is ureq's default chain
/// with [`TcpConnect`] in place of ureq's TCP step.
pub(crate) fn chain() -> impl Connector {
    ().chain(ConnectProxyConnector::default())
        .chain(TcpConnect)
        .chain(RustlsConnector::default())
}

thread_local! {
    /// The longest a read on this thread may wait, when set.
    static PATIENCE: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// Runs `work` with every read on the calling thread waiting no longer than
/// `patience` (besides the request's own timeouts): for reading what is
/// left of a body only if it is there already.
pub(crate) fn with_patience<T>(patience: Duration, work: impl FnOnce() -> T) -> T {
    let before = PATIENCE.replace(Some(patience));
    let result = work();
    PATIENCE.set(before);
    result
}

/// Each address of a host gets at least this much of the connect timeout.
const MIN_ATTEMPT: Duration = Duration::from_millis(10);

/// Opens TCP connections that a cancel token can interrupt; passes on a
/// connection an earlier step (a proxy) already made.
#[derive(Debug)]
pub(crate) struct TcpConnect;

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
        let socket = connect_any(&details.addrs, details.timeout)?;
        let config = details.config;
        if config.no_delay() {
            socket.0.set_tcp_nodelay(true)?;
        }
        let buffers = LazyBuffers::new(config.input_buffer_size(), config.output_buffer_size());
        Ok(Some(Either::B(Interruptible::new(socket, buffers))))
    }
}

/// Tries the addresses in turn, each but the last with half of the time
/// left, and moves on when one refuses, is unreachable or times out.
fn connect_any(
    addrs: &[SocketAddr],
    timeout: NextTimeout,
) -> Result<Arc<SharedSocket>, ureq::Error> {
    let deadline = (!timeout.after.is_not_happening()).then(|| Instant::now() + *timeout.after);
    let mut last = None;
    for (index, addr) in addrs.iter().enumerate() {
        let budget = match deadline {
            None => None,
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(ureq::Error::Timeout(timeout.reason));
                }
                let share = if index + 1 == addrs.len() {
                    left
                } else {
                    left / 2
                };
                Some(share.max(MIN_ATTEMPT))
            }
        };
        match connect_one(*addr, budget) {
            Ok(socket) => return Ok(socket),
            Err(error) if error.kind() == io::ErrorKind::TimedOut => {
                last = Some(ureq::Error::Timeout(ureq::Timeout::Connect));
            }
            Err(error) if tries_next_address(&error) => last = Some(error.into()),
            Err(error) => return Err(error.into()),
        }
    }
    match (last, deadline) {
        (Some(ureq::Error::Timeout(_)), Some(deadline)) if Instant::now() >= deadline => {
            Err(ureq::Error::Timeout(timeout.reason))
        }
        (Some(error), _) => Err(error),
        (None, _) => Err(ureq::Error::HostNotFound),
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

/// Connects one socket, handed to the cancel token before the handshake
/// starts, so that a cancel ends the wait for a server that never answers.
fn connect_one(addr: SocketAddr, budget: Option<Duration>) -> io::Result<Arc<SharedSocket>> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    let socket = Arc::new(SharedSocket(socket));
    let target: Arc<dyn Interrupt> = socket.clone();
    cancel::hold(&target)?;
    let addr = SockAddr::from(addr);
    match budget {
        Some(budget) => socket.0.connect_timeout(&addr, budget)?,
        None => socket.0.connect(&addr)?,
    }
    Ok(socket)
}

/// A connection's socket, shared by its transport and, while a request
/// uses it, that request's cancel token.
pub(crate) struct SharedSocket(Socket);

impl Interrupt for SharedSocket {
    /// Shuts the socket down: on Linux and the BSDs this wakes a blocked
    /// connect, read or write at once. A platform where it does not
    /// (Windows) adds its own waking here.
    fn interrupt(&self) {
        // An error means the socket is closed or shut down already.
        let _ = self.0.shutdown(Shutdown::Both);
    }
}

/// A TCP transport for ureq that hands its socket to the request's cancel
/// token before each read and write.
pub(crate) struct Interruptible {
    socket: Arc<SharedSocket>,
    /// The same socket, as the token holds it.
    target: Arc<dyn Interrupt>,
    buffers: LazyBuffers,
    /// The socket's timeouts as last set, to skip setting them again.
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
}

impl Interruptible {
    fn new(socket: Arc<SharedSocket>, buffers: LazyBuffers) -> Interruptible {
        Interruptible {
            target: socket.clone(),
            socket,
            buffers,
            read_timeout: None,
            write_timeout: None,
        }
    }
}

/// The time left for one read or write, or the timeout that ran out.
fn time_left(timeout: NextTimeout) -> Result<Option<Duration>, ureq::Error> {
    if timeout.after.is_not_happening() {
        return Ok(None);
    }
    if timeout.after.is_zero() {
        return Err(ureq::Error::Timeout(timeout.reason));
    }
    Ok(Some(*timeout.after))
}

/// Sets a socket timeout unless it is set to that already.
fn set_timeout(
    socket: &Socket,
    wanted: Option<Duration>,
    current: &mut Option<Duration>,
    set: fn(&Socket, Option<Duration>) -> io::Result<()>,
) -> io::Result<()> {
    if wanted != *current {
        set(socket, wanted)?;
        *current = wanted;
    }
    Ok(())
}

/// A socket timeout (or its Windows and macOS spelling) as ureq's error.
fn io_failure(error: io::Error, timeout: NextTimeout) -> ureq::Error {
    match error.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => ureq::Error::Timeout(timeout.reason),
        _ => error.into(),
    }
}

impl Transport for Interruptible {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        cancel::hold(&self.target)?;
        let timeout = timeout.for_write();
        let socket = &self.socket.0;
        let left = time_left(timeout)?;
        set_timeout(
            socket,
            left,
            &mut self.write_timeout,
            Socket::set_write_timeout,
        )?;
        let mut writer = socket;
        writer
            .write_all(&self.buffers.output()[..amount])
            .map_err(|error| io_failure(error, timeout))
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        cancel::hold(&self.target)?;
        let timeout = timeout.for_read();
        let socket = &self.socket.0;
        let left = match (time_left(timeout)?, PATIENCE.get()) {
            (Some(left), Some(patience)) => Some(left.min(patience)),
            (left, patience) => left.or(patience),
        };
        set_timeout(
            socket,
            left,
            &mut self.read_timeout,
            Socket::set_read_timeout,
        )?;
        let mut reader = socket;
        let input = self.buffers.input_append_buf();
        let read = loop {
            match reader.read(input) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let read = read.map_err(|error| io_failure(error, timeout))?;
        self.buffers.input_appended(read);
        Ok(read > 0)
    }

    /// A pooled connection is fit for another request when reading from it
    /// would block: the server has neither closed it nor sent anything
    /// unasked.
    fn is_open(&mut self) -> bool {
        let socket = &self.socket.0;
        if socket.set_nonblocking(true).is_err() {
            return false;
        }
        let mut probe = [0u8; 1];
        let mut reader = socket;
        let idle = matches!(reader.read(&mut probe), Err(error) if error.kind() == io::ErrorKind::WouldBlock);
        idle && socket.set_nonblocking(false).is_ok()
    }
}

impl fmt::Debug for Interruptible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let peer = self
            .socket
            .0
            .peer_addr()
            .ok()
            .and_then(|addr| addr.as_socket());
        f.debug_struct("Interruptible")
            .field("peer", &peer)
            .finish()
    }
}
