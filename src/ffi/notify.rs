//! The system calls behind a waitable request: an eventfd on Linux, a pipe
//! elsewhere on POSIX, an event object on Windows. The core decides when
//! the signal goes up and down ([`Signal`]); this file only does it.

use std::io;
use std::sync::Arc;

use crate::client::Signal;
use crate::error::{Error, Result};

/// A new signal for one request, as an `Arc` the core keeps.
pub(crate) fn new_signal() -> Result<Arc<dyn Signal>> {
    let notifier = Notifier::new().map_err(|source| Error::System {
        message: format!("could not make the request's {}: {source}", Notifier::WHAT),
        source,
    })?;
    Ok(Arc::new(notifier))
}

/// An eventfd on Linux (`read` and `write` the same descriptor), readable
/// while its count is not zero; a pipe elsewhere, readable while it holds bytes.
#[cfg(unix)]
struct Notifier {
    read: libc::c_int,
    write: libc::c_int,
}

#[cfg(any(target_os = "linux", target_os = "android"))]
impl Notifier {
    const WHAT: &str = "eventfd";

    fn new() -> io::Result<Notifier> {
        // SAFETY: eventfd takes no pointers.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let (read, write) = (fd, fd);
        Ok(Notifier { read, write })
    }
}

#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
impl Notifier {
    const WHAT: &str = "pipe";

    fn new() -> io::Result<Notifier> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe writes two descriptors into the array.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // Owned from here on, so closed on every way out.
        let notifier = Notifier {
            read: fds[0],
            write: fds[1],
        };
        for fd in fds {
            // pipe2 is not everywhere (macOS); the flags are set one by one.
            // SAFETY: fcntl on descriptors this value owns.
            let ok = unsafe {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) == 0
                    && libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK) == 0
            };
            if !ok {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(notifier)
    }
}

#[cfg(unix)]
impl Signal for Notifier {
    fn raise(&self) {
        // The 8 bytes an eventfd adds to its count. A failed write leaves
        // nothing to do: it only fails when the signal is up already (EAGAIN).
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64.
        retry(|| unsafe { libc::write(self.write, (&raw const one).cast(), 8) });
    }

    fn lower(&self) {
        // An eventfd gives its whole count to one read; a pipe is read until
        // empty. EAGAIN ends the loop.
        let mut bytes = [0u8; 64];
        // SAFETY: reads into a live buffer of its own length.
        while retry(|| unsafe { libc::read(self.read, bytes.as_mut_ptr().cast(), bytes.len()) }) > 0
        {
        }
    }

    fn waitable(&self) -> isize {
        self.read as isize
    }
}

#[cfg(unix)]
impl Drop for Notifier {
    fn drop(&mut self) {
        // SAFETY: the descriptors are this value's own, each closed once.
        unsafe {
            libc::close(self.read);
            if self.write != self.read {
                libc::close(self.write);
            }
        }
    }
}

/// Runs a read or a write again while a signal interrupts it.
#[cfg(unix)]
fn retry(mut call: impl FnMut() -> libc::ssize_t) -> libc::ssize_t {
    loop {
        let done = call();
        if done >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return done;
        }
    }
}

/// A manual-reset event object: signalled from `SetEvent` to `ResetEvent`.
#[cfg(windows)]
struct Notifier {
    event: windows::Handle,
}

#[cfg(windows)]
mod windows {
    //! The four kernel32 functions a request's event needs, declared here
    //! rather than pulled in with a crate of bindings.
    use std::ffi::c_void;

    pub(super) type Handle = *mut c_void;

    #[link(name = "kernel32")]
    extern "system" {
        pub(super) fn CreateEventW(
            attributes: *const c_void,
            manual_reset: i32,
            initial_state: i32,
            name: *const u16,
        ) -> Handle;
        pub(super) fn SetEvent(event: Handle) -> i32;
        pub(super) fn ResetEvent(event: Handle) -> i32;
        pub(super) fn CloseHandle(handle: Handle) -> i32;
    }
}

// SAFETY: an event handle may be used from any thread.
#[cfg(windows)]
unsafe impl Send for Notifier {}
// SAFETY: as above; SetEvent and ResetEvent are thread-safe.
#[cfg(windows)]
unsafe impl Sync for Notifier {}

#[cfg(windows)]
impl Notifier {
    const WHAT: &str = "event";

    fn new() -> io::Result<Notifier> {
        // SAFETY: no attributes and no name: an anonymous, manual-reset
        // event, not signalled at first.
        let event = unsafe { windows::CreateEventW(std::ptr::null(), 1, 0, std::ptr::null()) };
        if event.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(Notifier { event })
    }
}

#[cfg(windows)]
impl Signal for Notifier {
    fn raise(&self) {
        // SAFETY: the handle is this value's own and open.
        unsafe { windows::SetEvent(self.event) };
    }

    fn lower(&self) {
        // SAFETY: as above.
        unsafe { windows::ResetEvent(self.event) };
    }

    fn waitable(&self) -> isize {
        self.event as isize
    }
}

#[cfg(windows)]
impl Drop for Notifier {
    fn drop(&mut self) {
        // SAFETY: the handle is this value's own, closed once.
        unsafe { windows::CloseHandle(self.event) };
    }
}
