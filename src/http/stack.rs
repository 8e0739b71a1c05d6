//! A background worker's stack, given back down to where the worker waits.
//!
//! A background request's thread spends nearly all its life blocked on a
//! read, and waiting goes less deep into the stack than connecting and
//! writing do (ureq's connector chain alone takes about 9 KiB of stack
//! while it runs). A page of stack a thread has touched stays in memory
//! until the thread ends, so with a thousand requests in flight those
//! excursions would hold about 10 MiB for nothing. Once a worker has
//! written a request, the first wait gives the pages below its current
//! frame back to the system, as glibc does with the stack of a thread that
//! has ended; a later call that goes that deep again gets fresh zeroed
//! pages. Only chatwire's own worker threads do this (on Linux; elsewhere
//! the stack is left as it is): a caller's thread is never touched. The
//! same moment tells the connection to let go of its request's bytes.

use std::cell::Cell;

/// This thread's part, when it is a worker.
#[derive(Clone, Copy)]
struct Worker {
    /// The lowest address of the stack (its guard page excluded), where
    /// it is known.
    low: Option<usize>,
    /// A request was written since the last wait began.
    due: bool,
}

thread_local! {
    static WORKER: Cell<Option<Worker>> = const { Cell::new(None) };
}

/// Marks the calling thread as a background worker.
pub(crate) fn worker_started() {
    WORKER.set(Some(Worker {
        low: platform::stack_low(),
        due: false,
    }));
}

/// A request went out: the next wait is the one to prepare for.
pub(crate) fn request_written() {
    if let Some(worker) = WORKER.get() {
        WORKER.set(Some(Worker {
            due: true,
            ..worker
        }));
    }
}

/// Before a read blocks: on a worker's first wait after a request was
/// written, gives back the stack below this frame, and says so: the moment
/// for the caller to let go of what waiting does not need either.
pub(crate) fn before_wait() -> bool {
    let Some(worker) = WORKER.get() else {
        return false;
    };
    if !worker.due {
        return false;
    }
    WORKER.set(Some(Worker {
        due: false,
        ..worker
    }));
    if let Some(low) = worker.low {
        platform::trim_below_here(low);
    }
    true
}

/// One of the crate's few `unsafe` blocks outside `ffi/` (ARCHITECTURE.md
/// lists them): std offers neither the stack's bounds nor `madvise`.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod platform {
    /// The lowest address of the calling thread's stack.
    pub(super) fn stack_low() -> Option<usize> {
        // SAFETY: an all-zero pthread_attr_t is only storage; the calls
        // fill it, read it and destroy it, on the calling thread's own
        // handle. (Only workers call this: for a thread other than the
        // main one, glibc and musl read the stack from the thread's
        // descriptor; the main thread's would take a read of /proc.)
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
                return None;
            }
            let mut addr: *mut libc::c_void = std::ptr::null_mut();
            let mut size: libc::size_t = 0;
            let got = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
            libc::pthread_attr_destroy(&mut attr);
            (got == 0 && !addr.is_null()).then_some(addr as usize)
        }
    }

    /// Below this function's local variable, room for the rest of its
    /// frame and for the system call's wrapper (a return address and a few
    /// registers): nothing in use lies lower.
    const MARGIN: usize = 1024;

    /// Gives back the whole pages of the stack from `low` up to
    /// [`MARGIN`] below this frame.
    #[inline(never)]
    pub(super) fn trim_below_here(low: usize) {
        let here = 0u8;
        let here = std::hint::black_box(std::ptr::addr_of!(here)) as usize;
        let end = here.saturating_sub(MARGIN) & !(page_size() - 1);
        if end <= low {
            return;
        }
        // SAFETY: [low, end) is the unused part of this thread's own stack,
        // below every live frame; MADV_DONTNEED on private memory only
        // makes its pages read as zero when next touched. A failure (none
        // is expected) leaves the pages where they were.
        unsafe {
            libc::madvise(low as *mut libc::c_void, end - low, libc::MADV_DONTNEED);
        }
    }

    pub(super) fn page_size() -> usize {
        // SAFETY: sysconf has no preconditions.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(size)
            .ok()
            .filter(|size| size.is_power_of_two())
            .unwrap_or(4096)
    }
}

/// Elsewhere a worker's stack is left as it is.
#[cfg(not(target_os = "linux"))]
mod platform {
    pub(super) fn stack_low() -> Option<usize> {
        None
    }

    pub(super) fn trim_below_here(_low: usize) {}
}

#[cfg(all(test, target_os = "linux"))]
#[allow(unsafe_code)]
mod tests {
    use super::platform::page_size;
    use super::*;

    /// How many pages of the stack below the caller's frame (with a
    /// page of margin) are in memory.
    #[inline(never)]
    fn resident_below_here(low: usize) -> usize {
        let here = 0u8;
        let page = page_size();
        let end = (std::ptr::addr_of!(here) as usize & !(page - 1)) - 2 * page;
        let pages = (end - low) / page;
        let mut states = vec![0u8; pages];
        // SAFETY: a page-aligned range of this thread's stack mapping
        // and a vector with a byte per page.
        let got =
            unsafe { libc::mincore(low as *mut libc::c_void, pages * page, states.as_mut_ptr()) };
        assert_eq!(got, 0);
        states.iter().filter(|state| *state & 1 == 1).count()
    }

    /// Touches `depth` bytes of stack below the caller.
    #[inline(never)]
    fn go_deep(depth: usize) -> u8 {
        let mut block = [0u8; 16 * 1024];
        std::hint::black_box(&mut block);
        if depth > block.len() {
            go_deep(depth - block.len()).wrapping_add(block[7])
        } else {
            block[7]
        }
    }

    fn in_a_worker_thread(work: impl FnOnce(usize) + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(512 * 1024)
            .spawn(move || {
                worker_started();
                let low = WORKER.get().and_then(|worker| worker.low);
                let low = low.expect("a worker knows its stack");
                work(low);
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn a_wait_after_a_request_gives_back_what_went_deeper() {
        in_a_worker_thread(|low| {
            go_deep(128 * 1024);
            let before = resident_below_here(low);
            assert!(before * page_size() >= 64 * 1024, "{before} pages touched");
            request_written();
            assert!(before_wait());
            let after = resident_below_here(low);
            assert_eq!(after, 0, "{after} of {before} pages still in memory");
            // The thread goes on working with its stack as before.
            assert_eq!(go_deep(128 * 1024), 0);
        });
    }

    #[test]
    fn only_the_first_wait_after_a_request_trims() {
        in_a_worker_thread(|low| {
            request_written();
            before_wait();
            go_deep(128 * 1024);
            let touched = resident_below_here(low);
            assert!(touched > 0);
            assert!(!before_wait());
            assert_eq!(resident_below_here(low), touched);
        });
    }

    #[test]
    fn a_thread_that_is_no_worker_is_left_alone() {
        std::thread::spawn(|| {
            request_written();
            assert!(!before_wait());
            assert!(WORKER.get().is_none());
        })
        .join()
        .unwrap();
    }
}
