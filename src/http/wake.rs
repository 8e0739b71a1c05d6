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
    #[cfg(windows)]
    cancel_pending_io(socket);
}

/// Cancels every read and write pending on `socket`, in any thread.
///
/// The crate's only `unsafe` outside `ffi/` on Windows (ARCHITECTURE.md
/// lists those of Unix): one system call that neither std nor socket2
/// offers.
#[cfg(windows)]
#[allow(unsafe_code)]
fn cancel_pending_io(socket: &Socket) {
    use std::os::windows::io::AsRawSocket;

    #[link(name = "kernel32")]
    extern "system" {
        fn CancelIoEx(file: isize, overlapped: *mut std::ffi::c_void) -> i32;
    }
    // A socket is a kernel handle that CancelIoEx accepts; the socket is
    // open for as long as the borrow lasts, and a null OVERLAPPED asks for
    // all of its I/O. Failure means nothing was pending: the shutdown
    // already ends whatever comes next.
    // SAFETY: a live handle and a null pointer, as the function allows.
    unsafe {
        CancelIoEx(socket.as_raw_socket() as isize, std::ptr::null_mut());
    }
}
