//! Ruleta (single zero, 37 pockets): records, adjudication and theoretical figures.

pub mod call_bets;
mod evidence;
pub mod layout;
mod pricing;
mod statistics;

pub use evidence::MIN_BALL_REVOLUTIONS;
use pricing::{chips_of, payout, unit_and_total};
pub use statistics::{round_statistics, round_totals};

use smallvec::SmallVec;

use self::layout::{Position, PositionClass, POCKETS};
use crate::error::RecordError;
use crate::game::{Game, GameRecord, Judged, Statistics, TableSetup};
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::plan::table_games::RoulettePlan;
use crate::ratio::Ratio;
use crate::round_header::{validate_bet_count, validate_bet_id, validate_identifier, GameCode};
use crate::table_limits::Posted;
use crate::verdict::{BetTotals, BetVerdict, Finding, FindingKind, Verdict};

pub use record::{
    BetKind, Direction, RouletteBet, RouletteRound, SpinEvidence, SpinOutcome, VoidReason,
    MAX_BETS_PER_ROUND,
};

impl RouletteBet {
    /// Structural checks of one bet (its id is checked with the round's).
    fn validate(&self) -> Result<(), RecordError> {
        validate_identifier("player", &self.player)?;
        validate_amount("paid_h", self.paid_h)?;
        match (self.kind.is_call_bet(), self.stake_h, self.chip_h) {
            (false, Some(stake), None) => {
                validate_amount("stake_h", stake)?;
            }
            (true, None, Some(chip)) => {
                validate_amount("chip_h", chip)?;
            }
            (false, _, _) => {
                return Err(RecordError::invalid(
                    "stake_h",
                    "a layout bet carries `stake_h` (and no `chip_h`)",
                ))
            }
            (true, _, _) => {
                return Err(RecordError::invalid(
                    "chip_h",
                    "a call bet carries `chip_h`, the value of each chip (and no `stake_h`)",
                ))
            }
        }
        let wants_numbers = self.kind.inside_class().is_some() || self.kind == BetKind::Neighbours;
        if !wants_numbers && !self.numbers.is_empty() {
            return Err(RecordError::invalid(
                "numbers",
                format!("a `{}` bet names no numbers", self.kind.as_str()),
            ));
        }
        if wants_numbers && self.numbers.is_empty() {
            return Err(RecordError::invalid(
                "numbers",
                format!("a `{}` bet must name its numbers", self.kind.as_str()),
            ));
        }
        Ok(())
    }
}

fn overflow() -> RecordError {
    RecordError::invalid("bets", "amounts overflow")
}

/// Chips of one bet on one position; limits apply to the sum per player and position.
#[derive(Clone, Copy)]
struct ChipStake {
    position: Position,
    stake_h: i64,
    /// The player's number within the round, so grouping compares integers, not names.
    player_index: u32,
    /// Index of the bet in the round.
    bet: u32,
}

fn describe(position: Position) -> String {
    use layout::*;
    let named = [
        (RED_MASK, "red"),
        (BLACK_MASK, "black"),
        (ODD_MASK, "odd"),
        (EVEN_MASK, "even"),
        (LOW_MASK, "low (1-18)"),
        (HIGH_MASK, "high (19-36)"),
        (DOZEN_MASKS[0], "first dozen (1-12)"),
        (DOZEN_MASKS[1], "second dozen (13-24)"),
        (DOZEN_MASKS[2], "third dozen (25-36)"),
        (COLUMN_MASKS[0], "first column (1-34)"),
        (COLUMN_MASKS[1], "second column (2-35)"),
        (COLUMN_MASKS[2], "third column (3-36)"),
    ];
    if let Some((_, name)) = named.iter().find(|(mask, _)| *mask == position.mask) {
        return (*name).to_owned();
    }
    let class = match position.class {
        PositionClass::Straight => "straight",
        PositionClass::Split => "split",
        PositionClass::Street => "street",
        PositionClass::Corner => "corner",
        _ => "six line",
    };
    let list: Vec<String> = position.numbers().iter().map(u8::to_string).collect();
    format!("{class} {}", list.join("/"))
}

