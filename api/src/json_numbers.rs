//! JSON numbers as JSON Schema reads them: `106721.0` is the integer 106 721 (a number with no
//! fractional part is an integer there), so a body the document allows is not refused for how a
//! client's JSON library writes whole numbers. Fractions and values beyond ±(2^53 − 1), where a
//! float no longer holds every integer exactly, are still refused.

use serde::Deserializer;

const MAX_EXACT: f64 = 9_007_199_254_740_991.0;

/// Reads a whole number the way JSON Schema does, and says in words what else was sent.
struct WholeNumber;

impl<'de> serde::de::Visitor<'de> for WholeNumber {
    type Value = Option<i64>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a whole number of haléře (100 haléřů = 1 Kč)")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(WholeNumber)
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Some(n))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
        i64::try_from(n)
            .map(Some)
            .map_err(|_| E::custom(format!("{n} haléřů is beyond any amount dozor keeps")))
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Self::Value, E> {
        if f.fract() == 0.0 && f.abs() <= MAX_EXACT {
            Ok(Some(f as i64))
        } else {
            Err(E::custom(format!(
                "expected a whole number of haléře (100 haléřů = 1 Kč), not {f}"
            )))
        }
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Err(E::custom(format!(
            "an amount is a whole number of haléře written as a JSON number, not the text {text:?}: 10 Kč is 1000"
        )))
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Self::Value, E> {
        Err(E::custom(format!(
            "an amount is a whole number of haléře written as a JSON number, not {b}"
        )))
    }
}

/// An optional integer that may be written with a zero fraction.
pub fn optional_integer<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    d.deserialize_option(WholeNumber)
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
        let words = read(r#"{"amount_h": "10 Kč"}"#).unwrap_err().to_string();
        assert!(
            words.contains("not the text \"10 Kč\": 10 Kč is 1000"),
            "{words}"
        );
        assert!(read(r#"{"amount_h": [1]}"#).is_err());
    }
}
