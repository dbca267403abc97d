//! A casino's followed state: loaded on start (the registry's history built again from the
//! events kept), a verified checkpoint recorded, and each bundle committed in one transaction
//! with its evidence, so that a monitor killed anywhere resumes exactly and counts nothing twice.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;

use dozor_log::checkpoint::NoteVerifier;
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::RegistryHistory;

use super::alerts::{raise, NewAlert};
use super::schema::{
    monitor_casinos, monitor_checkpoints, monitor_findings, monitor_mismatches,
    monitor_registry_events, monitor_tallies,
};
use crate::bundle_check::{Evidence, Followed};
use crate::checkpoint_check::{operator_signers, Held};
use crate::error::MonitorError;
use crate::record_runs::{RecordRuns, RunChange};

/// The checkpoint a casino's log was last verified at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCheckpoint {
    pub held: Held,
    pub note: String,
    pub verified_at: DateTime<Utc>,
}

/// What the monitor holds of one casino.
#[derive(Debug, Clone)]
pub struct CasinoState {
    pub followed: Followed,
    pub checkpoint: Option<HeldCheckpoint>,
    /// Why following stopped for good (a fork); none while it follows.
    pub halted: Option<String>,
    /// Every table record followed, as runs of seq_nos per table.
    pub runs: RecordRuns,
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn hash_of(casino: &str, what: &str, bytes: &[u8]) -> Result<Hash, MonitorError> {
    bytes
        .try_into()
        .map_err(|_| MonitorError::corrupt(casino, format!("{what} is not 32 bytes")))
}

/// Makes the casino's row unless it exists.
pub fn ensure(conn: &mut PgConnection, casino: &str) -> Result<(), MonitorError> {
    diesel::insert_into(monitor_casinos::table)
        .values(monitor_casinos::casino.eq(casino))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

type CasinoRow = (
    i64,
    Vec<u8>,
    Option<Vec<u8>>,
    Option<i64>,
    Option<Vec<u8>>,
    Option<String>,
    Option<DateTime<Utc>>,
    Option<String>,
);

/// The casino's state as kept; `keys`, the operator keys configured for it.
pub fn load(
    conn: &mut PgConnection,
    casino: &str,
    keys: &[NoteVerifier],
) -> Result<CasinoState, MonitorError> {
    ensure(conn, casino)?;
    let (size, frontier, last_leaf, cp_size, cp_root, cp_note, cp_at, halted): CasinoRow =
        monitor_casinos::table
            .find(casino)
            .select((
                monitor_casinos::size,
                monitor_casinos::frontier,
                monitor_casinos::last_leaf,
                monitor_casinos::checkpoint_size,
                monitor_casinos::checkpoint_root,
                monitor_casinos::checkpoint_note,
                monitor_casinos::checkpoint_at,
                monitor_casinos::halted,
            ))
            .first(conn)?;
    let size = u64::try_from(size).map_err(|_| MonitorError::corrupt(casino, "a negative size"))?;
    let roots = frontier
        .chunks(32)
        .map(|chunk| hash_of(casino, "a frontier hash", chunk))
        .collect::<Result<Vec<_>, _>>()?;
    let frontier = Frontier::from_subtree_roots(size, &roots)
        .ok_or_else(|| MonitorError::corrupt(casino, "the frontier does not fit the size"))?;
    let last_leaf = last_leaf
        .map(|l| hash_of(casino, "the last leaf", &l))
        .transpose()?;
    let history = history(conn, casino)?;
    let checkpoint = match (cp_size, cp_root, cp_note, cp_at) {
        (Some(s), Some(root), Some(note), Some(at)) => Some(HeldCheckpoint {
            held: Held {
                size: u64::try_from(s).unwrap_or(0),
                root: hash_of(casino, "the checkpoint root", &root)?,
            },
            note,
            verified_at: at,
        }),
        _ => None,
    };
    if checkpoint.as_ref().map_or(0, |c| c.held.size) < size {
        return Err(MonitorError::corrupt(
            casino,
            "entries are followed beyond the checkpoint held",
        ));
    }
    Ok(CasinoState {
        followed: Followed {
            size,
            frontier,
            last_leaf,
            operators: operator_signers(keys, &history),
            history,
        },
        checkpoint,
        halted,
        runs: super::record_runs::load(conn, casino)?,
    })
}

/// The registry's history from the events kept, applied again in ledger order.
fn history(conn: &mut PgConnection, casino: &str) -> Result<RegistryHistory, MonitorError> {
    let events: Vec<(i64, DateTime<Utc>, String, String)> = monitor_registry_events::table
        .filter(monitor_registry_events::casino.eq(casino))
        .order(monitor_registry_events::ledger_index.asc())
        .select((
            monitor_registry_events::ledger_index,
            monitor_registry_events::received_at,
            monitor_registry_events::signer,
            monitor_registry_events::event,
        ))
        .load(conn)?;
    let mut history = RegistryHistory::default();
    for (index, received_at, signer, text) in events {
        let event: RegistryEvent = serde_json::from_str(&text)
            .map_err(|e| MonitorError::corrupt(casino, format!("registry event {index}: {e}")))?;
        history
            .apply(
                u64::try_from(index).unwrap_or(0),
                received_at,
                &signer,
                &event,
            )
            .map_err(|e| MonitorError::corrupt(casino, format!("registry event {index}: {e}")))?;
    }
    Ok(history)
}

/// Records a verified checkpoint (kept as evidence) as the one the casino is held to.
pub fn record_checkpoint(
    conn: &mut PgConnection,
    casino: &str,
    held: Held,
    note: &str,
    at: DateTime<Utc>,
) -> Result<(), MonitorError> {
    conn.transaction(|conn| {
        diesel::insert_into(monitor_checkpoints::table)
            .values((
                monitor_checkpoints::casino.eq(casino),
                monitor_checkpoints::size.eq(to_i64(held.size)),
                monitor_checkpoints::root.eq(held.root.to_vec()),
                monitor_checkpoints::note.eq(note),
                monitor_checkpoints::verified_at.eq(at),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
        diesel::update(monitor_casinos::table.find(casino))
            .set((
                monitor_casinos::checkpoint_size.eq(to_i64(held.size)),
                monitor_casinos::checkpoint_root.eq(held.root.to_vec()),
                monitor_casinos::checkpoint_note.eq(note),
                monitor_casinos::checkpoint_at.eq(at),
            ))
            .execute(conn)?;
        Ok(())
    })
}

/// Commits a group of bundles: their events, findings, mismatches, tallies, alerts and the
/// changed runs of table records, and the followed state after them, in one transaction;
/// refused unless the casino was still followed to `before` entries (another monitor on the
/// same database moved it).
#[allow(clippy::too_many_arguments)]
pub fn commit_group(
    conn: &mut PgConnection,
    casino: &str,
    before: u64,
    followed: &Followed,
    evidence: &Evidence,
    runs: &[RunChange],
    alerts: &[NewAlert],
    at: DateTime<Utc>,
) -> Result<(), MonitorError> {
    conn.transaction(|conn| {
        let moved = diesel::update(
            monitor_casinos::table
                .find(casino)
                .filter(monitor_casinos::size.eq(to_i64(before))),
        )
        .set((
            monitor_casinos::size.eq(to_i64(followed.size)),
            monitor_casinos::frontier.eq(followed.frontier.subtree_roots().concat()),
            monitor_casinos::last_leaf.eq(followed.last_leaf.map(|l| l.to_vec())),
        ))
        .execute(conn)?;
        if moved != 1 {
            return Err(MonitorError::Casino {
                casino: casino.to_owned(),
                message: format!("its state moved past {before} entries meanwhile: is another monitor following it on this database?"),
            });
        }
        insert_evidence(conn, casino, evidence, at)?;
        super::record_runs::save(conn, casino, runs)?;
        for ((day, game), tally) in &evidence.tallies.0 {
            add_tally(conn, casino, *day, game, tally)?;
        }
        for alert in alerts {
            raise(conn, casino, alert, at)?;
        }
        Ok(())
    })
}

/// Rows a statement inserts at most: PostgreSQL binds at most 65 535 parameters a statement.
const ROWS_A_STATEMENT: usize = 1_000;

/// A group's events, findings and mismatches, a statement per thousand rows (a row a statement
/// costs a round trip each).
fn insert_evidence(
    conn: &mut PgConnection,
    casino: &str,
    evidence: &Evidence,
    at: DateTime<Utc>,
) -> Result<(), MonitorError> {
    for events in evidence.events.chunks(ROWS_A_STATEMENT) {
        let rows: Vec<_> = events
            .iter()
            .map(|event| {
                (
                    monitor_registry_events::casino.eq(casino),
                    monitor_registry_events::ledger_index.eq(to_i64(event.index)),
                    monitor_registry_events::received_at.eq(event.received_at),
                    monitor_registry_events::signer.eq(&event.signer),
                    monitor_registry_events::event.eq(&event.event),
                )
            })
            .collect();
        diesel::insert_into(monitor_registry_events::table)
            .values(&rows)
            .execute(conn)?;
    }
    for findings in evidence.findings.chunks(ROWS_A_STATEMENT) {
        let rows: Vec<_> = findings
            .iter()
            .map(|finding| {
                (
                    monitor_findings::casino.eq(casino),
                    monitor_findings::ledger_index.eq(to_i64(finding.index)),
                    monitor_findings::position
                        .eq(i32::try_from(finding.position).unwrap_or(i32::MAX)),
                    monitor_findings::table_id.eq(&finding.table_id),
                    monitor_findings::seq_no.eq(to_i64(finding.seq_no)),
                    monitor_findings::kind.eq(&finding.kind),
                    monitor_findings::amount_h.eq(finding.amount_h),
                    monitor_findings::message.eq(&finding.message),
                    monitor_findings::played_at.eq(finding.played_at),
                )
            })
            .collect();
        diesel::insert_into(monitor_findings::table)
            .values(&rows)
            .execute(conn)?;
    }
    for mismatches in evidence.mismatches.chunks(ROWS_A_STATEMENT) {
        let rows: Vec<_> = mismatches
            .iter()
            .map(|mismatch| {
                (
                    monitor_mismatches::casino.eq(casino),
                    monitor_mismatches::ledger_index.eq(to_i64(mismatch.index)),
                    monitor_mismatches::field.eq(mismatch.difference.field),
                    monitor_mismatches::casino_value.eq(&mismatch.difference.casino),
                    monitor_mismatches::monitor_value.eq(&mismatch.difference.monitor),
                    monitor_mismatches::found_at.eq(at),
                )
            })
            .collect();
        diesel::insert_into(monitor_mismatches::table)
            .values(&rows)
            .execute(conn)?;
    }
    Ok(())
}

fn add_tally(
    conn: &mut PgConnection,
    casino: &str,
    day: NaiveDate,
    game: &str,
    t: &crate::tally::Tally,
) -> Result<(), MonitorError> {
    use monitor_tallies as m;
    diesel::insert_into(m::table)
        .values((
            m::casino.eq(casino),
            m::gaming_day.eq(day),
            m::game.eq(game),
            m::rounds.eq(t.rounds),
            m::unjudged_rounds.eq(t.unjudged_rounds),
            m::void_rounds.eq(t.void_rounds),
            m::stakes_h.eq(t.stakes_h),
            m::paid_h.eq(t.paid_h),
            m::expected_paid_h.eq(t.expected_paid_h),
            m::rtp_stakes_h.eq(t.rtp_stakes_h),
            m::expected_payout_mh.eq(t.expected_payout_mh),
            m::payout_variance_h2.eq(t.payout_variance_h2),
            m::returned_h.eq(t.returned_h),
            m::payout_third_moment_h3.eq(t.payout_third_moment_h3),
            m::findings.eq(t.findings),
            m::findings_amount_h.eq(t.findings_amount_h),
        ))
        .on_conflict((m::casino, m::gaming_day, m::game))
        .do_update()
        .set((
            m::rounds.eq(m::rounds + excluded(m::rounds)),
            m::unjudged_rounds.eq(m::unjudged_rounds + excluded(m::unjudged_rounds)),
            m::void_rounds.eq(m::void_rounds + excluded(m::void_rounds)),
            m::stakes_h.eq(m::stakes_h + excluded(m::stakes_h)),
            m::paid_h.eq(m::paid_h + excluded(m::paid_h)),
            m::expected_paid_h.eq(m::expected_paid_h + excluded(m::expected_paid_h)),
            m::rtp_stakes_h.eq(m::rtp_stakes_h + excluded(m::rtp_stakes_h)),
            m::expected_payout_mh.eq(m::expected_payout_mh + excluded(m::expected_payout_mh)),
            m::payout_variance_h2.eq(m::payout_variance_h2 + excluded(m::payout_variance_h2)),
            m::returned_h.eq(m::returned_h + excluded(m::returned_h)),
            m::payout_third_moment_h3
                .eq(m::payout_third_moment_h3 + excluded(m::payout_third_moment_h3)),
            m::findings.eq(m::findings + excluded(m::findings)),
            m::findings_amount_h.eq(m::findings_amount_h + excluded(m::findings_amount_h)),
        ))
        .execute(conn)?;
    Ok(())
}

/// Records an attempt to follow the casino: a success clears the failures, a failure counts.
pub fn record_attempt(
    conn: &mut PgConnection,
    casino: &str,
    error: Option<&str>,
    at: DateTime<Utc>,
) -> Result<(), MonitorError> {
    let row = monitor_casinos::table.find(casino);
    match error {
        None => diesel::update(row)
            .set((
                monitor_casinos::last_attempt_at.eq(at),
                monitor_casinos::last_success_at.eq(at),
                monitor_casinos::last_error.eq(None::<String>),
                monitor_casinos::failures.eq(0),
            ))
            .execute(conn)?,
        Some(error) => diesel::update(row)
            .set((
                monitor_casinos::last_attempt_at.eq(at),
                monitor_casinos::last_error.eq(error),
                monitor_casinos::failures.eq(monitor_casinos::failures + 1),
            ))
            .execute(conn)?,
    };
    Ok(())
}

/// Stops following the casino for good: the log forked or was rolled back.
pub fn halt(conn: &mut PgConnection, casino: &str, why: &str) -> Result<(), MonitorError> {
    diesel::update(monitor_casinos::table.find(casino))
        .set(monitor_casinos::halted.eq(why))
        .execute(conn)?;
    Ok(())
}
