//! The server's configuration: one loader (figment) over the built-in defaults, the file
//! `dozor.toml`, the environment and the command line's flags, each overriding the one before.
//! A bad value stops the start with one line naming its key and where it came from.

use std::path::{Path, PathBuf};

use figment::providers::{Env, Format as _, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};

/// Every environment variable the server reads, and the key it sets.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("DOZOR_BIND", "server.listen"),
    ("DOZOR_WORKERS", "server.workers"),
    ("DOZOR_BODY_LIMIT_BYTES", "limits.body_limit_bytes"),
    ("DOZOR_BODY_BUDGET_BYTES", "limits.body_budget_bytes"),
    ("DOZOR_FILE_DOWNLOADS", "limits.file_downloads"),
    (
        "DOZOR_MINISTRY_HANDSHAKE_SECONDS",
        "limits.ministry_handshake_seconds",
    ),
    (
        "DOZOR_MINISTRY_CONNECTIONS_PER_ADDRESS",
        "limits.ministry_connections_per_address",
    ),
    ("DOZOR_MINISTRY_CONNECTIONS", "limits.ministry_connections"),
    ("DOZOR_OWNER_DATABASE_URL", "database.owner_url"),
    ("DOZOR_REPLICA_DATABASE_URL", "database.replica_url"),
    ("DOZOR_POOL_SIZE", "database.pool_size"),
    ("DOZOR_OPERATOR_KEY", "ledger.operator_key"),
    ("DOZOR_ORIGIN", "ledger.origin"),
    ("DOZOR_CHECKPOINT_EVERY", "ledger.checkpoint_every"),
    ("DOZOR_CHECKPOINT_SECONDS", "ledger.checkpoint_seconds"),
    ("DOZOR_CHECKPOINT_WITNESS", "ledger.checkpoint_witness"),
    ("DOZOR_MAX_BATCH", "ledger.max_batch"),
    ("DOZOR_GAMING_DAY_START_HOUR", "gaming_day.start_hour"),
    ("DOZOR_LATE_AFTER_HOURS", "gaming_day.late_after_hours"),
    ("DOZOR_TAX_RATES", "reports.tax_rates"),
    ("DOZOR_NIGHTLY_AT", "reports.nightly_at"),
    ("DOZOR_FULL_WALK_EVERY_DAYS", "reports.full_walk_every_days"),
    ("DOZOR_FULL_WALK_CORES", "reports.full_walk_cores"),
    ("DOZOR_API_KEY_RATE", "limits.api_key_rate"),
    ("DOZOR_API_KEY_BURST", "limits.api_key_burst"),
    ("DOZOR_ADDRESS_RATE", "limits.address_rate"),
    ("DOZOR_ADDRESS_BURST", "limits.address_burst"),
    ("DOZOR_LOG_FORMAT", "log.format"),
    ("DOZOR_LOG_LEVEL", "log.level"),
];

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: Server,
    pub database: Database,
    pub ledger: Ledger,
    pub gaming_day: GamingDay,
    pub reports: Reports,
    pub limits: Limits,
    pub log: Log,
    /// The ledger published as C2SP tlog-tiles to a folder (docs/TILES.md).
    pub tiles: Tiles,
    /// The operator and its premises (the Ministry's package): checked by `reports`.
    #[serde(skip_serializing)]
    pub operator: Option<reports::mf::config::Operator>,
    #[serde(skip_serializing)]
    pub premises: Vec<reports::mf::config::Premises>,
    #[serde(skip_serializing)]
    pub reconciliation: reports::mf::config::Reconciliation,
    #[serde(skip_serializing)]
    pub delivery: Option<reports::mf::config::DeliveryConfig>,
    /// The witnesses each signed checkpoint is shown to (`[[witness]]`).
    #[serde(skip_serializing, rename = "witness")]
    pub witnesses: Vec<WitnessConfig>,
    /// The configuration file's folder: relative paths of `[delivery]` start there.
    #[serde(skip)]
    pub file_dir: Option<PathBuf>,
}

