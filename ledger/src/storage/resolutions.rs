//! Resolutions of findings: a compliance officer's decision, appended as a registry event and
//! indexed by finding.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;
use thiserror::Error;

use super::columns::insert_row;
use super::models::ResolutionRow;
use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event, RegistryReceipt};
use super::schema::{adjudications, api_key_revocations, api_keys, finding_resolutions, findings};
use crate::error::LedgerError;
use dozor_log::access::{Decision, FindingState, Role, RESOLVING_ROLES};
use dozor_log::registry_event::RegistryEvent;

#[derive(Debug, Error)]
pub enum ResolutionError {
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("no finding {0}")]
    UnknownFinding(String),
    #[error("finding {finding} is {now}; it cannot become {wanted} (from {now} it can become {})", allowed_words(*now))]
    NotAllowed {
        finding: String,
        now: FindingState,
        wanted: FindingState,
    },
    #[error("API key `{0}` may not resolve findings (revoked, expired or not a compliance key)")]
    KeyMayNotResolve(String),
    #[error(transparent)]
    Storage(#[from] LedgerError),
}

crate::error::storage_error_from_diesel!(ResolutionError);

/// The states a finding in `now` may take, in words: "confirmed, dismissed or escalated".
pub fn allowed_words(now: FindingState) -> String {
    let names: Vec<&str> = now.next_states().into_iter().map(|s| s.as_str()).collect();
    match names.split_last() {
        None => "nothing".into(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The API key a decision is made with.
#[derive(Debug, Clone, Copy)]
pub struct Resolver<'a> {
    pub key_id: &'a str,
    pub name: &'a str,
    pub role: Role,
}

/// A finding's reference in the API and the ledger: `<round index>.<position>`.
pub fn finding_ref(round_index: u64, finding: u32) -> String {
    format!("{round_index}.{finding}")
}

/// Reads `<round index>.<position>`.
pub fn parse_finding_ref(text: &str) -> Option<(u64, u32)> {
    let (round, position) = text.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(round) || !digits(position) {
        return None;
    }
    Some((round.parse().ok()?, position.parse().ok()?))
}

/// Records `decision` about the `finding`-th finding of the round at `round_index`, made with
/// `by`: an operator-signed `finding_resolved` entry and its row, in one transaction. The key is
/// checked again under the append lock, so that the ledger never holds a decision of a key
/// revoked or expired before it.
pub fn resolve_finding(
    conn: &mut PgConnection,
    operator: &SigningKey,
    (round_index, finding): (u64, u32),
    decision: &Decision,
    by: Resolver<'_>,
    now: DateTime<Utc>,
) -> Result<(ResolutionRow, RegistryReceipt), ResolutionError> {
    decision
        .validate()
        .map_err(|(field, message)| ResolutionError::Invalid { field, message })?;
    if !RESOLVING_ROLES.contains(&by.role) {
        return Err(ResolutionError::KeyMayNotResolve(by.name.to_owned()));
    }
    let reference = finding_ref(round_index, finding);
    let round = i64::try_from(round_index)
        .map_err(|_| ResolutionError::UnknownFinding(reference.clone()))?;
    let position =
        i32::try_from(finding).map_err(|_| ResolutionError::UnknownFinding(reference.clone()))?;
    conn.transaction(|conn| {
        let lock = lock_and_position(conn, now)?;
        let key_valid: i64 = api_keys::table
            .left_join(api_key_revocations::table)
            .filter(api_keys::key_id.eq(by.key_id))
            .filter(api_keys::name.eq(by.name))
            .filter(api_keys::role.eq(by.role.as_str()))
            .filter(api_key_revocations::key_id.is_null())
            .filter(
                api_keys::expires_at
                    .is_null()
                    .or(api_keys::expires_at.gt(lock.received_at)),
            )
            .count()
            .get_result(conn)?;
        if key_valid == 0 {
            return Err(ResolutionError::KeyMayNotResolve(by.name.to_owned()));
        }
        let (table_id, kind, rules_version, amount_h): (String, String, String, i64) =
            findings::table
                .inner_join(
                    adjudications::table.on(adjudications::ledger_index.eq(findings::ledger_index)),
                )
                .filter(findings::ledger_index.eq(round))
                .filter(findings::position.eq(position))
                .select((
                    findings::table_id,
                    findings::kind,
                    adjudications::rules_version,
                    findings::amount_h,
                ))
                .first(conn)
                .optional()?
                .ok_or_else(|| ResolutionError::UnknownFinding(reference.clone()))?;
        let now_state = state_of(conn, round, position)?;
        if !now_state.may_become(decision.state) {
            return Err(ResolutionError::NotAllowed {
                finding: reference.clone(),
                now: now_state,
                wanted: decision.state,
            });
        }
        decision
            .check_against(amount_h)
            .map_err(|(field, message)| ResolutionError::Invalid { field, message })?;
        let comment = decision.comment.trim().to_owned();
        let reason = decision.reason.as_deref().map(|r| r.trim().to_owned());
        let event = RegistryEvent::FindingResolved {
            previous: last_registry_event(conn)?,
            table_id: table_id.clone(),
            round_index,
            finding,
            kind: kind.clone(),
            rules_version: rules_version.clone(),
            state: decision.state,
            amount_settled_h: decision.amount_settled_h,
            reason: reason.clone(),
            comment: comment.clone(),
            key_id: by.key_id.to_owned(),
            key_name: by.name.to_owned(),
            key_role: by.role,
        };
        let receipt = append_registry_event(conn, &lock, &event, operator)?;
        let row = ResolutionRow {
            ledger_index: i64::try_from(receipt.index).map_err(|_| LedgerError::OutOfRange {
                what: "ledger index",
                value: i128::from(receipt.index),
            })?,
            round_index: round,
            finding: position,
            table_id,
            kind,
            rules_version,
            state: decision.state.as_str().to_owned(),
            amount_settled_h: decision.amount_settled_h,
            reason,
            comment,
            key_id: by.key_id.to_owned(),
            key_name: by.name.to_owned(),
            key_role: by.role.as_str().to_owned(),
            resolved_at: lock.received_at,
        };
        Ok((insert_row(conn, finding_resolutions::table, row)?, receipt))
    })
}

/// Records `decision` about a finding and the same decision, without an amount, about every
/// other finding of its round that is still open, all in one transaction (a void wheel spin's
/// six findings are one decision): the resolutions in the order appended, the named finding's
/// first. Nothing is recorded when any of them is refused.
pub fn resolve_round(
    conn: &mut PgConnection,
    operator: &SigningKey,
    (round_index, finding): (u64, u32),
    decision: &Decision,
    by: Resolver<'_>,
    now: DateTime<Utc>,
) -> Result<Vec<(ResolutionRow, RegistryReceipt)>, ResolutionError> {
    conn.transaction(|conn| {
        let first = resolve_finding(conn, operator, (round_index, finding), decision, by, now)?;
        let round = first.0.round_index;
        let positions: Vec<i32> = findings::table
            .filter(findings::ledger_index.eq(round))
            .filter(findings::position.ne(first.0.finding))
            .order(findings::position.asc())
            .select(findings::position)
            .load(conn)?;
        let same = Decision {
            amount_settled_h: None,
            ..decision.clone()
        };
        let mut done = vec![first];
        for position in positions {
            if state_of(conn, round, position)? != FindingState::Open {
                continue;
            }
            let Ok(other) = u32::try_from(position) else {
                continue;
            };
            done.push(resolve_finding(
                conn,
                operator,
                (round_index, other),
                &same,
                by,
                now,
            )?);
        }
        Ok(done)
    })
}

fn state_of(
    conn: &mut PgConnection,
    round: i64,
    position: i32,
) -> Result<FindingState, ResolutionError> {
    let latest: Option<String> = finding_resolutions::table
        .filter(finding_resolutions::round_index.eq(round))
        .filter(finding_resolutions::finding.eq(position))
        .order(finding_resolutions::ledger_index.desc())
        .select(finding_resolutions::state)
        .first(conn)
        .optional()?;
    match latest {
        None => Ok(FindingState::Open),
        Some(s) => FindingState::parse(&s).ok_or_else(|| {
            ResolutionError::Storage(LedgerError::BadStoredValue {
                what: "state",
                owner: "a resolution".into(),
                value: s.clone(),
            })
        }),
    }
}

/// Every resolution of a finding, in ledger order.
pub fn history(
    conn: &mut PgConnection,
    (round_index, finding): (u64, u32),
) -> Result<Vec<ResolutionRow>, LedgerError> {
    let (Ok(round), Ok(position)) = (i64::try_from(round_index), i32::try_from(finding)) else {
        return Ok(Vec::new());
    };
    Ok(finding_resolutions::table
        .filter(finding_resolutions::round_index.eq(round))
        .filter(finding_resolutions::finding.eq(position))
        .order(finding_resolutions::ledger_index.asc())
        .select(ResolutionRow::as_select())
        .load(conn)?)
}

/// Every resolution in the ledger, in ledger order (what `verify` compares with the entries).
pub fn all(conn: &mut PgConnection) -> Result<Vec<ResolutionRow>, LedgerError> {
    Ok(finding_resolutions::table
        .order(finding_resolutions::ledger_index.asc())
        .select(ResolutionRow::as_select())
        .load(conn)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finding_references_read_back_and_nothing_else_reads() {
        assert_eq!(parse_finding_ref(&finding_ref(1234, 2)), Some((1234, 2)));
        for bad in [
            "",
            "1",
            "1.",
            ".1",
            "1.2.3",
            "-1.0",
            "1.+2",
            "a.b",
            "99999999999999999999.0",
        ] {
            assert_eq!(parse_finding_ref(bad), None, "{bad}");
        }
    }
}
