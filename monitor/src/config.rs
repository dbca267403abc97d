//! `monitor.toml`: the casinos to follow and whom to trust for each, where the monitor keeps its
//! state, how often it asks. Read once at start; every error names the file and the setting.
//!
//! ```toml
//! [state]
//! data_dir = "var"                 # its own PostgreSQL under var/pg, unless DATABASE_URL
//!
//! [follow]
//! poll_seconds = 30
//! backoff_max_seconds = 600
//!
//! [[casino]]
//! name = "casino-1"
//! tiles_url = "https://tiles.casino-1.example/ledger/"
//! bearer_token_file = "casino-1.token"
//! operator_keys = ["casino-1.example/ledger+1a2b3c4d+AX…"]
//! witnesses = ["witness.regulator.example+5e6f7a8b+BG…"]
//! quorum = 1
//! # allow_no_witness = true      # only to follow on the operator's signature alone
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use dozor_log::checkpoint::NoteVerifier;
use dozor_log::cosignature::CosignatureVerifier;
use rules::gaming_day::GamingDayClock;
use serde::Deserialize;

use crate::error::MonitorError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    state: StateFile,
    #[serde(default)]
    follow: FollowFile,
    #[serde(default)]
    casino: Vec<CasinoFile>,
    http: Option<crate::http_config::HttpFile>,
    alerts: Option<crate::alerts::config::AlertsFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFile {
    database_url: Option<String>,
    data_dir: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FollowFile {
    poll_seconds: Option<u64>,
    backoff_max_seconds: Option<u64>,
    timeout_seconds: Option<u64>,
    quorum_grace_seconds: Option<u64>,
    max_step_entries: Option<u64>,
    commit_entries: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CasinoFile {
    name: String,
    tiles_url: String,
    bearer_token_file: Option<PathBuf>,
    client_certificate: Option<PathBuf>,
    client_key: Option<PathBuf>,
    ca_certificates: Option<PathBuf>,
    operator_keys: Vec<String>,
    #[serde(default)]
    witnesses: Vec<String>,
    quorum: Option<usize>,
    /// Follows the casino on its operator's signature alone: no witness, or a quorum of 0.
    #[serde(default)]
    allow_no_witness: bool,
    #[serde(default)]
    plans: Vec<PathBuf>,
    gaming_day_start_hour: Option<u32>,
}

/// How the monitor proves who it is to a casino, and whom it takes the casino's server for.
#[derive(Clone, Default)]
pub struct Credentials {
    pub bearer_token: Option<String>,
    /// The client certificate chain and its private key, PEM.
    pub client_identity: Option<(String, String)>,
    /// The CA certificates the server's certificate must chain to (PEM); the system's roots
    /// otherwise.
    pub ca_certificates: Option<String>,
}

impl std::fmt::Debug for Credentials {
    /// Says which credentials there are, never what they are.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "…"))
            .field(
                "client_identity",
                &self.client_identity.as_ref().map(|_| "…"),
            )
            .field("ca_certificates", &self.ca_certificates.is_some())
            .finish()
    }
}

/// One casino the monitor follows.
#[derive(Debug, Clone)]
pub struct CasinoConfig {
    pub name: String,
    /// The prefix its tiles are under, ending in `/`.
    pub tiles_url: String,
    pub credentials: Credentials,
    pub operator_keys: Vec<NoteVerifier>,
    pub witnesses: Vec<CosignatureVerifier>,
    pub quorum: usize,
    pub plans: rules::PlanBook,
    pub clock: GamingDayClock,
    /// The most entries one step follows: a checkpoint further ahead of the followed size is
    /// not followed (an alert), since the walk holds about 200 bytes per 256 entries of its range.
    pub max_step_entries: u64,
    /// The most entries a transaction commits while following (what a kill loses at most).
    pub commit_entries: u64,
}

#[derive(Debug, Clone)]
pub struct MonitorConfig {
    /// `DATABASE_URL` of the monitor's state; none: its own cluster under `data_dir`.
    pub database_url: Option<String>,
    pub data_dir: PathBuf,
    pub poll: Duration,
    pub backoff_max: Duration,
    pub timeout: Duration,
    /// How long a checkpoint may wait for its witnesses' cosignatures before it is an alert.
    pub quorum_grace: Duration,
    pub casinos: Vec<CasinoConfig>,
    /// The listener of the regulator's view (`[http]`); none: no listener.
    pub http: Option<crate::http_config::HttpConfig>,
    /// The checks beside following and the webhook (`[alerts]`); none: neither.
    pub alerts: Option<crate::alerts::config::AlertsConfig>,
}

/// The most entries one step follows unless configured: 2^28 (268 435 456). A walk holds about
/// 200 bytes per 256 entries of its range (each level-0 tile's root and place, the node it
/// completes): about 200 MiB for 2^28.
pub const DEFAULT_MAX_STEP_ENTRIES: u64 = 1 << 28;

/// Entries a transaction commits at most while following: few transactions while catching up.
pub const DEFAULT_COMMIT_ENTRIES: u64 = 16_384;

/// A casino's name: what its state and alerts are kept under.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

impl MonitorConfig {
    /// Reads and checks `path`; relative paths in it are relative to its directory.
    pub fn load(path: &Path) -> Result<MonitorConfig, MonitorError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| MonitorError::config(&shown, format!("cannot be read: {e}")))?;
        let base = path.parent().unwrap_or(Path::new("."));
        MonitorConfig::parse(&text, base).map_err(|m| MonitorError::config(&shown, m))
    }

    /// Reads a configuration's text; files it names are found under `base`.
    pub fn parse(text: &str, base: &Path) -> Result<MonitorConfig, String> {
        let file: File = toml::from_str(text).map_err(|e| e.message().to_owned())?;
        if file.casino.is_empty() {
            return Err("no [[casino]] to follow".into());
        }
        let mut casinos: Vec<CasinoConfig> = Vec::new();
        for (n, casino) in file.casino.into_iter().enumerate() {
            let name = casino.name.clone();
            let casino = read_casino(casino, base)
                .map_err(|m| format!("[[casino]] {} (`{name}`): {m}", n + 1))?;
            if casinos.iter().any(|c| c.name == casino.name) {
                return Err(format!("two casinos are named `{name}`"));
            }
            casinos.push(casino);
        }
        let seconds = |value: Option<u64>, default: u64, what: &str| match value.unwrap_or(default)
        {
            0 => Err(format!("[follow] {what} must be at least 1")),
            s => Ok(Duration::from_secs(s)),
        };
        let follow = file.follow;
        let max_step_entries = follow.max_step_entries.unwrap_or(DEFAULT_MAX_STEP_ENTRIES);
        if max_step_entries == 0 {
            return Err("[follow] max_step_entries must be at least 1".into());
        }
        let commit_entries = follow.commit_entries.unwrap_or(DEFAULT_COMMIT_ENTRIES);
        if commit_entries == 0 {
            return Err("[follow] commit_entries must be at least 1".into());
        }
        for casino in &mut casinos {
            casino.max_step_entries = max_step_entries;
            casino.commit_entries = commit_entries;
        }
        let poll = seconds(follow.poll_seconds, 30, "poll_seconds")?;
        let backoff_max = seconds(follow.backoff_max_seconds, 600, "backoff_max_seconds")?;
        if backoff_max < poll {
            return Err("[follow] backoff_max_seconds must be at least poll_seconds".into());
        }
        Ok(MonitorConfig {
            database_url: file.state.database_url.filter(|u| !u.trim().is_empty()),
            data_dir: base.join(file.state.data_dir.unwrap_or_else(|| PathBuf::from("var"))),
            poll,
            backoff_max,
            timeout: seconds(follow.timeout_seconds, 30, "timeout_seconds")?,
            quorum_grace: seconds(follow.quorum_grace_seconds, 600, "quorum_grace_seconds")?,
            casinos,
            http: file
                .http
                .map(crate::http_config::HttpFile::check)
                .transpose()?,
            alerts: file.alerts.map(|a| a.check(base)).transpose()?,
        })
    }
}

