//! Money is integer haléře (1 Kč = 100 h), never floats.

/// Largest amount a record may carry: 10^14 h = 1 000 000 000 000 Kč. Anything above is absurd
/// for a live-game table and is rejected before any arithmetic can overflow.
pub const MAX_AMOUNT_H: i64 = 100_000_000_000_000;

/// Checks that an amount from a record is non-negative and not absurd.
pub fn validate_amount(field: &str, amount_h: i64) -> Result<i64, crate::error::RecordError> {
    if amount_h < 0 {
        return Err(crate::error::RecordError::invalid(
            field,
            format!("amount must not be negative (got {amount_h} h)"),
        ));
    }
    if amount_h > MAX_AMOUNT_H {
        return Err(crate::error::RecordError::invalid(
            field,
            format!("amount {amount_h} h exceeds the absolute limit of {MAX_AMOUNT_H} h"),
        ));
    }
    Ok(amount_h)
}

/// Formats haléře as Czech koruna, e.g. `900 000,00 Kč`.
pub fn format_czk(amount_h: i64) -> String {
    let abs = amount_h.unsigned_abs();
    let mut out = String::with_capacity(32);
    if amount_h < 0 {
        out.push('-');
    }
    push_grouped(&mut out, abs / 100, " ");
    let halere = abs % 100;
    out.push(',');
    out.push(char::from(b'0' + (halere / 10) as u8));
    out.push(char::from(b'0' + (halere % 10) as u8));
    out.push_str(" Kč");
    out
}

/// Koruny with two decimals and a decimal comma, no grouping and no unit: `373775,00`, `-0,50`;
/// how a CSV file for a Czech office writes an amount (a spreadsheet reads it as a number).
pub fn koruny_plain(amount_h: i64) -> String {
    let sign = if amount_h < 0 { "-" } else { "" };
    let abs = amount_h.unsigned_abs();
    format!("{sign}{},{:02}", abs / 100, abs % 100)
}

/// An integer with `separator` between groups of three digits: `13 826`, `-1 000`; how every
/// count and amount people read is written (a space in Czech, a comma in English).
pub fn group_thousands(n: i64, separator: &str) -> String {
    let mut out = String::new();
    if n < 0 {
        out.push('-');
    }
    push_grouped(&mut out, n.unsigned_abs(), separator);
    out
}

fn push_grouped(out: &mut String, n: u64, separator: &str) {
    let digits = n.to_string();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str(separator);
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands_with_the_separator_asked() {
        assert_eq!(group_thousands(13_826, " "), "13 826");
        assert_eq!(group_thousands(-1_000, ","), "-1,000");
        assert_eq!(group_thousands(999, " "), "999");
        assert_eq!(group_thousands(0, " "), "0");
        assert_eq!(
            group_thousands(1_234_567, "&#8239;"),
            "1&#8239;234&#8239;567"
        );
    }

    #[test]
    fn formats_with_thousands_and_halere() {
        assert_eq!(format_czk(90_000_000), "900 000,00 Kč");
        assert_eq!(format_czk(1_005), "10,05 Kč");
        assert_eq!(format_czk(-250), "-2,50 Kč");
        assert_eq!(format_czk(0), "0,00 Kč");
    }

    #[test]
    fn plain_koruny_have_a_decimal_comma_and_no_grouping() {
        // 37 377 500 h = 373 775 Kč; −50 h = −0,50 Kč; i64::MIN h still has its digits.
        assert_eq!(koruny_plain(37_377_500), "373775,00");
        assert_eq!(koruny_plain(-50), "-0,50");
        assert_eq!(koruny_plain(7), "0,07");
        assert_eq!(koruny_plain(i64::MIN), "-92233720368547758,08");
    }

    #[test]
    fn rejects_negative_and_absurd_amounts() {
        assert!(validate_amount("x", -1).is_err());
        assert!(validate_amount("x", MAX_AMOUNT_H + 1).is_err());
        assert_eq!(validate_amount("x", MAX_AMOUNT_H), Ok(MAX_AMOUNT_H));
    }
}
