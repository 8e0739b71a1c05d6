//! The operating-system calls that neither std nor a dependency offers, as
//! safe functions that do nothing where a platform lacks the call.
#![allow(unsafe_code)]

/// Cancels every read and write pending on `socket`, in any thread: on
/// Windows a shutdown does not end a `recv` that is blocked already.
pub(crate) fn cancel_pending_io(socket: &socket2::Socket) {
    #[cfg(windows)]
    {
        use std::os::windows::io::AsRawSocket;
        #[link(name = "kernel32")]
        extern "system" {
            fn CancelIoEx(file: isize, overlapped: *mut std::ffi::c_void) -> i32;
        }
        // Failure means nothing was pending.
        // SAFETY: a socket is a kernel handle that CancelIoEx accepts; it is
        // open for as long as the borrow lasts, and a null OVERLAPPED asks
        // for all of its I/O.
        unsafe {
            CancelIoEx(socket.as_raw_socket() as isize, std::ptr::null_mut());
        }
    }
    #[cfg(not(windows))]
    let _ = socket;
}

/// The lowest address of the calling thread's stack, where it is known (Linux).
pub(crate) fn stack_low() -> Option<usize> {
    #[cfg(target_os = "linux")]
    // SAFETY: an all-zero pthread_attr_t is only storage; the calls fill
    // it, read it and destroy it, on the calling thread's own handle.
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
    #[cfg(not(target_os = "linux"))]
    None
}

/// The bytes glibc takes from a new thread's stack for itself (static TLS
/// and a guard page), read once; zero where the C library does not say.
pub(crate) fn thread_stack_reserve() -> usize {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static RESERVE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *RESERVE.get_or_init(|| {
            type MinStack = unsafe extern "C" fn(*const libc::pthread_attr_t) -> libc::size_t;
            // SAFETY: a look-up by a NUL-terminated name in the loaded
            // objects; a null answer is handled below.
            let symbol =
                unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__pthread_get_minstack".as_ptr()) };
            if symbol.is_null() {
                return 0;
            }
            // SAFETY: glibc defines __pthread_get_minstack with this
            // signature (nptl/nptl-stack.c) for as long as it has exported it.
            let minstack: MinStack =
                unsafe { std::mem::transmute::<*mut libc::c_void, MinStack>(symbol) };
            // SAFETY: an all-zero pthread_attr_t is only storage; it is
            // initialised, read by glibc and destroyed here.
            unsafe {
                let mut attr: libc::pthread_attr_t = std::mem::zeroed();
                if libc::pthread_attr_init(&mut attr) != 0 {
                    return 0;
                }
                let bytes = minstack(&attr);
                libc::pthread_attr_destroy(&mut attr);
                // Whole pages: a stack size off a page boundary moves the
                // thread's descriptor across one, a page more per thread.
                bytes.next_multiple_of(page_size())
            }
        })
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    0
}

/// Room below this function's local variable for the rest of its frame
/// and the system call's wrapper.
#[cfg(target_os = "linux")]
const FRAME_MARGIN: usize = 1024;

/// Gives back the whole pages of the calling thread's stack from `low`
/// ([`stack_low`]) up to a margin below this frame. Linux only.
#[inline(never)]
pub(crate) fn trim_stack_below_here(low: usize) {
    #[cfg(target_os = "linux")]
    {
        let here = 0u8;
        let here = std::hint::black_box(std::ptr::addr_of!(here)) as usize;
        let end = here.saturating_sub(FRAME_MARGIN) & !(page_size() - 1);
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
    #[cfg(not(target_os = "linux"))]
    let _ = low;
}

/// The size of a memory page (4096 where it cannot be read).
#[cfg(target_os = "linux")]
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size)
        .ok()
        .filter(|size| size.is_power_of_two())
        .unwrap_or(4096)
}

/// How many of the `pages` pages from the page-aligned `start` are in
/// memory: for the tests of what the stack trimming gives back.
#[cfg(test)]
#[cfg(target_os = "linux")]
pub(crate) fn resident_pages(start: usize, pages: usize) -> usize {
    let mut states = vec![0u8; pages];
    // SAFETY: a page-aligned range of mapped memory (the caller's own
    // stack) and a vector with a byte per page.
    let got = unsafe {
        libc::mincore(
            start as *mut libc::c_void,
            pages * page_size(),
            states.as_mut_ptr(),
        )
    };
    assert_eq!(got, 0);
    states.iter().filter(|state| *state & 1 == 1).count()
}
