//! What the Files and Batches APIs need beyond a send: a POST to another
//! URL of the endpoint's origin, with a JSON body or a multipart form
//! (RFC 7578), read whole as a send's answer is. They travel as a send does
//! (the pool, the attempts and retries, the credential, headers, proxy and
//! trust); the caller's settings say how many retries are safe.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use ureq::http::HeaderValue;

use crate::config::Settings;
use crate::error::{Error, Result};
use crate::http::pool::Pool;
use crate::http::post::{parse_url, Received};
use crate::http::retry::Call;

/// How many boundaries are tried before giving up: each is 128 random bits,
/// so a second is needed only for content that holds the first.
const BOUNDARY_TRIES: usize = 8;

/// A multipart form, ready to post.
pub(crate) struct Form {
    pub(crate) bytes: Vec<u8>,
    pub(crate) content_type: HeaderValue,
}

/// A file field of a form: its field name, file name and content type.
pub(crate) struct FilePart<'a> {
    pub(crate) name: &'a str,
    pub(crate) filename: &'a str,
    pub(crate) content_type: &'a str,
}

impl Pool {
    /// POSTs `body` to `url`, a URL on the endpoint's origin, as JSON (or
    /// as `content_type`), and reads the whole 2xx answer.
    pub(crate) fn post_to(
        &self,
        url: &str,
        body: &[u8],
        content_type: Option<&HeaderValue>,
        settings: &Settings,
    ) -> Result<Received> {
        let uri = parse_url(url)?;
        let call = Call {
            url,
            uri: &uri,
            body: Some(body),
            content_type,
        };
        self.whole(&call, settings, None)
    }
}

/// A form of text `fields` and one file, whose content `write` appends in
/// place (written once, never copied), under a boundary it does not hold.
pub(crate) fn file_form(
    fields: &[(&str, &str)],
    file: &FilePart<'_>,
    write: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<Form> {
    let mut boundary = new_boundary();
    let mut bytes = form_head(&boundary, fields, file).into_bytes();
    // Every boundary is as long, so the head keeps its length.
    let head = bytes.len();
    write(&mut bytes)?;
    let mut tries = 1;
    while memchr::memmem::find(&bytes[head..], boundary.as_bytes()).is_some() {
        if tries == BOUNDARY_TRIES {
            return Err(Error::Internal(
                "no multipart boundary fits the file".into(),
            ));
        }
        boundary = new_boundary();
        bytes[..head].copy_from_slice(form_head(&boundary, fields, file).as_bytes());
        tries += 1;
    }
    bytes.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let content_type = HeaderValue::try_from(content_type)
        .map_err(|_| Error::Internal("a multipart boundary is not a header value".into()))?;
    Ok(Form {
        bytes,
        content_type,
    })
}

/// The form up to the file's content: each field, then the file's headers.
fn form_head(boundary: &str, fields: &[(&str, &str)], file: &FilePart<'_>) -> String {
    let mut head = String::new();
    for (name, value) in fields {
        head.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        ));
    }
    head.push_str(&format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\n\
         Content-Type: {}\r\n\r\n",
        file.name, file.filename, file.content_type
    ));
    head
}

/// `chatwire-` and 32 hex digits from the standard library's random keys.
fn new_boundary() -> String {
    let random = || {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(0);
        hasher.finish()
    };
    format!("chatwire-{:016x}{:016x}", random(), random())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: FilePart<'static> = FilePart {
        name: "file",
        filename: "batch.jsonl",
        content_type: "application/jsonl",
    };

    #[test]
    fn a_form_holds_its_fields_and_the_file_between_boundaries() {
        let form = file_form(&[("purpose", "batch")], &FILE, |out| {
            out.extend_from_slice(b"{\"a\":1}\n");
            Ok(())
        })
        .unwrap();
        let content_type = form.content_type.to_str().unwrap();
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        let want = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"batch.jsonl\"\r\n\
             Content-Type: application/jsonl\r\n\r\n{{\"a\":1}}\n\r\n--{boundary}--\r\n"
        );
        assert_eq!(String::from_utf8(form.bytes).unwrap(), want);
    }

    #[test]
    fn content_that_holds_the_boundary_gets_another() {
        let mut first = String::new();
        let form = file_form(&[], &FILE, |out| {
            // The boundary of the head just written, as a file might hold it.
            let head = String::from_utf8(out.clone()).unwrap();
            first = head[2..head.find('\r').unwrap()].to_owned();
            out.extend_from_slice(first.as_bytes());
            Ok(())
        })
        .unwrap();
        let content_type = form.content_type.to_str().unwrap();
        assert!(!content_type.ends_with(&first), "{content_type}");
        let text = String::from_utf8(form.bytes).unwrap();
        assert_eq!(text.matches(&first).count(), 1, "{text}");
    }
}
