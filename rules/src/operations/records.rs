//! The records of a table's operating period and of the cage, as stations submit them. Each
//! record carries the station (`table_id`), its sequence number, the plan, the period it
//! belongs to and when it happened; parsing is strict.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::chips::{validate_chips, ChipCount};
use crate::error::RecordError;
use crate::money::validate_amount;
use crate::round_header::{validate_identifier, validate_round_identity};

/// Declares an operation record: the header every one shares, then its own fields.
macro_rules! operation_record {
    ($(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The station: a gaming table, or a cage (registered with the game `cage`).
            pub table_id: String,
            pub seq_no: u64,
            pub plan_id: String,
            /// The operating period, named by the station; unique per station.
            pub period_id: String,
            /// When it happened, UTC.
            pub at: DateTime<Utc>,
            $($fields)*
        }

        impl $name {
            fn header(&self) -> OperationHeader<'_> {
                OperationHeader {
                    table_id: &self.table_id,
                    seq_no: self.seq_no,
                    plan_id: &self.plan_id,
                    period_id: &self.period_id,
                    at: self.at,
                }
            }
        }
    };
}

/// What every operation record shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperationHeader<'a> {
    pub table_id: &'a str,
    pub seq_no: u64,
    pub plan_id: &'a str,
    pub period_id: &'a str,
    pub at: DateTime<Utc>,
}

operation_record! {
    /// A table's float counted when its period opens or closes.
    pub struct FloatCount {
        pub float: Vec<ChipCount>,
    }
}

operation_record! {
    /// Chips brought from the cage to a table (a fill) or taken back (a credit), on a slip.
    pub struct ChipTransfer {
        pub slip_no: String,
        pub chips: Vec<ChipCount>,
        /// Who carried and signed the slip.
        pub by: String,
    }
}

operation_record! {
    /// A table's drop box, counted: the cash players bought chips with, and chips dropped in
    /// (rake, time collection).
    pub struct DropCount {
        pub cash_h: i64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub chips: Vec<ChipCount>,
        /// Who counted it.
        pub counted_by: String,
    }
}

operation_record! {
    /// Tips put into the tronc at a table.
    pub struct Tips {
        pub chips: Vec<ChipCount>,
    }
}

operation_record! {
    /// A cage's holdings counted when its period opens or closes.
    pub struct CageCount {
        pub cash_h: i64,
        pub chips: Vec<ChipCount>,
        /// Chips in the tronc (the tips box).
        pub tronc_h: i64,
    }
}

/// What a cage transaction is. Each kind is one of the movements the Ministry's package
/// aggregates per period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CageKind {
    /// A player buys chips.
    ChipPurchase,
    /// A player hands chips in for money.
    ChipRedemption,
    /// Money brought into the cage from outside the gaming cash (a bank delivery).
    CashIn,
    /// Money taken out of the cage (to the bank, to the safe).
    CashOut,
    /// Chips not returned or lost (written off at their value).
    ChipsLost,
    /// Chips found or returned after being written off.
    ChipsFound,
    /// A tournament buy-in (the part that goes into the prize pool).
    TournamentBuyIn,
    /// A tournament's fee (the casino's part of an entry).
    TournamentFee,
    /// A tournament prize paid out.
    TournamentPrize,
    /// A buy-in handed back when a tournament is cancelled.
    TournamentRefund,
    /// Tips given other than into the tronc.
    TipOutsideTronc,
    /// Chips paid into the tronc at the cage.
    TroncIn,
    /// Chips taken from the tronc to the cage.
    TroncOut,
}

impl CageKind {
    pub const ALL: [CageKind; 13] = [
        CageKind::ChipPurchase,
        CageKind::ChipRedemption,
        CageKind::CashIn,
        CageKind::CashOut,
        CageKind::ChipsLost,
        CageKind::ChipsFound,
        CageKind::TournamentBuyIn,
        CageKind::TournamentFee,
        CageKind::TournamentPrize,
        CageKind::TournamentRefund,
        CageKind::TipOutsideTronc,
        CageKind::TroncIn,
        CageKind::TroncOut,
    ];

    /// Money paid by or to a player: whether it was cash is stated.
    pub fn needs_payment(self) -> bool {
        matches!(
            self,
            CageKind::ChipPurchase
                | CageKind::ChipRedemption
                | CageKind::TournamentBuyIn
                | CageKind::TournamentFee
                | CageKind::TournamentPrize
                | CageKind::TournamentRefund
        )
    }

    /// Tournament movements name their tournament.
    pub fn is_tournament(self) -> bool {
        matches!(
            self,
            CageKind::TournamentBuyIn
                | CageKind::TournamentFee
                | CageKind::TournamentPrize
                | CageKind::TournamentRefund
        )
    }
}

