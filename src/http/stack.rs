//! A background worker's stack, given back down to where the worker waits.
//!
//! A worker spends nearly all its life blocked on a read, which goes less
//! deep into the stack than connecting and writing (ureq's connector chain
//! alone takes about 9 KiB), and a touched page of stack stays in memory
//! until the thread ends: with a thousand requests in flight, about 10 MiB
//! for nothing. So a worker's first wait after it wrote a request gives the
//! pages below its frame back (on Linux). A caller's thread is untouched.

use std::cell::Cell;

use crate::sys;

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
    let low = sys::stack_low();
    WORKER.set(Some(Worker { low, due: false }));
}

/// True on a background worker's thread.
pub(crate) fn on_worker() -> bool {
    WORKER.get().is_some()
}

/// A request went out: the next wait is the one to prepare for.
pub(crate) fn request_written() {
    if let Some(Worker { low, .. }) = WORKER.get() {
        WORKER.set(Some(Worker { low, due: true }));
    }
}

/// Before a read blocks: on a worker's first wait after a request was
/// written, gives back the stack below this frame, and says so: the moment
/// for the caller to let go of what waiting does not need either.
pub(crate) fn before_wait() -> bool {
    let Some(Worker { low, due: true }) = WORKER.get() else {
        return false;
    };
    WORKER.set(Some(Worker { low, due: false }));
    if let Some(low) = low {
        sys::trim_stack_below_here(low);
    }
    true
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::sys::page_size;

    /// How many pages of the stack below the caller's frame (with a
    /// page of margin) are in memory.
    #[inline(never)]
    fn resident_below_here(low: usize) -> usize {
        let here = 0u8;
        let page = page_size();
        let end = (std::ptr::addr_of!(here) as usize & !(page - 1)) - 2 * page;
        sys::resident_pages(low, (end - low) / page)
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
