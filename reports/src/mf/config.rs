//! The operator and its gaming premises, as the Ministry's package names them: from the
//! configuration file, never from code.

use std::path::Path;

use serde::Deserialize;

use super::name::is_name_token;
use super::schema::Schema;

/// The `[operator]`, `[[premises]]` and `[reconciliation]` sections of `dozor.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorConfig {
    pub operator: Operator,
    #[serde(default)]
    pub premises: Vec<Premises>,
    #[serde(default)]
    pub reconciliation: Reconciliation,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operator {
    /// IČO: the package's `IDProvozovatel` and the prefix of every id in it.
    pub ico: String,
    pub name: String,
}

/// A gaming premises (`herní místo`) and the stations (tables and cages) in it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Premises {
    /// The premises' id in package names (`[A-Za-z0-9_]`, at most 50).
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub street: Option<String>,
    /// Číslo popisné.
    #[serde(default)]
    pub house_number: Option<u32>,
    /// Číslo orientační, e.g. `12a`.
    #[serde(default)]
    pub orientation_number: Option<String>,
    /// Část obce.
    #[serde(default)]
    pub district: Option<String>,
    pub postcode: u32,
    pub municipality: String,
    /// Obvod (Prague's numbered districts).
    #[serde(default)]
    pub municipal_district: Option<u32>,
    /// Region code from the codebook `Kraj`, e.g. `PHA`.
    pub region: String,
    /// RÚIAN address code; without it, the GPS position is required.
    #[serde(default)]
    pub ruian: Option<u32>,
    /// Position as decimal degrees, e.g. `"14.4205"` (x: longitude) and `"50.0810"` (y: latitude).
    #[serde(default)]
    pub gps_x: Option<String>,
    #[serde(default)]
    pub gps_y: Option<String>,
    /// The ids of the tables and cages in the premises.
    pub stations: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reconciliation {
    /// Largest difference between a table period's win by the count and its rounds' result
    /// that is not a finding, in haléře.
    #[serde(default)]
    pub tolerance_h: i64,
}

/// The sections of `dozor.toml` that configure the server rather than the operator.
pub const SERVER_SECTIONS: &[&str] = &[
    "server",
    "database",
    "ledger",
    "gaming_day",
    "reports",
    "limits",
    "log",
];

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {reason}")]
    Read { path: String, reason: String },
    #[error("configuration: {key}: {reason}")]
    Invalid { key: String, reason: String },
}

fn invalid(key: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        reason: reason.into(),
    }
}

/// A coordinate in the package's form (`14,4205000`) from the configuration's (`14.4205`).
pub fn gps_value(text: &str) -> Option<String> {
    let normalised = text.trim().replace('.', ",");
    let (whole, fraction) = normalised.split_once(',')?;
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    let ok = (1..=4).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (4..=7).contains(&fraction.len())
        && fraction.bytes().all(|b| b.is_ascii_digit());
    ok.then_some(normalised)
}

