//! Files for user messages: PDF documents and WAV or MP3 recordings, sent in
//! base64, their kind told by their first bytes, never by their name.

use std::path::Path;

use crate::config::MAX_FILE_BYTES;
use crate::conversation::image::{base64, read_file};
use crate::conversation::message::{Attachment, AttachmentKind};
use crate::error::{Error, Result};

/// The name a PDF is sent with when it has none of its own.
const DEFAULT_PDF_NAME: &str = "document.pdf";

impl AttachmentKind {
    /// The kind of file these bytes start, if chatwire can send it (see
    /// each kind for its signature).
    pub fn sniff(bytes: &[u8]) -> Option<AttachmentKind> {
        if bytes.starts_with(b"%PDF-") {
            Some(AttachmentKind::Pdf)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WAVE" {
            Some(AttachmentKind::Wav)
        } else if bytes.starts_with(b"ID3") || is_mp3_frame(bytes) {
            Some(AttachmentKind::Mp3)
        } else {
            None
        }
    }

    /// The `format` of an `input_audio` part; `None` for a PDF.
    pub fn audio_format(self) -> Option<&'static str> {
        match self {
            AttachmentKind::Pdf => None,
            AttachmentKind::Wav => Some("wav"),
            AttachmentKind::Mp3 => Some("mp3"),
        }
    }
}

/// An MPEG audio layer III frame header: `FF`, then `111vvll p` with a
/// version other than the reserved `01` and layer `01` (III), then a bit
/// rate index other than `0000` (free) and `1111` (bad) and a sample rate
/// index other than `11`; a JPEG (`FF D8`) or an AAC stream does not pass.
fn is_mp3_frame(bytes: &[u8]) -> bool {
    let [0xFF, second, third, ..] = *bytes else {
        return false;
    };
    let sync = second & 0xE0 == 0xE0;
    let version = (second >> 3) & 0b11;
    let layer = (second >> 1) & 0b11;
    let bitrate = third >> 4;
    let rate = (third >> 2) & 0b11;
    sync && version != 0b01 && layer == 0b01 && bitrate != 0 && bitrate != 0xF && rate != 0b11
}

impl Attachment {
    /// Reads a PDF, WAV or MP3 regular file (at most [`MAX_FILE_BYTES`]); a PDF
    /// is sent with the last part of `path` as its name.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Attachment> {
        let path = path.as_ref();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let make = |bytes: &[u8]| Attachment::from_bytes(&name, bytes);
        read_file(path, "file", MAX_FILE_BYTES, make)
    }

    /// A file from its bytes (PDF, WAV or MP3, at most [`MAX_FILE_BYTES`]);
    /// `filename` is sent with a PDF (`document.pdf` when empty) and not
    /// kept for audio, whose part has no name.
    pub fn from_bytes(filename: &str, bytes: &[u8]) -> Result<Attachment> {
        if bytes.is_empty() {
            return Err(Error::InvalidArgument("the file is empty".into()));
        }
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(Error::InvalidArgument(format!(
                "{} bytes is more than the {MAX_FILE_BYTES} allowed",
                bytes.len()
            )));
        }
        let kind = AttachmentKind::sniff(bytes).ok_or_else(|| {
            Error::InvalidArgument("not a file chatwire can send (PDF, WAV or MP3)".into())
        })?;
        let filename = match kind {
            AttachmentKind::Pdf if filename.is_empty() => Some(DEFAULT_PDF_NAME.to_owned()),
            AttachmentKind::Pdf => Some(filename.to_owned()),
            _ => None,
        };
        Ok(Attachment {
            kind,
            filename,
            data: base64(bytes),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(path: &str) -> String {
        match Attachment::from_file(path) {
            Err(Error::InvalidArgument(message)) => message,
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn kinds_come_from_the_bytes() {
        let kind = AttachmentKind::sniff;
        assert_eq!(kind(b"%PDF-1.7\n"), Some(AttachmentKind::Pdf));
        assert_eq!(kind(b"RIFF\x24\0\0\0WAVEfmt "), Some(AttachmentKind::Wav));
        assert_eq!(kind(b"ID3\x04\0\0\0\0\0\0"), Some(AttachmentKind::Mp3));
        // MPEG-1 layer III, 128 kbit/s, 44.1 kHz.
        assert_eq!(kind(&[0xFF, 0xFB, 0x90, 0x64]), Some(AttachmentKind::Mp3));
        // MPEG-2 layer III, 64 kbit/s, 22.05 kHz.
        assert_eq!(kind(&[0xFF, 0xF3, 0x80, 0xC4]), Some(AttachmentKind::Mp3));
        for other in [
            &b"%PDF"[..],              // cut short
            b"RIFF\0\0\0\0WEBPVP8 ",   // an image
            &[0xFF, 0xD8, 0xFF, 0xE0], // a JPEG
            &[0xFF, 0xF1, 0x50, 0x80], // AAC (ADTS), layer 00
            &[0xFF, 0xFB, 0xF0, 0x64], // bad bit rate
            &[0xFF, 0xFB, 0x9C, 0x64], // reserved sample rate
            &[0xFF, 0xEB, 0x90, 0x64], // reserved version
            &[0xFF, 0xFB],             // cut short
            b"just text",
        ] {
            assert_eq!(kind(other), None, "{other:?}");
        }
    }

    #[test]
    fn a_pdf_keeps_its_name_and_audio_has_none() {
        let pdf = Attachment::from_bytes("invoice.pdf", b"%PDF-1.4 tiny").unwrap();
        assert_eq!(pdf.kind, AttachmentKind::Pdf);
        assert_eq!(pdf.filename.as_deref(), Some("invoice.pdf"));
        assert_eq!(pdf.data, base64(b"%PDF-1.4 tiny"));
        let unnamed = Attachment::from_bytes("", b"%PDF-1.4").unwrap();
        assert_eq!(unnamed.filename.as_deref(), Some(DEFAULT_PDF_NAME));
        let wav = Attachment::from_bytes("talk.wav", b"RIFF\0\0\0\0WAVE").unwrap();
        assert_eq!((wav.kind, wav.filename), (AttachmentKind::Wav, None));
        assert_eq!(AttachmentKind::Mp3.audio_format(), Some("mp3"));
        assert_eq!(AttachmentKind::Pdf.audio_format(), None);
    }

    #[test]
    fn empty_unknown_and_oversized_bytes_are_refused() {
        assert!(Attachment::from_bytes("a.pdf", b"").is_err());
        let err = Attachment::from_bytes("a.pdf", b"PK\x03\x04 a zip").unwrap_err();
        assert!(err.to_string().contains("PDF, WAV or MP3"), "{err}");
        let mut big = b"%PDF-".to_vec();
        big.resize(MAX_FILE_BYTES as usize + 1, b' ');
        let err = Attachment::from_bytes("big.pdf", &big).unwrap_err();
        assert!(err.to_string().contains("more than"), "{err}");
    }

    #[test]
    fn only_regular_files_are_read() {
        let message = refusal("/dev/zero");
        assert!(
            message.contains("/dev/zero") && message.contains("not a regular file"),
            "{message}"
        );
        let message = refusal(std::env::temp_dir().to_str().unwrap());
        assert!(message.contains("a directory"), "{message}");
        assert!(refusal("/no/such/file.pdf").contains("cannot read it"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_without_a_writer_is_refused_at_once() {
        let path = std::env::temp_dir().join(format!("chatwire-file-fifo-{}", std::process::id()));
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
}
