//! `[alerts]` of monitor.toml: the checks made beside following (a checkpoint gone stale,
//! findings left open, a game's RTP past ±3σ of theory, the daily summary), and the webhook
//! every alert is delivered to. Without `[alerts]` only the alerts of following are raised, and
//! none is delivered.
//!
//! ```toml
//! [alerts]
//! stale_after_seconds = 86400     # the checkpoint held is older than this: an alert
//! findings_open_days = 30         # a finding without a resolution in the log after this
//! rtp_min_rounds = 100            # a month's game needs at least this many rounds to be judged
//! daily_summary = true            # "all well" (or not) once per casino and gaming day
//!
//! [alerts.webhook]
//! url = "https://alerts.regulator.example/dozor"
//! bearer_token_file = "webhook.token"
//! ca_certificates = "alerts-ca.pem"
//! timeout_seconds = 10
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlertsFile {
    stale_after_seconds: Option<u64>,
    findings_open_days: Option<u32>,
    rtp_min_rounds: Option<i64>,
    daily_summary: Option<bool>,
    webhook: Option<WebhookFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WebhookFile {
    url: String,
    bearer_token_file: Option<PathBuf>,
    ca_certificates: Option<PathBuf>,
    timeout_seconds: Option<u64>,
}

/// The checks beside following, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertsConfig {
    /// A checkpoint held longer than this without a newer one is stale.
    pub stale_after: Duration,
    /// Gaming days a finding may stay without a resolution recorded in the log.
    pub findings_open_days: u32,
    /// Rounds a game needs in a month before its RTP is compared with theory, beside those the
    /// payouts' skewness asks for (the flag is trusted only then, as in the reports).
    pub rtp_min_rounds: i64,
    pub daily_summary: bool,
    pub webhook: Option<WebhookConfig>,
}

/// Where alerts are POSTed.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookConfig {
    pub url: String,
    pub bearer_token: Option<String>,
    /// PEM: the webhook's certificate must chain to these (the system's roots otherwise).
    pub ca_certificates: Option<String>,
    pub timeout: Duration,
}

impl std::fmt::Debug for WebhookConfig {
    /// Never shows the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookConfig")
            .field("url", &self.url)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "…"))
            .field("ca_certificates", &self.ca_certificates.is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// 24 hours: a casino open every day signs a checkpoint at least daily.
pub const DEFAULT_STALE_AFTER_SECONDS: u64 = 86_400;
pub const DEFAULT_FINDINGS_OPEN_DAYS: u32 = 30;
pub const DEFAULT_RTP_MIN_ROUNDS: i64 = 100;

fn read(base: &Path, path: &Path, what: &str) -> Result<String, String> {
    let full = base.join(path);
    std::fs::read_to_string(&full)
        .map_err(|e| format!("[alerts.webhook] {what} {}: {e}", full.display()))
}

/// Whether `url`'s host is this machine's loopback (where a token may go over plain HTTP).
pub fn loopback(url: &str) -> bool {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    let host = rest.split('/').next().unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
}

impl AlertsFile {
    /// The settings, or why they are refused (named as `[alerts] <setting>`); files are found
    /// under `base`.
    pub fn check(self, base: &Path) -> Result<AlertsConfig, String> {
        let stale = self
            .stale_after_seconds
            .unwrap_or(DEFAULT_STALE_AFTER_SECONDS);
        if stale == 0 {
            return Err("[alerts] stale_after_seconds must be at least 1".into());
        }
        let days = self
            .findings_open_days
            .unwrap_or(DEFAULT_FINDINGS_OPEN_DAYS);
        if days == 0 {
            return Err("[alerts] findings_open_days must be at least 1".into());
        }
        let rtp_min_rounds = self.rtp_min_rounds.unwrap_or(DEFAULT_RTP_MIN_ROUNDS);
        if rtp_min_rounds < 1 {
            return Err("[alerts] rtp_min_rounds must be at least 1".into());
        }
        Ok(AlertsConfig {
            stale_after: Duration::from_secs(stale),
            findings_open_days: days,
            rtp_min_rounds,
            daily_summary: self.daily_summary.unwrap_or(true),
            webhook: self.webhook.map(|w| w.check(base)).transpose()?,
        })
    }
}

impl WebhookFile {
    fn check(self, base: &Path) -> Result<WebhookConfig, String> {
        let url = self.url.trim().to_owned();
        let https = url.starts_with("https://");
        if !https && !url.starts_with("http://") {
            return Err("[alerts.webhook] url must start with http:// or https://".into());
        }
        let bearer_token = match &self.bearer_token_file {
            Some(path) => {
                let token = read(base, path, "bearer_token_file")?.trim().to_owned();
                if token.is_empty() || token.contains(char::is_whitespace) {
                    return Err(format!(
                        "[alerts.webhook] bearer_token_file {}: one token on one line",
                        path.display()
                    ));
                }
                Some(token)
            }
            None => None,
        };
        if bearer_token.is_some() && !https && !loopback(&url) {
            return Err(
                "[alerts.webhook] a bearer token is sent only over https (or to this machine)"
                    .into(),
            );
        }
        let ca_certificates = match &self.ca_certificates {
            Some(_) if !https => {
                return Err("[alerts.webhook] ca_certificates needs an https url".into())
            }
            Some(path) => Some(read(base, path, "ca_certificates")?),
            None => None,
        };
        let timeout = match self.timeout_seconds.unwrap_or(10) {
            0 => return Err("[alerts.webhook] timeout_seconds must be at least 1".into()),
            s => Duration::from_secs(s),
        };
        Ok(WebhookConfig {
            url,
            bearer_token,
            ca_certificates,
            timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn parse(text: &str, base: &Path) -> Result<AlertsConfig, String> {
        toml::from_str::<AlertsFile>(text)
            .map_err(|e| e.message().to_owned())?
            .check(base)
    }

    #[test]
    fn defaults_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let config = parse("", dir.path()).unwrap();
        assert_eq!(config.stale_after, Duration::from_secs(86_400));
        assert_eq!(
            (config.findings_open_days, config.rtp_min_rounds),
            (30, 100)
        );
        assert!(config.daily_summary && config.webhook.is_none());
        std::fs::write(dir.path().join("t"), "s3cret\n").unwrap();
        let hook = parse(
            "[webhook]\nurl = \"http://127.0.0.1:9/hook\"\nbearer_token_file = \"t\"",
            dir.path(),
        )
        .unwrap()
        .webhook
        .unwrap();
        assert_eq!(hook.bearer_token.as_deref(), Some("s3cret"));
        assert!(!format!("{hook:?}").contains("s3cret"));
        for (text, why) in [
            ("stale_after_seconds = 0", "stale_after_seconds"),
            ("findings_open_days = 0", "findings_open_days"),
            ("rtp_min_rounds = 0", "rtp_min_rounds"),
            ("colour = 1", "unknown field"),
            ("[webhook]\nurl = \"ftp://x/\"", "url must start"),
            (
                "[webhook]\nurl = \"http://alerts.example/\"\nbearer_token_file = \"t\"",
                "only over https",
            ),
            (
                "[webhook]\nurl = \"http://alerts.example/\"\nca_certificates = \"t\"",
                "needs an https url",
            ),
            (
                "[webhook]\nurl = \"https://alerts.example/\"\nbearer_token_file = \"none\"",
                "bearer_token_file",
            ),
        ] {
            let refused = parse(text, dir.path()).unwrap_err();
            assert!(refused.contains(why), "{text}: {refused}");
        }
    }
}