/// Re-adjudicates a spin: expected payout per bet, limits, maximum win, void handling.
pub fn adjudicate<'a>(
    rp: &RoulettePlan,
    plan: &'a Plan,
    setup: &TableSetup,
    round: &'a RouletteRound,
) -> Result<Verdict<'a>, RecordError> {
    let mut findings = Vec::new();
    // A spin its own evidence makes void is judged void, as the money wheels judge one that
    // turned too few times: every stake back, every win paid to come back.
    let void_by_evidence = evidence::void_by_evidence(round, &mut findings);
    let winning = match round.outcome {
        SpinOutcome::Number { number } if void_by_evidence.is_none() => Some(number),
        SpinOutcome::Number { .. } | SpinOutcome::Void { .. } => None,
    };
    // A busy spin fits on the stack; only unusually large ones allocate.
    let mut chips_laid: SmallVec<[ChipStake; 48]> = SmallVec::new();
    let mut players: SmallVec<[&str; 12]> = SmallVec::new();
    let mut totals = BetTotals::with_capacity(round.bets.len());

    for bet in &round.bets {
        let chips = chips_of(bet);
        let (unit_h, stake_h) = unit_and_total(bet, chips.as_ref().ok())?;
        let expected_h = match (&chips, winning) {
            (Ok(chips), Some(number)) => payout(chips, unit_h, number, rp).ok_or_else(overflow)?,
            // A void spin returns every stake; a bet that is no position was never accepted.
            _ => stake_h,
        };
        match &chips {
            Ok(chips) => {
                // A player's bets usually come together: try the last player first.
                let last = players.len().wrapping_sub(1);
                let known = if players.last() == Some(&bet.player.as_str()) {
                    Some(last)
                } else {
                    players.iter().position(|p| *p == bet.player.as_str())
                };
                let player_index = match known {
                    Some(i) => i as u32,
                    None => {
                        players.push(&bet.player);
                        (players.len() - 1) as u32
                    }
                };
                for (position, count) in chips.as_slice() {
                    let stake_h = unit_h
                        .checked_mul(i64::from(*count))
                        .ok_or_else(overflow)?;
                    chips_laid.push(ChipStake {
                        player_index,
                        position: *position,
                        stake_h,
                        bet: totals.bets.len() as u32,
                    });
                }
            }
            Err(reason) => findings.push(Finding {
                kind: FindingKind::InvalidNumber,
                bet_ids: Some(vec![bet.bet_id.to_string()]),
                expected_h: Some(stake_h),
                actual_h: Some(bet.paid_h),
                amount_h: stake_h,
                message: format!(
                    "bet {}: {reason}; such a bet cannot be accepted and its stake of {} must be returned",
                    bet.bet_id,
                    format_czk(stake_h)
                ),
            }),
        }
        check_payout(bet, winning.is_none(), expected_h, rp, &mut findings);
        totals.add(BetVerdict {
            bet_id: &bet.bet_id,
            player: &bet.player,
            kind: bet.kind.as_str(),
            stake_h,
            expected_paid_h: expected_h,
            paid_h: bet.paid_h,
        })?;
    }
    check_limits(&mut chips_laid, &round.bets, rp, setup, &mut findings)?;

    Ok(Verdict {
        winning_number: winning,
        void_reason: match round.outcome {
            SpinOutcome::Void { reason } => Some(reason.as_str()),
            SpinOutcome::Number { .. } => void_by_evidence.map(VoidReason::as_str),
        },
        void: winning.is_none(),
        findings,
        ..Verdict::of(&plan.plan_id, GameCode::Roulette, round).with_bets(totals)
    })
}

