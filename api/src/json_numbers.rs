//! JSON numbers as JSON Schema reads them: `106721.0` is the integer 106 721 (a number with no
//! fractional part is an integer there), so a body the document allows is not refused for how a
//! client's JSON library writes whole numbers. Fractions and values beyond ±(2^53 − 1), where a
//! float no longer holds every integer exactly, are still refused.

use serde::{Deserialize, Deserializer};

const MAX_EXACT: f64 = 9_007_199_254_740_991.0;

#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Integer(i64),
    Float(f64),
}

/// An optional integer that may be written with a zero fraction.
pub fn optional_integer<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    match Option::<Number>::deserialize(d)? {
        None => Ok(None),
        Some(Number::Integer(n)) => Ok(Some(n)),
        Some(Number::Float(f)) if f.fract() == 0.0 && f.abs() <= MAX_EXACT => Ok(Some(f as i64)),
        Some(Number::Float(f)) => Err(serde::de::Error::custom(format!(
            "expected a whole number of haléře, not {f}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[derive(serde::Deserialize, Debug)]
    struct Amount {
        #[serde(default, deserialize_with = "super::optional_integer")]
        amount_h: Option<i64>,
    }

    fn read(text: &str) -> Result<Option<i64>, serde_json::Error> {
        serde_json::from_str::<Amount>(text).map(|a| a.amount_h)
    }

    #[test]
    fn whole_numbers_in_either_form_are_read_and_fractions_refused() {
        assert_eq!(read(r#"{"amount_h": 106721}"#).unwrap(), Some(106_721));
        assert_eq!(read(r#"{"amount_h": 106721.0}"#).unwrap(), Some(106_721));
        assert_eq!(read(r#"{"amount_h": -5e2}"#).unwrap(), Some(-500));
        assert_eq!(read(r#"{"amount_h": null}"#).unwrap(), None);
        assert_eq!(read(r#"{}"#).unwrap(), None);
        assert!(read(r#"{"amount_h": 1.5}"#).is_err());
        assert!(read(r#"{"amount_h": 1e300}"#).is_err());
        assert!(read(r#"{"amount_h": "7"}"#).is_err());
    }
}
