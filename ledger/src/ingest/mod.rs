//! Ingest: a signed submission from its envelope to its receipt. The envelope is read, the
//! table and key looked up, the signature checked, the round re-adjudicated, and the entry
//! appended by the group-commit writer; anything that fails before the append changes nothing.
//! Nothing here knows about HTTP: the server and the tests call [`Ingest`] directly.

mod directory;
mod error;
mod group_commit;
mod record_text;
pub mod submission;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::json;

pub use directory::Directory;
pub use error::IngestError;
pub use group_commit::{
    final_checkpoint, sign_checkpoint, Appender, CheckpointPolicy, WriterStatus,
};
pub use record_text::read_record;
pub use submission::{Derived, JudgeError, ReportFigures, Submission};

use crate::storage::append::outcome::AppendOutcome;
use crate::storage::connection::PgPool;
use crate::storage::entries::EntryParts;
use crate::storage::models::GamingTableRow;
use crate::storage::registry::KeyValidity;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::envelope::EnvelopeText;
use dozor_log::judge;
use dozor_log::tiles::MAX_ENTRY_BYTES;
use rules::operations::Operation;
use rules::{PlanBook, RecordError, Round};

/// How far a table's clock may run ahead of the server's before its rounds are refused.
pub const MAX_CLOCK_SKEW_SECONDS: i64 = 300;

/// How the writer is set up.
pub struct IngestSettings {
    pub database_url: String,
    /// Most records appended in one transaction.
    pub max_batch: usize,
    /// Most submissions waiting for the writer before new ones are refused (retry later).
    pub queue_len: usize,
    /// Signs checkpoints (and is the operator whose registry events are trusted).
    pub operator: NoteSigner,
    pub checkpoints: Option<CheckpointPolicy>,
    /// A round received this long after it was played is logged as a late record.
    pub late_after: chrono::Duration,
    /// Where the writer hands each committed entry to the tile publisher, if it runs.
    pub tile_handoff: Option<Arc<crate::tile_publish::handoff::Handoff>>,
}

/// The ingest path of one server: key directory, plans and the ledger's single writer.
pub struct Ingest {
    pool: PgPool,
    plans: Arc<PlanBook>,
    directory: Directory,
    appender: Appender,
    late_after: chrono::Duration,
}

