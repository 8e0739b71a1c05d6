//! Which process this is, as far as pooled connections care: a number that
//! grows by one in the child of every `fork()`.
//!
//! A connection pool copied into a forked child holds the same sockets as
//! the parent's: if both went on using them, each would read answers meant
//! for the other. So every pool remembers the generation it was built in
//! ([`generation`]) and a process of a later generation builds a pool of
//! its own (`http::pool`). The number is bumped by a handler that
//! `pthread_atfork` runs in the child, so reading it costs one atomic load
//! and no system call (`getpid` is one: glibc stopped caching it).
//!
//! Windows has no `fork`: the generation stays 0 there.

use std::sync::atomic::{AtomicU64, Ordering};

/// The number of forks between the process that first watched and this one.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// The generation of the calling process. Call [`watch`] once before the
/// first value that must be told apart across a fork is made.
pub(crate) fn generation() -> u64 {
    // Relaxed: the child's handler runs on the only thread the child has,
    // before fork() returns, and threads started later see its write.
    GENERATION.load(Ordering::Relaxed)
}

/// Registers the fork handler, once per process (forked children inherit
/// it). Cheap after the first call.
pub(crate) fn watch() {
    #[cfg(unix)]
    {
        static WATCHING: std::sync::Once = std::sync::Once::new();
        WATCHING.call_once(register);
    }
}

/// Runs in the child of every fork, before fork() returns there. Only an
/// atomic add: a fork handler may do no more than a signal handler may.
#[cfg(unix)]
extern "C" fn forked() {
    GENERATION.fetch_add(1, Ordering::Relaxed);
}

/// Registers [`forked`], warning when it cannot be.
#[cfg(unix)]
fn register() {
    if !crate::sys::on_fork_in_child(forked) {
        // Without the handler a forked child would share its parent's
        // pool: say so loudly.
        crate::log::warn(format_args!(
            "fork: the fork handler could not be registered; do not use a client across fork()"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watching_twice_leaves_the_generation_alone() {
        watch();
        let before = generation();
        watch();
        // Only a fork changes it (tests/c_processes.rs forks for real).
        assert_eq!(generation(), before);
    }
}
