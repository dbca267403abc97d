//! Text in paths and queries: a path parameter or query parameter holding a control character
//! (a NUL, a line break) or bytes that are not UTF-8 is refused with a 400 naming it, on every
//! route, before a handler sees it. No id, date or filter of dozor holds such text, PostgreSQL
//! cannot store a NUL, and the rest has no place in a log line.

use actix_web::HttpRequest;
use percent_encoding::percent_decode_str;

use crate::error::ApiError;

/// Refuses the request if a parameter of its path or query holds a control character.
pub fn check(request: &HttpRequest) -> Result<(), ApiError> {
    for (name, raw) in request.match_info().iter() {
        let decoded = percent_decode_str(raw).decode_utf8();
        let fine = decoded.is_ok_and(|value| !value.chars().any(unreadable));
        if !fine {
            return Err(refusal("invalid_path", "path", name));
        }
    }
    for (name, value) in form_urlencoded::parse(request.query_string().as_bytes()) {
        if name.chars().any(unreadable) || value.chars().any(unreadable) {
            return Err(refusal("invalid_query", "query", &name));
        }
    }
    Ok(())
}

/// A control character, or U+FFFD: what bytes that are not UTF-8 are read as (no parameter
/// of dozor holds it either).
fn unreadable(c: char) -> bool {
    c.is_control() || c == '\u{FFFD}'
}

fn refusal(code: &'static str, place: &str, name: &str) -> ApiError {
    let name: String = name
        .chars()
        .flat_map(char::escape_debug)
        .take(crate::error::MAX_QUOTED_CHARS)
        .collect();
    ApiError::BadRequest {
        code,
        message: format!(
            "the {place} parameter `{name}` holds a control character or bytes that are not UTF-8"
        ),
        details: serde_json::json!({ "parameter": name }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn checked(uri: &str) -> Result<(), String> {
        let request = TestRequest::get().uri(uri).to_http_request();
        check(&request).map_err(|e| e.body().details["parameter"].to_string())
    }

    #[test]
    fn control_characters_in_a_query_are_refused_naming_the_parameter() {
        assert_eq!(checked("/x?table_id=R01&day=2026-11-20"), Ok(()));
        assert_eq!(checked("/x?name=%C5%BEeton"), Ok(()));
        assert_eq!(
            checked("/x?day=2026&table_id=%00"),
            Err("\"table_id\"".into())
        );
        assert_eq!(checked("/x?table_id=R%0A01"), Err("\"table_id\"".into()));
        assert_eq!(checked("/x?t=%FF"), Err("\"t\"".into()));
        assert_eq!(checked("/x?a%00b=1"), Err("\"a\\\\0b\"".into()));
        let routed = |uri: &str| {
            let mut request = TestRequest::get().uri(uri).to_srv_request();
            let pattern = actix_web::dev::ResourceDef::new("/tables/{table_id}");
            assert!(pattern.capture_match_info(request.match_info_mut()));
            check(request.request()).map_err(|e| e.body().details["parameter"].to_string())
        };
        assert_eq!(routed("/tables/R01"), Ok(()));
        for bad in [
            "/tables/%00",
            "/tables/R%0A1",
            "/tables/%FF",
            "/tables/%E2%80",
        ] {
            assert_eq!(routed(bad), Err("\"table_id\"".into()), "{bad}");
        }
    }
}
