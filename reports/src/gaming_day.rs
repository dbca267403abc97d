//! The casino's gaming day: from a configurable hour in Europe/Prague to the same hour next day.

use chrono::{DateTime, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

#[derive(Debug, Clone, Copy)]
pub struct GamingDayClock {
    pub zone: Tz,
    /// Local hour (0-23) at which a gaming day starts; rounds before it belong to the day before.
    pub start_hour: u32,
    /// A round received more than this long after it was played is late: stored, flagged
    /// `late_record`, and counted in its day's report as a change after the day closed.
    pub late_after: Duration,
}

/// The late-record window unless configured: three days.
pub const DEFAULT_LATE_AFTER_HOURS: u32 = 72;

impl Default for GamingDayClock {
    fn default() -> Self {
        GamingDayClock {
            zone: chrono_tz::Europe::Prague,
            start_hour: 6,
            late_after: Duration::hours(i64::from(DEFAULT_LATE_AFTER_HOURS)),
        }
    }
}

impl GamingDayClock {
    pub fn new(zone: Tz, start_hour: u32) -> Option<GamingDayClock> {
        (start_hour < 24).then_some(GamingDayClock {
            zone,
            start_hour,
            ..GamingDayClock::default()
        })
    }

    /// The same clock with another late-record window (at least one hour).
    pub fn with_late_after_hours(self, hours: u32) -> Option<GamingDayClock> {
        (hours >= 1).then_some(GamingDayClock {
            late_after: Duration::hours(i64::from(hours)),
            ..self
        })
    }

    /// The UTC instant the gaming day `day` starts.
    pub fn start_of(&self, day: NaiveDate) -> DateTime<Utc> {
        let local = day.and_time(NaiveTime::MIN) + Duration::hours(i64::from(self.start_hour));
        match self.zone.from_local_datetime(&local) {
            LocalResult::Single(t) => t.with_timezone(&Utc),
            // Autumn change: the hour happens twice; the day starts at the first one.
            LocalResult::Ambiguous(first, _) => first.with_timezone(&Utc),
            // Spring change: the hour does not exist; start at the next instant that does.
            LocalResult::None => self
                .zone
                .from_local_datetime(&(local + Duration::hours(1)))
                .earliest()
                .map_or_else(|| Utc.from_utc_datetime(&local), |t| t.with_timezone(&Utc)),
        }
    }

    /// `[start, end)` of the gaming day in UTC.
    pub fn bounds(&self, day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
        let next = day.succ_opt().unwrap_or(day);
        (self.start_of(day), self.start_of(next))
    }

    /// The gaming day an instant belongs to.
    pub fn day_of(&self, t: DateTime<Utc>) -> NaiveDate {
        let local = t.with_timezone(&self.zone).naive_local();
        let day = local.date();
        if t < self.start_of(day) {
            day.pred_opt().unwrap_or(day)
        } else {
            day
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn day_runs_from_six_prague_time() {
        let clock = GamingDayClock::default();
        let day = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        // November is CET (UTC+1): 06:00 local = 05:00 UTC.
        assert_eq!(
            clock.bounds(day),
            (utc("2026-11-21T05:00:00Z"), utc("2026-11-22T05:00:00Z"))
        );
        assert_eq!(clock.day_of(utc("2026-11-22T04:59:59Z")), day);
        assert_eq!(
            clock.day_of(utc("2026-11-22T05:00:00Z")),
            day.succ_opt().unwrap()
        );
    }

    #[test]
    fn daylight_saving_days_are_23_and_25_hours() {
        let clock = GamingDayClock::default();
        let spring = NaiveDate::from_ymd_opt(2026, 3, 28).unwrap();
        let (s, e) = clock.bounds(spring);
        assert_eq!(e - s, Duration::hours(23));
        let autumn = NaiveDate::from_ymd_opt(2026, 10, 24).unwrap();
        let (s, e) = clock.bounds(autumn);
        assert_eq!(e - s, Duration::hours(25));
    }
}
