//! The redirect policy: only 307 and 308 (which keep the method and body),
//! only to the same origin (no header of the client reaches another host),
//! at most [`MAX_REDIRECTS`] in a row; any other is an [`Error::Http`].

use ureq::http::Uri;

use crate::config::MAX_REDIRECTS;
use crate::error::{excerpt, ApiError, Error, Keep, EXCERPT_BYTES};

/// Where a redirect leads, if the policy allows following it; `hops` is
/// how many were followed before this one.
pub(crate) fn follow(
    from: &Uri,
    status: u16,
    location: Option<&str>,
    hops: u32,
    request_id: Option<String>,
) -> Result<Uri, Error> {
    let target = location.unwrap_or("");
    let refuse = |why: &str| {
        Error::from_api(ApiError {
            status: Some(status),
            message: format!(
                "redirect to {:?} not followed: {why}",
                excerpt(target, EXCERPT_BYTES, Keep::Start)
            ),
            request_id: request_id.clone(),
            ..ApiError::default()
        })
    };
    if !matches!(status, 307 | 308) {
        return Err(refuse(
            "only 307 and 308, which keep the method and the body, are followed",
        ));
    }
    if location.is_none_or(str::is_empty) {
        return Err(refuse("the redirect has no location"));
    }
    if hops >= MAX_REDIRECTS {
        return Err(refuse(&format!(
            "more than {MAX_REDIRECTS} redirects in a row"
        )));
    }
    same_origin_target(from, target).ok_or_else(|| {
        refuse("it leads to another origin (scheme, host or port); no header of this client goes there")
    })
}

/// `target` as an absolute URL, if it is on the origin of `from`: an
/// absolute path, or an absolute URL with the same scheme, host and port.
fn same_origin_target(from: &Uri, target: &str) -> Option<Uri> {
    let scheme = from.scheme_str()?;
    let authority = from.authority()?;
    if target.starts_with('/') && !target.starts_with("//") {
        return format!("{scheme}://{authority}{target}").parse().ok();
    }
    let to: Uri = target.parse().ok()?;
    let same = to.scheme_str()?.eq_ignore_ascii_case(scheme)
        && to.host()?.eq_ignore_ascii_case(from.host()?)
        && port(&to)? == port(from)?
        && to.authority()?.as_str().find('@').is_none();
    same.then_some(to)
}

fn port(uri: &Uri) -> Option<u16> {
    uri.port_u16().or(match uri.scheme_str()? {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROM: &str = "https://host:8443/v1/chat/completions";

    fn follows(status: u16, to: &str, hops: u32) -> Option<String> {
        let from = FROM.parse().unwrap();
        follow(&from, status, Some(to), hops, None)
            .ok()
            .map(|to| to.to_string())
    }

    #[test]
    fn only_307_and_308_within_the_origin_are_followed() {
        assert_eq!(
            follows(307, "/v2/chat", 0).as_deref(),
            Some("https://host:8443/v2/chat")
        );
        assert_eq!(
            follows(308, "https://HOST:8443/x", 2).as_deref(),
            Some("https://HOST:8443/x")
        );
        for status in [301, 302, 303, 300, 304] {
            assert_eq!(follows(status, "/v2/chat", 0), None, "{status}");
        }
        for to in [
            "http://host:8443/x",
            "https://host/x",
            "https://other:8443/x",
            "//other/x",
            "https://u:p@host:8443/x",
            "relative",
            "",
        ] {
            assert_eq!(follows(307, to, 0), None, "{to}");
        }
        assert_eq!(follows(307, "/x", MAX_REDIRECTS), None);
    }

    #[test]
    fn a_refused_redirect_is_an_http_error_naming_the_target() {
        let error = follow(
            &FROM.parse().unwrap(),
            302,
            Some("https://evil/steal"),
            0,
            None,
        )
        .unwrap_err();
        assert_eq!(error.http_status(), Some(302));
        assert!(matches!(error, Error::Http(_)), "{error}");
        assert!(error.to_string().contains("https://evil/steal"), "{error}");
    }
}