impl Ingest {
    /// Refuses to start on a ledger rolled back behind a signed checkpoint (one the database
    /// still holds, or one only the witness file does, unless the operator accepted its loss),
    /// then starts the writer.
    pub fn start(
        settings: IngestSettings,
        pool: PgPool,
        plans: Arc<PlanBook>,
    ) -> Result<Ingest, crate::error::LedgerError> {
        let mut conn = crate::storage::connection::connect(&settings.database_url)?;
        // The keys that held the log before a rotation signed what came before it.
        let operators =
            crate::storage::tenures::operator_chain(&mut conn, &settings.operator.verifier())?;
        let witnessed = match settings
            .checkpoints
            .as_ref()
            .and_then(|p| p.witness.as_ref())
        {
            Some(witness) => witness.read(&operators)?,
            None => Vec::new(),
        };
        // Checkpoints lost in a restore the operator accepted (a recorded event) bind no more.
        let rollbacks = crate::storage::rollbacks::accepted(&mut conn, &operators)?;
        let witnessed = crate::storage::rollbacks::binding(witnessed, &rollbacks);
        crate::storage::issued::check_not_rolled_back(&mut conn, &witnessed)?;
        drop(conn);
        let directory = Directory::new(operators.iter().map(|o| o.key));
        let appender = Appender::start(
            settings.database_url,
            settings.max_batch,
            settings.queue_len,
            settings.operator,
            settings.checkpoints,
            settings.tile_handoff,
        );
        // Ready on return when the database answers: the writer has read the ledger's head.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while appender.status().head_problem().is_some() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        Ok(Ingest {
            pool,
            plans,
            directory,
            appender,
            late_after: settings.late_after,
        })
    }

    /// The ledger writer's queue depth and whether it runs.
    pub fn writer(&self) -> &WriterStatus {
        self.appender.status()
    }

    /// The tables and keys this server knows.
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// Everything short of appending; blocking (may read the database on a cache miss).
    pub fn prepare(&self, envelope: EnvelopeText<'_>) -> Result<Submission, IngestError> {
        let (canonical, header) = read_record(envelope.record.get())?;
        entry_fits(&envelope, &canonical)?;
        rules::string_limits::check_string_lengths(&canonical)?;
        let table = self
            .directory
            .table(&self.pool, &header.table_id)?
            .ok_or_else(|| {
                IngestError::refused(
                    "unknown_table",
                    format!("table `{}` is not registered", header.table_id),
                    json!({ "table_id": header.table_id }),
                )
            })?;
        let key = self.signing_key(&envelope.key_id, &table)?;
        envelope
            .verify_canonical(
                &*self.directory.strict_key(&key.public_key)?,
                canonical.as_bytes(),
            )
            .map_err(|e| {
                IngestError::refused(
                    "bad_signature",
                    e.to_string(),
                    json!({ "key_id": key.key_id }),
                )
            })?;
        if header.plan_id != table.plan_id {
            return Err(IngestError::refused(
                "plan_mismatch",
                format!(
                    "table `{}` plays under plan `{}`, the record names `{}`",
                    table.table_id, table.plan_id, header.plan_id
                ),
                json!({ "expected": table.plan_id, "got": header.plan_id }),
            ));
        }
        if rules::operations::is_operation(&header.record_type) {
            return self.prepare_operation(envelope, canonical, header, &table, &key);
        }
        if !rules::is_adjudicated(&header.record_type) {
            return Err(RecordError::UnsupportedType(header.record_type).into());
        }
        if header.game.as_deref() != Some(table.game.as_str()) {
            return Err(IngestError::refused(
                "wrong_game",
                format!(
                    "table `{}` plays `{}`, the record is `{}`",
                    table.table_id,
                    table.game,
                    header.game.unwrap_or_default()
                ),
                json!({ "expected": table.game }),
            ));
        }
        // Parsed from the canonical text: the round judged is exactly the one stored.
        let round = Round::parse_json_with_header(&header, &canonical)?;
        self.played_in_time(&key, round.played_at(), "played_at")?;
        let (derived, judged_as_of) = self.adjudicate(&round)?;
        Ok(Submission::with_header(
            envelope.key_id,
            envelope.signature,
            canonical,
            header,
            Some(derived),
        )
        .judged_as_of(judged_as_of)
        .late_after(self.late_after))
    }

    /// A record of a table's operating period or of the cage: checked, not adjudicated (its
    /// period is checked as a whole by the period audit). A table's records come from a gaming
    /// table, the cage's from a cage station.
    fn prepare_operation(
        &self,
        envelope: EnvelopeText<'_>,
        canonical: String,
        header: rules::RecordHeader,
        table: &GamingTableRow,
        key: &KeyValidity,
    ) -> Result<Submission, IngestError> {
        let operation = Operation::parse_json(&canonical)?;
        let from_cage = table.game == dozor_log::registration::CAGE;
        if !dozor_log::registration::submits(&table.game, operation.station()) {
            let (station, expected) = if from_cage {
                ("a cage", "cage_open, cage_transaction or cage_close")
            } else {
                (
                    "a gaming table",
                    "rounds and its operating period's records",
                )
            };
            return Err(IngestError::refused(
                "wrong_station",
                format!(
                    "`{}` is {station}; it submits {expected}, not `{}`",
                    table.table_id, header.record_type
                ),
                json!({ "table_id": table.table_id, "type": header.record_type }),
            ));
        }
        self.played_in_time(key, operation.header().at, "at")?;
        Ok(Submission::with_header(
            envelope.key_id,
            envelope.signature,
            canonical,
            header,
            None,
        ))
    }

    /// Appends one prepared record; resolves when its batch is durable.
    pub async fn append(&self, submission: Submission) -> Result<AppendOutcome, IngestError> {
        let mut outcomes = self.append_all(vec![submission]).await;
        outcomes.pop().unwrap_or(Err(IngestError::Unavailable {
            reason: "the ledger writer is not running",
            cause: "no outcome for a submission".into(),
        }))
    }

    /// Appends several prepared records, each on its own, sharing group commits. A round whose
    /// table posted new limits after it was judged is judged again and appended then.
    pub async fn append_all(
        &self,
        submissions: Vec<Submission>,
    ) -> Vec<Result<AppendOutcome, IngestError>> {
        let mut outcomes = self.appender.append_all(submissions).await;
        for _ in 0..REJUDGE_ATTEMPTS {
            let mut resubmitted = Vec::new();
            let mut positions = Vec::new();
            for (i, outcome) in outcomes.iter_mut().enumerate() {
                if !matches!(outcome, Ok(AppendOutcome::LimitsChanged(_))) {
                    continue;
                }
                // Taken out; the outcome of its second append replaces the stand-in below.
                let taken = std::mem::replace(outcome, Err(limits_kept_changing()));
                if let Ok(AppendOutcome::LimitsChanged(stale)) = taken {
                    match self.rejudge(*stale) {
                        Ok(s) => {
                            resubmitted.push(s);
                            positions.push(i);
                        }
                        Err(e) => *outcome = Err(e),
                    }
                }
            }
            if resubmitted.is_empty() {
                break;
            }
            for (i, outcome) in positions
                .into_iter()
                .zip(self.appender.append_all(resubmitted).await)
            {
                outcomes[i] = outcome;
            }
        }
        outcomes
            .into_iter()
            .map(|o| match o {
                Ok(AppendOutcome::LimitsChanged(_)) => Err(limits_kept_changing()),
                other => other,
            })
            .collect()
    }

    /// The key `key_id`, registered to `table` and valid now.
    fn signing_key(
        &self,
        key_id: &str,
        table: &GamingTableRow,
    ) -> Result<KeyValidity, IngestError> {
        let key = self.directory.key(&self.pool, key_id)?.ok_or_else(|| {
            IngestError::refused(
                "unknown_key",
                format!("key `{key_id}` is not registered"),
                json!({ "key_id": key_id }),
            )
        })?;
        if key.table_id != table.table_id {
            return Err(IngestError::refused(
                "key_table_mismatch",
                format!(
                    "key {} belongs to table `{}`, not `{}`",
                    key.key_id, key.table_id, table.table_id
                ),
                json!({ "key_id": key.key_id, "table_id": table.table_id }),
            ));
        }
        // A revoked key's record is refused by the append, inside its transaction, unless the
        // very same record is already in the ledger: its sender gets the receipt it was given
        // before the revocation, as for any record sent again.
        // A key not valid yet has no record in the ledger: refused here.
        if Utc::now() < key.valid_from {
            return Err(IngestError::refused(
                "key_not_valid",
                format!("key {} is not valid yet", key.key_id),
                json!({ "key_id": key.key_id, "revoked_at": key.revoked_at, "valid_from": key.valid_from }),
            ));
        }
        Ok(key)
    }

    /// A round must not be played in the future (beyond the clock skew allowed), nor before
    /// its table was registered or its key became valid: a closed gaming day cannot gain
    /// rounds from before the table existed.
    fn played_in_time(
        &self,
        key: &KeyValidity,
        played_at: DateTime<Utc>,
        field: &str,
    ) -> Result<(), IngestError> {
        let latest = Utc::now() + chrono::Duration::seconds(MAX_CLOCK_SKEW_SECONDS);
        if played_at > latest {
            return Err(IngestError::refused(
                "played_at_in_future",
                format!(
                    "{field} {played_at} is later than the server's clock allows (skew tolerance {MAX_CLOCK_SKEW_SECONDS} s)"
                ),
                json!({ "field": field }),
            ));
        }
        if let Some(from) = self.directory.registered_from(&key.table_id)? {
            if played_at < from {
                return Err(IngestError::refused(
                    "played_before_registration",
                    format!(
                        "{field} {played_at} is before table `{}` was registered (it plays from {from})",
                        key.table_id
                    ),
                    json!({ "field": field, "registered_from": from }),
                ));
            }
        }
        if played_at < key.valid_from {
            return Err(IngestError::refused(
                "played_before_key",
                format!(
                    "{field} {played_at} is before key {} became valid ({})",
                    key.key_id, key.valid_from
                ),
                json!({ "field": field, "key_id": key.key_id, "valid_from": key.valid_from }),
            ));
        }
        Ok(())
    }

    /// The round's derived data, judged on its table as the registry gives it now, and the
    /// last registry event that was.
    fn adjudicate(&self, round: &Round) -> Result<(Derived, Option<u64>), IngestError> {
        let tables = directory::RegistryNow::new(&self.directory, &self.pool);
        // The round's index is not known yet: the registry is read as it is now.
        let derived = judge::judge(
            round,
            u64::MAX,
            |p| self.plans.get(p),
            &tables,
            |j| Derived::of(&j),
        )
        .map_err(|e| match e {
            judge::JudgeError::UnknownPlan(plan) => IngestError::refused(
                "unknown_plan",
                format!("plan `{plan}` is not known to this server"),
                json!({}),
            ),
            judge::JudgeError::Record(e) => e.into(),
            judge::JudgeError::Setup(e) => e,
        })??;
        Ok((derived, tables.judged_as_of()))
    }

    /// A prepared round judged again, after the writer found that its table's limits changed
    /// since it was judged: the registry is read again first.
    fn rejudge(&self, submission: Submission) -> Result<Submission, IngestError> {
        self.directory.read_registry(&self.pool)?;
        let header = rules::RecordHeader::read_json(&submission.canonical_record)?;
        let round = Round::parse_json_with_header(&header, &submission.canonical_record)?;
        let (derived, judged_as_of) = self.adjudicate(&round)?;
        Ok(Submission {
            derived: Some(derived),
            ..submission
        }
        .judged_as_of(judged_as_of))
    }
}

