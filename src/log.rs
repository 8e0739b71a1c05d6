//! chatwire's own log lines, made of values that hold no secret and escaped
//! onto one line, to the `log` facade, the C callback, and `CHATWIRE_LOG`'s stderr.

use std::cell::Cell;
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{OnceLock, PoisonError, RwLock};
use std::time::Duration;

use log::{Level, LevelFilter};

use crate::error::one_line;
use crate::error::{Error, Result};

pub(crate) const TARGET: &str = "chatwire";

/// A receiver of log lines besides the `log` facade: the C callback.
pub(crate) type Sink = Box<dyn Fn(Level, &str) + Send + Sync>;

/// The installed sink and the most detailed level it takes.
struct Installed {
    max: LevelFilter,
    sink: Sink,
}

static SINK: RwLock<Option<Installed>> = RwLock::new(None);
/// The sink's level, read without the lock on every line (0: no sink).
static SINK_MAX: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// True while this thread runs the sink: a line logged from inside it
    /// (the callback calling chatwire) is dropped instead of recursing.
    static IN_SINK: Cell<bool> = const { Cell::new(false) };
}

/// Installs (or with `None` removes) the sink for lines up to `max`; when
/// this returns, the old sink is not running. Refused from inside the sink.
pub(crate) fn set_sink(sink: Option<Sink>, max: LevelFilter) -> Result<()> {
    if IN_SINK.get() {
        return Err(Error::InvalidArgument(
            "the log callback cannot be changed from inside the log callback".into(),
        ));
    }
    let mut installed = SINK.write().unwrap_or_else(PoisonError::into_inner);
    *installed = sink.map(|sink| Installed { max, sink });
    let level = match installed.as_ref() {
        Some(installed) => installed.max,
        None => LevelFilter::Off,
    };
    SINK_MAX.store(level as usize, Ordering::Release);
    Ok(())
}

/// The level `CHATWIRE_LOG` asks for, read once per process.
fn env_level() -> LevelFilter {
    static LEVEL: OnceLock<LevelFilter> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let value = std::env::var("CHATWIRE_LOG").unwrap_or_default();
        parse_level(&value).unwrap_or_else(|| {
            eprintln!(
                "[chatwire] CHATWIRE_LOG={value:?} is not one of error, warn, info, debug, off; using warn"
            );
            LevelFilter::Warn
        })
    })
}

fn parse_level(value: &str) -> Option<LevelFilter> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "off" | "0" => Some(LevelFilter::Off),
        "error" => Some(LevelFilter::Error),
        "warn" | "warning" => Some(LevelFilter::Warn),
        "info" => Some(LevelFilter::Info),
        "debug" | "trace" => Some(LevelFilter::Debug),
        _ => None,
    }
}

/// Writes one line at `level` wherever it is wanted, formatted only then.
pub(crate) fn line(level: Level, args: fmt::Arguments<'_>) {
    let to_log = log::log_enabled!(target: TARGET, level);
    // `log` numbers a Level as the LevelFilter of the same name.
    let to_sink = level as usize <= SINK_MAX.load(Ordering::Acquire) && !IN_SINK.get();
    let to_stderr = level <= env_level();
    if !(to_log || to_sink || to_stderr) {
        return;
    }
    let text = args.to_string();
    let text = one_line::escape(&text);
    if to_log {
        log::log!(target: TARGET, level, "{text}");
    }
    if to_stderr {
        let _ = writeln!(std::io::stderr().lock(), "[chatwire {level}] {text}");
    }
    if to_sink {
        // The read lock is held while the sink runs, so that set_sink can
        // promise the old sink has finished when it returns.
        let installed = SINK.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(installed) = installed.as_ref() {
            if level <= installed.max {
                IN_SINK.set(true);
                (installed.sink)(level, &text);
                IN_SINK.set(false);
            }
        }
    }
}

pub(crate) fn warn(args: fmt::Arguments<'_>) {
    line(Level::Warn, args);
}

pub(crate) fn debug(args: fmt::Arguments<'_>) {
    line(Level::Debug, args);
}

