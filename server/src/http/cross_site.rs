//! Refusing requests that a web page of another site makes a visitor's
//! browser send.
//!
//! A page anyone visits can have the browser POST a `text/plain` or form body
//! to any address without asking first (a CORS "simple request": no
//! preflight), carrying the visitor's network address: it could create
//! games and practice games in the visitor's name. So every POST must say
//! `content-type: application/json`, which a page of another origin cannot
//! send without a preflight this server never grants, and a POST carrying
//! an `Origin` header must come from the server's own origin (the `Host` it
//! was called by) or from one listed by `--http-allowed-origins`. Clients
//! that are not browsers send no `Origin` and pass on the content type.
//!
//! A page can also have its own name resolve to this server (DNS
//! rebinding): its requests then name that host and that origin, and look
//! like the server's own. So every request must name as its `Host` an IP
//! address, `localhost`, or a name `--http-allowed-hosts` lists; another is
//! refused with 421 before anything is served.

use axum::http::{HeaderMap, StatusCode, header};
use tonic::Code;

use super::ApiError;
use crate::error::clip;

/// Checks the host a request names (any method), before it is served.
pub(super) fn check_host(headers: &HeaderMap, allowed: &[String]) -> Result<(), ApiError> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let Some(host) = hosts.next() else {
        return Ok(());
    };
    if hosts.next().is_some() {
        return Err(ApiError::new(
            Code::InvalidArgument,
            "the request has more than one host header: send one",
            "INVALID_ARGUMENT",
        ));
    }
    let host = String::from_utf8_lossy(host.as_bytes());
    let name = host_name(&host);
    let answered = name.parse::<std::net::IpAddr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost")
        || allowed.iter().any(|a| a == "*" || *a == name);
    if answered {
        return Ok(());
    }
    Err(ApiError {
        http_status: Some(StatusCode::MISDIRECTED_REQUEST),
        ..ApiError::new(
            Code::PermissionDenied,
            format!(
                "this server does not answer to host {}: only to IP addresses, localhost and the names --http-allowed-hosts lists",
                clip(&host)
            ),
            "HOST_NOT_ALLOWED",
        )
    })
}

/// The name (or address) of a `Host` header, lower case, without its port,
/// brackets or final dot.
fn host_name(host: &str) -> String {
    let host = host.trim();
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => host,
        },
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// Checks a POST's headers before its body is read.
pub(super) fn check_post(headers: &HeaderMap, allowed: &[String]) -> Result<(), ApiError> {
    // Two of one of these would be read by whoever reads first: one request
    // would pass one check with one value and be served with the other.
    for name in [header::ORIGIN, header::CONTENT_TYPE] {
        let n = headers.get_all(&name).iter().count();
        if n > 1 {
            return Err(ApiError::new(
                Code::InvalidArgument,
                format!("the request has {n} {name} headers: send one"),
                "INVALID_ARGUMENT",
            ));
        }
    }
    check_origin(headers, allowed)?;
    check_content_type(headers)?;
    check_content_encoding(headers)
}

fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), ApiError> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = String::from_utf8_lossy(origin.as_bytes());
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let same_origin = ["http://", "https://"].iter().any(|scheme| {
        origin
            .strip_prefix(scheme)
            .is_some_and(|rest| !host.is_empty() && rest.eq_ignore_ascii_case(host))
    });
    let listed = allowed
        .iter()
        .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(&origin));
    if same_origin || listed {
        return Ok(());
    }
    Err(ApiError::new(
        Code::PermissionDenied,
        format!(
            "origin {} may not call this server: only pages of its own origin (the Host it is called by) or of an origin --http-allowed-origins lists may POST",
            clip(&origin)
        ),
        "ORIGIN_NOT_ALLOWED",
    ))
}

