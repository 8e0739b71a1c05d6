//! Server-sent events, bytes in, events out, by the HTML standard's rules,
//! and: a field line that is not UTF-8 is an error (a comment is read
//! lossily); a line or event over the limit is [`Error::TooLarge`], so an
//! endless line cannot exhaust memory; `id:` and `retry:` are ignored (no
//! reconnecting); llama.cpp's `error: {...}` line is `event: error` with
//! that data; an unterminated last line and event at the end still count.

use crate::config::Limit;
use crate::error::{Error, Result};

/// The UTF-8 byte order mark, skipped at the very start.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; `None` for the default, `message` (chunks).
    pub event: Option<String>,
    /// The event's `data:` lines, joined with `\n`.
    pub data: String,
}

/// One thing the parser found in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A complete event.
    Event(SseEvent),
    /// A comment line (`: ...`), the text after the colon: a keep-alive.
    Comment(String),
}

/// An incremental server-sent events parser. Bytes may be split anywhere;
/// each is scanned once. After an error, results are unspecified (never a
/// panic).
#[derive(Debug)]
pub struct SseParser {
    lines: LineReader,
    event: EventBuilder,
    limit: usize,
}

impl SseParser {
    /// A parser that rejects a line, or an event's data, over `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            lines: LineReader::default(),
            event: EventBuilder::default(),
            limit,
        }
    }

    /// Adds bytes from the body.
    pub fn push(&mut self, bytes: &[u8]) {
        self.lines.push(bytes);
    }

    /// Marks the end of the body; push no more bytes after this.
    pub fn close(&mut self) {
        self.lines.closed = true;
    }

    /// The next complete item, or `None` until more bytes are pushed (or,
    /// after [`close`](Self::close), when the stream is exhausted).
    /// [`Error::Decode`] for a field line that is not UTF-8,
    /// [`Error::TooLarge`] for a line or an event's data over the limit.
    pub fn next_item(&mut self) -> Result<Option<SseItem>> {
        while let Some(line) = self.lines.next_line(self.limit)? {
            if let Some(item) = self.event.take_line(line, self.limit)? {
                return Ok(Some(item));
            }
        }
        if self.lines.closed {
            return Ok(self.event.dispatch().map(SseItem::Event));
        }
        Ok(None)
    }

    /// Gives back an event's data: the next event's is written into its room
    /// (one allocation fewer per event), unless that room is unusually large.
    pub fn recycle(&mut self, mut data: String) {
        /// The most room kept from one event for the next.
        const KEPT: usize = 64 * 1024;
        let fits = data.capacity() <= KEPT && data.capacity() > self.event.data.capacity();
        if self.event.data.is_empty() && fits {
            data.clear();
            self.event.data = data;
        }
    }
}

/// Splits buffered bytes into lines, each byte scanned once.
#[derive(Debug, Default)]
struct LineReader {
    buf: Vec<u8>,
    /// Start of the first line not yet handed out.
    pos: usize,
    /// `buf[pos..scan]` is known to hold no line end.
    scan: usize,
    /// The last line ended in `\r`: a `\n` right after it belongs to it.
    skip_lf: bool,
    /// A line has been handed out: no byte order mark may lead any more.
    past_start: bool,
    /// The body has ended.
    closed: bool,
}

impl LineReader {
    fn push(&mut self, bytes: &[u8]) {
        // Drop consumed bytes only when that copies no more than was
        // consumed: pushing without pulling stays linear.
        if self.pos > 0 && self.pos >= self.buf.len() - self.pos {
            self.compact();
        }
        self.buf.extend_from_slice(bytes);
    }

    fn compact(&mut self) {
        if self.pos == 0 {
            return;
        }
        self.buf.drain(..self.pos);
        self.scan -= self.pos;
        self.pos = 0;
    }

    /// The next complete line, without its line end.
    fn next_line(&mut self, limit: usize) -> Result<Option<&[u8]>> {
        self.skip_lf_after_cr();
        let found = memchr::memchr2(b'\n', b'\r', &self.buf[self.scan..]);
        let (start, end) = match found {
            Some(offset) => {
                let end = self.scan + offset;
                self.skip_lf = self.buf[end] == b'\r';
                (self.pos, end)
            }
            None => {
                self.scan = self.buf.len();
                check_line_length(&self.buf[self.pos..], limit)?;
                if !self.closed || self.pos == self.buf.len() {
                    self.compact();
                    return Ok(None);
                }
                // End of body: the unterminated rest is the last line.
                (self.pos, self.buf.len())
            }
        };
        self.pos = (end + 1).min(self.buf.len());
        self.scan = self.pos;
        let mut line = &self.buf[start..end];
        check_line_length(line, limit)?;
        if !std::mem::replace(&mut self.past_start, true) {
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        Ok(Some(line))
    }

    /// Skips the `\n` of a `\r\n` whose `\r` ended the previous line
    /// (with nothing buffered, it waits for the next push).
    fn skip_lf_after_cr(&mut self) {
        if !self.skip_lf || self.pos == self.buf.len() {
            return;
        }
        if self.buf[self.pos] == b'\n' {
            self.pos += 1;
            self.scan = self.scan.max(self.pos);
        }
        self.skip_lf = false;
    }
}

fn check_line_length(line: &[u8], limit: usize) -> Result<()> {
    if line.len() > limit {
        return Err(Limit::Event.exceeded(limit as u64));
    }
    Ok(())
}

/// Collects the fields of the event being received.
#[derive(Debug, Default)]
struct EventBuilder {
    event: Option<String>,
    data: String,
    /// A `data` field was seen (its value may be empty).
    has_data: bool,
}

impl EventBuilder {
    /// Applies one line; returns the item it completes, if any.
    fn take_line(&mut self, line: &[u8], limit: usize) -> Result<Option<SseItem>> {
        if line.is_empty() {
            return Ok(self.dispatch().map(SseItem::Event));
        }
        if let Some(comment) = line.strip_prefix(b":") {
            let text = String::from_utf8_lossy(comment).into_owned();
            return Ok(Some(SseItem::Comment(text)));
        }
        let line = std::str::from_utf8(line).map_err(|_| {
            Error::decode(
                "event stream line is not valid utf-8",
                &String::from_utf8_lossy(line),
            )
        })?;
        match split_field(line) {
            ("data", value) => self.append_data(value, limit)?,
            ("event", value) => self.event = Some(value.to_owned()).filter(|e| !e.is_empty()),
            ("error", value) => {
                self.event = Some("error".to_owned());
                self.append_data(value, limit)?;
            }
            // `id`, `retry` and unknown fields: nothing this client uses.
            _ => {}
        }
        Ok(None)
    }

    fn append_data(&mut self, value: &str, limit: usize) -> Result<()> {
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
        if self.data.len() > limit {
            self.data = String::new();
            self.has_data = false;
            return Err(Limit::Event.exceeded(limit as u64));
        }
        Ok(())
    }

    /// Ends the current event: returns it if it had data, and starts afresh.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        std::mem::take(&mut self.has_data).then(|| SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        })
    }
}

/// Splits `field: value`: the value loses one leading space; a line without
/// a colon is a field with an empty value. (':' is ASCII: a byte search
/// finds a character boundary.)
fn split_field(line: &str) -> (&str, &str) {
    match memchr::memchr(b':', line.as_bytes()) {
        Some(colon) => {
            let value = &line[colon + 1..];
            (&line[..colon], value.strip_prefix(' ').unwrap_or(value))
        }
        None => (line, ""),
    }
}
