//! Rows as diesel reads and writes them.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::schema::*;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = gaming_tables, check_for_backend(diesel::pg::Pg))]
pub struct GamingTableRow {
    pub table_id: String,
    pub game: String,
    pub location: String,
    pub plan_id: String,
    pub registered_at: DateTime<Utc>,
    /// A money wheel's segment labels in physical order.
    pub wheel_layout: Option<Vec<String>>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = table_keys, check_for_backend(diesel::pg::Pg))]
pub struct TableKeyRow {
    pub key_id: String,
    pub table_id: String,
    pub public_key: Vec<u8>,
    pub valid_from: DateTime<Utc>,
    pub registered_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = table_key_revocations, check_for_backend(diesel::pg::Pg))]
pub struct KeyRevocationRow {
    pub key_id: String,
    pub revoked_at: DateTime<Utc>,
    pub reason: String,
    pub recorded_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = ledger_entries, check_for_backend(diesel::pg::Pg))]
#[diesel(treat_none_as_default_value = false)]
pub struct LedgerRow {
    pub idx: i64,
    pub received_at: DateTime<Utc>,
    pub prev_hash: Vec<u8>,
    pub leaf_hash: Vec<u8>,
    pub entry: Vec<u8>,
    pub record_type: String,
    /// `None` for API key events (they concern no gaming table).
    pub table_id: Option<String>,
    /// `None` for registry events (signed by the operator, not a table).
    pub seq_no: Option<i64>,
    pub key_id: String,
    pub record_hash: Vec<u8>,
}

/// A significant event: as the writer inserts it ([`NewSignificantEvent`], whose `id` the
/// database assigns) and as reads give it ([`SignificantEventRow`]).
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = significant_events, check_for_backend(diesel::pg::Pg))]
pub struct SignificantEvent<Id> {
    #[diesel(skip_insertion)]
    pub id: Id,
    pub occurred_at: DateTime<Utc>,
    pub kind: String,
    pub table_id: String,
    pub seq_no: i64,
    pub ledger_index: Option<i64>,
    pub details: serde_json::Value,
}

/// A significant event to insert: the database assigns its id.
pub type NewSignificantEvent = SignificantEvent<()>;

/// A significant event as stored.
pub type SignificantEventRow = SignificantEvent<i64>;

/// A round's verdict and statistics: the writer inserts them borrowed from what it appends
/// ([`NewAdjudication`]), reads give them owned ([`AdjudicationRow`]); `S` is the text's type.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = adjudications, check_for_backend(diesel::pg::Pg))]
#[diesel(treat_none_as_default_value = false)]
pub struct Adjudication<S> {
    pub ledger_index: i64,
    pub table_id: S,
    pub game: S,
    pub plan_id: S,
    pub rules_version: S,
    pub played_at: DateTime<Utc>,
    pub void: bool,
    pub stakes_h: i64,
    pub expected_paid_h: i64,
    pub paid_h: i64,
    pub rtp_stakes_h: i64,
    pub expected_payout_mh: i64,
    pub payout_variance_h2: f64,
    pub finding_count: i32,
    /// JSON, as `serde_json` wrote it.
    pub verdict: S,
    pub payout_third_moment_h3: f64,
    /// What reports read of the verdict, in columns of their own (`append::ReportFigures`).
    pub tournament_fee_h: i64,
    pub tournament_overlay_h: i64,
    pub time_collection: bool,
    pub wheel_result: Option<i32>,
    /// The round's bet kinds, in the rules' order (by name), and for each figure an element per
    /// kind: its bets' figures and what the table paid on them.
    pub kind_names: Vec<S>,
    pub kind_bets: Vec<i64>,
    pub kind_stakes_h: Vec<i64>,
    pub kind_paid_h: Vec<i64>,
    pub kind_expected_payout_mh: Vec<i64>,
    pub kind_variance_h2: Vec<f64>,
    pub kind_third_moment_h3: Vec<f64>,
}

/// A round's verdict and statistics, as the writer inserts them (borrowed from what it appends).
pub type NewAdjudication<'a> = Adjudication<&'a str>;

/// A round's verdict and statistics, as stored.
pub type AdjudicationRow = Adjudication<String>;

/// A table's own id for a round, and the entry holding that round.
#[derive(Debug, Clone, PartialEq, Eq, Insertable, Queryable, Selectable)]
#[diesel(table_name = round_ids, check_for_backend(diesel::pg::Pg))]
#[diesel(treat_none_as_default_value = false)]
pub struct RoundIdRow {
    pub table_id: String,
    pub round_id: String,
    pub ledger_index: i64,
}

/// A finding of a round's verdict, as the writer inserts it and reads give it (the database's
/// own `id` only orders findings of equal sort keys, and is never read).
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = findings, check_for_backend(diesel::pg::Pg))]
#[diesel(treat_none_as_default_value = false)]
pub struct FindingRow {
    pub ledger_index: i64,
    pub table_id: String,
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub kind: String,
    pub bet_ids: serde_json::Value,
    pub expected_h: Option<i64>,
    pub actual_h: Option<i64>,
    pub amount_h: i64,
    pub message: String,
    /// Which of the verdict's findings it is (from 0).
    pub position: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = api_keys, check_for_backend(diesel::pg::Pg))]
pub struct ApiKeyRow {
    pub key_id: String,
    pub token_sha256: Vec<u8>,
    pub name: String,
    pub role: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub ledger_index: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = api_key_revocations, check_for_backend(diesel::pg::Pg))]
pub struct ApiKeyRevocationRow {
    pub key_id: String,
    pub revoked_at: DateTime<Utc>,
    pub revoked_by: String,
    pub reason: String,
    pub ledger_index: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = finding_resolutions, check_for_backend(diesel::pg::Pg))]
#[diesel(treat_none_as_default_value = false)]
pub struct ResolutionRow {
    pub ledger_index: i64,
    pub round_index: i64,
    pub finding: i32,
    pub table_id: String,
    pub kind: String,
    pub rules_version: String,
    pub state: String,
    pub amount_settled_h: Option<i64>,
    pub reason: Option<String>,
    pub comment: String,
    pub key_id: String,
    pub key_name: String,
    pub key_role: String,
    pub resolved_at: DateTime<Utc>,
}
