//! Šťastné kolo I and II (money wheels): records, adjudication from the segment the pointer
//! stopped on and the table's own segment order, theoretical figures.
//!
//! The plan gives only how many segments each box has; the physical order is the table's
//! configuration ([`WheelLayout`], checked against the plan at registration). A round records
//! the index of the stopping segment, so the payout follows from the layout, not from what the
//! dealer announced.

use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::game::{Game, GameRecord, Judged, Statistics, TableSetup};
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::plan::table_games::{WheelMaxBetPer, WheelPlan};
use crate::round_header::{
    round_record, validate_bet_count, validate_bet_id, validate_identifier, GameCode,
};
use crate::statistics::RoundStatistics;
use crate::verdict::{BetTotals, BetVerdict, Finding, FindingKind, Verdict};

pub mod layout;

pub use layout::WheelLayout;

/// Most bets one spin may carry.
const MAX_BETS_PER_ROUND: usize = 500;

round_record! {
    /// A money wheel spin as the table reports it.
    pub struct WheelRound {
        pub outcome: WheelOutcome,
        pub bets: Vec<WheelBet>,
    }
}

/// Where the pointer stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case", deny_unknown_fields)]
pub enum WheelOutcome {
    /// On segment `segment` (index in the table's layout) after `turns` full turns.
    Segment { segment: u16, turns: u8 },
    /// Declared void: every stake is returned.
    Void { reason: WheelVoidReason },
}

/// Why a spin was declared void (Šťastné kolo, Průběh hry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WheelVoidReason {
    /// The wheel made fewer full turns than the plan's minimum.
    TooFewTurns,
    /// The pointer stopped between two segments.
    PointerBetweenSegments,
}

impl WheelVoidReason {
    pub fn as_str(self) -> &'static str {
        match self {
            WheelVoidReason::TooFewTurns => "too_few_turns",
            WheelVoidReason::PointerBetweenSegments => "pointer_between_segments",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelBet {
    pub bet_id: String,
    pub player: String,
    /// The box the stake lies on (`1x`, `25x_black`, …).
    #[serde(rename = "box")]
    pub box_id: String,
    pub stake_h: i64,
    /// Everything handed back for this bet: win plus stake, the stake on a void spin, else 0.
    pub paid_h: i64,
}

fn overflow() -> RecordError {
    RecordError::invalid("bets", "amounts too large")
}

fn finding(kind: FindingKind, bet: &WheelBet, expected_h: i64, message: String) -> Finding {
    Finding {
        kind,
        bet_ids: Some(vec![bet.bet_id.clone()]),
        expected_h: Some(expected_h),
        actual_h: Some(bet.paid_h),
        amount_h: bet
            .paid_h
            .abs_diff(expected_h)
            .try_into()
            .unwrap_or(i64::MAX),
        message,
    }
}

/// Re-adjudicates a spin: the box the stopping segment pays, each bet's payout, limits per
/// player and box, the maximum net win, void spins.
pub fn adjudicate<'a>(
    wp: &'a WheelPlan,
    plan: &'a Plan,
    setup: &'a TableSetup,
    round: &'a WheelRound,
) -> Result<Verdict<'a>, RecordError> {
    let layout = setup.wheel_layout()?;
    let mut findings = Vec::new();
    let (winning, void_reason) = match round.outcome {
        WheelOutcome::Segment { segment, turns } => {
            let label = layout.label(segment).ok_or_else(|| {
                RecordError::impossible(
                    "outcome.segment",
                    format!(
                        "segment {segment} is not on this table's wheel of {} segments",
                        layout.len()
                    ),
                )
            })?;
            if turns < wp.min_turns {
                // The plan makes such a spin void: every stake comes back.
                findings.push(Finding::note(
                    FindingKind::VoidHandledWrongly,
                    format!(
                        "the wheel made {turns} full turns, fewer than the plan's {}: the spin is \
                         void and every stake must be returned",
                        wp.min_turns
                    ),
                ));
                (None, Some(WheelVoidReason::TooFewTurns))
            } else {
                (Some((segment, label)), None)
            }
        }
        WheelOutcome::Void { reason } => (None, Some(reason)),
    };
    let mut totals = BetTotals::with_capacity(round.bets.len());
    for bet in &round.bets {
        let known = wp.box_of(&bet.box_id);
        let expected_h = match (known, winning) {
            (Some(b), Some((_, label))) if label == b.id => bet
                .stake_h
                .checked_mul(i64::from(b.pays) + 1)
                .ok_or_else(overflow)?,
            (Some(_), Some(_)) => 0,
            // A void spin returns every stake; a bet on no box was never accepted.
            _ => bet.stake_h,
        };
        match known {
            None => findings.push(finding(
                FindingKind::BetNotAllowed,
                bet,
                expected_h,
                format!(
                    "bet {}: `{}` is not a box of this wheel; its stake of {} must be returned",
                    bet.bet_id,
                    bet.box_id,
                    format_czk(bet.stake_h)
                ),
            )),
            Some(_) => findings.extend(Finding::settlement(
                &bet.bet_id,
                format_args!("bet {} on {}", bet.bet_id, bet.box_id),
                bet.paid_h,
                expected_h,
                winning.is_none(),
                "",
            )),
        }
        let net_h = bet.paid_h.saturating_sub(bet.stake_h);
        if winning.is_some() && net_h > wp.max_net_win_h {
            findings.push(Finding::win_above_maximum(
                &bet.bet_id,
                "a net win of",
                net_h,
                "maximum net win",
                wp.max_net_win_h,
            ));
        }
        totals.add(BetVerdict {
            bet_id: &bet.bet_id,
            player: &bet.player,
            // The box is the bet kind: each box has its own odds and RTP.
            kind: known.map_or("unknown_box", |b| b.id.as_str()),
            stake_h: bet.stake_h,
            expected_paid_h: expected_h,
            paid_h: bet.paid_h,
        })?;
    }
    check_limits(wp, setup, &round.bets, &mut findings)?;
    Ok(Verdict {
        segment: winning.map(|(segment, _)| segment),
        segment_label: winning.map(|(_, label)| label),
        void_reason: void_reason.map(WheelVoidReason::as_str),
        void: winning.is_none(),
        findings,
        ..Verdict::new(&plan.plan_id, round.game, &round.table_id, round.seq_no).with_bets(totals)
    })
}

