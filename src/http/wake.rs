//! Waking a call blocked on a socket from another thread: the one place
//! where platforms differ in how a cancel reaches a connection.
//!
//! Shutting a socket down makes every later connect, read or write on it
//! fail at once, everywhere. On Linux and the BSDs it also ends a call that
//! is blocked already. On Windows it does not: a read waiting for a silent
//! server stays blocked. There the socket's pending I/O is cancelled as
//! well (`CancelIoEx`, which ends a blocking `recv` or `send` with
//! "operation aborted"), after the shutdown, so that a call starting
//! between the two still finds the socket shut. Closing the socket instead
//! would wake the call too, but its handle could then be reused by another
//! socket before the blocked thread lets go of it.

use std::net::Shutdown;

use socket2::Socket;

/// Ends any call blocked on `socket`, and every later one.
pub(crate) fn wake(socket: &Socket) {
    // An error means the socket is closed or shut down already.
    let _ = socket.shutdown(Shutdown::Both);
    crate::sys::cancel_pending_io(socket);
}
