//! The registry tables compared with the registry events of the ledger. Gaming tables, table
//! keys, API keys, their revocations and resolutions of findings are indexes of ledger entries:
//! each row must say what its entry says, and no row may exist without one. Each resolved finding must also be a real
//! finding of its round, re-adjudicated from the signed record.

use diesel::prelude::*;

use super::models::LedgerRow;
use super::schema::ledger_entries;
use super::verify_failure::VerifyFailure;
use super::{api_keys, resolutions};
use crate::error::LedgerError;
use dozor_log::entry::format_time;
use dozor_log::entry_check::{check_entry, Signers};
use dozor_log::registry_history::{HistoricApiKey, RecordedResolution, RegistryHistory};
use dozor_log::resolution_check::{check_resolved_finding, FindingCheck};

fn failure(index: i64, reason: String) -> VerifyFailure {
    VerifyFailure {
        index: index.max(0) as u64,
        reason,
    }
}

/// Every API key row and revocation row against the events.
pub fn compare_api_keys(
    conn: &mut PgConnection,
    history: &RegistryHistory,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    let rows = api_keys::list(conn)?;
    let events = history.api_keys();
    for row in &rows {
        let key = &row.key;
        let Some(event) = events.get(&key.key_id) else {
            return Ok(Err(failure(
                key.ledger_index,
                format!(
                    "API key row {} (`{}`) has no api_key_created entry in the ledger",
                    key.key_id, key.name
                ),
            )));
        };
        let same_key = event.index as i64 == key.ledger_index
            && event.name == key.name
            && event.role.as_str() == key.role
            && event.created_by == key.created_by
            && event.created_at == key.created_at
            && event.expires_at == key.expires_at;
        if !same_key {
            return Ok(Err(differs(event.index, event)));
        }
        let same_revocation = match (&event.revocation, &row.revocation) {
            (None, None) => true,
            (Some(e), Some(r)) => {
                e.index as i64 == r.ledger_index
                    && e.revoked_at == r.revoked_at
                    && e.revoked_by == r.revoked_by
                    && e.reason == r.reason
            }
            _ => false,
        };
        if !same_revocation {
            let index = event.revocation.as_ref().map_or(event.index, |r| r.index);
            return Ok(Err(failure(
                index as i64,
                format!(
                    "the revocation row of API key `{}` differs from the ledger's",
                    event.name
                ),
            )));
        }
    }
    if let Some(missing) = events
        .all()
        .into_iter()
        .find(|k| !rows.iter().any(|r| r.key.key_id == k.key_id))
    {
        return Ok(Err(failure(
            missing.index as i64,
            format!("API key `{}` of this entry has no row", missing.name),
        )));
    }
    Ok(Ok(()))
}

fn differs(index: u64, event: &HistoricApiKey) -> VerifyFailure {
    failure(
        index as i64,
        format!(
            "the row of API key `{}` differs from its api_key_created entry (created {})",
            event.name,
            format_time(event.created_at)
        ),
    )
}

/// Every resolution row against the events, in ledger order.
pub fn compare_resolutions(
    conn: &mut PgConnection,
    history: &RegistryHistory,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    let rows = resolutions::all(conn)?;
    let events = history.resolutions().all();
    for (n, event) in events.iter().enumerate() {
        let Some(row) = rows.get(n) else {
            return Ok(Err(failure(
                event.index as i64,
                "a resolution of the ledger has no row".into(),
            )));
        };
        if !same_resolution(row, event) {
            let index = row.ledger_index.min(event.index as i64);
            return Ok(Err(failure(
                index,
                format!(
                    "the resolution row of finding {}.{} differs from the ledger's resolution",
                    row.round_index, row.finding
                ),
            )));
        }
    }
    if let Some(extra) = rows.get(events.len()) {
        return Ok(Err(failure(
            extra.ledger_index,
            "a resolution row has no finding_resolved entry in the ledger".into(),
        )));
    }
    Ok(Ok(()))
}