fn check_payout(
    bet: &RouletteBet,
    void: bool,
    expected_h: i64,
    rp: &RoulettePlan,
    findings: &mut Vec<Finding>,
) {
    let paid_h = bet.paid_h;
    findings.extend(Finding::settlement(
        &bet.bet_id,
        format_args!("bet {} ({})", bet.bet_id, bet.kind.as_str()),
        paid_h,
        expected_h,
        void,
        "",
    ));
    if !void && paid_h > rp.max_win_h {
        findings.push(Finding::win_above_maximum(
            &bet.bet_id,
            "paid",
            paid_h,
            "maximum possible win",
            rp.max_win_h,
        ));
    }
}

/// Player, position and class packed in one integer, so grouping sorts plain numbers.
fn key(c: &ChipStake) -> u128 {
    (u128::from(c.player_index) << 72)
        | (u128::from(c.position.mask) << 8)
        | c.position.class as u128
}

/// The table's posted range for chips on a position of `class`.
fn posted_for(setup: &TableSetup, class: PositionClass) -> Option<Posted> {
    setup.posted_range(match class {
        PositionClass::Straight => "max_straight_up_h",
        PositionClass::Split
        | PositionClass::Street
        | PositionClass::Corner
        | PositionClass::SixLine => "max_inside_h",
        PositionClass::Dozen | PositionClass::Column | PositionClass::EvenChance => "max_outside_h",
    })
}

/// Sums the chips per player and position and checks each sum against the plan's limits and,
/// inside them, against the limits the table posted.
fn check_limits(
    chips: &mut [ChipStake],
    bets: &[RouletteBet],
    rp: &RoulettePlan,
    setup: &TableSetup,
    findings: &mut Vec<Finding>,
) -> Result<(), RecordError> {
    let judge = |group: &[&ChipStake], stake_h: i64, findings: &mut Vec<Finding>| {
        if !(rp.min_bet_h..=rp.max_bet_h).contains(&stake_h) {
            push_limit_finding(group, stake_h, bets, rp, findings);
        } else if let Some(first) = group.first() {
            if let Some(posted) = posted_for(setup, first.position.class) {
                let bet_ids = group_bet_ids(group, bets);
                let what = format!(
                    "player {} on {}",
                    bets[first.bet as usize].player,
                    describe(first.position)
                );
                findings.extend(posted.judge(stake_h, bet_ids, &what));
            }
        }
    };
    // Usually no player has two chips on one position: then each chip is its own sum.
    // A 64-bit filter of the keys seen so far spares the scan for almost every chip.
    let keys: SmallVec<[u128; 48]> = chips.iter().map(key).collect();
    let mut seen = 0u64;
    let mut shared = false;
    for (i, k) in keys.iter().enumerate() {
        let bit =
            1u64 << ((k.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) >> 122) as u32);
        if seen & bit != 0 && keys[..i].contains(k) {
            shared = true;
            break;
        }
        seen |= bit;
    }
    if !shared {
        for c in chips.iter() {
            judge(&[c], c.stake_h, findings);
        }
        return Ok(());
    }
    chips.sort_unstable_by_key(|c| (key(c), c.bet));
    let mut start = 0;
    while start < chips.len() {
        let mut end = start + 1;
        while end < chips.len() && key(&chips[end]) == key(&chips[start]) {
            end += 1;
        }
        let group: Vec<&ChipStake> = chips[start..end].iter().collect();
        start = end;
        let mut stake_h = 0i64;
        for c in &group {
            stake_h = stake_h.checked_add(c.stake_h).ok_or_else(overflow)?;
        }
        judge(&group, stake_h, findings);
    }
    Ok(())
}

/// The ids of the bets whose chips make up `group`, each once.
fn group_bet_ids(group: &[&ChipStake], bets: &[RouletteBet]) -> Vec<String> {
    let mut bet_ids: Vec<String> = Vec::with_capacity(group.len());
    for c in group {
        let id = bets[c.bet as usize].bet_id.as_str();
        if !bet_ids.iter().any(|b| b == id) {
            bet_ids.push(id.to_owned());
        }
    }
    bet_ids
}