/// A compressed body would be read as bytes that are not JSON: say why.
fn check_content_encoding(headers: &HeaderMap) -> Result<(), ApiError> {
    let encodings = headers.get_all(header::CONTENT_ENCODING);
    let Some(other) = encodings
        .iter()
        .find(|v| !v.as_bytes().is_empty() && !v.as_bytes().eq_ignore_ascii_case(b"identity"))
    else {
        return Ok(());
    };
    Err(ApiError {
        http_status: Some(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        ..ApiError::new(
            Code::InvalidArgument,
            format!(
                "content-encoding {} is not read here: send the body uncompressed",
                clip(&String::from_utf8_lossy(other.as_bytes()))
            ),
            "INVALID_ARGUMENT",
        )
    })
}

fn check_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let given = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let json = given.as_deref().is_some_and(|v| {
        v.split(';')
            .next()
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
    });
    if json {
        return Ok(());
    }
    let got = match &given {
        Some(v) => format!("content-type {}", clip(v)),
        None => "no content-type".to_owned(),
    };
    Err(ApiError {
        http_status: Some(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        ..ApiError::new(
            Code::InvalidArgument,
            format!("a POST body must be sent with content-type: application/json, not {got}"),
            "INVALID_ARGUMENT",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (header::HeaderName::from_static(k), v.parse().unwrap()))
            .collect()
    }

    #[test]
    fn json_from_no_origin_or_the_own_one_or_a_listed_one_passes() {
        let json = ("content-type", "application/json; charset=utf-8");
        let host = ("host", "127.0.0.1:8080");
        assert!(check_post(&headers(&[json, host]), &[]).is_ok());
        let own = ("origin", "http://127.0.0.1:8080");
        assert!(check_post(&headers(&[json, host, own]), &[]).is_ok());
        let other = ("origin", "https://play.example");
        let allowed = ["https://play.example/".to_owned()];
        assert!(check_post(&headers(&[json, host, other]), &allowed).is_ok());
    }

    #[test]
    fn other_origins_and_other_bodies_are_refused() {
        let host = ("host", "127.0.0.1:8080");
        let json = ("content-type", "application/json");
        let e = check_post(&headers(&[host, ("content-type", "text/plain")]), &[]).unwrap_err();
        assert_eq!(e.status(), 415);
        assert_eq!(e.code, Code::InvalidArgument);
        assert_eq!(
            check_post(&headers(&[host]), &[]).unwrap_err().status(),
            415
        );
        for origin in ["https://evil.example", "null", "http://127.0.0.1:8081"] {
            let e = check_post(&headers(&[host, json, ("origin", origin)]), &[]).unwrap_err();
            assert_eq!(e.status(), 403);
            assert_eq!(e.reason, "ORIGIN_NOT_ALLOWED");
        }
        // The own origin first and another second, or two content types:
        // refused whatever the order.
        let own = ("origin", "http://127.0.0.1:8080");
        let evil = ("origin", "https://evil.example");
        for pair in [[own, evil], [evil, own]] {
            let e = check_post(&headers(&[host, json, pair[0], pair[1]]), &[]).unwrap_err();
            assert_eq!(e.status(), 400);
            assert!(e.message.contains("2 origin headers"), "{}", e.message);
        }
        let plain = ("content-type", "text/plain");
        let e = check_post(&headers(&[host, json, plain]), &[]).unwrap_err();
        assert_eq!(e.status(), 400);
    }

    #[test]
    fn addresses_localhost_and_listed_names_are_answered_and_no_other_host() {
        let listed = ["play.example".to_owned()];
        for host in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "[::1]",
            "10.1.2.3:80",
            "localhost:8080",
            "LOCALHOST.",
            "app.localhost:3000",
            "play.example",
            "Play.Example:443",
            "play.example.:8443",
        ] {
            assert!(
                check_host(&headers(&[("host", host)]), &listed).is_ok(),
                "{host}"
            );
        }
        for host in [
            "evil.example:8080",
            "play.example.evil",
            "localhost.evil",
            "x",
            "",
        ] {
            let e = check_host(&headers(&[("host", host)]), &listed).unwrap_err();
            assert_eq!(e.status(), 421, "{host}");
            assert_eq!(e.reason, "HOST_NOT_ALLOWED");
        }
        assert!(check_host(&headers(&[("host", "evil.example")]), &["*".to_owned()]).is_ok());
        assert!(check_host(&headers(&[]), &[]).is_ok());
        let two = headers(&[("host", "127.0.0.1"), ("host", "evil.example")]);
        assert_eq!(check_host(&two, &[]).unwrap_err().status(), 400);
    }
}
