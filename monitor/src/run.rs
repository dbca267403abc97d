//! Following every configured casino: one thread per casino, each with its own connection to the
//! monitor's state and its own HTTP client; a casino that fails is tried again after a delay that
//! doubles up to the configured cap, and the others go on meanwhile.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::Utc;
use diesel::PgConnection;
use serde_json::json;

use crate::config::{CasinoConfig, MonitorConfig};
use crate::error::MonitorError;
use crate::fetch::HttpSource;
use crate::follow::follow_once;
use crate::step::{FollowError, Step};
use crate::store::alerts::{raise, NewAlert};
use crate::store::connection::connect;
use crate::store::state;

/// How one casino's pass ended: its step, or why it failed.
pub type Pass = Result<Step, String>;

/// The delay before the next attempt after `failures` failures in a row: the poll interval
/// doubled per failure, capped.
pub fn backoff(poll: Duration, cap: Duration, failures: u32) -> Duration {
    let factor = 1u32.checked_shl(failures.min(31)).unwrap_or(u32::MAX);
    poll.checked_mul(factor).unwrap_or(cap).min(cap)
}

/// Follows one casino: one step, recorded as an attempt.
fn attempt(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &HttpSource,
) -> Result<Pass, MonitorError> {
    let step = follow_once(conn, casino, source);
    let error = match &step {
        Ok(_) => None,
        Err(FollowError::Monitor(_)) => None,
        Err(e) => Some(e.to_string()),
    };
    if let Err(FollowError::Monitor(e)) = step {
        return Err(e);
    }
    state::record_attempt(conn, &casino.name, error.as_deref(), Utc::now())?;
    Ok(step.map_err(|e| e.to_string()))
}

/// Tells the casino's alerts when a checkpoint has lacked its witnesses for longer than the
/// grace allows; `waiting`, since when each size has waited.
fn quorum_overdue(
    conn: &mut PgConnection,
    config: &MonitorConfig,
    casino: &CasinoConfig,
    pass: &Pass,
    waiting: &mut HashMap<u64, Instant>,
) -> Result<(), MonitorError> {
    let Ok(Step::Waiting { size, why }) = pass else {
        waiting.clear();
        return Ok(());
    };
    let since = *waiting.entry(*size).or_insert_with(Instant::now);
    if since.elapsed() >= config.quorum_grace {
        raise(
            conn,
            &casino.name,
            &NewAlert {
                kind: "quorum_missing",
                key: format!("quorum:{size}"),
                message: format!(
                    "the checkpoint of size {size} has lacked its witnesses' cosignatures for {} s: {why}",
                    since.elapsed().as_secs()
                ),
                evidence: json!({"size": size, "problem": why}),
            },
            Utc::now(),
        )?;
    }
    Ok(())
}

/// Follows `casino` until the process ends (or once, with `once`); its passes so far, the last
/// one last.
fn follow_casino(config: &MonitorConfig, casino: &CasinoConfig, url: &str, once: bool) -> Pass {
    let source =
        HttpSource::new(casino, config.timeout).map_err(|e| format!("its TLS settings: {e}"))?;
    let mut waiting = HashMap::new();
    let mut failures = 0u32;
    loop {
        // A step that panics is a failure of this casino's, retried as any other: the others
        // go on, and so does this one.
        let pass = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            connect(url).and_then(|mut conn| {
                let pass = attempt(&mut conn, casino, &source)?;
                quorum_overdue(&mut conn, config, casino, &pass, &mut waiting)?;
                Ok(pass)
            })
        }))
        .unwrap_or_else(|_| Ok(Err("the step failed unexpectedly (a panic)".into())));
        let pass = pass
            .map_err(|e| format!("the monitor's state: {e}"))
            .and_then(|p| p);
        match &pass {
            Ok(step) => {
                failures = 0;
                tracing::info!(casino = %casino.name, ?step, "followed");
            }
            Err(why) => {
                failures = failures.saturating_add(1);
                tracing::warn!(casino = %casino.name, failures, "{why}");
            }
        }
        if once {
            return pass;
        }
        let delay = match pass {
            // More may have arrived while following a large range: look again at once.
            Ok(Step::Followed { .. }) => Duration::ZERO,
            Ok(_) => config.poll,
            Err(_) => backoff(config.poll, config.backoff_max, failures),
        };
        std::thread::sleep(delay);
    }
}

