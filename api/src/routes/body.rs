//! Request bodies: read within the budget of all bodies in flight, within a time, and counted
//! as they are parsed.

use std::time::Duration;

use actix_web::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use actix_web::web::{self, Bytes, BytesMut};
use actix_web::HttpRequest;
use futures_util::StreamExt as _;

use crate::error::ApiError;
use crate::in_flight::{Body, InFlight};

/// How long a client may take to send a request body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Refuses a body that is not declared `application/json` (parameters such as `charset` aside).
pub fn require_json(request: &HttpRequest) -> Result<(), ApiError> {
    let declared = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim);
    match declared {
        Some(t) if t.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err(ApiError::UnsupportedMediaType),
    }
}

/// Reads a JSON request body, refusing more than `limit` bytes or a body that takes longer
/// than [`BODY_TIMEOUT`] to arrive. Its bytes are held within the budget of all bodies in
/// flight: room for the declared length (the whole `limit` when none is declared) is taken
/// before anything is read, waiting a little when the budget is spent, then `server_busy`.
pub async fn read_json_body(
    request: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> Result<Body, ApiError> {
    require_json(request)?;
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(length) = declared {
        if length > limit {
            return Err(ApiError::TooLarge { limit });
        }
    }
    let in_flight = request
        .app_data::<std::sync::Arc<InFlight>>()
        .ok_or_else(|| ApiError::internal("the in-flight limits are not registered"))?;
    let expected = declared.unwrap_or(limit);
    let room = in_flight.reserve_body(expected).await?;
    let bytes = actix_web::rt::time::timeout(BODY_TIMEOUT, read_body(payload, limit, expected))
        .await
        .map_err(|_| ApiError::RequestTimeout {
            seconds: BODY_TIMEOUT.as_secs(),
        })??;
    Ok(Body::new(bytes, room))
}

/// The body, at most `limit` bytes; `expected` of them are allocated at once (the room held
/// for them), so a body read to its declared length never grows its buffer.
async fn read_body(
    mut payload: web::Payload,
    limit: usize,
    expected: usize,
) -> Result<Bytes, ApiError> {
    let mut body = BytesMut::with_capacity(expected.min(limit));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::bad_request("unreadable_body", e.to_string()))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// A JSON array's items as text, refused once it holds more than `most`: the items are counted
/// as they are read, so a body of millions of tiny items never becomes a list of millions.
pub fn bounded_array(
    body: &[u8],
    most: usize,
) -> Result<Vec<&serde_json::value::RawValue>, BoundedArrayError> {
    use serde::de::{Deserializer as _, Error as _, SeqAccess, Visitor};
    struct Items<'f> {
        most: usize,
        too_many: &'f std::cell::Cell<bool>,
    }
    impl<'de> Visitor<'de> for Items<'_> {
        type Value = Vec<&'de serde_json::value::RawValue>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON array")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                if items.len() == self.most {
                    // Stops reading here; the parser's own error is not the reason.
                    self.too_many.set(true);
                    return Err(A::Error::custom("too many items"));
                }
                items.push(item);
            }
            Ok(items)
        }
    }
    let too_many = std::cell::Cell::new(false);
    let mut reader = serde_json::Deserializer::from_slice(body);
    let read = reader
        .deserialize_seq(Items {
            most,
            too_many: &too_many,
        })
        .and_then(|items| reader.end().map(|()| items));
    match read {
        Ok(items) => Ok(items),
        Err(_) if too_many.get() => Err(BoundedArrayError::TooMany),
        Err(e) => Err(BoundedArrayError::Json(e)),
    }
}

/// Why [`bounded_array`] refused.
#[derive(Debug, thiserror::Error)]
pub enum BoundedArrayError {
    #[error("{0}")]
    Json(serde_json::Error),
    #[error("more items than allowed")]
    TooMany,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_is_counted_as_it_is_read() {
        let items = bounded_array(br#"[{"a":1}, 2 ,"x"]"#, 3).unwrap();
        let texts: Vec<&str> = items.iter().map(|i| i.get()).collect();
        assert_eq!(texts, [r#"{"a":1}"#, "2", r#""x""#]);
        assert!(matches!(
            bounded_array(b"[1,2,3,4]", 3),
            Err(BoundedArrayError::TooMany)
        ));
        // Refused at the item past the limit, before the malformed rest is read.
        assert!(matches!(
            bounded_array(b"[1,2,3,4,!!!", 3),
            Err(BoundedArrayError::TooMany)
        ));
        for malformed in [&b"{}"[..], b"[1,2", b"[1] 2", b""] {
            assert!(matches!(
                bounded_array(malformed, 3),
                Err(BoundedArrayError::Json(_))
            ));
        }
    }
}