/// How a cage transaction was paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Payment {
    Cash,
    NonCash,
}

operation_record! {
    /// One movement at the cage.
    pub struct CageTransaction {
        pub kind: CageKind,
        pub amount_h: i64,
        /// Cash or not: stated for money paid by or to a player.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub payment: Option<Payment>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub slip_no: Option<String>,
        /// The tournament of a tournament movement.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tournament_id: Option<String>,
    }
}

/// A record of a table's operating period or of the cage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Operation {
    TableOpen(FloatCount),
    TableFill(ChipTransfer),
    TableCredit(ChipTransfer),
    TableDrop(DropCount),
    TableTips(Tips),
    TableClose(FloatCount),
    CageOpen(CageCount),
    CageTransaction(CageTransaction),
    CageClose(CageCount),
}

/// Every operation record type, tables' first.
pub const OPERATION_TYPES: [&str; 9] = [
    "table_open",
    "table_fill",
    "table_credit",
    "table_drop",
    "table_tips",
    "table_close",
    "cage_open",
    "cage_transaction",
    "cage_close",
];

/// Whether records of this type belong to a table's operating period or to the cage.
pub fn is_operation(record_type: &str) -> bool {
    OPERATION_TYPES.contains(&record_type)
}

/// Which kind of station submits a record type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Station {
    Table,
    Cage,
}

impl Operation {
    /// Parses and checks an operation record from its JSON text.
    pub fn parse_json(text: &str) -> Result<Operation, RecordError> {
        let operation: Operation =
            serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))?;
        operation.validate()?;
        Ok(operation)
    }

    pub fn record_type(&self) -> &'static str {
        match self {
            Operation::TableOpen(_) => "table_open",
            Operation::TableFill(_) => "table_fill",
            Operation::TableCredit(_) => "table_credit",
            Operation::TableDrop(_) => "table_drop",
            Operation::TableTips(_) => "table_tips",
            Operation::TableClose(_) => "table_close",
            Operation::CageOpen(_) => "cage_open",
            Operation::CageTransaction(_) => "cage_transaction",
            Operation::CageClose(_) => "cage_close",
        }
    }

    pub fn station(&self) -> Station {
        match self {
            Operation::CageOpen(_) | Operation::CageTransaction(_) | Operation::CageClose(_) => {
                Station::Cage
            }
            _ => Station::Table,
        }
    }

    pub fn header(&self) -> OperationHeader<'_> {
        match self {
            Operation::TableOpen(r) | Operation::TableClose(r) => r.header(),
            Operation::TableFill(r) | Operation::TableCredit(r) => r.header(),
            Operation::TableDrop(r) => r.header(),
            Operation::TableTips(r) => r.header(),
            Operation::CageOpen(r) | Operation::CageClose(r) => r.header(),
            Operation::CageTransaction(r) => r.header(),
        }
    }

    /// Structural checks: identifiers, amounts, counts. Whether the record fits its period is
    /// not checked here: that is a finding of the period audit, not a refusal.
    pub fn validate(&self) -> Result<(), RecordError> {
        let h = self.header();
        validate_round_identity(h.table_id, h.plan_id, h.seq_no)?;
        validate_identifier("period_id", h.period_id)?;
        match self {
            Operation::TableOpen(r) | Operation::TableClose(r) => {
                validate_chips("float", &r.float)?;
            }
            Operation::TableFill(r) | Operation::TableCredit(r) => {
                validate_identifier("slip_no", &r.slip_no)?;
                validate_chips("chips", &r.chips)?;
                validate_person("by", &r.by)?;
            }
            Operation::TableDrop(r) => {
                validate_amount("cash_h", r.cash_h)?;
                validate_chips("chips", &r.chips)?;
                validate_person("counted_by", &r.counted_by)?;
            }
            Operation::TableTips(r) => {
                validate_chips("chips", &r.chips)?;
            }
            Operation::CageOpen(r) | Operation::CageClose(r) => {
                validate_amount("cash_h", r.cash_h)?;
                validate_chips("chips", &r.chips)?;
                validate_amount("tronc_h", r.tronc_h)?;
            }
            Operation::CageTransaction(r) => {
                validate_amount("amount_h", r.amount_h)?;
                if r.amount_h == 0 {
                    return Err(RecordError::invalid("amount_h", "must be positive"));
                }
                if r.payment.is_none() && r.kind.needs_payment() {
                    return Err(RecordError::invalid(
                        "payment",
                        "is required for money paid by or to a player (`cash` or `non_cash`)",
                    ));
                }
                if let Some(slip) = &r.slip_no {
                    validate_identifier("slip_no", slip)?;
                }
                match (&r.tournament_id, r.kind.is_tournament()) {
                    (Some(id), true) => validate_identifier("tournament_id", id)?,
                    (None, true) => {
                        return Err(RecordError::invalid(
                            "tournament_id",
                            "is required for a tournament movement",
                        ))
                    }
                    (Some(_), false) => {
                        return Err(RecordError::invalid(
                            "tournament_id",
                            "is only for tournament movements",
                        ))
                    }
                    (None, false) => {}
                }
            }
        }
        Ok(())
    }
}

