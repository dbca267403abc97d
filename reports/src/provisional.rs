//! A month not yet over is reported as provisional: its figures still change, and every
//! report of it says so.

use chrono::{DateTime, Utc};

/// The note a report of `month` carries while its last gaming day (ending at `ends_at`) has
/// not ended at `now`; none once it has.
pub fn month_note(month: &str, ends_at: DateTime<Utc>, now: DateTime<Utc>) -> Option<String> {
    (now < ends_at).then(|| {
        format!(
            "provisional: the month {month} is not over (its last gaming day ends at {ends_at}); the figures still change"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_month_is_provisional_until_its_last_gaming_day_ends() {
        let ends_at: DateTime<Utc> = "2026-12-01T05:00:00Z".parse().unwrap();
        let before: DateTime<Utc> = "2026-12-01T04:59:59Z".parse().unwrap();
        assert_eq!(
            month_note("2026-11", ends_at, before).as_deref(),
            Some("provisional: the month 2026-11 is not over (its last gaming day ends at 2026-12-01 05:00:00 UTC); the figures still change")
        );
        assert_eq!(month_note("2026-11", ends_at, ends_at), None);
    }
}
