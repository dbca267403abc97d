//! Delivery of alerts to the webhook, at least once: each alert of the outbox is POSTed as JSON
//! with its id as the idempotency key (`Idempotency-Key`, and `id` in the body) until the
//! webhook answers 2xx; a failure is tried again after a delay that doubles, from 10 s up to an
//! hour. The outbox is in the monitor's database, so a restart goes on where delivery stopped.
//! Delivery runs on a thread of its own and never holds up following.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use serde_json::json;

use super::config::WebhookConfig;
use super::severity;
use crate::error::MonitorError;
use crate::store::alerts::Alert;
use crate::store::outbox;

/// The delay before the next attempt after `attempts` failed ones: 10 s doubled per failure,
/// at most an hour.
pub fn retry_delay(attempts: i32) -> Duration {
    let doubled = 1u64
        .checked_shl(
            u32::try_from(attempts.saturating_sub(1))
                .unwrap_or(0)
                .min(30),
        )
        .unwrap_or(u64::MAX);
    Duration::from_secs(10u64.saturating_mul(doubled).min(3_600))
}

/// The JSON body of an alert's POST.
pub fn body(alert: &Alert) -> serde_json::Value {
    json!({
        "id": alert.id,
        "idempotency_key": alert.id.to_string(),
        "casino": alert.casino,
        "kind": alert.kind,
        "severity": severity(&alert.kind),
        "key": alert.key,
        "raised_at": alert.raised_at,
        "message": alert.message,
        "evidence": alert.evidence,
    })
}

/// The webhook, with an HTTP client set up for it.
pub struct Webhook {
    agent: ureq::Agent,
    config: WebhookConfig,
}

impl Webhook {
    pub fn new(config: &WebhookConfig) -> Result<Webhook, String> {
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(config.timeout))
            .user_agent(concat!("dozor-monitor/", env!("CARGO_PKG_VERSION")));
        if let Some(pem) = &config.ca_certificates {
            let certs: Vec<_> = ureq::tls::parse_pem(pem.as_bytes())
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(c),
                    _ => None,
                })
                .collect();
            if certs.is_empty() {
                return Err("[alerts.webhook] ca_certificates holds no certificate".into());
            }
            builder = builder.tls_config(
                ureq::tls::TlsConfig::builder()
                    .root_certs(ureq::tls::RootCerts::Specific(Arc::new(certs)))
                    .build(),
            );
        }
        Ok(Webhook {
            agent: builder.build().into(),
            config: config.clone(),
        })
    }

    /// POSTs `alert`; an answer other than 2xx is an error.
    pub fn post(&self, alert: &Alert) -> Result<(), String> {
        let mut request = self
            .agent
            .post(&self.config.url)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", alert.id.to_string());
        if let Some(token) = &self.config.bearer_token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let answer = request
            .send(body(alert).to_string().as_bytes())
            .map_err(|e| format!("the webhook cannot be reached: {e}"))?;
        let status = answer.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("the webhook answers {status}"))
        }
    }
}

/// What a delivery pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivered {
    pub delivered: usize,
    pub failed: usize,
}

/// Delivers the alerts due at `now`, oldest first, until none is due or one fails (the webhook
/// is then most likely down: the rest wait for the next pass).
pub fn deliver_due(
    conn: &mut PgConnection,
    webhook: &Webhook,
    now: DateTime<Utc>,
) -> Result<Delivered, MonitorError> {
    let mut done = Delivered::default();
    loop {
        let due = outbox::due(conn, now, 100)?;
        if due.is_empty() {
            return Ok(done);
        }
        for pending in due {
            let id = pending.alert.id;
            match webhook.post(&pending.alert) {
                Ok(()) => {
                    outbox::delivered(conn, id, now)?;
                    done.delivered += 1;
                }
                Err(why) => {
                    let delay = retry_delay(pending.attempts.saturating_add(1));
                    let next = now
                        + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::hours(1));
                    tracing::warn!(
                        alert = id,
                        attempts = pending.attempts + 1,
                        "delivering an alert: {why}; tried again at {next}"
                    );
                    outbox::failed(conn, id, next, &why)?;
                    done.failed += 1;
                    return Ok(done);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_delivery_waits_longer_each_time_up_to_an_hour() {
        // 10 s × 2^(n−1): 10, 20, 40, …, 2 560, then the hour.
        let delays: Vec<u64> = (1..=10).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(
            delays,
            vec![10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600]
        );
        assert_eq!(retry_delay(i32::MAX).as_secs(), 3_600);
    }
}