fn push_limit_finding(
    group: &[&ChipStake],
    stake_h: i64,
    bets: &[RouletteBet],
    rp: &RoulettePlan,
    findings: &mut Vec<Finding>,
) {
    let Some(first) = group.first() else { return };
    let (kind, limit, word) = if stake_h < rp.min_bet_h {
        (
            FindingKind::StakeBelowMinimum,
            rp.min_bet_h,
            "below the minimum",
        )
    } else {
        (
            FindingKind::StakeAboveMaximum,
            rp.max_bet_h,
            "above the maximum",
        )
    };
    findings.push(Finding {
        kind,
        bet_ids: Some(group_bet_ids(group, bets)),
        expected_h: Some(limit),
        actual_h: Some(stake_h),
        amount_h: (stake_h - limit).abs(),
        message: format!(
            "player {} staked {} on {}, {word} of {} per bet",
            bets[first.bet as usize].player,
            format_czk(stake_h),
            describe(first.position),
            format_czk(limit)
        ),
    });
}

/// Theoretical RTP of a bet kind under the plan's pay table, from the layout (never typed in).
pub fn theoretical_rtp(rp: &RoulettePlan, kind: BetKind) -> Option<Ratio> {
    let example = match kind {
        BetKind::Straight => vec![17],
        BetKind::Split => vec![17, 20],
        BetKind::Street => vec![16, 17, 18],
        BetKind::Corner => vec![16, 17, 19, 20],
        BetKind::SixLine => vec![16, 17, 18, 19, 20, 21],
        BetKind::Neighbours => vec![17],
        _ => vec![],
    };
    let bet = RouletteBet {
        bet_id: "x".into(),
        player: "x".into(),
        kind,
        numbers: example,
        stake_h: (!kind.is_call_bet()).then_some(1),
        chip_h: kind.is_call_bet().then_some(1),
        paid_h: 0,
    };
    let chips = chips_of(&bet).ok()?;
    let returned: i64 = (0..POCKETS)
        .map(|n| payout(&chips, 1, n, rp).unwrap_or(0))
        .sum();
    let staked = chips.chip_count() * i64::from(POCKETS);
    Some(Ratio::new(
        u64::try_from(returned).ok()?,
        u64::try_from(staked).ok()?,
    ))
}

impl Game for RouletteRound {
    /// Structural checks; anything failing here is a malformed record (rejected, 4xx).
    fn validate(&self) -> Result<(), RecordError> {
        validate_bet_count(self.bets.len(), MAX_BETS_PER_ROUND)?;
        let mut ids: Vec<&str> = Vec::with_capacity(self.bets.len());
        for (i, bet) in self.bets.iter().enumerate() {
            validate_bet_id(&mut ids, &bet.bet_id)
                .and_then(|()| bet.validate())
                .map_err(|e| e.within(format_args!("bets[{i}]")))?;
        }
        Ok(())
    }

    fn check_possible(&self) -> Result<(), RecordError> {
        match self.outcome {
            SpinOutcome::Number { number } if number >= POCKETS => Err(RecordError::impossible(
                "outcome.number",
                format!("{number} is not a pocket of a single-zero wheel (0-36)"),
            )),
            _ => Ok(()),
        }
    }

    fn reported_totals(&self) -> (i64, i64) {
        crate::game::reported_totals(self.bets.iter().map(|bet| {
            let chips = chips_of(bet).ok();
            let stake = unit_and_total(bet, chips.as_ref()).map_or(0, |(_, total)| total);
            (stake, bet.paid_h)
        }))
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, setup: &'a TableSetup) -> Judged<'a> {
        adjudicate(plan.roulette()?, plan, setup, self)
    }

    fn statistics(&self, plan: &Plan, _: &TableSetup) -> Statistics {
        Ok(round_statistics(plan.roulette()?, self))
    }

    fn round_totals(&self, plan: &Plan, _: &TableSetup) -> Statistics {
        Ok(round_totals(plan.roulette()?, self))
    }
}

impl GameRecord for RouletteRound {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::Roulette];
}

pub mod record;
#[cfg(test)]
mod tests;