/// Follows every casino of `config` on the monitor's state at `url`: for ever, or (`once`) one
/// pass each, whose results are returned by casino name.
pub fn run(
    config: &MonitorConfig,
    url: &str,
    once: bool,
) -> Result<Vec<(String, Pass)>, MonitorError> {
    let mut conn = connect(url)?;
    for casino in &config.casinos {
        state::ensure(&mut conn, &casino.name)?;
    }
    drop(conn);
    let webhook = crate::alerts::periodic::webhook(config)?;
    let webhook = webhook.as_ref();
    let passes = std::thread::scope(|scope| {
        if !once && config.alerts.is_some() {
            let checks = std::thread::Builder::new()
                .name("monitor alerts".into())
                .spawn_scoped(scope, move || {
                    crate::alerts::periodic::keep_checking(url, config, webhook)
                });
            if let Err(e) = checks {
                tracing::error!("the alerts' thread could not start: {e}");
            }
        }
        let threads: Vec<_> = config
            .casinos
            .iter()
            .map(|casino| {
                let thread = std::thread::Builder::new()
                    .name(format!("monitor {}", casino.name))
                    .spawn_scoped(scope, move || follow_casino(config, casino, url, once));
                (casino.name.clone(), thread)
            })
            .collect();
        threads
            .into_iter()
            .map(|(name, thread)| {
                let pass = match thread {
                    Ok(handle) => handle
                        .join()
                        .unwrap_or_else(|_| Err("its thread failed".into())),
                    Err(e) => Err(format!("its thread could not start: {e}")),
                };
                (name, pass)
            })
            .collect()
    });
    if once && config.alerts.is_some() {
        crate::alerts::periodic::pass(url, config, webhook, Utc::now())?;
    }
    Ok(passes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_waiting_for_its_witnesses_longer_than_the_grace_is_one_alert() {
        let mut conn = crate::store::test_db::database();
        let log = crate::test_log::TestLog::new();
        let casino = crate::follow::tests::casino(&log);
        state::ensure(&mut conn, &casino.name).unwrap();
        let config = MonitorConfig {
            database_url: None,
            data_dir: std::path::PathBuf::new(),
            poll: Duration::from_secs(1),
            backoff_max: Duration::from_secs(1),
            timeout: Duration::from_secs(1),
            quorum_grace: Duration::from_millis(50),
            casinos: Vec::new(),
            http: None,
            alerts: None,
        };
        let waiting_pass: Pass = Ok(Step::Waiting {
            size: 9,
            why: "0 of the 1".into(),
        });
        let mut waiting = HashMap::new();
        let alerts = |conn: &mut PgConnection| crate::store::alerts::alerts(conn, None).unwrap();
        quorum_overdue(&mut conn, &config, &casino, &waiting_pass, &mut waiting).unwrap();
        assert!(alerts(&mut conn).is_empty(), "within the grace");
        std::thread::sleep(Duration::from_millis(60));
        for _ in 0..2 {
            quorum_overdue(&mut conn, &config, &casino, &waiting_pass, &mut waiting).unwrap();
        }
        let raised = alerts(&mut conn);
        assert_eq!(raised.len(), 1);
        assert_eq!(
            (raised[0].kind.as_str(), raised[0].key.as_str()),
            ("quorum_missing", "quorum:9")
        );
        // Followed since: the wait is forgotten.
        quorum_overdue(
            &mut conn,
            &config,
            &casino,
            &Ok(Step::UpToDate { size: 9 }),
            &mut waiting,
        )
        .unwrap();
        assert!(waiting.is_empty());
    }

    #[test]
    fn the_delay_doubles_per_failure_up_to_the_cap() {
        let (poll, cap) = (Duration::from_secs(30), Duration::from_secs(600));
        // 30 s × 2^f: 60, 120, 240, 480, then the cap of 600.
        let delays: Vec<u64> = (1..=6).map(|f| backoff(poll, cap, f).as_secs()).collect();
        assert_eq!(delays, vec![60, 120, 240, 480, 600, 600]);
        assert_eq!(backoff(poll, cap, u32::MAX), cap);
    }
}
