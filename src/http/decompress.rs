//! gzip bodies, which every request asks for (JSON shrinks several times).
//! What ureq lacks: its body reader sets aside about 54 KiB of stack for a
//! decompressor whenever a body is read (over 50 MiB with a thousand
//! requests finishing at once); here only a gzip body makes one. Limits
//! count the bytes that come out, so a gzip bomb stops at its limit.

use std::io::{self, Read};

use flate2::read::MultiGzDecoder;

/// What every request accepts, as its `accept-encoding` (unless the
/// client's own headers say otherwise).
pub(crate) const ACCEPTED: &str = "gzip";

/// A body as it was sent, or decompressed.
pub(crate) enum Decoded<R> {
    Plain(R),
    Gzip(Box<MultiGzDecoder<R>>),
}

/// How a body was coded, as its headers say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Coding {
    /// No coding, or one not asked for (a body then not JSON fails as such).
    AsSent,
    /// gzip (or `x-gzip`, its old name).
    Gzip,
}

impl Coding {
    /// The coding a `content-encoding` header's value names.
    pub(crate) fn named(value: Option<&str>) -> Coding {
        match value.map(str::trim) {
            Some(name) if name.eq_ignore_ascii_case("gzip") => Coding::Gzip,
            Some(name) if name.eq_ignore_ascii_case("x-gzip") => Coding::Gzip,
            _ => Coding::AsSent,
        }
    }

    pub(crate) fn decode<R: Read>(self, reader: R) -> Decoded<R> {
        match self {
            Coding::AsSent => Decoded::Plain(reader),
            Coding::Gzip => gunzip(reader),
        }
    }
}

/// Out of line: the decompressor is made on the stack before it moves to
/// the heap, and only a gzip body should pay for that stack.
#[inline(never)]
fn gunzip<R: Read>(reader: R) -> Decoded<R> {
    // Several gzip members one after another are one body (RFC 1952).
    Decoded::Gzip(Box::new(MultiGzDecoder::new(reader)))
}

/// Kept out of line for the same reason as [`gunzip`].
#[inline(never)]
fn read_gzip<R: Read>(decoder: &mut MultiGzDecoder<R>, buffer: &mut [u8]) -> io::Result<usize> {
    decoder.read(buffer)
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self {
            Decoded::Plain(reader) => reader.read(buffer),
            Decoded::Gzip(decoder) => read_gzip(decoder, buffer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;
    use ureq::http::HeaderMap;

    fn headers(coding: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("content-encoding", coding.parse().unwrap());
        headers
    }

    fn gzip(text: &str) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(text.as_bytes()).unwrap();
        encoder.finish().unwrap()
    }

    fn read(headers: &HeaderMap, body: &[u8]) -> io::Result<String> {
        let mut text = String::new();
        let named = headers
            .get("content-encoding")
            .and_then(|value| value.to_str().ok());
        Coding::named(named)
            .decode(body)
            .read_to_string(&mut text)?;
        Ok(text)
    }

    #[test]
    fn gzip_and_its_old_name_are_decompressed_in_any_case() {
        for coding in ["gzip", "GZIP", " x-gzip "] {
            assert_eq!(
                read(&headers(coding), &gzip("{\"a\":1}")).unwrap(),
                "{\"a\":1}"
            );
        }
    }

    #[test]
    fn members_one_after_another_are_one_body() {
        let mut body = gzip("[1,");
        body.extend(gzip("2]"));
        assert_eq!(read(&headers("gzip"), &body).unwrap(), "[1,2]");
    }

    #[test]
    fn a_plain_body_or_another_coding_passes_as_it_is() {
        assert_eq!(read(&HeaderMap::new(), b"{}").unwrap(), "{}");
        assert_eq!(read(&headers("identity"), b"{}").unwrap(), "{}");
        assert_eq!(read(&headers("br"), b"\x0b\x01").unwrap(), "\x0b\x01");
    }

    #[test]
    fn a_body_that_says_gzip_and_is_not_fails_to_read() {
        assert!(read(&headers("gzip"), b"{\"plain\":true}").is_err());
        let mut truncated = gzip(&"x".repeat(10_000));
        truncated.truncate(truncated.len() / 2);
        assert!(read(&headers("gzip"), &truncated).is_err());
    }
}
