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
    /// How packages reach the Ministry; without it, packages are made but not delivered.
    #[serde(default)]
    pub delivery: Option<DeliveryConfig>,
}

/// The `[delivery]` section: the Ministry's parameters as it publishes them, the operator's
/// seal and encryption keys, and where the Ministry downloads the packages. Files are PEM or
/// DER certificates and PKCS#12 key stores; a relative path is relative to the configuration
/// file's folder. Passwords are read from files or the environment, never from this file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeliveryConfig {
    /// The base URL registered as `StazeniBalickuUrl`: the Ministry downloads
    /// `{download_url}{package}.zip.p7e.p7s`. Ends with `/`.
    pub download_url: String,
    /// The Ministry's certificates each package is encrypted to (`certifikatySifrovani`).
    pub ministry_encryption_certificates: Vec<std::path::PathBuf>,
    /// The certificates the Ministry seals its confirmations with.
    pub ministry_seal_certificates: Vec<std::path::PathBuf>,
    /// The Ministry's TLS client certificates, the only ones the publishing listener admits.
    #[serde(default)]
    pub ministry_client_certificates: Vec<std::path::PathBuf>,
    /// The operator's qualified seal: a PKCS#12 file (key and chain).
    pub seal_pkcs12: std::path::PathBuf,
    /// A file holding the seal's password (else `DOZOR_MF_SEAL_PASSWORD`).
    #[serde(default)]
    pub seal_password_file: Option<std::path::PathBuf>,
    /// The operator's encryption key and certificate: every package is encrypted to it too,
    /// and the Ministry's confirmations are encrypted to it.
    pub encryption_pkcs12: std::path::PathBuf,
    /// A file holding its password (else `DOZOR_MF_ENCRYPTION_PASSWORD`).
    #[serde(default)]
    pub encryption_password_file: Option<std::path::PathBuf>,
    /// The Ministry's playground rather than production (the registration form says so).
    #[serde(default)]
    pub playground: bool,
    /// Where `dozor serve` listens for the Ministry (HTTPS, the Ministry's client
    /// certificates only), e.g. `0.0.0.0:8443`; none: no such listener.
    #[serde(default)]
    pub listen: Option<String>,
    /// That listener's certificate chain (PEM, the server's first) and key (PEM, PKCS#8).
    #[serde(default)]
    pub server_certificate: Option<std::path::PathBuf>,
    #[serde(default)]
    pub server_key: Option<std::path::PathBuf>,
}

impl DeliveryConfig {
    /// The path of `download_url` (`/data/` of `https://host/data/`): where the listener
    /// serves the sealed files.
    pub fn download_path(&self) -> &str {
        let rest = self
            .download_url
            .strip_prefix("https://")
            .unwrap_or(&self.download_url);
        rest.find('/').map_or("/", |at| &rest[at..])
    }
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
    "tiles",
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
        delivery: Option<DeliveryConfig>,
    ) -> Result<OperatorConfig, ConfigError> {
        let config = OperatorConfig {
            operator,
            premises,
            reconciliation,
            delivery,
        };
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<(), ConfigError> {
        if let Err(why) = check_ico(&self.operator.ico) {
            return Err(invalid("operator.ico", why));
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
        if let Some(delivery) = &self.delivery {
            if !delivery.download_url.starts_with("https://")
                || !delivery.download_url.ends_with('/')
            {
                return Err(invalid(
                    "delivery.download_url",
                    "an https:// URL ending with `/` (the Ministry downloads `{download_url}{package}.zip.p7e.p7s`)",
                ));
            }
            if delivery.ministry_encryption_certificates.is_empty() {
                return Err(invalid(
                    "delivery.ministry_encryption_certificates",
                    "at least one: packages are encrypted to the Ministry",
                ));
            }
            if delivery.listen.is_some()
                && (delivery.server_certificate.is_none()
                    || delivery.server_key.is_none()
                    || delivery.ministry_client_certificates.is_empty())
            {
                return Err(invalid(
                    "delivery.listen",
                    "the Ministry's listener needs server_certificate, server_key and ministry_client_certificates",
                ));
            }
            if delivery.ministry_seal_certificates.is_empty() {
                return Err(invalid(
                    "delivery.ministry_seal_certificates",
                    "at least one: confirmations are checked against them",
                ));
            }
        }
        Ok(())
    }

    pub fn premises(&self, id: &str) -> Option<&Premises> {
        self.premises.iter().find(|p| p.id == id)
    }
}

/// An IČO: eight digits, the last a check digit of the first seven (weights 8 to 2; the sum's
/// remainder r modulo 11 gives (11 − r) mod 10).
pub fn check_ico(ico: &str) -> Result<(), String> {
    let digits: Vec<u32> = ico.chars().filter_map(|c| c.to_digit(10)).collect();
    if ico.len() != 8 || digits.len() != 8 {
        return Err(format!("`{ico}` is not an IČO: an IČO is eight digits"));
    }
    let sum: u32 = digits[..7]
        .iter()
        .zip((2..=8).rev())
        .map(|(d, w)| d * w)
        .sum();
    let check = (11 - sum % 11) % 10;
    if digits[7] != check {
        return Err(format!(
            "`{ico}` is not an IČO: its check digit would be {check}, not {} (the first seven digits weighted 8 to 2 sum to {sum}, which leaves {} modulo 11)",
            digits[7],
            sum % 11
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
        [operator]
        ico = "12345679"
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
            ("ico = \"12345679\"", "ico = \"123\"", "operator.ico"),
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
    fn an_ico_needs_its_check_digit() {
        // 1·8 + 2·7 + 3·6 + 4·5 + 5·4 + 6·3 + 7·2 = 112 = 10·11 + 2: the check digit is
        // 11 − 2 = 9.
        assert_eq!(check_ico("12345679"), Ok(()));
        let wrong = check_ico("12345678").unwrap_err();
        assert!(wrong.contains("would be 9, not 8"), "{wrong}");
        // 0·8 + 0·7 + 0·6 + 0·5 + 0·4 + 0·3 + 0·2 = 0: remainder 0 gives (11 − 0) mod 10 = 1.
        assert_eq!(check_ico("00000001"), Ok(()));
        // 2·8 + 5·7 + 5·6 + 9·5 + 6·4 + 3·3 + 2·2 = 163 = 14·11 + 9: 11 − 9 = 2.
        assert_eq!(check_ico("25596322"), Ok(()));
        // The Ministry of Finance, 00006947: 6·4 + 9·3 + 4·2 = 59 = 5·11 + 4: 11 − 4 = 7.
        assert_eq!(check_ico("00006947"), Ok(()));
        assert!(check_ico("1234567").is_err());
        assert!(check_ico("1234567a").is_err());
        let err = OperatorConfig::parse(&GOOD.replace("12345679", "12345678")).unwrap_err();
        assert!(err.to_string().contains("operator.ico"), "{err}");
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
