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

    /// A gaming day as people name it: `YYYY-MM-DD`, `today`, or `yesterday` and `last` (the
    /// last gaming day that has closed), relative to `now`.
    pub fn parse_day(&self, text: &str, now: DateTime<Utc>) -> Result<NaiveDate, String> {
        let today = self.day_of(now);
        match text {
            "today" => Ok(today),
            "yesterday" | "last" => Ok(today.pred_opt().unwrap_or(today)),
            other => NaiveDate::parse_from_str(other, "%Y-%m-%d").map_err(|_| {
                format!("`{other}` is not a day: YYYY-MM-DD, today, yesterday or last")
            }),
        }
    }

    /// A month as people name it: `YYYY-MM`, `this` (the month of today's gaming day) or
    /// `last` (the one before it), relative to `now`.
    pub fn parse_month(&self, text: &str, now: DateTime<Utc>) -> Result<Month, String> {
        let this = Month::of(self.day_of(now));
        match text {
            "this" => Ok(this),
            "last" => Ok(this.previous()),
            other => Month::parse(other)
                .ok_or_else(|| format!("`{other}` is not a month: YYYY-MM, this or last")),
        }
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

/// A calendar month, `YYYY-MM`: the gaming days that start in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    first_day: NaiveDate,
}

impl Month {
    pub fn new(year: i32, month: u32) -> Option<Month> {
        NaiveDate::from_ymd_opt(year, month, 1).map(|first_day| Month { first_day })
    }

    /// Reads `YYYY-MM`.
    pub fn parse(text: &str) -> Option<Month> {
        let (year, month) = text.split_once('-')?;
        if year.len() != 4 || month.len() != 2 {
            return None;
        }
        Month::new(year.parse().ok()?, month.parse().ok()?)
    }

    /// The month `day` is in.
    pub fn of(day: NaiveDate) -> Month {
        Month {
            first_day: day - Duration::days(i64::from(chrono::Datelike::day(&day)) - 1),
        }
    }

    /// The month before.
    pub fn previous(self) -> Month {
        Month::of(self.first_day.pred_opt().unwrap_or(self.first_day))
    }

    pub fn first_day(self) -> NaiveDate {
        self.first_day
    }

    /// The first day of the next month.
    pub fn next_first_day(self) -> NaiveDate {
        self.first_day
            .checked_add_months(chrono::Months::new(1))
            .unwrap_or(self.first_day)
    }

    pub fn year(self) -> i32 {
        chrono::Datelike::year(&self.first_day)
    }

    pub fn month(self) -> u32 {
        chrono::Datelike::month(&self.first_day)
    }

    /// `YYYYMM`, as in the Ministry's package names.
    pub fn compact(self) -> String {
        format!("{:04}{:02}", self.year(), self.month())
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year(), self.month())
    }
}

impl GamingDayClock {
    /// `[start, end)` of the month's gaming days in UTC: from the start of its first gaming day
    /// to the start of the next month's first.
    pub fn month_bounds(&self, month: Month) -> (DateTime<Utc>, DateTime<Utc>) {
        (
            self.start_of(month.first_day()),
            self.start_of(month.next_first_day()),
        )
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
    fn days_are_named_by_date_or_by_word() {
        let clock = GamingDayClock::default();
        // 26 November 2026, 05:30 Prague (04:30 UTC) is still gaming day 25 November.
        let now = utc("2026-11-26T04:30:00Z");
        let day = |text| clock.parse_day(text, now);
        assert_eq!(
            day("today"),
            Ok(NaiveDate::from_ymd_opt(2026, 11, 25).unwrap())
        );
        assert_eq!(
            day("yesterday"),
            Ok(NaiveDate::from_ymd_opt(2026, 11, 24).unwrap())
        );
        assert_eq!(day("last"), day("yesterday"));
        assert_eq!(
            day("2026-10-05"),
            Ok(NaiveDate::from_ymd_opt(2026, 10, 5).unwrap())
        );
        assert!(day("5.10.2026").is_err_and(|m| m.contains("YYYY-MM-DD, today")));
    }

    #[test]
    fn a_month_runs_from_its_first_gaming_day_to_the_next_months_first() {
        let clock = GamingDayClock::default();
        let october = Month::parse("2026-10").unwrap();
        assert_eq!(october.compact(), "202610");
        assert_eq!(october.to_string(), "2026-10");
        // 1 October is CEST (UTC+2): 06:00 local = 04:00 UTC; 1 November is CET (UTC+1).
        assert_eq!(
            clock.month_bounds(october),
            (utc("2026-10-01T04:00:00Z"), utc("2026-11-01T05:00:00Z"))
        );
        let day = NaiveDate::from_ymd_opt(2026, 10, 17).unwrap();
        assert_eq!(Month::of(day), october);
        assert_eq!(Month::of(day).previous(), Month::parse("2026-09").unwrap());
        assert_eq!(
            Month::parse("2026-01").unwrap().previous(),
            Month::parse("2025-12").unwrap()
        );
        let december = Month::parse("2026-12").unwrap();
        assert_eq!(december.next_first_day().to_string(), "2027-01-01");
        for bad in ["2026-13", "2026-1", "26-10", "2026/10", "", "2026-00"] {
            assert_eq!(Month::parse(bad), None, "{bad}");
        }
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
