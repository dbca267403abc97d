//! A calendar quarter, `YYYYQn`: the tax period of the gambling tax (§ 6 of zákon č. 187/2016
//! Sb.), cut like a month into the casino's gaming days.

use chrono::{DateTime, Datelike, Months, NaiveDate, Utc};

use rules::gaming_day::GamingDayClock;

/// A calendar quarter: the gaming days that start in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quarter {
    first_day: NaiveDate,
}

impl Quarter {
    /// Quarter `n` (1-4) of `year`.
    pub fn new(year: i32, n: u32) -> Option<Quarter> {
        if !(1..=4).contains(&n) {
            return None;
        }
        NaiveDate::from_ymd_opt(year, 3 * n - 2, 1).map(|first_day| Quarter { first_day })
    }

    /// Reads `YYYYQn` (`q` also accepted), e.g. `2026Q3`.
    pub fn parse(text: &str) -> Option<Quarter> {
        let (year, n) = text.split_once(['Q', 'q'])?;
        let digits = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(year, 4) || !digits(n, 1) {
            return None;
        }
        Quarter::new(year.parse().ok()?, n.parse().ok()?)
    }

    /// A quarter as people name it: `YYYYQn`, `this` (the quarter of today's gaming day) or
    /// `last` (the one before it), relative to `now`.
    pub fn parse_named(
        text: &str,
        clock: &GamingDayClock,
        now: DateTime<Utc>,
    ) -> Result<Quarter, String> {
        let this = Quarter::of(clock.day_of(now));
        match text {
            "this" => Ok(this),
            "last" => Ok(this.previous()),
            other => Quarter::parse(other).ok_or_else(|| {
                format!("`{other}` is not a quarter: YYYYQn (e.g. 2026Q3), this or last")
            }),
        }
    }

    /// The quarter `day` is in.
    pub fn of(day: NaiveDate) -> Quarter {
        let n = (day.month() - 1) / 3 + 1;
        // Every year chrono represents has four quarters.
        Quarter::new(day.year(), n).unwrap_or(Quarter { first_day: day })
    }

    /// The quarter before.
    pub fn previous(self) -> Quarter {
        Quarter::of(self.first_day.pred_opt().unwrap_or(self.first_day))
    }

    pub fn year(self) -> i32 {
        self.first_day.year()
    }

    /// 1-4.
    pub fn number(self) -> u32 {
        (self.first_day.month() - 1) / 3 + 1
    }

    pub fn first_day(self) -> NaiveDate {
        self.first_day
    }

    /// The first day of the next quarter.
    pub fn next_first_day(self) -> NaiveDate {
        self.first_day
            .checked_add_months(Months::new(3))
            .unwrap_or(self.first_day)
    }

    /// The quarter's last calendar day (and last gaming day).
    pub fn last_day(self) -> NaiveDate {
        self.next_first_day().pred_opt().unwrap_or(self.first_day)
    }

    /// `[start, end)` of the quarter's gaming days in UTC: from the start of its first gaming
    /// day to the start of the next quarter's first.
    pub fn bounds(self, clock: &GamingDayClock) -> (DateTime<Utc>, DateTime<Utc>) {
        (
            clock.start_of(self.first_day),
            clock.start_of(self.next_first_day()),
        )
    }
}

impl std::fmt::Display for Quarter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}Q{}", self.year(), self.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tax::tests::day;

    #[test]
    fn quarters_parse_display_and_bound_their_days() {
        let q3 = Quarter::parse("2026Q3").unwrap();
        assert_eq!(q3.to_string(), "2026Q3");
        assert_eq!(Quarter::parse("2026q3"), Some(q3));
        assert_eq!((q3.year(), q3.number()), (2026, 3));
        assert_eq!(q3.first_day(), day("2026-07-01"));
        assert_eq!(q3.last_day(), day("2026-09-30"));
        assert_eq!(q3.next_first_day(), day("2026-10-01"));
        let q4 = Quarter::parse("2026Q4").unwrap();
        assert_eq!(q4.next_first_day(), day("2027-01-01"));
        assert_eq!(q4.last_day(), day("2026-12-31"));
        assert_eq!(Quarter::parse("2027Q1").unwrap().previous(), q4);
        assert_eq!(q4.previous(), q3);
        assert_eq!(Quarter::of(day("2026-09-30")), q3);
        assert_eq!(Quarter::of(day("2026-10-01")), q4);
        assert_eq!(Quarter::of(day("2026-01-01")).to_string(), "2026Q1");
        for bad in [
            "2026Q0", "2026Q5", "2026Q", "26Q3", "2026-Q3", "2026Q33", "Q3", "", "2026 Q3",
            "+026Q3", "2026Q3 ",
        ] {
            assert_eq!(Quarter::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_quarter_runs_from_its_first_gaming_day_to_the_next_quarters_first() {
        let clock = GamingDayClock::default();
        let utc = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        // 1 July is CEST (06:00 = 04:00 UTC); 1 October too.
        assert_eq!(
            Quarter::parse("2026Q3").unwrap().bounds(&clock),
            (utc("2026-07-01T04:00:00Z"), utc("2026-10-01T04:00:00Z"))
        );
        // 1 January is CET (06:00 = 05:00 UTC); 1 April is CEST.
        assert_eq!(
            Quarter::parse("2027Q1").unwrap().bounds(&clock),
            (utc("2027-01-01T05:00:00Z"), utc("2027-04-01T04:00:00Z"))
        );
    }
}