/// A witness (C2SP tlog-witness) the server shows its checkpoints to.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WitnessConfig {
    /// Its submission prefix: `add-checkpoint` is appended.
    pub url: String,
    /// Its cosignature verifier key (`dozor witness key` prints it).
    pub key: String,
    /// Certificates (PEM) to trust for an https URL instead of the public roots.
    pub ca_file: Option<PathBuf>,
}

impl Config {
    /// The configured witnesses, their keys read and CA files loaded (relative paths from the
    /// configuration file's folder).
    pub fn witness_endpoints(&self) -> anyhow::Result<Vec<api::witnessing::WitnessEndpoint>> {
        use anyhow::Context as _;
        let base = self.file_dir.clone().unwrap_or_default();
        let mut names = std::collections::HashSet::new();
        self.witnesses
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let key = dozor_log::cosignature::CosignatureVerifier::parse(&w.key)
                    .with_context(|| format!("configuration: witness {}: key", i + 1))?;
                if !names.insert(key.name.clone()) {
                    anyhow::bail!("configuration: witness `{}` is listed twice", key.name);
                }
                if !(w.url.starts_with("http://") || w.url.starts_with("https://")) {
                    anyhow::bail!(
                        "configuration: witness {}: url `{}` is not http:// or https://",
                        i + 1,
                        w.url
                    );
                }
                let ca_certificates = w
                    .ca_file
                    .as_ref()
                    .map(|p| {
                        let path = base.join(p);
                        std::fs::read(&path).with_context(|| {
                            format!(
                                "configuration: witness {}: ca_file {}",
                                i + 1,
                                path.display()
                            )
                        })
                    })
                    .transpose()?;
                Ok(api::witnessing::WitnessEndpoint {
                    url: w.url.clone(),
                    key,
                    ca_certificates,
                })
            })
            .collect()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Server {
    /// Address and port to listen on.
    pub listen: String,
    /// HTTP worker threads; one per core when absent.
    pub workers: Option<usize>,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            listen: "127.0.0.1:8080".into(),
            workers: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Database {
    /// The server's login; without it dozor runs its own cluster under the data directory.
    /// `DATABASE_URL` and `--database-url` override it.
    pub url: Option<String>,
    /// The owner's URL, used only to migrate at start.
    pub owner_url: Option<String>,
    /// A streaming replica reports, exports and lists read from (cut at the largest signed
    /// checkpoint it holds); without it they read from the primary.
    pub replica_url: Option<String>,
    pub pool_size: u32,
}

impl Default for Database {
    fn default() -> Self {
        Database {
            url: None,
            owner_url: None,
            replica_url: None,
            pool_size: 16,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ledger {
    /// The operator's key; `<data dir>/operator.key` (created on first start) when absent.
    pub operator_key: Option<PathBuf>,
    /// The log's name (C2SP checkpoint origin, a schema-less URL such as
    /// `ledger.casino.example/praha`): given to a new operator key, and checked against an
    /// existing one. Absent: a new key gets one of its own (`dozor.local/<key hash>`).
    pub origin: Option<String>,
    pub checkpoint_every: u64,
    pub checkpoint_seconds: u64,
    pub checkpoint_witness: Option<PathBuf>,
    /// Most records appended in one transaction.
    pub max_batch: usize,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger {
            operator_key: None,
            origin: None,
            checkpoint_every: 1000,
            checkpoint_seconds: 10,
            checkpoint_witness: None,
            max_batch: 1000,
        }
    }
}

/// `[tiles]`: where `serve` publishes the ledger as tiles.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Tiles {
    /// The folder a web server serves the tiles from; none: not published. A relative path
    /// starts at the configuration file's folder.
    pub publish_dir: Option<PathBuf>,
}

impl Config {
    /// The folder `serve` publishes the tiles to, if one is configured.
    pub fn tiles_publish_dir(&self) -> Option<PathBuf> {
        let dir = self.tiles.publish_dir.as_ref()?;
        Some(match &self.file_dir {
            Some(base) if dir.is_relative() => base.join(dir),
            _ => dir.clone(),
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GamingDay {
    pub start_hour: u32,
    pub late_after_hours: u32,
}

impl Default for GamingDay {
    fn default() -> Self {
        GamingDay {
            start_hour: 6,
            late_after_hours: rules::gaming_day::DEFAULT_LATE_AFTER_HOURS,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Reports {
    pub tax_rates: Option<PathBuf>,
    /// `HH:MM` (Europe/Prague) or `off`.
    pub nightly_at: String,
    /// The full walk of the ledger: one every so many days (0: never), and its processor
    /// budget in cores (0: no limit).
    pub full_walk_every_days: u32,
    pub full_walk_cores: f64,
}

impl Default for Reports {
    fn default() -> Self {
        Reports {
            tax_rates: None,
            nightly_at: "06:30".into(),
            full_walk_every_days: 7,
            full_walk_cores: 1.0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    pub api_key_rate: u32,
    pub api_key_burst: u32,
    pub address_rate: u32,
    pub address_burst: u32,
    pub body_limit_bytes: usize,
    /// Bytes of request bodies all requests in flight may hold at once.
    pub body_budget_bytes: usize,
    /// Files (CSV, XLSX) and inspection exports made at once.
    pub file_downloads: usize,
    /// The Ministry's listener: how long a TLS handshake may take, in seconds...
    pub ministry_handshake_seconds: u64,
    /// ...how many connections one address may hold...
    pub ministry_connections_per_address: usize,
    /// ...and how many it holds in all.
    pub ministry_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        let key = api::auth::RateLimit::default();
        let in_flight = api::in_flight::InFlightLimits::default();
        let ministry = api::publish::ListenerLimits::default();
        Limits {
            api_key_rate: key.per_second,
            api_key_burst: key.burst,
            address_rate: api::server::DEFAULT_ADDRESS_RATE.per_second,
            address_burst: api::server::DEFAULT_ADDRESS_RATE.burst,
            body_limit_bytes: api::server::DEFAULT_BODY_LIMIT,
            body_budget_bytes: in_flight.body_budget_bytes,
            file_downloads: in_flight.file_downloads,
            ministry_handshake_seconds: ministry.handshake_timeout.as_secs(),
            ministry_connections_per_address: ministry.per_address,
            ministry_connections: ministry.total,
        }
    }
}

impl Limits {
    pub fn ministry_listener(&self) -> api::publish::ListenerLimits {
        api::publish::ListenerLimits {
            handshake_timeout: std::time::Duration::from_secs(self.ministry_handshake_seconds),
            per_address: self.ministry_connections_per_address,
            total: self.ministry_connections,
        }
    }

    pub fn in_flight(&self) -> api::in_flight::InFlightLimits {
        api::in_flight::InFlightLimits {
            body_budget_bytes: self.body_budget_bytes,
            file_downloads: self.file_downloads,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Log {
    pub format: LogFormat,
    /// A tracing filter (`info`, `warn,api=debug`); `RUST_LOG` overrides it.
    pub level: String,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            format: LogFormat::Text,
            level: "info".into(),
        }
    }
}

/// Where the configuration is read from: `--config`/`DOZOR_CONFIG`, or `<data dir>/dozor.toml`
/// when it exists.
#[derive(Debug, Clone)]
pub struct Source {
    pub file: Option<PathBuf>,
    /// The file was named explicitly: then it must exist.
    pub explicit: bool,
}

impl Source {
    pub fn find(explicit: Option<PathBuf>, data_dir: &Path) -> Source {
        match explicit {
            Some(file) => Source {
                file: Some(file),
                explicit: true,
            },
            None => {
                let default = data_dir.join("dozor.toml");
                Source {
                    file: default.exists().then_some(default),
                    explicit: false,
                }
            }
        }
    }
}

/// The keys a running server applies only at its next start, each with its value as text
/// (`serve` re-reads the others on SIGHUP: the operator, its premises, the delivery's keys,
/// the tax rates). Values are compared, never logged: a database URL may hold a password.
pub fn restart_keys(config: &Config) -> Vec<(String, String)> {
    let section = |name: &str, value: serde_json::Result<serde_json::Value>| {
        let fields = match value {
            Ok(serde_json::Value::Object(fields)) => fields,
            _ => Default::default(),
        };
        fields
            .into_iter()
            .map(|(key, value)| (format!("{name}.{key}"), value.to_string()))
            .collect::<Vec<_>>()
    };
    let mut keys = [
        section("server", serde_json::to_value(&config.server)),
        section("database", serde_json::to_value(&config.database)),
        section("ledger", serde_json::to_value(&config.ledger)),
        section("gaming_day", serde_json::to_value(&config.gaming_day)),
        section("limits", serde_json::to_value(&config.limits)),
        section("log", serde_json::to_value(&config.log)),
        section("tiles", serde_json::to_value(&config.tiles)),
    ]
    .concat();
    let reports = &config.reports;
    keys.push(("reports.nightly_at".into(), reports.nightly_at.clone()));
    keys.push((
        "reports.full_walk_every_days".into(),
        reports.full_walk_every_days.to_string(),
    ));
    keys.push((
        "reports.full_walk_cores".into(),
        reports.full_walk_cores.to_string(),
    ));
    keys.push(("witness".into(), format!("{:?}", config.witnesses)));
    let delivery = config.delivery.as_ref();
    let listener = delivery.map(|d| {
        (
            &d.listen,
            &d.server_certificate,
            &d.server_key,
            &d.ministry_client_certificates,
            d.download_path(),
        )
    });
    keys.push(("delivery.listen".into(), format!("{listener:?}")));
    keys
}

/// The keys whose values differ between two [`restart_keys`] lists, or that only one has.
pub fn changed_keys(before: &[(String, String)], after: &[(String, String)]) -> Vec<String> {
    let mut changed: Vec<String> = before
        .iter()
        .filter(|entry| !after.contains(entry))
        .chain(after.iter().filter(|entry| !before.contains(entry)))
        .map(|(key, _)| key.clone())
        .collect();
    changed.sort();
    changed.dedup();
    changed
}

/// A bad configuration: one line, naming the key and where its value came from.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(String);

/// Reads the configuration: defaults, then the file, then the environment, then `flags`
/// (a partial configuration: only what was given on the command line).
pub fn load(source: &Source, flags: &serde_json::Value) -> Result<Config, ConfigError> {
    let mut figment = Figment::from(Serialized::defaults(Config::default()));
    if let Some(file) = &source.file {
        if source.explicit && !file.exists() {
            return Err(ConfigError(format!(
                "the file {} does not exist",
                file.display()
            )));
        }
        figment = figment.merge(Toml::file_exact(file));
    }
    figment = figment
        .merge(Env::raw().filter_map(|name| {
            ENVIRONMENT
                .iter()
                .find(|(variable, _)| name.as_str() == *variable)
                .map(|(_, key)| (*key).into())
        }))
        .merge(Serialized::defaults(flags));
    let mut config: Config = figment.extract().map_err(describe)?;
    config.check()?;
    config.file_dir = source
        .file
        .as_ref()
        .and_then(|f| f.parent())
        .map(Path::to_path_buf);
    Ok(config)
}

/// The first error figment found, as one line: key, what was wrong, where it came from.
fn describe(error: figment::Error) -> ConfigError {
    let key = error.path.join(".");
    let origin = match &error.metadata {
        Some(m) if m.name.contains("environment") => ENVIRONMENT
            .iter()
            .find(|(_, k)| *k == key)
            .map_or_else(|| "the environment".to_owned(), |(v, _)| v.to_string()),
        Some(m) => match &m.source {
            Some(figment::Source::File(path)) => path.display().to_string(),
            _ => m.name.to_string(),
        },
        None => "the configuration".into(),
    };
    let what = error.kind.to_string();
    if key.is_empty() {
        ConfigError(format!("{what} (in {origin})"))
    } else {
        ConfigError(format!("key `{key}`: {what} (in {origin})"))
    }
}

fn invalid(key: &str, reason: impl std::fmt::Display) -> ConfigError {
    ConfigError(format!("key `{key}`: {reason}"))
}

impl Config {
    /// What types alone do not say.
    fn check(&self) -> Result<(), ConfigError> {
        if self.server.listen.parse::<std::net::SocketAddr>().is_err()
            && !self.server.listen.contains(':')
        {
            return Err(invalid(
                "server.listen",
                format!("`{}` is not HOST:PORT", self.server.listen),
            ));
        }
        if self.server.workers == Some(0) {
            return Err(invalid("server.workers", "must be at least 1"));
        }
        if self.database.pool_size == 0 {
            return Err(invalid("database.pool_size", "must be at least 1"));
        }
        for (key, value) in [
            ("ledger.checkpoint_every", self.ledger.checkpoint_every),
            ("ledger.checkpoint_seconds", self.ledger.checkpoint_seconds),
            ("ledger.max_batch", self.ledger.max_batch as u64),
            ("limits.api_key_rate", u64::from(self.limits.api_key_rate)),
            ("limits.api_key_burst", u64::from(self.limits.api_key_burst)),
            ("limits.address_rate", u64::from(self.limits.address_rate)),
            ("limits.address_burst", u64::from(self.limits.address_burst)),
            ("limits.file_downloads", self.limits.file_downloads as u64),
            (
                "limits.ministry_handshake_seconds",
                self.limits.ministry_handshake_seconds,
            ),
            (
                "limits.ministry_connections_per_address",
                self.limits.ministry_connections_per_address as u64,
            ),
            (
                "gaming_day.late_after_hours",
                u64::from(self.gaming_day.late_after_hours),
            ),
        ] {
            if value == 0 {
                return Err(invalid(key, "must be at least 1"));
            }
        }
        if self.limits.body_limit_bytes < 1024 {
            return Err(invalid("limits.body_limit_bytes", "must be at least 1024"));
        }
        // The largest body must fit in the budget, or no body of that size could ever be read.
        let largest = api::routes::records::batch_body_limit(self.limits.body_limit_bytes)
            .max(self.limits.body_limit_bytes);
        if self.limits.body_budget_bytes < largest {
            return Err(invalid(
                "limits.body_budget_bytes",
                format!("must be at least the largest body, {largest} bytes"),
            ));
        }
        if self.limits.ministry_connections < self.limits.ministry_connections_per_address {
            return Err(invalid(
                "limits.ministry_connections",
                "must be at least limits.ministry_connections_per_address",
            ));
        }
        if self.limits.ministry_handshake_seconds > 60 {
            return Err(invalid("limits.ministry_handshake_seconds", "must be 1-60"));
        }
        if (self.tiles.publish_dir.as_ref()).is_some_and(|d| d.as_os_str().is_empty()) {
            return Err(invalid("tiles.publish_dir", "is empty: give a folder"));
        }
        if self.gaming_day.start_hour > 23 {
            return Err(invalid("gaming_day.start_hour", "must be 0-23"));
        }
        if self.reports.nightly_at != "off" {
            self.nightly_at()
                .map_err(|reason| invalid("reports.nightly_at", reason))?;
        }
        if !(self.reports.full_walk_cores >= 0.0 && self.reports.full_walk_cores.is_finite()) {
            return Err(invalid("reports.full_walk_cores", "must be 0 or more"));
        }
        if self.operator.is_none() && self.delivery.is_some() {
            return Err(invalid("operator", "delivery needs the [operator] section"));
        }
        if self.operator.is_none() && !self.premises.is_empty() {
            return Err(invalid("operator", "premises need the [operator] section"));
        }
        Ok(())
    }

    /// The nightly job's local time, or none when it is `off`.
    pub fn nightly_at(&self) -> Result<Option<chrono::NaiveTime>, String> {
        match self.reports.nightly_at.as_str() {
            "off" => Ok(None),
            text => nightly_time(text)
                .map(Some)
                .map_err(|_| format!("`{text}` is not HH:MM (Europe/Prague) or `off`")),
        }
    }

    /// The operator and its premises for the Ministry's package, when configured.
    pub fn operator_config(&self) -> Result<Option<reports::mf::OperatorConfig>, ConfigError> {
        let Some(operator) = self.operator.clone() else {
            return Ok(None);
        };
        reports::mf::OperatorConfig::new(
            operator,
            self.premises.clone(),
            self.reconciliation,
            self.delivery.clone(),
        )
        .map(Some)
        .map_err(|e| {
            ConfigError(
                e.to_string()
                    .trim_start_matches("configuration: ")
                    .to_owned(),
            )
        })
    }

    pub fn clock(&self) -> Result<rules::gaming_day::GamingDayClock, ConfigError> {
        rules::gaming_day::GamingDayClock::new(
            chrono_tz::Europe::Prague,
            self.gaming_day.start_hour,
        )
        .ok_or_else(|| invalid("gaming_day.start_hour", "must be 0-23"))?
        .with_late_after_hours(self.gaming_day.late_after_hours)
        .ok_or_else(|| invalid("gaming_day.late_after_hours", "must be at least 1"))
    }
}

/// The nightly job's local time, `HH:MM` (Europe/Prague): the file's and `report nightly --at`'s.
pub fn nightly_time(text: &str) -> Result<chrono::NaiveTime, chrono::ParseError> {
    chrono::NaiveTime::parse_from_str(text, "%H:%M")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn from_file(text: &str, flags: serde_json::Value) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dozor.toml");
        std::fs::write(&path, text).unwrap();
        load(&Source::find(Some(path), dir.path()), &flags)
    }

    #[test]
    fn flags_override_the_file_which_overrides_the_defaults() {
        let config = from_file(
            "[server]\nlisten = \"0.0.0.0:9000\"\n[limits]\napi_key_rate = 50\n",
            serde_json::json!({"limits": {"api_key_rate": 70}}),
        )
        .unwrap();
        assert_eq!(config.server.listen, "0.0.0.0:9000");
        assert_eq!(config.limits.api_key_rate, 70);
        assert_eq!(config.limits.api_key_burst, Limits::default().api_key_burst);
        assert_eq!(config.reports.nightly_at, "06:30");
    }

    #[test]
    fn a_bad_value_is_one_line_naming_its_key_and_file() {
        let error = from_file(
            "[ledger]\ncheckpoint_every = \"often\"\n",
            serde_json::json!({}),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("key `ledger.checkpoint_every`"), "{error}");
        assert!(error.contains("dozor.toml"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        let error = from_file("[server]\nlissen = \"x\"\n", serde_json::json!({}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("lissen"), "{error}");
        let error = from_file("[reports]\nnightly_at = \"25:00\"\n", serde_json::json!({}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("key `reports.nightly_at`"), "{error}");
    }

    #[test]
    fn a_named_file_that_is_missing_is_an_error_and_a_default_one_is_optional() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.toml");
        let error = load(
            &Source::find(Some(missing), dir.path()),
            &serde_json::json!({}),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("does not exist"), "{error}");
        let config = load(&Source::find(None, dir.path()), &serde_json::json!({})).unwrap();
        assert_eq!(config.server.listen, "127.0.0.1:8080");
    }

    #[test]
    fn witnesses_are_read_with_their_keys_and_a_bad_one_is_named() {
        let key = |name: &str, seed: u8| {
            dozor_log::cosignature::CosignatureSigner::new(
                name,
                ed25519_dalek::SigningKey::from_bytes(&[seed; 32]),
            )
            .unwrap()
            .verifier()
            .to_string()
        };
        let file = |witnesses: &[(&str, String)]| {
            witnesses
                .iter()
                .map(|(url, key)| format!("[[witness]]\nurl = \"{url}\"\nkey = \"{key}\"\n"))
                .collect::<String>()
        };
        let two = file(&[
            ("https://w1.example/log", key("w1.example/log", 1)),
            ("http://127.0.0.1:8090", key("w2.example/log", 2)),
        ]);
        let endpoints = from_file(&two, serde_json::json!({}))
            .unwrap()
            .witness_endpoints()
            .unwrap();
        assert_eq!(
            endpoints
                .iter()
                .map(|e| e.key.name.as_str())
                .collect::<Vec<_>>(),
            ["w1.example/log", "w2.example/log"]
        );
        let error = |text: String| {
            from_file(&text, serde_json::json!({}))
                .unwrap()
                .witness_endpoints()
                .unwrap_err()
                .to_string()
        };
        // A note (0x01) key where a cosignature (0x04) key belongs.
        let note_key = dozor_log::checkpoint::NoteSigner::new(
            "w1.example/log",
            ed25519_dalek::SigningKey::from_bytes(&[1; 32]),
        )
        .unwrap()
        .verifier()
        .to_string();
        assert!(error(file(&[("https://w1.example", note_key)])).contains("witness 1: key"));
        assert!(
            error(file(&[("ftp://w1.example", key("w1.example/log", 1))]))
                .contains("is not http:// or https://")
        );
        assert!(error(file(&[
            ("https://a.example", key("w1.example/log", 1)),
            ("https://b.example", key("w1.example/log", 1)),
        ]))
        .contains("listed twice"));
    }

    #[test]
    fn the_tiles_folder_starts_at_the_file_s_folder_and_is_a_restart_key() {
        let load = |text: &str| from_file(text, serde_json::json!({}));
        let none = load("").unwrap();
        assert_eq!(none.tiles_publish_dir(), None);
        let relative = load("[tiles]\npublish_dir = \"site/tiles\"\n").unwrap();
        let base = relative.file_dir.clone().unwrap();
        assert!(base.is_absolute());
        assert_eq!(relative.tiles_publish_dir(), Some(base.join("site/tiles")));
        let absolute = load("[tiles]\npublish_dir = \"/srv/tiles\"\n").unwrap();
        assert_eq!(absolute.tiles_publish_dir(), Some("/srv/tiles".into()));
        let changed = changed_keys(&restart_keys(&none), &restart_keys(&absolute));
        assert_eq!(changed, ["tiles.publish_dir"]);
        for (text, said) in [
            ("publish_dir = \"\"", "key `tiles.publish_dir`"),
            ("dir = 1", "dir"),
        ] {
            let error = load(&format!("[tiles]\n{text}\n")).unwrap_err().to_string();
            assert!(error.contains(said), "{error}");
        }
    }

    #[test]
    fn the_example_file_is_complete_and_valid() {
        let text = include_str!("../../deploy/dozor.example.toml");
        let config = from_file(text, serde_json::json!({})).unwrap();
        assert!(config.operator_config().unwrap().is_some());
        // Every key the environment can set is in the example, under its section.
        for (variable, key) in ENVIRONMENT {
            let (section, name) = key.split_once('.').unwrap();
            let in_section = text
                .split(&format!("[{section}]"))
                .nth(1)
                .is_some_and(|rest| {
                    rest.split("\n[")
                        .next()
                        .unwrap_or("")
                        .contains(&format!("{name} ="))
                });
            assert!(
                in_section,
                "{variable}: `{key}` is not in dozor.example.toml"
            );
        }
    }
}
