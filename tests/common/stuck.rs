//! A loopback address where a connection is never accepted: a listener with
//! the smallest backlog, filled by connections nobody accepts, so the
//! kernel drops further handshakes and a client waits in connect().

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::FromRawFd;
use std::time::Duration;

/// Keeps the listener and the connections that fill its queue open.
pub struct StuckListener {
    pub url: String,
    address: SocketAddr,
    _listener: TcpListener,
    _fillers: Vec<TcpStream>,
}

impl StuckListener {
    /// The port where connections get stuck.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    pub fn start() -> StuckListener {
        // std's TcpListener listens with a backlog of 128; this one needs 0.
        // SAFETY: plain socket calls on a descriptor this function owns.
        let listener = unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0, "socket");
            let mut addr: libc::sockaddr_in = std::mem::zeroed();
            addr.sin_family = libc::AF_INET as libc::sa_family_t;
            addr.sin_addr.s_addr = u32::from_be_bytes([127, 0, 0, 1]).to_be();
            let bound = libc::bind(
                fd,
                (&addr as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            );
            assert_eq!(bound, 0, "bind");
            assert_eq!(libc::listen(fd, 0), 0, "listen");
            TcpListener::from_raw_fd(fd)
        };
        let address: SocketAddr = listener.local_addr().unwrap();
        // Fill the accept queue until a connect no longer completes.
        let mut fillers = Vec::new();
        while let Ok(stream) = TcpStream::connect_timeout(&address, Duration::from_millis(200)) {
            fillers.push(stream);
            assert!(fillers.len() < 64, "the backlog never filled");
        }
        StuckListener {
            url: format!("http://{address}"),
            address,
            _listener: listener,
            _fillers: fillers,
        }
    }
}
