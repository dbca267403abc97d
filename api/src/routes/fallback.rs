//! What answers a path no route serves.

use actix_web::HttpRequest;

use crate::error::ApiError;

/// Every path no route serves: the same JSON error body as everything else; a 405 naming the
/// methods when the path is a route's and only the method is wrong. The path is the one the
/// router matched on (percent-encoded letters decoded), so every spelling of a route's path
/// gets the same answer.
pub async fn no_route(request: HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    let allowed = crate::access::methods_of_path(request.match_info().as_str());
    if !allowed.is_empty() {
        return Err(ApiError::MethodNotAllowed { allowed });
    }
    Err(ApiError::not_found(
        "no_such_route",
        format!("no route `{}`", request.path()),
    ))
}