/// A person named on a slip: 1–100 characters, not blank.
fn validate_person(field: &str, name: &str) -> Result<(), RecordError> {
    let length = name.chars().count();
    if name.trim().is_empty() || length > 100 || name.chars().any(char::is_control) {
        return Err(RecordError::invalid(
            field,
            "must name a person in 1-100 characters, without control characters",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn open() -> serde_json::Value {
        json!({"type": "table_open", "table_id": "R01", "seq_no": 0, "plan_id": "p",
               "period_id": "R01-1001", "at": "2026-10-01T16:00:00Z",
               "float": [{"denomination_h": 10000, "count": 50}]})
    }

    #[test]
    fn each_record_type_reads_as_its_type_and_writes_back_the_same() {
        let records = [
            open(),
            json!({"type": "table_fill", "table_id": "R01", "seq_no": 1, "plan_id": "p",
                   "period_id": "R01-1001", "at": "2026-10-01T18:00:00Z", "slip_no": "F-17",
                   "chips": [{"denomination_h": 10000, "count": 20}], "by": "J. Novák"}),
            json!({"type": "table_drop", "table_id": "R01", "seq_no": 2, "plan_id": "p",
                   "period_id": "R01-1001", "at": "2026-10-02T04:00:00Z", "cash_h": 500000,
                   "counted_by": "count room 2"}),
            json!({"type": "cage_transaction", "table_id": "CAGE", "seq_no": 9, "plan_id": "p",
                   "period_id": "CAGE-1001", "at": "2026-10-01T20:00:00Z",
                   "kind": "tournament_buy_in", "amount_h": 200000, "payment": "non_cash",
                   "tournament_id": "T-42"}),
        ];
        for record in records {
            let op = Operation::parse_json(&record.to_string()).unwrap();
            assert_eq!(op.record_type(), record["type"].as_str().unwrap());
            assert_eq!(serde_json::to_value(&op).unwrap(), record);
        }
    }

    #[test]
    fn operation_types_are_listed_and_name_their_station() {
        for t in OPERATION_TYPES {
            assert!(is_operation(t));
        }
        assert!(!is_operation("round"));
        let op = Operation::parse_json(&open().to_string()).unwrap();
        assert_eq!(op.station(), Station::Table);
        assert_eq!(op.header().period_id, "R01-1001");
    }

    #[test]
    fn malformed_operations_are_refused_with_the_field() {
        let mut unknown = open();
        unknown["extra"] = json!(1);
        let mut bad_period = open();
        bad_period["period_id"] = json!("no spaces");
        let mut bad_float = open();
        bad_float["float"] = json!([{"denomination_h": 0, "count": 1}]);
        let no_tournament = json!({"type": "cage_transaction", "table_id": "CAGE", "seq_no": 9,
            "plan_id": "p", "period_id": "C1", "at": "2026-10-01T20:00:00Z",
            "kind": "tournament_prize", "amount_h": 1, "payment": "cash"});
        let zero = json!({"type": "cage_transaction", "table_id": "CAGE", "seq_no": 9,
            "plan_id": "p", "period_id": "C1", "at": "2026-10-01T20:00:00Z",
            "kind": "chip_purchase", "amount_h": 0, "payment": "cash"});
        let no_payment = json!({"type": "cage_transaction", "table_id": "CAGE", "seq_no": 9,
            "plan_id": "p", "period_id": "C1", "at": "2026-10-01T20:00:00Z",
            "kind": "chip_redemption", "amount_h": 100});
        let blank_person = json!({"type": "table_credit", "table_id": "R01", "seq_no": 1,
            "plan_id": "p", "period_id": "P", "at": "2026-10-01T18:00:00Z", "slip_no": "C-1",
            "chips": [], "by": "  "});
        for (record, expected) in [
            (unknown, "unknown field `extra`"),
            (bad_period, "period_id"),
            (bad_float, "float[0].denomination_h"),
            (no_tournament, "tournament_id: is required"),
            (zero, "amount_h: must be positive"),
            (no_payment, "payment: is required"),
            (blank_person, "by: must name a person"),
        ] {
            let err = Operation::parse_json(&record.to_string())
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{err} should contain {expected}");
        }
    }
}
