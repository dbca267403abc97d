//! One record of a table as a person (or a program) reads it: the signed record as JSON, where
//! it stands in the ledger, its verdict and findings, and the signed checkpoint that covers it
//! with the inclusion proof that shows it.

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ledger::storage::models::LedgerRow;
use ledger::storage::{checkpoints, reads, tree};
use serde::Serialize;
use utoipa::ToSchema;

use crate::findings::{self, FindingFilter, FindingItem};
use crate::ReportError;
use ledger::storage::report_reads::findings::FindingSort;
use rules::gaming_day::GamingDayClock;

/// How a record is asked for.
#[derive(Debug, Clone)]
pub enum RecordRef {
    /// The table's record numbered `seq_no`.
    SeqNo(u64),
    /// The table's round with this `round_id`.
    RoundId(String),
}

/// The signed checkpoint that covers an entry, and the proof that it does.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CoveringCheckpoint {
    /// The tree size the checkpoint signs (the entry's index is below it).
    pub size: u64,
    /// The tree's root at that size, hex.
    pub root: String,
    pub created_at: DateTime<Utc>,
    /// The signed note, as `GET /api/v1/ledger/checkpoint` serves it.
    pub note: String,
    /// The operator's verifier key the note is signed with.
    pub verifier_key: String,
    /// RFC 6962 inclusion proof of the entry's leaf in that tree, hex, leaf to root.
    pub inclusion_proof: Vec<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RecordView {
    pub table_id: String,
    pub seq_no: i64,
    /// The table's own id of the round, when its record gives one.
    pub round_id: Option<String>,
    /// `round`, or the kind of operation record.
    pub record_type: String,
    pub ledger_index: i64,
    pub received_at: DateTime<Utc>,
    /// SHA-256(0x00 ‖ entry), hex: the entry's leaf in the Merkle tree.
    pub entry_hash: String,
    /// The record as the table signed it.
    #[schema(value_type = Object)]
    pub record: serde_json::Value,
    /// The table key that signed it and its ed25519 signature (base64).
    pub key_id: String,
    pub signature: String,
    /// dozor's re-adjudication of a round.
    #[schema(value_type = Option<Object>)]
    pub verdict: Option<serde_json::Value>,
    /// The round's findings, each with where its resolution stands.
    pub findings: Vec<FindingItem>,
    /// The first signed checkpoint whose tree holds the entry; none until one is signed.
    pub checkpoint: Option<CoveringCheckpoint>,
}

/// The record `what` of `table_id`, if the ledger holds it.
pub fn find(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    table_id: &str,
    what: &RecordRef,
) -> Result<Option<RecordView>, ReportError> {
    let row = match what {
        RecordRef::SeqNo(seq_no) => reads::entry_of_record(conn, table_id, *seq_no)?,
        RecordRef::RoundId(id) => reads::entry_of_round_id(conn, table_id, id)?,
    };
    row.map(|row| view(conn, clock, row)).transpose()
}

fn view(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    row: LedgerRow,
) -> Result<RecordView, ReportError> {
    let bad = |what: &str| {
        ReportError::Ledger(ledger::LedgerError::BadStoredValue {
            what: "entry",
            owner: format!("ledger entry {}", row.idx),
            value: what.to_owned(),
        })
    };
    let entry: serde_json::Value =
        serde_json::from_slice(&row.entry).map_err(|_| bad("not JSON"))?;
    let envelope = &entry["envelope"];
    let record = envelope["record"].clone();
    let index = u64::try_from(row.idx).map_err(|_| bad("a negative index"))?;
    let verdict = reads::verdict(conn, index)?;
    let round_findings = findings::list(
        conn,
        clock,
        &FindingFilter {
            round_index: Some(row.idx),
            sort: FindingSort::PlayedAt,
            limit: findings::MAX_LIMIT,
            ..FindingFilter::default()
        },
    )?;
    let checkpoint = match checkpoints::covering(conn, index + 1)? {
        None => None,
        Some(c) => {
            let size = u64::try_from(c.size).map_err(|_| bad("a negative checkpoint size"))?;
            let (_, proof) = tree::inclusion_proof(conn, index, size)
                .map_err(|e| ReportError::Ledger(e.into()))?;
            Some(CoveringCheckpoint {
                size,
                root: hex::encode(&c.root),
                created_at: c.created_at,
                note: c.note,
                verifier_key: c.verifier_key,
                inclusion_proof: proof.iter().map(hex::encode).collect(),
            })
        }
    };
    Ok(RecordView {
        table_id: row.table_id.clone().unwrap_or_default(),
        seq_no: row.seq_no.unwrap_or_default(),
        round_id: record["round_id"].as_str().map(str::to_owned),
        record_type: row.record_type,
        ledger_index: row.idx,
        received_at: row.received_at,
        entry_hash: hex::encode(&row.leaf_hash),
        key_id: envelope["key_id"].as_str().unwrap_or_default().to_owned(),
        signature: envelope["signature"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        record,
        verdict,
        findings: round_findings.items,
        checkpoint,
    })
}
