//! How values are written in the Ministry's files: money with a decimal comma, date-times in
//! Prague time with exactly one fractional digit and the offset, dates as `YYYY-MM-DD`.

use chrono::{DateTime, NaiveDate, Timelike as _, Utc};
use chrono_tz::Europe::Prague;

/// Haléře as koruna with a decimal comma and two places: `-1234,05`.
pub fn money(amount_h: i64) -> String {
    let sign = if amount_h < 0 { "-" } else { "" };
    let abs = amount_h.unsigned_abs();
    format!("{sign}{},{:02}", abs / 100, abs % 100)
}

/// An instant in Prague time: `2026-10-01T18:00:00.0+02:00` (tenths of a second, truncated).
pub fn date_time(t: DateTime<Utc>) -> String {
    let local = t.with_timezone(&Prague);
    format!(
        "{}.{}{}",
        local.format("%Y-%m-%dT%H:%M:%S"),
        local.nanosecond() % 1_000_000_000 / 100_000_000,
        local.format("%:z")
    )
}

pub fn date(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// An identifier of the package: the operator's IČO, then the parts, joined by `-`; any
/// character the Ministry's identifiers do not allow (`[\w-]`) becomes `_`. Longer than
/// `max` characters, the tail is replaced by a hash of the whole, so it stays unique.
pub fn identifier(ico: &str, parts: &[&str], max: usize) -> String {
    let mut id = String::from(ico);
    for part in parts {
        id.push('-');
        id.extend(part.chars().map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        }));
    }
    if id.chars().count() <= max {
        return id;
    }
    use sha2::Digest as _;
    let hash = hex::encode(&sha2::Sha256::digest(id.as_bytes())[..6]);
    let keep = max.saturating_sub(hash.len() + 1);
    let head: String = id.chars().take(keep).collect();
    format!("{head}-{hash}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_has_a_decimal_comma_and_two_places() {
        assert_eq!(money(123_405), "1234,05");
        assert_eq!(money(-5), "-0,05");
        assert_eq!(money(0), "0,00");
        assert_eq!(money(i64::MIN), "-92233720368547758,08");
    }

    #[test]
    fn date_times_are_prague_time_with_one_fractional_digit() {
        let summer: DateTime<Utc> = "2026-10-01T16:00:00.987Z".parse().unwrap();
        assert_eq!(date_time(summer), "2026-10-01T18:00:00.9+02:00");
        let winter: DateTime<Utc> = "2026-11-01T05:00:00Z".parse().unwrap();
        assert_eq!(date_time(winter), "2026-11-01T06:00:00.0+01:00");
    }

    #[test]
    fn identifiers_start_with_the_ico_and_stay_within_their_length() {
        assert_eq!(identifier("12345679", &["R01", "7"], 50), "12345679-R01-7");
        assert_eq!(identifier("12345679", &["a.b c"], 50), "12345679-a_b_c");
        let long = identifier("12345679", &[&"x".repeat(64), "1"], 50);
        assert_eq!(long.chars().count(), 50);
        assert!(long.starts_with("12345679-xxx"));
        assert_ne!(long, identifier("12345679", &[&"x".repeat(64), "2"], 50));
    }
}