fn read_file(base: &Path, path: &Path, what: &str) -> Result<String, String> {
    let full = base.join(path);
    std::fs::read_to_string(&full).map_err(|e| format!("{what} {}: {e}", full.display()))
}

fn read_casino(casino: CasinoFile, base: &Path) -> Result<CasinoConfig, String> {
    if !valid_name(&casino.name) {
        return Err("name must be 1 to 64 letters, digits, `-`, `_` or `.`".into());
    }
    let mut url = casino.tiles_url.trim().to_owned();
    let https = url.starts_with("https://");
    if !https && !url.starts_with("http://") {
        return Err("tiles_url must start with http:// or https://".into());
    }
    if !url.ends_with('/') {
        url.push('/');
    }
    let credentials = read_credentials(&casino, base)?;
    if credentials.bearer_token.is_some() && !https && !crate::alerts::config::loopback(&url) {
        return Err("a bearer token is sent only over https (or to this machine)".into());
    }
    if (credentials.client_identity.is_some() || credentials.ca_certificates.is_some()) && !https {
        return Err("client_certificate and ca_certificates need an https tiles_url".into());
    }
    let operator_keys = casino
        .operator_keys
        .iter()
        .map(|k| NoteVerifier::parse(k).map_err(|e| format!("operator key `{k}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if operator_keys.is_empty() {
        return Err("operator_keys must name at least the key that holds the log".into());
    }
    let witnesses = casino
        .witnesses
        .iter()
        .map(|k| CosignatureVerifier::parse(k).map_err(|e| format!("witness key `{k}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let quorum = casino.quorum.unwrap_or(witnesses.len());
    if quorum > witnesses.len() {
        return Err(format!(
            "quorum {quorum} is more than the {} witnesses given",
            witnesses.len()
        ));
    }
    if quorum == 0 && !casino.allow_no_witness {
        return Err(
            "no witness cosigns its checkpoints (no witnesses, or quorum = 0): a split view goes \
             unseen; set allow_no_witness = true to follow it on the operator's signature alone"
                .into(),
        );
    }
    let mut plans = rules::PlanBook::builtin().map_err(|e| e.to_string())?;
    for path in &casino.plans {
        let text = read_file(base, path, "plan")?;
        let plan = rules::Plan::from_toml_str(&text)
            .map_err(|e| format!("plan {}: {e}", path.display()))?;
        plans
            .insert(plan)
            .map_err(|e| format!("plan {}: {e}", path.display()))?;
    }
    let clock = GamingDayClock::new(
        chrono_tz::Europe::Prague,
        casino.gaming_day_start_hour.unwrap_or(6),
    )
    .ok_or("gaming_day_start_hour must be 0-23")?;
    Ok(CasinoConfig {
        name: casino.name,
        tiles_url: url,
        credentials,
        operator_keys,
        witnesses,
        quorum,
        plans,
        clock,
        max_step_entries: DEFAULT_MAX_STEP_ENTRIES,
        commit_entries: DEFAULT_COMMIT_ENTRIES,
    })
}

fn read_credentials(casino: &CasinoFile, base: &Path) -> Result<Credentials, String> {
    let bearer_token = match &casino.bearer_token_file {
        Some(path) => {
            let token = read_file(base, path, "bearer_token_file")?
                .trim()
                .to_owned();
            if token.is_empty() || token.contains(char::is_whitespace) {
                return Err(format!(
                    "bearer_token_file {}: one token on one line",
                    path.display()
                ));
            }
            Some(token)
        }
        None => None,
    };
    let client_identity = match (&casino.client_certificate, &casino.client_key) {
        (Some(cert), Some(key)) => Some((
            read_file(base, cert, "client_certificate")?,
            read_file(base, key, "client_key")?,
        )),
        (None, None) => None,
        _ => return Err("client_certificate and client_key go together".into()),
    };
    let ca_certificates = match &casino.ca_certificates {
        Some(path) => Some(read_file(base, path, "ca_certificates")?),
        None => None,
    };
    Ok(Credentials {
        bearer_token,
        client_identity,
        ca_certificates,
    })
}

#[cfg(test)]
mod tests;
