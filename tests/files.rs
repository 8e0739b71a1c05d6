//! Files in user messages against a mock server: a PDF as a `file` content
//! part, WAV and MP3 as `input_audio` parts, checked against the official
//! schema; kept by `to_json`/`from_json`; and every file chatwire cannot
//! send refused with a clear error, changing nothing. The C side is in
//! tests/c_files.rs.

mod common;

use chatwire::{Attachment, AttachmentKind, Error};
use common::*;
use mockito::Server;
use serde_json::{json, Value};

/// A one-page PDF with no content: the smallest file a PDF reader opens.
const TINY_PDF: &[u8] = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n\
2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n\
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\n\
trailer<</Root 1 0 R>>\n%%EOF\n";

/// A WAV file of eight samples of silence, 8 kHz mono 8-bit.
fn tiny_wav() -> Vec<u8> {
    let samples = [0x80u8; 8];
    let mut wav = b"RIFF".to_vec();
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    wav.extend_from_slice(&8000u32.to_le_bytes()); // bytes a second
    wav.extend_from_slice(&1u16.to_le_bytes()); // block align
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits a sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// One MPEG-1 layer III frame header (128 kbit/s, 44.1 kHz) and silence,
/// without an ID3 tag: told by the frame sync alone.
fn tiny_mp3() -> Vec<u8> {
    let mut mp3 = vec![0xFF, 0xFB, 0x90, 0x64];
    mp3.resize(417, 0);
    mp3
}

fn write_temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("chatwire-files-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn b64(bytes: &[u8]) -> String {
    // The test's own encoder, to check chatwire's against.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn pdf_wav_and_mp3_files_are_sent_as_the_schema_has_them() {
    let mut server = Server::new();
    let bodies = Bodies::default();
    server
        .mock("POST", PATH)
        .match_request(bodies.recorder())
        .with_body(completion("noted"))
        .expect(3)
        .create();
    let client = client(&server.url());
    let pdf = write_temp("invoice.pdf", TINY_PDF);
    // Named .txt: the kind comes from the bytes.
    let wav = write_temp("recording.txt", &tiny_wav());
    let mp3 = write_temp("song", &tiny_mp3());

    let mut conversation = chatwire::Conversation::new("gpt-4o-audio-preview");
    conversation
        .user_file("Summarize this invoice.", &pdf)
        .unwrap();
    client.send(&mut conversation).unwrap();
    conversation.user_file("", &wav).unwrap();
    client.send(&mut conversation).unwrap();
    conversation.user_file("And this one?", &mp3).unwrap();
    client.send(&mut conversation).unwrap();

    let sent = bodies.all();
    assert_eq!(sent.len(), 3);
    for body in &sent {
        assert_valid_request(body);
    }
    let last: Value = serde_json::from_slice(&sent[2]).unwrap();
    let messages = &last["messages"];
    let pdf_name = pdf.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        messages[0]["content"],
        json!([
            {"type": "text", "text": "Summarize this invoice."},
            {"type": "file", "file": {"filename": pdf_name,
                "file_data": format!("data:application/pdf;base64,{}", b64(TINY_PDF))}}
        ])
    );
    // No text part when the text is empty.
    assert_eq!(
        messages[2]["content"],
        json!([{"type": "input_audio", "input_audio": {"data": b64(&tiny_wav()), "format": "wav"}}])
    );
    assert_eq!(
        messages[4]["content"][1],
        json!({"type": "input_audio", "input_audio": {"data": b64(&tiny_mp3()), "format": "mp3"}})
    );
    // The schema check has teeth: a wrong format or a bare file is refused.
    let mut wrong = last.clone();
    wrong["messages"][4]["content"][1]["input_audio"]["format"] = json!("ogg");
    assert!(!is_valid_request(&wrong));
    let mut wrong = last.clone();
    wrong["messages"][0]["content"][1] = json!({"type": "file", "filename": "a.pdf"});
    assert!(!is_valid_request(&wrong));

    // The history keeps the files, through to_json and from_json.
    let json = conversation.to_json();
    let back = chatwire::Conversation::from_json(&json).unwrap();
    assert_eq!(back, conversation);
    assert_eq!(back.to_json(), json);
    let kinds: Vec<_> = back
        .messages()
        .iter()
        .flat_map(|message| message.files.iter().map(|file| file.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            AttachmentKind::Pdf,
            AttachmentKind::Wav,
            AttachmentKind::Mp3
        ]
    );
    assert!(chatwire::Conversation::from_json(&json)
        .unwrap()
        .to_json()
        .contains("\"format\":\"mp3\""));
    for path in [pdf, wav, mp3] {
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn files_chatwire_cannot_send_give_clear_errors_and_change_nothing() {
    let empty = write_temp("empty.pdf", b"");
    let zip = write_temp("archive.pdf", b"PK\x03\x04 not a pdf");
    let png = write_temp("pixel.wav", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let big = write_temp("big.pdf", b"%PDF-1.4");
    // A sparse file larger than the limit, without writing 20 MiB.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(chatwire::MAX_FILE_BYTES + 1)
        .unwrap();
    let fifo = std::env::temp_dir().join(format!("chatwire-files-{}.fifo", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    let path = |path: &std::path::Path| path.to_str().unwrap().to_owned();

    let mut conversation = chatwire::Conversation::new("m");
    conversation.user("first").unwrap();
    conversation.assistant("ok").unwrap();
    let before = conversation.to_json();
    for (file, words) in [
        (path(&empty), "empty"),
        (path(&zip), "PDF, WAV or MP3"),
        (path(&png), "PDF, WAV or MP3"),
        (path(&big), "more than"),
        ("/no/such/file.pdf".to_owned(), "cannot read"),
        (path(&std::env::temp_dir()), "a directory"),
        ("/dev/zero".to_owned(), "not a regular file"),
        (path(&fifo), "not a regular file"),
    ] {
        let err = conversation.user_file("x", &file).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        let message = err.to_string();
        assert!(
            message.contains(words) && message.contains(&file),
            "{file}: {message}"
        );
        assert_eq!(conversation.to_json(), before);
    }
    for path in [empty, zip, png, big, fifo] {
        std::fs::remove_file(path).unwrap();
    }
}

#[test]
fn only_user_messages_carry_files() {
    let mut conversation = chatwire::Conversation::new("m");
    conversation.user("q").unwrap();
    let mut reply = chatwire::Message::new(chatwire::Role::Assistant, "a");
    reply
        .files
        .push(Attachment::from_bytes("a.pdf", TINY_PDF).unwrap());
    let err = conversation.push_message(reply).unwrap_err();
    assert!(
        err.to_string().contains("only user messages carry files"),
        "{err}"
    );
    assert_eq!(conversation.len(), 1);
    // A saved conversation with a file on an assistant message is refused too.
    let json = json!({"model": "m", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "input_audio",
            "input_audio": {"data": "UklGRg==", "format": "wav"}}]}
    ]});
    assert!(chatwire::Conversation::from_json(&json.to_string()).is_err());
}