/// The plan's limits, and inside them the table's posted ones, apply to a player's whole stake
/// on one box.
fn check_limits(
    wp: &WheelPlan,
    setup: &TableSetup,
    bets: &[WheelBet],
    findings: &mut Vec<Finding>,
) -> Result<(), RecordError> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for bet in bets {
        let key = (bet.player.as_str(), bet.box_id.as_str());
        if seen.contains(&key) || wp.box_of(&bet.box_id).is_none() {
            continue;
        }
        seen.push(key);
        let together: Vec<&WheelBet> = bets
            .iter()
            .filter(|b| b.player == bet.player && b.box_id == bet.box_id)
            .collect();
        let mut stake_h = 0i64;
        for b in &together {
            stake_h = stake_h.checked_add(b.stake_h).ok_or_else(overflow)?;
        }
        let (kind, limit, word) = if stake_h < wp.min_bet_h {
            (
                FindingKind::StakeBelowMinimum,
                wp.min_bet_h,
                "below the minimum",
            )
        } else if stake_h > wp.max_bet_h && wp.max_bet_per == WheelMaxBetPer::Box {
            (
                FindingKind::StakeAboveMaximum,
                wp.max_bet_h,
                "above the maximum",
            )
        } else {
            if let Some(posted) = setup.posted_range("max_bet_h") {
                let what = format!("player {} on box {}", bet.player, bet.box_id);
                let ids = together.iter().map(|b| b.bet_id.clone()).collect();
                findings.extend(posted.judge(stake_h, ids, &what));
            }
            continue;
        };
        findings.push(Finding {
            kind,
            bet_ids: Some(together.iter().map(|b| b.bet_id.clone()).collect()),
            expected_h: Some(limit),
            actual_h: Some(stake_h),
            amount_h: (stake_h - limit).abs(),
            message: format!(
                "player {} staked {} on box {}, {word} of {} per box",
                bet.player,
                format_czk(stake_h),
                bet.box_id,
                format_czk(limit)
            ),
        });
    }
    if wp.max_bet_per == WheelMaxBetPer::Game {
        check_game_maximum(wp, bets, findings)?;
    }
    Ok(())
}

