//! What the kernel knows of this machine's TCP sockets (Linux's
//! /proc/net/tcp and tcp6), for tests that must wait until something has
//! reached a socket the client holds in its pool: bytes a server sent, its
//! close, a handshake under way. The test waits for that event, not for a
//! pause it hopes is long enough.

/// A socket's state, as /proc/net/tcp numbers it.
pub const ESTABLISHED: u8 = 0x01;
pub const SYN_SENT: u8 = 0x02;
/// The peer has closed its side; this side has not closed yet.
pub const CLOSE_WAIT: u8 = 0x08;

/// One line of /proc/net/tcp{,6}.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpSocket {
    pub local_port: u16,
    pub remote_port: u16,
    pub state: u8,
    /// Bytes received and not yet read.
    pub unread: u64,
    /// Tells sockets apart across polls.
    pub inode: u64,
}

/// Every TCP socket of the network namespace.
pub fn tcp_sockets() -> Vec<TcpSocket> {
    let mut sockets = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 10 {
                continue;
            }
            let port = |address: &str| {
                let (_, port) = address.rsplit_once(':').unwrap();
                u16::from_str_radix(port, 16).unwrap()
            };
            let (_, unread) = fields[4].split_once(':').unwrap();
            sockets.push(TcpSocket {
                local_port: port(fields[1]),
                remote_port: port(fields[2]),
                state: u8::from_str_radix(fields[3], 16).unwrap(),
                unread: u64::from_str_radix(unread, 16).unwrap(),
                inode: fields[9].parse().unwrap(),
            });
        }
    }
    sockets
}

/// The sockets connected, or connecting, to `port` (the clients' ends).
pub fn to_port(port: u16) -> Vec<TcpSocket> {
    tcp_sockets()
        .into_iter()
        .filter(|socket| socket.remote_port == port)
        .collect()
}

/// Waits until no open connection to `port` could be reused without the
/// client seeing why not: each has bytes waiting or its peer's close
/// (`CLOSE_WAIT`), none is idle and open.
pub fn wait_until_no_idle_connection_to(port: u16) {
    super::wait_until(
        &format!("the server's bytes or close on each connection to port {port}"),
        || {
            to_port(port)
                .iter()
                .all(|socket| socket.state != ESTABLISHED || socket.unread > 0)
        },
    );
}
