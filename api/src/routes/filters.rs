//! Query parameters several routes read alike: a game, a gaming day, a month.

use chrono::NaiveDate;
use rules::gaming_day::{GamingDayClock, Month};

use crate::error::ApiError;

/// A game filter names a game dozor knows: an unknown one is a mistake to point out, not a
/// filter that silently matches nothing.
pub fn game_filter(game: Option<String>) -> Result<Option<String>, ApiError> {
    match game {
        Some(code) if rules::GameCode::parse(&code).is_none() => Err(ApiError::bad_request(
            "invalid_query",
            format!("unknown game `{code}`"),
        )),
        other => Ok(other),
    }
}

/// A gaming day as the query names it (a date or a word), by the server's clock.
pub fn gaming_day(clock: &GamingDayClock, text: &str) -> Result<NaiveDate, ApiError> {
    clock
        .parse_day(text, chrono::Utc::now())
        .map_err(|m| ApiError::bad_request("invalid_query", format!("day: {m}")))
}

/// A month as the query names it (`YYYY-MM`, `this`, `last`), by the server's clock.
pub fn month(clock: &GamingDayClock, text: &str) -> Result<Month, ApiError> {
    clock
        .parse_month(text, chrono::Utc::now())
        .map_err(|m| ApiError::bad_request("invalid_query", format!("month: {m}")))
}
