//! A TLS step of our own in ureq's connector chain, made as ureq's rustls
//! step makes it (rustls' defaults, the agent's roots and client
//! certificate) but with buffers that grow (`http::buffers`). What ureq's
//! step lacks: it takes its whole input buffer, the header limit and more
//! (80 KiB), for every connection, most of what a thousand HTTPS requests
//! in flight hold; and a worker waits holding neither of this layer's
//! buffers (rustls and the TCP step below hold what a wait needs).

use std::fmt;
use std::io::{BufRead, Write};
use std::sync::{Arc, OnceLock};

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, StreamOwned};
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, NextTimeout, Transport, TransportAdapter,
};

use crate::http::buffers::GrowingBuffers;
use crate::http::{connect, stack, tls};

/// Speaks TLS over the chained connection of an `https://` request.
#[derive(Default)]
pub(crate) struct TlsConnect {
    /// The agent's rustls settings, made at its first TLS connection.
    config: OnceLock<Arc<ClientConfig>>,
}

/// Names the step alone: ureq asks every connector for `Debug`, and
/// rustls' settings written out would bring every rustls type's `Debug`
/// into the library (about 15 KB) for text no one reads.
impl fmt::Debug for TlsConnect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConnect").finish_non_exhaustive()
    }
}

impl<In: Transport> Connector<In> for TlsConnect {
    type Out = Either<In, TlsTransport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let Some(transport) = chained else {
            return Err(ureq::Error::Tls("no connection to speak TLS over"));
        };
        if !details.needs_tls() || transport.is_tls() {
            return Ok(Some(Either::A(transport)));
        }
        Ok(Some(Either::B(self.handshake(details, transport.boxed())?)))
    }
}

impl TlsConnect {
    /// A TLS connection over `transport`, its handshake done. Out of line,
    /// and the connection boxed: ureq's chain inlines every step into one
    /// frame, which rustls' connection state (kilobytes) would otherwise
    /// enlarge for every request, `http://` ones too, while it connects.
    #[inline(never)]
    fn handshake(
        &self,
        details: &ConnectionDetails,
        transport: Box<dyn Transport>,
    ) -> Result<TlsTransport, ureq::Error> {
        let connection = ClientConnection::new(self.config(details)?, server_name(details)?)?;
        let mut socket = TransportAdapter::new(transport, details.current_time.clone());
        socket.set_timeout(connect::connect_time_left(details));
        let mut stream = Box::new(StreamOwned::new(connection, socket));
        stream.conn.complete_io(&mut stream.sock)?;
        let config = details.config;
        Ok(TlsTransport {
            buffers: GrowingBuffers::new(config.input_buffer_size(), config.output_buffer_size()),
            stream,
        })
    }

    fn config(&self, details: &ConnectionDetails) -> Result<Arc<ClientConfig>, ureq::Error> {
        if let Some(config) = self.config.get() {
            return Ok(config.clone());
        }
        // Two first connections at once may both make it: one is kept.
        let made = tls::client_config(details.config.tls_config())?;
        Ok(self.config.get_or_init(|| made).clone())
    }
}

/// The name the server's certificate must have: the URL's host, an IPv6
/// address without its brackets.
fn server_name(details: &ConnectionDetails) -> Result<ServerName<'static>, ureq::Error> {
    let host = details.uri.host().unwrap_or_default();
    let bare = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host);
    ServerName::try_from(bare)
        .map(|name| name.to_owned())
        .map_err(|_| ureq::Error::Tls("the host is not a name TLS can check"))
}

/// A TLS connection over a chained transport, its plain text in buffers
/// that grow.
pub(crate) struct TlsTransport {
    buffers: GrowingBuffers,
    /// Boxed: the transport moves through ureq's frames by value.
    stream: Box<StreamOwned<ClientConnection, TransportAdapter>>,
}

impl Transport for TlsTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.stream.sock.set_timeout(timeout);
        self.stream.write_all(&self.buffers.output()[..amount])?;
        Ok(())
    }

    /// Waits for plain text before it takes room for it, so that a
    /// background worker waits holding no buffer of this layer.
    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.stream.sock.set_timeout(timeout);
        if stack::on_worker() {
            self.buffers.release_idle();
        }
        let plain = self.stream.fill_buf()?;
        let room = self.buffers.input_append_buf();
        let read = plain.len().min(room.len());
        room[..read].copy_from_slice(&plain[..read]);
        self.stream.consume(read);
        self.buffers.input_appended(read);
        Ok(read > 0)
    }

    fn is_open(&mut self) -> bool {
        self.stream.sock.get_mut().is_open()
    }

    fn is_tls(&self) -> bool {
        true
    }
}

impl fmt::Debug for TlsTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsTransport").finish_non_exhaustive()
    }
}
