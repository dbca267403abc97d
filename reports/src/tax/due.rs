//! When the quarter's tax return is filed and its tax paid.
//!
//! § 9 of zákon č. 187/2016 Sb.: the return is filed within 25 days after the end of the tax
//! period (a calendar quarter, § 6); under § 135 odst. 3 of the daňový řád (zákon č. 280/2009
//! Sb.) the tax is due on the last day of that time limit. § 33 odst. 4 of the daňový řád: a time limit that ends on
//! a Saturday, a Sunday or a public holiday ends on the next working day.

use chrono::{Datelike, Duration, NaiveDate, Weekday};

use super::quarter::Quarter;

/// Days after the end of the quarter within which the return is filed and the tax paid.
pub const DAYS_AFTER_QUARTER: i64 = 25;

/// The last day to file the quarter's return and pay its tax.
pub fn due_date(quarter: Quarter) -> NaiveDate {
    next_working_day(quarter.last_day() + Duration::days(DAYS_AFTER_QUARTER))
}

/// `day` itself if it is a working day, else the first working day after it.
pub fn next_working_day(mut day: NaiveDate) -> NaiveDate {
    while !is_working_day(day) {
        match day.succ_opt() {
            Some(next) => day = next,
            None => break,
        }
    }
    day
}

pub fn is_working_day(day: NaiveDate) -> bool {
    !matches!(day.weekday(), Weekday::Sat | Weekday::Sun) && !is_public_holiday(day)
}

/// A Czech public holiday (zákon č. 245/2000 Sb., o státních svátcích …): the state holidays
/// and the other holidays, Good Friday included from 2016.
pub fn is_public_holiday(day: NaiveDate) -> bool {
    const FIXED: [(u32, u32); 11] = [
        (1, 1),   // Den obnovy samostatného českého státu; Nový rok
        (5, 1),   // Svátek práce
        (5, 8),   // Den vítězství
        (7, 5),   // Den slovanských věrozvěstů Cyrila a Metoděje
        (7, 6),   // Den upálení mistra Jana Husa
        (9, 28),  // Den české státnosti
        (10, 28), // Den vzniku samostatného československého státu
        (11, 17), // Den boje za svobodu a demokracii
        (12, 24), // Štědrý den
        (12, 25), // 1. svátek vánoční
        (12, 26), // 2. svátek vánoční
    ];
    if FIXED.contains(&(day.month(), day.day())) {
        return true;
    }
    let Some(easter) = easter_sunday(day.year()) else {
        return false;
    };
    let good_friday = day.year() >= 2016 && day == easter - Duration::days(2);
    good_friday || day == easter + Duration::days(1)
}

/// Easter Sunday of the Gregorian calendar (the anonymous Gregorian algorithm).
pub fn easter_sunday(year: i32) -> Option<NaiveDate> {
    let a = year.rem_euclid(19);
    let b = year.div_euclid(100);
    let c = year.rem_euclid(100);
    let (d, e) = (b / 4, b % 4);
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15).rem_euclid(30);
    let (i, k) = (c / 4, c % 4);
    let l = (32 + 2 * e + 2 * i - h - k).rem_euclid(7);
    let m = (a + 11 * h + 22 * l) / 451;
    let n = h + l - 7 * m + 114;
    NaiveDate::from_ymd_opt(
        year,
        u32::try_from(n / 31).ok()?,
        u32::try_from(n % 31 + 1).ok()?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tax::tests::day;

    #[test]
    fn easter_falls_where_the_calendars_say() {
        for (year, sunday) in [
            (2011, "2011-04-24"),
            (2019, "2019-04-21"),
            (2024, "2024-03-31"),
            (2025, "2025-04-20"),
            (2026, "2026-04-05"),
            (2038, "2038-04-25"),
        ] {
            assert_eq!(easter_sunday(year), Some(day(sunday)), "{year}");
        }
        assert!(is_public_holiday(day("2026-04-03")), "Good Friday");
        assert!(is_public_holiday(day("2026-04-06")), "Easter Monday");
        assert!(
            !is_public_holiday(day("2026-04-05")),
            "Easter Sunday is a Sunday anyway"
        );
        // Good Friday became a holiday in 2016.
        assert!(!is_public_holiday(day("2015-04-03")));
        assert!(is_public_holiday(day("2016-03-25")));
        assert!(is_public_holiday(day("2026-10-28")));
        assert!(!is_public_holiday(day("2026-10-27")));
    }

    #[test]
    fn the_25th_day_after_the_quarter_moves_past_weekends_and_holidays() {
        let due = |q: &str| due_date(Quarter::parse(q).unwrap());
        // 25 April 2025 is a Friday.
        assert_eq!(due("2025Q1"), day("2025-04-25"));
        // 25 October 2026 is a Sunday: Monday the 26th.
        assert_eq!(due("2026Q3"), day("2026-10-26"));
        // 25 July 2026 is a Saturday: Monday the 27th.
        assert_eq!(due("2026Q2"), day("2026-07-27"));
        // 25 January 2027 is a Monday.
        assert_eq!(due("2026Q4"), day("2027-01-25"));
        // 25 April 2011 was Easter Monday: Tuesday the 26th.
        assert_eq!(due("2011Q1"), day("2011-04-26"));
        // 25 April 2038 is Easter Sunday and the 26th Easter Monday: Tuesday the 27th.
        assert_eq!(due("2038Q1"), day("2038-04-27"));
    }
}
