//! A send starts no thread: not for the connection, not for looking up
//! `localhost` or an IP address, not for a stream's idle timeout. Alone in
//! its file, so that no other test of this process starts threads
//! meanwhile.

mod common;

use common::keepalive::KeepAliveServer;
use common::*;

/// The id of a thread started now. Linux hands out thread ids in turn, so
/// the distance between two of them bounds the threads started in between
/// (by this process, and whatever else runs on the machine).
fn next_thread_id() -> i64 {
    std::thread::spawn(|| {
        std::fs::read_link("/proc/thread-self")
            .ok()
            .and_then(|path| path.file_name()?.to_str()?.parse().ok())
            .unwrap_or(-1)
    })
    .join()
    .unwrap()
}

/// Threads started while `sends` calls of `send` run.
fn threads_started_by(sends: i64, mut send: impl FnMut()) -> i64 {
    send();
    let before = next_thread_id();
    for _ in 0..sends {
        send();
    }
    let after = next_thread_id();
    assert!(before > 0 && after > 0, "no thread ids in /proc");
    let pid_max: i64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .map(|text| text.trim().parse().unwrap_or(i64::MAX))
        .unwrap_or(i64::MAX);
    (after - before).rem_euclid(pid_max)
}

#[test]
#[cfg(target_os = "linux")]
fn a_send_starts_no_thread() {
    let server = KeepAliveServer::start(3);
    // Host names too: `localhost` is not looked up, and a looked-up name
    // would be looked up once.
    let local = server.url.replace("127.0.0.1", "localhost");
    let sends = 500;
    for url in [server.url.as_str(), local.as_str()] {
        let client = client(url);
        let started = threads_started_by(sends, || {
            client.send(&mut conversation()).unwrap();
        });
        // A thread per send would make it at least `sends`; other programs
        // on the machine may start some meanwhile.
        assert!(started < sends / 4, "{started} threads for {sends} sends");
        let started = threads_started_by(sends, || {
            let reply = client
                .send_stream(&mut conversation(), |_| std::ops::ControlFlow::Continue(()))
                .unwrap();
            assert_eq!(reply.content(), "xxx");
        });
        assert!(started < sends / 4, "{started} threads for {sends} streams");
    }
}
