//! Images for user messages: URLs as they are, local files read and sent
//! as base64 `data:` URLs, their type told by their first bytes.

use std::path::Path;

use crate::config::MAX_IMAGE_BYTES;
use crate::conversation::message::{Image, ImageDetail};
use crate::error::{Error, Result};

impl Image {
    /// An image the server fetches from an `http(s)` URL, or a `data:` URL.
    pub fn url(url: impl Into<String>) -> Image {
        Image {
            url: url.into(),
            detail: None,
        }
    }

    /// The same image with a detail level.
    pub fn with_detail(mut self, detail: ImageDetail) -> Image {
        self.detail = Some(detail);
        self
    }

    /// An image from an `http(s)://` or `data:image/...` URL, used as it is,
    /// or else a local file, read by [`Image::from_file`].
    pub fn from_source(source: &str) -> Result<Image> {
        let lower = source.get(..8).unwrap_or(source).to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Ok(Image::url(source));
        }
        if lower.starts_with("data:") {
            let (header, data) = source.split_once(',').unwrap_or((source, ""));
            let header = header.to_ascii_lowercase();
            if !header.starts_with("data:image/") || !header.ends_with(";base64") || data.is_empty()
            {
                return Err(Error::InvalidArgument(
                    "a data URL image must look like data:image/<type>;base64,<data>".into(),
                ));
            }
            return Ok(Image::url(source));
        }
        Image::from_file(source)
    }

    /// Reads a PNG, JPEG, GIF or WebP regular file (at most [`MAX_IMAGE_BYTES`])
    /// into a base64 `data:` URL, the type told by its bytes.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Image> {
        read_file(path.as_ref(), "image", MAX_IMAGE_BYTES, Image::from_bytes)
    }

    /// An image from its bytes (PNG, JPEG, GIF or WebP), as a base64 `data:` URL.
    pub fn from_bytes(bytes: &[u8]) -> Result<Image> {
        if bytes.is_empty() {
            return Err(Error::InvalidArgument("the image is empty".into()));
        }
        let mime = sniff(bytes).ok_or_else(|| {
            Error::InvalidArgument("not an image chatwire can send (PNG, JPEG, GIF or WebP)".into())
        })?;
        Ok(Image::url(format!("data:{mime};base64,{}", base64(bytes))))
    }
}

/// Reads a regular file of at most `limit` bytes (checked before reading, and
/// the read stops there if the file grows) and makes it into a `T`; an error
/// names `what` it is, the path and why.
pub(crate) fn read_file<T>(
    path: &Path,
    what: &str,
    limit: u64,
    make: impl FnOnce(&[u8]) -> Result<T>,
) -> Result<T> {
    let bad = |why: String| Error::InvalidArgument(format!("{what} {}: {why}", path.display()));
    let cannot = |err: std::io::Error| bad(format!("cannot read it: {err}"));
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // A FIFO opened for reading waits for a writer unless opened non-blocking;
    // a regular file reads the same either way.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(cannot)?;
    let metadata = file.metadata().map_err(cannot)?;
    if !metadata.is_file() {
        let kind = if metadata.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, FIFO or socket)"
        };
        return Err(bad(format!("it is {kind}; only regular files are read")));
    }
    let too_big = |size: u64| bad(format!("{size} bytes is more than the {limit} allowed"));
    if metadata.len() > limit {
        return Err(too_big(metadata.len()));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, limit + 1), &mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    make(&bytes).map_err(|err| match err {
        Error::InvalidArgument(why) => bad(why),
        other => other,
    })
}

fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

pub(crate) fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(path: &str) -> String {
        match Image::from_file(path) {
            Err(Error::InvalidArgument(message)) => message,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn only_regular_files_are_read() {
        let message = refusal("/dev/zero");
        assert!(
            message.contains("/dev/zero") && message.contains("not a regular file"),
            "{message}"
        );
        let dir = std::env::temp_dir();
        let message = refusal(dir.to_str().unwrap());
        assert!(message.contains("a directory"), "{message}");
        assert!(refusal("/no/such/image.png").contains("cannot read it"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_without_a_writer_is_refused_at_once() {
        let path = std::env::temp_dir().join(format!("chatwire-fifo-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo");
        let message = refusal(path.to_str().unwrap());
        std::fs::remove_file(&path).unwrap();
        assert!(message.contains("not a regular file"), "{message}");
    }

    #[test]
    fn base64_matches_the_standard_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xFF, 0xFE, 0xFD]), "//79");
    }

    #[test]
    fn types_come_from_the_bytes() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a..."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"%PDF-1.7"), None);
    }

    #[test]
    fn sources_are_sorted_by_their_form() {
        let url = Image::from_source("https://example.com/a.png").unwrap();
        assert_eq!(url.url, "https://example.com/a.png");
        assert!(Image::from_source("data:image/png;base64,iVBO").is_ok());
        assert!(Image::from_source("data:text/plain,hello").is_err());
        let missing = Image::from_source("/no/such/file.png")
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("/no/such/file.png") && missing.contains("cannot read"),
            "{missing}"
        );
        assert!(Image::from_bytes(b"").is_err());
        assert!(Image::from_bytes(b"plain text").is_err());
    }
}
