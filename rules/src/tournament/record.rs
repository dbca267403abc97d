//! The settlement record of a tournament: what a reader refuses (identifiers, amounts), and
//! what cannot have happened (times or places out of order, a player paid who never entered),
//! which is kept with a finding.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::examined::Examined;
use crate::money::validate_amount;
use crate::round_header::{round_record, validate_identifier};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentVariant {
    Holdem,
    Omaha,
    OpenFaceChinese,
}

/// The plan's kinds of tournament ("DRUHY TURNAJŮ").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// One entry per player, no more chips for money.
    Freezeout,
    /// One entry, one rebuy during registration with a stack at or below the starting stack.
    OneRebuy,
    /// More entries, each after losing every chip (or handing the rest back).
    ReEntry,
    /// Rebuys during registration at or below the starting stack, one add-on for everyone at
    /// its end.
    UnlimitedRebuysAddOn,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    BuyIn,
    ReEntry,
    Rebuy,
    AddOn,
}

round_record! {
    /// A tournament's settlement, as the floor reports it when it ends (or is cancelled).
    pub struct TournamentRecord examined {
        pub tournament_id: String,
        pub variant: TournamentVariant,
        pub format: Format,
        /// When the structure and the fee were announced.
        pub announced_at: DateTime<Utc>,
        pub starts_at: DateTime<Utc>,
        /// The end of registration (late registration, rebuys and re-entries up to it).
        pub registration_closes_at: DateTime<Utc>,
        pub buy_in_h: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub rebuy_h: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub add_on_h: Option<i64>,
        /// Tournament chips for a buy-in, a re-entry or a rebuy.
        pub starting_stack: u64,
        pub fee_percent: u8,
        /// What the casino took as the fee.
        pub fee_h: i64,
        /// The guaranteed prize pool, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub guarantee_h: Option<i64>,
        /// Every payment into the tournament, in time order.
        pub entries: Vec<Entry>,
        /// Players knocked out in the same hand, with their stacks when it started.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub eliminations: Vec<Elimination>,
        /// Places and what each was paid (the paid places, or every place).
        #[serde(default)]
        pub results: Vec<Placing>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub deal: Option<Deal>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cancelled: Option<Cancellation>,
        /// What cannot have happened, as found when the record was read (not part of it).
        #[serde(skip)]
        pub examined: Examined,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub player: String,
    pub kind: EntryKind,
    pub at: DateTime<Utc>,
    pub amount_h: i64,
    /// The player's chips just before a re-entry or rebuy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_before: Option<u64>,
    /// A re-entry after handing the remaining chips back to the casino.
    #[serde(default)]
    pub chips_returned: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Elimination {
    pub player: String,
    /// The hand they were knocked out in (a number of the tournament).
    pub hand: u64,
    pub stack_at_hand_start: u64,
    /// Among players knocked out together with equal stacks, who showed the better hand
    /// (1 = best): they split their places' prizes, the better hand taking what does not split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_order: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placing {
    pub place: u32,
    pub player: String,
    pub prize_h: i64,
    /// When the player was knocked out (not for the winner): tells who was still in at a deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_at: Option<DateTime<Utc>>,
}

/// The remaining players agreed to share the prizes of their places otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    pub at: DateTime<Utc>,
    /// Every player still in, each with the amount agreed.
    pub shares: Vec<DealShare>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealShare {
    pub player: String,
    pub amount_h: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cancellation {
    pub refunds: Vec<Refund>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refund {
    pub player: String,
    pub amount_h: i64,
}

impl TournamentRecord {
    /// What a reader must refuse: identifiers, amounts and numbers out of their ranges.
    pub fn validate(&self) -> Result<(), RecordError> {
        validate_identifier("tournament_id", &self.tournament_id)?;
        if validate_amount("buy_in_h", self.buy_in_h)? == 0 {
            return Err(RecordError::invalid("buy_in_h", "must be positive"));
        }
        for (field, amount) in [
            ("rebuy_h", self.rebuy_h),
            ("add_on_h", self.add_on_h),
            ("guarantee_h", self.guarantee_h),
        ] {
            if let Some(a) = amount {
                validate_amount(field, a)?;
            }
        }
        validate_amount("fee_h", self.fee_h)?;
        if self.fee_percent >= 100 {
            return Err(RecordError::invalid("fee_percent", "below 100"));
        }
        if self.starting_stack == 0 {
            return Err(RecordError::invalid("starting_stack", "must be positive"));
        }
        for (i, e) in self.entries.iter().enumerate() {
            let at = |err: RecordError| err.within(format_args!("entries[{i}]"));
            validate_identifier("player", &e.player).map_err(at)?;
            validate_amount("amount_h", e.amount_h).map_err(at)?;
        }
        for (i, e) in self.eliminations.iter().enumerate() {
            validate_identifier("player", &e.player)
                .map_err(|err| err.within(format_args!("eliminations[{i}]")))?;
        }
        for (i, r) in self.results.iter().enumerate() {
            let at = |err: RecordError| err.within(format_args!("results[{i}]"));
            validate_identifier("player", &r.player).map_err(at)?;
            validate_amount("prize_h", r.prize_h).map_err(at)?;
        }
        if let Some(deal) = &self.deal {
            for (i, s) in deal.shares.iter().enumerate() {
                let at = |err: RecordError| err.within(format_args!("deal.shares[{i}]"));
                validate_identifier("player", &s.player).map_err(at)?;
                validate_amount("amount_h", s.amount_h).map_err(at)?;
            }
        }
        if let Some(c) = &self.cancelled {
            for (i, r) in c.refunds.iter().enumerate() {
                let at = |err: RecordError| err.within(format_args!("cancelled.refunds[{i}]"));
                validate_identifier("player", &r.player).map_err(at)?;
                validate_amount("amount_h", r.amount_h).map_err(at)?;
            }
        }
        Ok(())
    }

    /// What the settlement says that cannot have happened: times out of order, places out of
    /// order or twice, a player paid who never entered, a cancelled tournament with results.
    /// Kept as evidence with a finding.
    pub(super) fn find_impossible(&self) -> Result<(), RecordError> {
        if !(self.announced_at <= self.starts_at && self.starts_at <= self.registration_closes_at) {
            return Err(RecordError::impossible(
                "registration_closes_at",
                "announced_at <= starts_at <= registration_closes_at",
            ));
        }
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 && e.at < self.entries[i - 1].at {
                return Err(RecordError::impossible("at", "entries are in time order")
                    .within(format_args!("entries[{i}]")));
            }
        }
        for (i, r) in self.results.iter().enumerate() {
            let at = |err: RecordError| err.within(format_args!("results[{i}]"));
            if r.place != i as u32 + 1 {
                return Err(at(RecordError::impossible(
                    "place",
                    "results list places 1, 2, 3, … in order",
                )));
            }
            if self.results[..i].iter().any(|q| q.player == r.player) {
                return Err(at(RecordError::impossible("player", "placed twice")));
            }
            if !self.entries.iter().any(|e| e.player == r.player) {
                return Err(at(RecordError::impossible("player", "never entered")));
            }
        }
        if let Some(deal) = &self.deal {
            // Who was still in at the deal is told by when the others went out.
            if let Some(r) = self.results.iter().skip(1).find(|r| r.out_at.is_none()) {
                return Err(RecordError::impossible(
                    format!("results[{}].out_at", r.place - 1),
                    "with a deal, every place but the winner's needs the time the player went out",
                ));
            }
            for (i, s) in deal.shares.iter().enumerate() {
                if deal.shares[..i].iter().any(|q| q.player == s.player) {
                    return Err(RecordError::impossible("player", "listed twice")
                        .within(format_args!("deal.shares[{i}]")));
                }
            }
        }
        if let Some(c) = &self.cancelled {
            if !self.results.is_empty() || self.deal.is_some() {
                return Err(RecordError::impossible(
                    "cancelled",
                    "a cancelled tournament has no results and no deal",
                ));
            }
            for (i, r) in c.refunds.iter().enumerate() {
                if !self.entries.iter().any(|e| e.player == r.player) {
                    return Err(RecordError::impossible("player", "never entered")
                        .within(format_args!("cancelled.refunds[{i}]")));
                }
            }
        }
        Ok(())
    }

    /// Buy-ins and re-entries: what the payout table counts.
    pub fn entry_count(&self) -> u32 {
        let n = self
            .entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::BuyIn | EntryKind::ReEntry))
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// All the money paid in: the moneypool.
    pub fn moneypool_h(&self) -> i64 {
        self.entries
            .iter()
            .fold(0i64, |sum, e| sum.saturating_add(e.amount_h))
    }

    /// What `player` paid in.
    pub(super) fn paid_in(&self, player: &str) -> i64 {
        self.entries
            .iter()
            .filter(|e| e.player == player)
            .fold(0i64, |sum, e| sum.saturating_add(e.amount_h))
    }
}
