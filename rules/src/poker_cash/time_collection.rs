//! Time collection: instead of a rake, the floorman announces a fee per player per 30 minutes
//! (100 – 10 000 Kč) and collects it before the first hand of the period. Recorded as its own
//! table event (`"type": "time_collection"`), checked against the plan and the announced rate.
//! Open Face Chinese tables may take time too ("nebo se s Hráči dohodne na Time collection"); the
//! plan gives their fee no range of its own, so the cash game's applies.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::game::{Game, GameRecord, Judged, TableSetup};
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::plan::poker::{PokerCashPlan, TimeCollectionPer};
use crate::round_header::{validate_identifier, GameCode};
use crate::verdict::{BetVerdict, Finding, FindingKind, Verdict};

/// The plan's period of time collection.
pub const PERIOD_MINUTES: u32 = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeCollectionType {
    TimeCollection,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeCollection {
    #[serde(rename = "type")]
    pub record_type: TimeCollectionType,
    pub game: GameCode,
    pub table_id: String,
    pub seq_no: u64,
    pub plan_id: String,
    /// When the fee was collected, UTC.
    pub played_at: DateTime<Utc>,
    /// The time paid for: 30 minutes or a multiple.
    pub period_minutes: u32,
    /// The fee the floorman announced per player and 30 minutes.
    pub per_player_h: i64,
    pub players: Vec<TimePayment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimePayment {
    pub seat: u8,
    pub player: String,
    pub paid_h: i64,
}

/// Checks the announced fee against the plan and each player's payment against the fee.
pub fn adjudicate<'a>(
    pp: &PokerCashPlan,
    plan: &'a Plan,
    collection: &'a TimeCollection,
) -> Result<Verdict<'a>, RecordError> {
    let mut findings = Vec::new();
    // The plan's range is each player's fee, or the table's (what all its players pay together).
    let (fee, whose) = match pp.time_collection_per {
        TimeCollectionPer::Player => (collection.per_player_h, "per player"),
        TimeCollectionPer::Table => (
            collection
                .per_player_h
                .checked_mul(collection.players.len() as i64)
                .ok_or_else(|| RecordError::invalid("per_player_h", "amount too large"))?,
            "for the table",
        ),
    };
    let (kind, limit) = if fee < pp.time_collection_min_h {
        (
            Some(FindingKind::StakeBelowMinimum),
            pp.time_collection_min_h,
        )
    } else if fee > pp.time_collection_max_h {
        (
            Some(FindingKind::StakeAboveMaximum),
            pp.time_collection_max_h,
        )
    } else {
        (None, fee)
    };
    if let Some(kind) = kind {
        findings.push(Finding {
            kind,
            bet_ids: None,
            expected_h: Some(limit),
            actual_h: Some(fee),
            amount_h: fee.abs_diff(limit).try_into().unwrap_or(i64::MAX),
            message: format!(
                "a time collection of {} {whose} and 30 minutes; the plan allows {} to {}",
                format_czk(fee),
                format_czk(pp.time_collection_min_h),
                format_czk(pp.time_collection_max_h)
            ),
        });
    }
    // Each player pays the announced share for each half hour, whichever reading.
    let due_h = collection
        .per_player_h
        .checked_mul(i64::from(collection.period_minutes / PERIOD_MINUTES))
        .ok_or_else(|| RecordError::invalid("per_player_h", "amount too large"))?;
    let mut bets = Vec::with_capacity(collection.players.len());
    let mut collected_h = 0i64;
    for p in &collection.players {
        if p.paid_h != due_h {
            findings.push(Finding {
                kind: FindingKind::RakeWrong,
                bet_ids: Some(vec![format!("seat-{}", p.seat)]),
                expected_h: Some(due_h),
                actual_h: Some(p.paid_h),
                amount_h: p.paid_h.abs_diff(due_h).try_into().unwrap_or(i64::MAX),
                message: format!(
                    "seat {} ({}) paid {} for {} minutes; the announced {} per 30 minutes makes {}",
                    p.seat,
                    p.player,
                    format_czk(p.paid_h),
                    collection.period_minutes,
                    format_czk(collection.per_player_h),
                    format_czk(due_h)
                ),
            });
        }
        collected_h = collected_h.saturating_add(p.paid_h);
        bets.push(BetVerdict {
            bet_id: super::record::SEAT_IDS
                .get(usize::from(p.seat))
                .copied()
                .unwrap_or("seat"),
            player: &p.player,
            kind: "time_collection",
            stake_h: p.paid_h,
            expected_paid_h: 0,
            paid_h: 0,
        });
    }
    // What the players handed over is the casino's revenue: stakes with nothing paid back.
    Ok(Verdict {
        stakes_h: collected_h,
        expected_paid_h: 0,
        paid_h: 0,
        bets,
        findings,
        ..Verdict::of(&plan.plan_id, collection.game, collection)
    })
}

impl crate::round_header::Identified for TimeCollection {
    fn identity(&self) -> crate::round_header::RoundIdentity<'_> {
        crate::round_header::RoundIdentity {
            game: self.game,
            table_id: &self.table_id,
            seq_no: self.seq_no,
            plan_id: &self.plan_id,
            round_id: None,
            played_at: self.played_at,
        }
    }
}

impl Game for TimeCollection {
    fn validate(&self) -> Result<(), RecordError> {
        if self.period_minutes == 0 || !self.period_minutes.is_multiple_of(PERIOD_MINUTES) {
            return Err(RecordError::invalid(
                "period_minutes",
                format!("a multiple of {PERIOD_MINUTES} minutes"),
            ));
        }
        validate_amount("per_player_h", self.per_player_h)?;
        if self.players.is_empty() || self.players.len() > usize::from(super::record::MAX_SEATS) {
            return Err(RecordError::invalid(
                "players",
                format!("1 to {} players", super::record::MAX_SEATS),
            ));
        }
        for (i, p) in self.players.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("players[{i}]"));
            if p.seat == 0 || p.seat > super::record::MAX_SEATS {
                return Err(at(RecordError::invalid("seat", "a seat number 1 to 10")));
            }
            if self.players[..i].iter().any(|q| q.seat == p.seat) {
                return Err(at(RecordError::invalid("seat", "each seat once")));
            }
            validate_identifier("player", &p.player).map_err(at)?;
            validate_amount("paid_h", p.paid_h).map_err(at)?;
        }
        Ok(())
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, _: &'a TableSetup) -> Judged<'a> {
        adjudicate(plan.poker_cash()?, plan, self)
    }
}

impl GameRecord for TimeCollection {
    const RECORD_TYPE: &'static str = "time_collection";
    const CODES: &'static [GameCode] = &[GameCode::PokerCash, GameCode::OpenFaceChinese];
}
