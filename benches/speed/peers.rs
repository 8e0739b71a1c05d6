//! The peers chatwire is compared with, each run as its own process on the
//! benchmark's server: async-openai (the crate in `benches/peers`, built
//! only on request) and openai-python (when `python3`, or the Python that
//! `CHATWIRE_BENCH_PYTHON` names, can import `openai`).
//! A peer that is not there is skipped, with the command that adds it.

use std::path::PathBuf;
use std::process::Command;

/// What one run of a peer measured.
pub struct PeerFigures {
    pub sequential_per_s: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    /// Sends per second from concurrent tasks sharing one client, where
    /// the peer measured it.
    pub concurrent_per_s: Option<f64>,
}

/// The async-openai program, when it has been built.
pub fn async_openai_binary() -> Option<PathBuf> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/peers/target/release/chatwire-peers"
    ));
    path.is_file().then_some(path)
}

/// How to build the async-openai program.
pub const BUILD_ASYNC_OPENAI: &str =
    "cargo build --release --manifest-path benches/peers/Cargo.toml";

/// One run of the async-openai program: `sends` sequential sends, then
/// `sends` from `tasks` tasks.
pub fn async_openai(
    binary: &PathBuf,
    url: &str,
    sends: usize,
    tasks: usize,
) -> Option<PeerFigures> {
    let output = Command::new(binary)
        .args([url, &sends.to_string(), &tasks.to_string()])
        .output()
        .ok()?;
    figures(output)
}

/// The Python to run openai-python with.
fn python() -> String {
    std::env::var("CHATWIRE_BENCH_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// Whether that Python has openai-python.
pub fn openai_python_present() -> bool {
    Command::new(python())
        .args(["-c", "import openai"])
        .output()
        .is_ok_and(|output| output.status.success())
}

/// One run of openai-python's synchronous client: `sends` sequential sends.
pub fn openai_python(url: &str, sends: usize) -> Option<PeerFigures> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/peers/openai_python.py"
    );
    let output = Command::new(python())
        .args([script, url, &sends.to_string()])
        .output()
        .ok()?;
    figures(output)
}

/// Reads a peer's `name value` lines.
fn figures(output: std::process::Output) -> Option<PeerFigures> {
    if !output.status.success() {
        eprintln!(
            "a peer failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let value = |name: &str| {
        text.lines().find_map(|line| {
            let (key, value) = line.split_once(' ')?;
            (key == name).then(|| value.trim().parse::<f64>().ok())?
        })
    };
    Some(PeerFigures {
        sequential_per_s: value("sequential_per_s")?,
        p50_us: value("p50_us")?,
        p99_us: value("p99_us")?,
        concurrent_per_s: value("concurrent_per_s"),
    })
}