/// A URL as it may be shown: no user name or password, no query, no fragment.
pub(crate) fn shown_url(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let (scheme, rest) = url.split_at(url.find("://").map_or(0, |at| at + 3));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    format!("{scheme}{host}{path}")
}

/// How one attempt at a request ended; `why` is the error's redacted text.
pub(crate) enum Verdict<'a> {
    /// It succeeded (a 2xx status).
    Done,
    /// It failed and will be tried again after the pause.
    Retry { pause: Duration, why: &'a str },
    /// It failed and will not be tried again.
    Failed { why: &'a str },
    /// The caller cancelled it.
    Cancelled,
}

pub(crate) struct AttemptLine<'a> {
    pub(crate) method: &'a str,
    pub(crate) url: &'a str,
    pub(crate) status: Option<u16>,
    pub(crate) sent: usize,
    /// Bytes of the response body read; `None` for a stream still open.
    pub(crate) received: Option<usize>,
    pub(crate) elapsed: Duration,
    /// 1 for the first attempt.
    pub(crate) number: u32,
    pub(crate) outcome: Verdict<'a>,
}

/// Logs an attempt: success at info, a retry at warn, a final failure at
/// error (a cancel at debug).
pub(crate) fn attempt(attempt: &AttemptLine<'_>) {
    let level = match attempt.outcome {
        Verdict::Done => Level::Info,
        Verdict::Retry { .. } => Level::Warn,
        Verdict::Failed { .. } => Level::Error,
        Verdict::Cancelled => Level::Debug,
    };
    line(level, format_args!("{attempt}"));
}

impl fmt::Display for AttemptLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: ", self.method, shown_url(self.url))?;
        match self.status {
            Some(status) => write!(f, "status {status}, ")?,
            None => f.write_str("no response, ")?,
        }
        write!(f, "sent {} bytes", self.sent)?;
        match (self.status, self.received) {
            (_, Some(bytes)) => write!(f, ", received {bytes} bytes")?,
            (Some(_), None) => f.write_str(", streaming")?,
            (None, None) => {}
        }
        let seconds = self.elapsed.as_secs_f64();
        write!(f, ", {seconds:.3} s, attempt {}", self.number)?;
        match &self.outcome {
            Verdict::Done => Ok(()),
            Verdict::Retry { pause, why } => {
                write!(f, ", retrying in {:.3} s: {why}", pause.as_secs_f64())
            }
            Verdict::Failed { why } => write!(f, ", giving up: {why}"),
            Verdict::Cancelled => f.write_str(", cancelled"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_drop_credentials_and_queries() {
        assert_eq!(
            shown_url("http://user:pw@proxy.corp:3128/x?key=1#f"),
            "http://proxy.corp:3128/x"
        );
        assert_eq!(
            shown_url("https://api.openai.com/v1/chat/completions"),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(shown_url("u:p@host:1"), "host:1");
    }

    #[test]
    fn levels_from_the_environment() {
        assert_eq!(parse_level("DEBUG"), Some(LevelFilter::Debug));
        assert_eq!(parse_level(" warn "), Some(LevelFilter::Warn));
        assert_eq!(parse_level(""), Some(LevelFilter::Off));
        assert_eq!(parse_level("loud"), None);
    }

    #[test]
    fn an_attempt_line_says_what_happened() {
        let why = Error::Config("x".into()).to_string();
        let line = AttemptLine {
            method: "POST",
            url: "http://h:1/v1/chat/completions",
            status: Some(503),
            sent: 10,
            received: Some(20),
            elapsed: Duration::from_millis(1500),
            number: 1,
            outcome: Verdict::Retry {
                pause: Duration::from_millis(500),
                why: &why,
            },
        }
        .to_string();
        assert_eq!(
            line,
            "POST http://h:1/v1/chat/completions: status 503, sent 10 bytes, received 20 bytes, 1.500 s, attempt 1, retrying in 0.500 s: invalid configuration: x"
        );
    }
}