fn same_resolution(row: &super::models::ResolutionRow, e: &RecordedResolution) -> bool {
    row.ledger_index == e.index as i64
        && row.round_index == e.round_index as i64
        && i64::from(row.finding) == i64::from(e.finding)
        && row.table_id == e.table_id
        && row.kind == e.kind
        && row.rules_version == e.rules_version
        && row.state == e.decision.state.as_str()
        && row.amount_settled_h == e.decision.amount_settled_h
        && row.reason == e.decision.reason
        && row.comment == e.decision.comment
        && row.key_id == e.key_id
        && row.key_name == e.key_name
        && row.key_role == e.key_role.as_str()
        && row.resolved_at == e.resolved_at
}

/// Re-adjudicates the round of every resolved finding and checks the finding is there; the
/// number of findings so confirmed.
pub fn check_resolved_findings(
    conn: &mut PgConnection,
    history: &RegistryHistory,
    signers: Signers<'_>,
) -> Result<Result<u64, VerifyFailure>, LedgerError> {
    let plans = rules::PlanBook::builtin()?;
    let mut confirmed = 0;
    for resolution in history.resolutions().resolved_findings() {
        // A round of an archived range was re-judged in its verified export.
        if resolution.round_index < history.archived_below() {
            continue;
        }
        let fail = |reason: String| failure(resolution.index as i64, reason);
        let round: Option<LedgerRow> = ledger_entries::table
            .find(resolution.round_index as i64)
            .select(LedgerRow::as_select())
            .first(conn)
            .optional()?;
        let Some(round) = round else {
            return Ok(Err(fail(format!(
                "resolution of a finding of entry {}, which is not in the ledger",
                resolution.round_index
            ))));
        };
        let checked =
            check_entry(&round.entry, resolution.round_index, signers).and_then(|entry| {
                check_resolved_finding(resolution, &entry, history, |id| plans.get(id))
            });
        match checked {
            Ok(FindingCheck::Confirmed) => confirmed += 1,
            Ok(FindingCheck::OtherRulesVersion) => {}
            Err(reason) => return Ok(Err(fail(reason))),
        }
    }
    Ok(Ok(confirmed))
}

/// Every registered table and table key row (and key revocation row) against the registry
/// events: the rows are a copy the database's writer role could add to, so a row the ledger
/// does not give is named. `size` (the ledger's) stands for "not in the ledger" as the index.
pub fn compare_tables_and_keys(
    conn: &mut PgConnection,
    history: &RegistryHistory,
    size: u64,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    use super::models::GamingTableRow;
    use super::schema::gaming_tables;
    let not_in_ledger = |reason: String| Ok(Err(failure(size as i64, reason)));
    let tables: Vec<GamingTableRow> = gaming_tables::table
        .select(GamingTableRow::as_select())
        .load(conn)?;
    for row in &tables {
        let same = history.table(&row.table_id).is_some_and(|t| {
            (&t.game, &t.location, &t.plan_id, &t.wheel_layout)
                == (&row.game, &row.location, &row.plan_id, &row.wheel_layout)
        });
        if !same {
            return not_in_ledger(format!(
                "the gaming_tables row of `{}` is not the table the ledger registered",
                row.table_id
            ));
        }
    }
    let keys = super::registry::key_rows(conn)?;
    for (row, revocation) in &keys {
        let Some(key) = history.table_key(&row.key_id) else {
            return not_in_ledger(format!(
                "table key row {} of table `{}` was added by no registry event in the ledger",
                row.key_id, row.table_id
            ));
        };
        let same_key = key.table_id == row.table_id
            && key.key.as_bytes().as_slice() == row.public_key.as_slice()
            && key.valid_from == row.valid_from;
        let same_revocation = match (&key.revocation, revocation) {
            (None, None) => true,
            (Some(e), Some(r)) => e.revoked_at == r.revoked_at && e.reason == r.reason,
            _ => false,
        };
        if !same_key || !same_revocation {
            return Ok(Err(failure(
                key.index as i64,
                format!(
                    "the rows of table key {} differ from the registry events that added or revoked it",
                    row.key_id
                ),
            )));
        }
    }
    if tables.len() != history.tables().count() || keys.len() != history.keys().len() {
        return not_in_ledger(format!(
            "{} table and {} key rows for the {} tables and {} keys the ledger registered",
            tables.len(),
            keys.len(),
            history.tables().count(),
            history.keys().len()
        ));
    }
    Ok(Ok(()))
}
