//! What the view's figures are written with: a month of gaming days in Prague time, and how
//! Czech writes numbers, amounts, ages and moments. RTP against theory and z are the alerts'
//! computation (`alerts::rtp`), so the page shows the figure an alert is raised on.

use chrono::{DateTime, Datelike, NaiveDate, Utc};

/// A calendar month of gaming days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Month {
    pub year: i32,
    pub month: u32,
}

impl Month {
    /// The month `at` falls in, in Prague.
    pub fn of(at: DateTime<Utc>) -> Month {
        let prague = at.with_timezone(&chrono_tz::Europe::Prague);
        Month {
            year: prague.year(),
            month: prague.month(),
        }
    }

    /// `2026-11`; none for anything else.
    pub fn parse(text: &str) -> Option<Month> {
        let (year, month) = text.split_once('-')?;
        if year.len() != 4 || month.len() != 2 {
            return None;
        }
        let month = Month {
            year: year.parse().ok()?,
            month: month.parse().ok()?,
        };
        month.first_day().map(|_| month)
    }

    pub fn first_day(self) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(self.year, self.month, 1)
    }

    /// The last day of the month.
    pub fn last_day(self) -> Option<NaiveDate> {
        self.next().first_day()?.pred_opt()
    }

    pub fn next(self) -> Month {
        match self.month {
            12 => Month {
                year: self.year + 1,
                month: 1,
            },
            m => Month {
                year: self.year,
                month: m + 1,
            },
        }
    }

    pub fn previous(self) -> Month {
        match self.month {
            1 => Month {
                year: self.year - 1,
                month: 12,
            },
            m => Month {
                year: self.year,
                month: m - 1,
            },
        }
    }

    pub fn contains(self, day: NaiveDate) -> bool {
        day.year() == self.year && day.month() == self.month
    }

    /// `listopad 2026`.
    pub fn czech(self) -> String {
        const NAMES: [&str; 12] = [
            "leden",
            "únor",
            "březen",
            "duben",
            "květen",
            "červen",
            "červenec",
            "srpen",
            "září",
            "říjen",
            "listopad",
            "prosinec",
        ];
        let name = NAMES
            .get(self.month.saturating_sub(1) as usize)
            .copied()
            .unwrap_or("");
        format!("{name} {}", self.year)
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// `v` rounded to `places` decimals (what the JSON and the CSV carry of a statistic).
pub fn rounded(v: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (v * scale).round() / scale
}

/// A count as Czech writes it: `1 251` (a no-break space).
pub fn count(n: i64) -> String {
    rules::money::group_thousands(n, "\u{a0}")
}

/// A decimal with `places` places and a decimal comma.
pub fn decimal(v: f64, places: usize) -> String {
    format!("{v:.places$}").replace('.', ",")
}

/// z with its sign and a decimal comma: `+1,23`.
pub fn signed(v: f64) -> String {
    format!("{v:+.2}").replace('.', ",")
}

/// How long ago, as Czech says it: `45 s`, `12 min`, `3 h 20 min`, `2 d 4 h`.
pub fn age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 86_400 => format!("{} h {} min", s / 3600, s % 3600 / 60),
        s => format!("{} d {} h", s / 86_400, s % 86_400 / 3600),
    }
}

/// A moment in Prague time as Czech writes it: `20. 11. 2026 11:00:00`.
pub fn prague(t: DateTime<Utc>) -> String {
    t.with_timezone(&chrono_tz::Europe::Prague)
        .format("%-d. %-m. %Y %H:%M:%S")
        .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_month_is_read_written_and_bounded_in_prague() {
        let m = Month::parse("2026-11").unwrap();
        assert_eq!(m.to_string(), "2026-11");
        assert_eq!(m.czech(), "listopad 2026");
        assert_eq!(m.last_day(), NaiveDate::from_ymd_opt(2026, 11, 30));
        assert_eq!(
            Month::parse("2026-12").unwrap().next().to_string(),
            "2027-01"
        );
        assert_eq!(
            Month::parse("2026-01").unwrap().previous().to_string(),
            "2025-12"
        );
        for bad in ["2026-13", "2026-1", "26-11", "x", "2026-11-01"] {
            assert_eq!(Month::parse(bad), None, "{bad}");
        }
        // 23:30 UTC on 31 October is already November in Prague (UTC+1).
        let at = DateTime::parse_from_rfc3339("2026-10-31T23:30:00Z").unwrap();
        assert_eq!(Month::of(at.with_timezone(&Utc)).to_string(), "2026-11");
    }

    #[test]
    fn numbers_are_written_as_czech_writes_them() {
        assert_eq!(rounded(97.297_297, 4), 97.2973);
        assert_eq!(signed(-1.666), "-1,67");
        assert_eq!(count(1_251), "1\u{a0}251");
        assert_eq!(age(12_000), "3 h 20 min");
    }
}
