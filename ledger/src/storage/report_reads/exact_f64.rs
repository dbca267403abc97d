//! Floats kept exactly: written as the shortest text that reads back to the same value (the
//! default JSON number reading may be one unit in the last place off). The report rows an
//! archive keeps ([`super::super::archived_days::DayFigures`]) write their floats so.

use serde::{Deserialize as _, Deserializer, Serializer};

pub fn serialize<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{value:?}"))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}
