//! The checks beside following and the webhook's deliveries, on a thread of their own so that
//! neither holds up following: a pass now and then for ever, or one pass after `--once`.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::checks::periodic_checks;
use super::webhook::{deliver_due, Delivered, Webhook};
use crate::config::MonitorConfig;
use crate::error::MonitorError;
use crate::store::connection::connect;

/// The longest wait between two passes.
pub const PASS_EVERY_AT_MOST: Duration = Duration::from_secs(60);

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassDone {
    pub raised: usize,
    pub delivery: Delivered,
}

/// One pass at `now`: the checks of every casino, then the alerts due delivered (`webhook`:
/// none without `[alerts.webhook]`).
pub fn pass(
    url: &str,
    config: &MonitorConfig,
    webhook: Option<&Webhook>,
    now: DateTime<Utc>,
) -> Result<PassDone, MonitorError> {
    let mut conn = connect(url)?;
    let raised = periodic_checks(&mut conn, config, now)?;
    let delivery = match webhook {
        Some(webhook) => deliver_due(&mut conn, webhook, now)?,
        None => Delivered::default(),
    };
    Ok(PassDone { raised, delivery })
}

/// The webhook of `config`, if one is configured; an error when its client cannot be set up.
pub fn webhook(config: &MonitorConfig) -> Result<Option<Webhook>, MonitorError> {
    let Some(hook) = config.alerts.as_ref().and_then(|a| a.webhook.as_ref()) else {
        return Ok(None);
    };
    Webhook::new(hook)
        .map(Some)
        .map_err(|m| MonitorError::config("[alerts.webhook]", m))
}

/// Passes for ever, one every poll interval (at most a minute apart). A pass that fails is
/// logged and the next one tried.
pub fn keep_checking(url: &str, config: &MonitorConfig, webhook: Option<&Webhook>) {
    let every = config.poll.min(PASS_EVERY_AT_MOST);
    loop {
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pass(url, config, webhook, Utc::now())
        }));
        match done {
            Ok(Ok(done)) if done != PassDone::default() => {
                tracing::info!(?done, "alerts checked and delivered")
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!("the alerts' pass: {e}"),
            Err(_) => tracing::warn!("the alerts' pass failed unexpectedly (a panic)"),
        }
        std::thread::sleep(every);
    }
}
