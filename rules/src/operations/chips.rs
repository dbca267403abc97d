//! Chips counted by denomination: a float, a fill, a drop box's chips.

use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::money::validate_amount;

/// How many chips of one denomination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChipCount {
    pub denomination_h: i64,
    pub count: u32,
}

/// Checks a count by denomination (each denomination positive and listed once, the total
/// within the absolute limit) and returns its value in haléře.
pub fn validate_chips(field: &str, chips: &[ChipCount]) -> Result<i64, RecordError> {
    let mut seen: Vec<i64> = Vec::with_capacity(chips.len());
    let mut total: i64 = 0;
    for (i, c) in chips.iter().enumerate() {
        let at = || format!("{field}[{i}]");
        if c.denomination_h <= 0 {
            return Err(RecordError::invalid("denomination_h", "must be positive").within(at()));
        }
        validate_amount("denomination_h", c.denomination_h).map_err(|e| e.within(at()))?;
        if seen.contains(&c.denomination_h) {
            return Err(RecordError::invalid(
                "denomination_h",
                format!("{} h is listed twice", c.denomination_h),
            )
            .within(at()));
        }
        seen.push(c.denomination_h);
        let value = c
            .denomination_h
            .checked_mul(i64::from(c.count))
            .and_then(|v| total.checked_add(v))
            .ok_or_else(|| RecordError::invalid(field, "total value overflows"))?;
        total = validate_amount(field, value)?;
    }
    Ok(total)
}

/// The value of a count already checked by [`validate_chips`].
pub fn chips_value(chips: &[ChipCount]) -> i64 {
    chips.iter().fold(0i64, |total, c| {
        total.saturating_add(c.denomination_h.saturating_mul(i64::from(c.count)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chips(pairs: &[(i64, u32)]) -> Vec<ChipCount> {
        pairs
            .iter()
            .map(|&(denomination_h, count)| ChipCount {
                denomination_h,
                count,
            })
            .collect()
    }

    #[test]
    fn a_count_is_worth_its_denominations_times_their_counts() {
        // 40 × 25 Kč + 10 × 100 Kč + 2 × 1 000 Kč = 1 000 + 1 000 + 2 000 = 4 000 Kč
        let float = chips(&[(2_500, 40), (10_000, 10), (100_000, 2)]);
        assert_eq!(validate_chips("float", &float).unwrap(), 400_000);
        assert_eq!(chips_value(&float), 400_000);
        assert_eq!(validate_chips("float", &[]).unwrap(), 0);
    }

    #[test]
    fn bad_counts_are_refused_with_their_position() {
        for (bad, expected) in [
            (
                chips(&[(0, 1)]),
                "float[0].denomination_h: must be positive",
            ),
            (
                chips(&[(-100, 1)]),
                "float[0].denomination_h: must be positive",
            ),
            (
                chips(&[(100, 1), (100, 2)]),
                "float[1].denomination_h: 100 h is listed twice",
            ),
            (chips(&[(i64::MAX / 2, 4)]), "float[0].denomination_h"),
            (
                chips(&[(50_000_000_000_000, u32::MAX)]),
                "float: total value",
            ),
        ] {
            let err = validate_chips("float", &bad).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} should contain {expected}");
        }
    }
}
