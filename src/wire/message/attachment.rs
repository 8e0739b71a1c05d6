//! Files in a user message on the wire: a PDF as a `file` content part, WAV
//! and MP3 as `input_audio` parts, in the shapes of the official schema
//! (`ChatCompletionRequestMessageContentPartFile`, `...PartAudio`).

use serde::{Deserialize, Serialize, Serializer};

use crate::conversation::message::{Attachment, AttachmentKind};

/// A `file` part as read: chatwire sends a PDF's name and its bytes as a
/// base64 `data:` URL, the form OpenAI documents; `file_id` (an uploaded
/// file) is read only to say that it is not supported.
#[derive(Deserialize)]
pub(super) struct WireFile {
    #[serde(default)]
    filename: Option<String>,
    #[serde(default)]
    file_data: Option<String>,
    #[serde(default)]
    file_id: Option<String>,
}

/// An `input_audio` part as read: plain base64 (no `data:` prefix) and its format.
#[derive(Deserialize)]
pub(super) struct WireAudio {
    data: String,
    format: String,
}

/// A `file` part as a request writes it, borrowed.
#[derive(Serialize)]
pub(super) struct FileOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
    file_data: PdfDataUrl<'a>,
}

/// An `input_audio` part as a request writes it, borrowed.
#[derive(Serialize)]
pub(super) struct AudioOut<'a> {
    data: &'a str,
    format: &'static str,
}

/// A PDF's stored base64 written as a `data:` URL: the prefix and the data
/// go into the body one after the other, never joined in a copy.
pub(super) struct PdfDataUrl<'a>(&'a str);

impl Serialize for PdfDataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{PDF_DATA_URL}{}", self.0))
    }
}

const PDF_DATA_URL: &str = "data:application/pdf;base64,";

impl<'a> FileOut<'a> {
    /// A PDF's part, its base64 as stored when the file was added.
    pub(super) fn of(file: &'a Attachment) -> FileOut<'a> {
        FileOut {
            filename: file.filename.as_deref(),
            file_data: PdfDataUrl(&file.data),
        }
    }
}

impl<'a> AudioOut<'a> {
    /// A recording's part in `format`, its base64 as stored when it was added.
    pub(super) fn of(file: &'a Attachment, format: &'static str) -> AudioOut<'a> {
        AudioOut {
            data: &file.data,
            format,
        }
    }
}

impl WireFile {
    /// The PDF this part holds: its data a PDF `data:` URL or bare base64.
    pub(super) fn into_attachment(self) -> Result<Attachment, String> {
        let Some(data) = self.file_data else {
            return Err(match self.file_id {
                Some(_) => "a file part with a file_id (an uploaded file) is not supported; chatwire sends file_data".into(),
                None => "a file part needs file_data".into(),
            });
        };
        let data = match data.get(..PDF_DATA_URL.len()) {
            Some(prefix) if prefix.eq_ignore_ascii_case(PDF_DATA_URL) => {
                data[PDF_DATA_URL.len()..].to_owned()
            }
            _ if data.starts_with("data:") => {
                return Err(
                    "a file part's data must be a PDF (data:application/pdf;base64,...)".into(),
                )
            }
            _ => data,
        };
        Ok(Attachment {
            kind: AttachmentKind::Pdf,
            filename: self.filename,
            data,
        })
    }
}

impl WireAudio {
    pub(super) fn into_attachment(self) -> Result<Attachment, String> {
        let kind = match self.format.as_str() {
            "wav" => AttachmentKind::Wav,
            "mp3" => AttachmentKind::Mp3,
            other => return Err(format!("audio format {other:?} is not wav or mp3")),
        };
        Ok(Attachment {
            kind,
            filename: None,
            data: self.data,
        })
    }
}