/// The plan's maximum read per game: each player's stakes on every box of the spin together.
fn check_game_maximum(
    wp: &WheelPlan,
    bets: &[WheelBet],
    findings: &mut Vec<Finding>,
) -> Result<(), RecordError> {
    let mut seen: Vec<&str> = Vec::new();
    for bet in bets {
        if seen.contains(&bet.player.as_str()) {
            continue;
        }
        seen.push(&bet.player);
        let together: Vec<&WheelBet> = bets
            .iter()
            .filter(|b| b.player == bet.player && wp.box_of(&b.box_id).is_some())
            .collect();
        let mut stake_h = 0i64;
        for b in &together {
            stake_h = stake_h.checked_add(b.stake_h).ok_or_else(overflow)?;
        }
        if stake_h > wp.max_bet_h {
            findings.push(Finding::stakes_above_maximum(
                together.iter().map(|b| b.bet_id.clone()).collect(),
                wp.max_bet_h,
                stake_h,
                format!(
                    "player {} staked {} on the spin, above the maximum of {} per game",
                    bet.player,
                    format_czk(stake_h),
                    format_czk(wp.max_bet_h)
                ),
            ));
        }
    }
    Ok(())
}

/// Expected payout and its variance over the layout's equally likely segments; void spins add
/// nothing.
pub fn round_statistics(
    wp: &WheelPlan,
    layout: &WheelLayout,
    round: &WheelRound,
) -> RoundStatistics {
    if matches!(round.outcome, WheelOutcome::Void { .. }) || layout.is_empty() {
        return RoundStatistics::default();
    }
    let priced: Vec<(&WheelBet, &crate::plan::table_games::WheelBox)> = round
        .bets
        .iter()
        .filter_map(|bet| wp.box_of(&bet.box_id).map(|b| (bet, b)))
        .collect();
    let kinds: Vec<(&str, i64)> = priced
        .iter()
        .map(|(bet, b)| (b.id.as_str(), bet.stake_h))
        .collect();
    let segments = layout.segments();
    RoundStatistics::over_equally_likely(segments.len(), &kinds, |i, payouts| {
        let (bet, b) = priced[i];
        let win = i128::from(bet.stake_h) * (i128::from(b.pays) + 1);
        for (payout, segment) in payouts.iter_mut().zip(segments) {
            if b.id == *segment {
                *payout += win;
            }
        }
    })
}

impl Game for WheelRound {
    /// Structural checks; anything failing here is a malformed record (rejected, 4xx).
    fn validate(&self) -> Result<(), RecordError> {
        validate_bet_count(self.bets.len(), MAX_BETS_PER_ROUND)?;
        let mut ids: Vec<&str> = Vec::with_capacity(self.bets.len());
        for (i, bet) in self.bets.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("bets[{i}]"));
            validate_bet_id(&mut ids, &bet.bet_id).map_err(at)?;
            validate_identifier("player", &bet.player).map_err(at)?;
            validate_identifier("box", &bet.box_id).map_err(at)?;
            if validate_amount("stake_h", bet.stake_h).map_err(at)? == 0 {
                return Err(at(RecordError::invalid("stake_h", "must be positive")));
            }
            validate_amount("paid_h", bet.paid_h).map_err(at)?;
        }
        Ok(())
    }

    fn reported_totals(&self) -> (i64, i64) {
        crate::game::reported_totals(self.bets.iter().map(|b| (b.stake_h, b.paid_h)))
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, setup: &'a TableSetup) -> Judged<'a> {
        adjudicate(plan.wheel(self.game)?, plan, setup, self)
    }

    fn statistics(&self, plan: &Plan, setup: &TableSetup) -> Statistics {
        Ok(round_statistics(
            plan.wheel(self.game)?,
            setup.wheel_layout()?,
            self,
        ))
    }
}

impl GameRecord for WheelRound {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::MoneyWheel1, GameCode::MoneyWheel2];
}

#[cfg(test)]
mod tests;
