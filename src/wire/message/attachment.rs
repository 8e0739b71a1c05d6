//! Files in a user message on the wire: a PDF as a `file` content part, WAV
//! and MP3 as `input_audio` parts, in the shapes of the official schema
//! (`ChatCompletionRequestMessageContentPartFile`, `...PartAudio`).

use serde::{Deserialize, Serialize};

use super::WirePart;
use crate::conversation::message::{Attachment, AttachmentKind};

/// A `file` part: chatwire sends a PDF's name and its bytes as a base64
/// `data:` URL, the form OpenAI documents; `file_id` (an uploaded file) is
/// read only to say that it is not supported.
#[derive(Serialize, Deserialize)]
pub(super) struct WireFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    file_data: Option<String>,
    #[serde(default, skip_serializing)]
    file_id: Option<String>,
}

/// An `input_audio` part: plain base64 (no `data:` prefix) and its format.
#[derive(Serialize, Deserialize)]
pub(super) struct WireAudio {
    data: String,
    format: String,
}

const PDF_DATA_URL: &str = "data:application/pdf;base64,";

impl From<&Attachment> for WirePart {
    fn from(file: &Attachment) -> WirePart {
        match file.kind.audio_format() {
            Some(format) => WirePart::InputAudio {
                input_audio: WireAudio {
                    data: file.data.clone(),
                    format: format.to_owned(),
                },
            },
            None => WirePart::File {
                file: WireFile {
                    filename: file.filename.clone(),
                    file_data: Some(format!("{PDF_DATA_URL}{}", file.data)),
                    file_id: None,
                },
            },
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