impl OperatorConfig {
    pub fn load(path: &Path) -> Result<OperatorConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        OperatorConfig::parse(&text).map_err(|e| match e {
            ConfigError::Read { reason, .. } => ConfigError::Read {
                path: path.display().to_string(),
                reason,
            },
            other => other,
        })
    }

    /// The operator's sections of `dozor.toml`; the server's own sections (see
    /// [`SERVER_SECTIONS`]) are left to the server's loader, any other key is refused.
    pub fn parse(text: &str) -> Result<OperatorConfig, ConfigError> {
        let read = |e: toml::de::Error| ConfigError::Read {
            path: String::new(),
            reason: e.message().to_owned(),
        };
        let mut document: toml::Table = toml::from_str(text).map_err(read)?;
        document.retain(|key, _| !SERVER_SECTIONS.contains(&key));
        let config: OperatorConfig = document.try_into().map_err(read)?;
        config.check()?;
        Ok(config)
    }

    /// From sections read by another loader: checked as [`OperatorConfig::parse`] checks them.
    pub fn new(
        operator: Operator,
        premises: Vec<Premises>,
        reconciliation: Reconciliation,
    ) -> Result<OperatorConfig, ConfigError> {
        let config = OperatorConfig {
            operator,
            premises,
            reconciliation,
        };
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<(), ConfigError> {
        if !is_name_token(&self.operator.ico, 20) || self.operator.ico.len() < 8 {
            return Err(invalid(
                "operator.ico",
                "8-20 letters, digits or `_` (the IČO)",
            ));
        }
        if self.operator.name.trim().is_empty() {
            return Err(invalid("operator.name", "may not be empty"));
        }
        let regions = Schema::embedded().map_err(|e| invalid("schema", e.to_string()))?;
        let mut stations: Vec<&str> = Vec::new();
        for (i, p) in self.premises.iter().enumerate() {
            let key = |k: &str| format!("premises[{i}].{k}");
            if !is_name_token(&p.id, 50) {
                return Err(invalid(key("id"), "1-50 letters, digits or `_`"));
            }
            if self.premises[..i].iter().any(|q| q.id == p.id) {
                return Err(invalid(key("id"), format!("`{}` is used twice", p.id)));
            }
            if p.name.trim().is_empty() || p.municipality.trim().is_empty() {
                return Err(invalid(
                    key("name"),
                    "name and municipality may not be empty",
                ));
            }
            if !(10_000..=99_999).contains(&p.postcode) {
                return Err(invalid(key("postcode"), "five digits"));
            }
            if !regions.in_codebook("Kraj", &p.region) {
                return Err(invalid(
                    key("region"),
                    format!("`{}` is not a region code of the codebook `Kraj`", p.region),
                ));
            }
            for (k, v) in [("gps_x", &p.gps_x), ("gps_y", &p.gps_y)] {
                if let Some(v) = v {
                    if gps_value(v).is_none() {
                        return Err(invalid(key(k), "decimal degrees with 4-7 places"));
                    }
                }
            }
            if p.ruian.is_none() && (p.gps_x.is_none() || p.gps_y.is_none()) {
                return Err(invalid(
                    key("ruian"),
                    "without a RÚIAN code, gps_x and gps_y are required",
                ));
            }
            for s in &p.stations {
                if stations.contains(&s.as_str()) {
                    return Err(invalid(
                        key("stations"),
                        format!("`{s}` is in two premises"),
                    ));
                }
                stations.push(s);
            }
        }
        if self.reconciliation.tolerance_h < 0 {
            return Err(invalid("reconciliation.tolerance_h", "may not be negative"));
        }
        Ok(())
    }

    pub fn premises(&self, id: &str) -> Option<&Premises> {
        self.premises.iter().find(|p| p.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
        [operator]
        ico = "12345678"
        name = "Kasino a.s."

        [[premises]]
        id = "kasino_1"
        name = "Kasino Praha"
        postcode = 11000
        municipality = "Praha"
        region = "PHA"
        gps_x = "14.4205"
        gps_y = "50.0810"
        stations = ["R01", "CAGE"]
    "#;

    #[test]
    fn a_configuration_reads_and_each_mistake_names_its_key() {
        let config = OperatorConfig::parse(GOOD).unwrap();
        assert_eq!(
            config.premises("kasino_1").unwrap().stations,
            ["R01", "CAGE"]
        );
        assert_eq!(config.reconciliation.tolerance_h, 0);
        for (from, to, key) in [
            ("ico = \"12345678\"", "ico = \"123\"", "operator.ico"),
            ("region = \"PHA\"", "region = \"XXX\"", "premises[0].region"),
            ("postcode = 11000", "postcode = 110", "premises[0].postcode"),
            (
                "gps_x = \"14.4205\"",
                "gps_x = \"14.4\"",
                "premises[0].gps_x",
            ),
            ("gps_y = \"50.0810\"\n", "", "premises[0].ruian"),
            ("id = \"kasino_1\"", "id = \"kasino-1\"", "premises[0].id"),
        ] {
            let err = OperatorConfig::parse(&GOOD.replace(from, to)).unwrap_err();
            assert!(err.to_string().contains(key), "{err} should name {key}");
        }
        let err = OperatorConfig::parse(&GOOD.replace("[operator]", "[operatr]")).unwrap_err();
        assert!(err.to_string().contains("operatr"), "{err}");
    }

    #[test]
    fn the_example_configuration_reads() {
        let text = include_str!("../../../deploy/dozor.example.toml");
        let config = OperatorConfig::parse(text).unwrap();
        assert_eq!(config.premises("kasino_1").unwrap().region, "PHA");
    }

    #[test]
    fn coordinates_take_the_packages_decimal_comma() {
        assert_eq!(gps_value("14.4205").as_deref(), Some("14,4205"));
        assert_eq!(gps_value("-0,1234567").as_deref(), Some("-0,1234567"));
        assert_eq!(gps_value("14.42"), None);
        assert_eq!(gps_value("12345.1234"), None);
    }
}
