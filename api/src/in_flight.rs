//! What the server holds for all requests in flight, bounded whatever their number: the bytes
//! of the request bodies being read or handled (one budget for all of them, not only a limit
//! per request), and the files (CSV, XLSX) and inspection exports being made at once.
//!
//! A request that would go beyond a bound waits a little for room, without reading anything
//! more of its body, and is then answered 503 `server_busy` with `Retry-After`.

use std::sync::Arc;
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// How many bytes and files the server holds at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlightLimits {
    /// Bytes of request bodies all requests in flight hold at once.
    pub body_budget_bytes: usize,
    /// Files and exports made at once.
    pub file_downloads: usize,
}

impl Default for InFlightLimits {
    fn default() -> Self {
        InFlightLimits {
            // Eight full batches (16 MiB each) at once.
            body_budget_bytes: 128 << 20,
            // One per core of a small server: a file of 100 000 findings takes one for seconds.
            file_downloads: 2,
        }
    }
}

/// How long a body waits for room in the budget before it is refused.
pub const BODY_WAIT: Duration = Duration::from_secs(10);
/// How long a file waits for its turn before it is refused.
pub const FILE_WAIT: Duration = Duration::from_secs(60);

/// The bounds, shared by every worker.
#[derive(Debug)]
pub struct InFlight {
    limits: InFlightLimits,
    body_bytes: Arc<Semaphore>,
    files: Arc<Semaphore>,
    body_wait: Duration,
}

impl InFlight {
    pub fn new(limits: InFlightLimits) -> Arc<InFlight> {
        InFlight::waiting(limits, BODY_WAIT)
    }

    /// With bodies waiting `body_wait` for room.
    pub fn waiting(limits: InFlightLimits, body_wait: Duration) -> Arc<InFlight> {
        let bytes = limits.body_budget_bytes.min(Semaphore::MAX_PERMITS);
        Arc::new(InFlight {
            limits,
            body_bytes: Arc::new(Semaphore::new(bytes)),
            files: Arc::new(Semaphore::new(limits.file_downloads.max(1))),
            body_wait,
        })
    }

    pub fn limits(&self) -> InFlightLimits {
        self.limits
    }

    /// Bytes of the budget free now.
    pub fn body_bytes_free(&self) -> usize {
        self.body_bytes.available_permits()
    }

    /// Room for `bytes` of a body, waiting up to [`BODY_WAIT`] for it.
    pub async fn reserve_body(&self, bytes: usize) -> Result<BodyRoom, ApiError> {
        let busy = || ApiError::Busy {
            message: "the server holds as many request bodies as it may",
            retry_after_seconds: 1,
        };
        if bytes == 0 {
            return Ok(BodyRoom(None));
        }
        if bytes > self.limits.body_budget_bytes {
            return Err(busy());
        }
        let permits = u32::try_from(bytes).map_err(|_| busy())?;
        let acquired = tokio::time::timeout(
            self.body_wait,
            Arc::clone(&self.body_bytes).acquire_many_owned(permits),
        )
        .await;
        match acquired {
            Ok(Ok(permit)) => Ok(BodyRoom(Some(permit))),
            _ => Err(busy()),
        }
    }

    /// A turn to make a file, waiting up to [`FILE_WAIT`].
    async fn file_turn(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        match tokio::time::timeout(FILE_WAIT, Arc::clone(&self.files).acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(ApiError::Busy {
                message: "the server is making as many files and exports as it may at once",
                retry_after_seconds: 10,
            }),
        }
    }
}

/// Bytes of the budget held for one body; given back when dropped.
#[derive(Debug)]
pub struct BodyRoom(Option<OwnedSemaphorePermit>);

impl BodyRoom {
    /// Keeps `bytes` of the room and gives the rest back.
    pub fn shrink_to(&mut self, bytes: usize) {
        if let Some(permit) = &mut self.0 {
            let spare = permit.num_permits().saturating_sub(bytes);
            drop(permit.split(spare));
        }
    }
}

/// A request body read within the budget: its bytes count against the budget as long as it is
/// held.
#[derive(Debug)]
pub struct Body {
    bytes: Bytes,
    _room: BodyRoom,
}

impl Body {
    pub fn new(bytes: Bytes, mut room: BodyRoom) -> Body {
        room.shrink_to(bytes.len());
        Body { bytes, _room: room }
    }
}

impl std::ops::Deref for Body {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// Whether a request makes a file: a list or report asked as CSV or XLSX, or an export.
fn makes_a_file(request: &ServiceRequest) -> bool {
    if request.method() != Method::GET {
        return false;
    }
    let export = format!("{}/exports", crate::paths::API_PREFIX);
    if request.path().starts_with(&export) {
        return true;
    }
    form_urlencoded::parse(request.query_string().as_bytes())
        .any(|(key, value)| key == "format" && value != "json")
}

/// Around the routes: a file or an export waits for its turn among [`InFlightLimits::file_downloads`].
pub async fn files_in_turn(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if !makes_a_file(&request) {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let Some(in_flight) = request.app_data::<Arc<InFlight>>().cloned() else {
        let refusal = ApiError::internal("the in-flight limits are not registered");
        return Ok(request.error_response(refusal).map_into_right_body());
    };
    let turn = match in_flight.file_turn().await {
        Ok(turn) => turn,
        Err(busy) => return Ok(request.error_response(busy).map_into_right_body()),
    };
    // The file is made by the handler; what it answers is the finished file or a stream that
    // holds a few chunks, so the turn ends with the handler.
    let response = next.call(request).await;
    drop(turn);
    Ok(response?.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bodies_share_one_budget_and_give_it_back() {
        let in_flight = InFlight::new(InFlightLimits {
            body_budget_bytes: 1000,
            file_downloads: 1,
        });
        let first = in_flight.reserve_body(600).await.unwrap();
        assert_eq!(in_flight.body_bytes_free(), 400);
        // A body that read less than it reserved keeps only what it holds.
        let body = Body::new(Bytes::from(vec![1u8; 100]), first);
        assert_eq!(in_flight.body_bytes_free(), 900);
        assert_eq!(&body[..3], &[1, 1, 1]);
        // More than the whole budget is refused at once, with Retry-After.
        let refused = in_flight.reserve_body(1001).await.unwrap_err();
        assert!(matches!(
            refused,
            ApiError::Busy {
                retry_after_seconds: 1,
                ..
            }
        ));
        drop(body);
        assert_eq!(in_flight.body_bytes_free(), 1000);
    }

    #[tokio::test]
    async fn a_body_waits_for_room_then_is_refused() {
        let wait = Duration::from_millis(400);
        let in_flight = InFlight::waiting(
            InFlightLimits {
                body_budget_bytes: 1000,
                file_downloads: 1,
            },
            wait,
        );
        let held = in_flight.reserve_body(800).await.unwrap();
        // Room comes back while the second waits: it gets it.
        let waiting = {
            let in_flight = Arc::clone(&in_flight);
            tokio::spawn(async move { in_flight.reserve_body(500).await.map(|_| ()) })
        };
        tokio::time::sleep(wait / 4).await;
        drop(held);
        waiting.await.unwrap().unwrap();
        // No room within the wait: refused.
        let _held = in_flight.reserve_body(800).await.unwrap();
        let started = std::time::Instant::now();
        assert!(in_flight.reserve_body(500).await.is_err());
        assert!(started.elapsed() >= wait);
    }
}
