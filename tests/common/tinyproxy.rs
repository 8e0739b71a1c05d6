//! A real forward proxy for the proxy tests: tinyproxy, started on a free
//! port with its own configuration and log in a temporary folder, stopped
//! when dropped.

/// Says why the proxy tests cannot run: a skip, or in CI a failure.
fn skip(why: &str) {
    if std::env::var("CHATWIRE_REQUIRE_TINYPROXY").is_ok_and(|v| v == "1") {
        panic!("{why} (CHATWIRE_REQUIRE_TINYPROXY=1)");
    }
    eprintln!("SKIPPED: {why}");
}

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Tinyproxy {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    pub port: u16,
    log: PathBuf,
    child: Child,
}

impl Tinyproxy {
    /// Starts tinyproxy, with basic authentication when `credentials` is
    /// given; `None` (and a message saying why) when tinyproxy is not
    /// installed or does not start, unless CHATWIRE_REQUIRE_TINYPROXY=1
    /// (as in CI), which makes that a failure.
    pub fn start(name: &str, credentials: Option<(&str, &str)>) -> Option<Tinyproxy> {
        let binary = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"]
            .into_iter()
            .map(PathBuf::from)
            .find(|path| path.exists());
        let Some(binary) = binary else {
            skip("tinyproxy is not installed (apt-get install -y tinyproxy)");
            return None;
        };
        let dir =
            std::env::temp_dir().join(format!("chatwire-proxy-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = dir.join("tinyproxy.log");
        let _ = std::fs::remove_file(&log);
        let mut config = format!(
            "Port {port}\nListen 127.0.0.1\nTimeout 30\nLogFile \"{}\"\nLogLevel Connect\nMaxClients 20\nAllow 127.0.0.1\n",
            log.display()
        );
        if let Some((user, password)) = credentials {
            config.push_str(&format!("BasicAuth {user} {password}\n"));
        }
        let config_path = dir.join("tinyproxy.conf");
        std::fs::write(&config_path, config).unwrap();
        let child = Command::new(binary)
            .arg("-d")
            .arg("-c")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else {
            skip("tinyproxy did not start");
            return None;
        };
        let mut proxy = Tinyproxy {
            url: format!("http://127.0.0.1:{port}"),
            port,
            log,
            child,
        };
        // Listening once a connection is taken; until then, or unless it
        // has exited (its port taken meanwhile by another process: then the
        // connection would reach that one), polled.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = proxy.child.try_wait() {
                skip(&format!("tinyproxy exited ({status}) before it listened"));
                return None;
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            if Instant::now() > deadline {
                skip(&format!("tinyproxy did not listen on port {port}"));
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        if let Ok(Some(status)) = proxy.child.try_wait() {
            skip(&format!(
                "tinyproxy exited ({status}): port {port} is another's"
            ));
            return None;
        }
        Some(proxy)
    }

    /// Waits until tinyproxy's close of every connection to it has reached
    /// the client's end. tinyproxy answers in HTTP/1.1 without
    /// `Connection: close` and then closes the connection: a client pools
    /// it, and a send that takes it from the pool before the close arrives
    /// writes into a connection the proxy has left, and fails with "Peer
    /// disconnected" (or, with retries, retries). The next send of a test
    /// waits for this, so that it takes a new connection, as it does once
    /// the close has arrived.
    pub fn wait_for_its_close(&self) {
        super::sockets::wait_until_no_idle_connection_to(self.port);
    }

    /// The request lines tinyproxy logged ("GET http://... HTTP/1.1",
    /// "CONNECT host:port HTTP/1.1").
    pub fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once("]: Request (file descriptor "))
            .filter_map(|(_, rest)| rest.split_once("): "))
            .map(|(_, request)| request.to_owned())
            .collect()
    }
}

impl Drop for Tinyproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