/// Refuses a record whose entry would be over [`MAX_ENTRY_BYTES`] at any index (its index is
/// not known yet): refused before anything is looked up, like a body over its limit.
fn entry_fits(envelope: &EnvelopeText<'_>, canonical: &str) -> Result<(), IngestError> {
    let size = EntryParts {
        key_id: &envelope.key_id,
        signature: &envelope.signature,
        canonical_record: canonical,
    }
    .largest_size();
    if size > MAX_ENTRY_BYTES {
        return Err(IngestError::EntryTooLarge {
            size,
            record_size: canonical.len(),
        });
    }
    Ok(())
}

/// A round whose table's limits changed each time it was judged: not appended, retry.
fn limits_kept_changing() -> IngestError {
    IngestError::Unavailable {
        reason: "the table's posted limits changed while the round was judged; retry",
        cause: "table limits changed during ingest".into(),
    }
}

/// How often a round is judged again because its table's limits changed meanwhile before it
/// is given up (a table's limits change a few times a night, not every millisecond).
const REJUDGE_ATTEMPTS: usize = 3;

/// Parses a request body (or one item of a batch) as an envelope, its record left as text.
pub fn parse_envelope(body: &[u8]) -> Result<EnvelopeText<'_>, IngestError> {
    serde_json::from_slice::<EnvelopeText>(body).map_err(IngestError::Envelope)
}
