//! What a roulette bet puts on the layout and what it pays: shared by the adjudication of a
//! spin and by its theoretical figures.

use super::call_bets::{self, Chips};
use super::layout::{Position, POCKETS};
use super::record::{BetKind, RouletteBet};
use crate::error::RecordError;
use crate::plan::table_games::RoulettePlan;

/// The chips a bet puts on the layout, or why its numbers are not a position.
pub(super) fn chips_of(bet: &RouletteBet) -> Result<Chips, String> {
    if let Some(class) = bet.kind.inside_class() {
        return Position::inside(class, &bet.numbers)
            .map(Chips::single)
            .ok_or_else(|| {
                format!(
                    "numbers {:?} are not a {} of the layout",
                    bet.numbers,
                    bet.kind.as_str()
                )
            });
    }
    if let Some(position) = bet.kind.outside_position() {
        return Ok(Chips::single(position));
    }
    match bet.kind {
        BetKind::Neighbours => match bet.numbers.as_slice() {
            [centre] => call_bets::neighbours(*centre)
                .ok_or_else(|| format!("{centre} is not a number of the wheel")),
            other => Err(format!(
                "neighbours name exactly one centre number, not {other:?}"
            )),
        },
        BetKind::ZeroSpiel => Ok(call_bets::zero_spiel()),
        BetKind::Voisins => Ok(call_bets::voisins()),
        BetKind::Tiers => Ok(call_bets::tiers()),
        BetKind::Orphelins => Ok(call_bets::orphelins()),
        _ => Err(format!("`{}` is not a roulette bet", bet.kind.as_str())),
    }
}

/// Stake of each unit chip and the bet's total stake.
pub(super) fn unit_and_total(
    bet: &RouletteBet,
    chips: Option<&Chips>,
) -> Result<(i64, i64), RecordError> {
    match (bet.stake_h, bet.chip_h) {
        (Some(stake), _) => Ok((stake, stake)),
        (None, Some(chip)) => {
            // Neighbours with an impossible centre still took five chips from the player.
            let count = chips.map_or(
                if bet.kind == BetKind::Neighbours {
                    5
                } else {
                    1
                },
                Chips::chip_count,
            );
            let total = chip
                .checked_mul(count)
                .ok_or_else(|| RecordError::invalid("bets", "stake overflows"))?;
            Ok((chip, total))
        }
        (None, None) => Err(RecordError::invalid("bets", "bet without a stake")),
    }
}

/// What `count` unit chips of `unit_h` on `position` pay when it wins, stake included (`None`
/// past 64 bits).
pub(super) fn position_win(
    position: Position,
    count: u8,
    unit_h: i64,
    plan: &RoulettePlan,
) -> Option<i64> {
    let multiple = i64::from(position.odds(&plan.odds)) + 1;
    unit_h.checked_mul(i64::from(count))?.checked_mul(multiple)
}

/// What the chips pay when `number` wins, stake included.
pub(super) fn payout(chips: &Chips, unit_h: i64, number: u8, plan: &RoulettePlan) -> Option<i64> {
    let mut total = 0i64;
    for (position, count) in chips.as_slice() {
        if position.covers(number) {
            total = total.checked_add(position_win(*position, *count, unit_h, plan)?)?;
        }
    }
    Some(total)
}

/// [`payout`] on every pocket at once: each position's win computed once and added to the
/// pockets it covers, in the same order, so each pocket's sum (or overflow) is `payout`'s.
pub(super) fn payout_per_pocket(
    chips: &Chips,
    unit_h: i64,
    plan: &RoulettePlan,
) -> [Option<i64>; POCKETS as usize] {
    let mut totals = [Some(0i64); POCKETS as usize];
    for (position, count) in chips.as_slice() {
        let win = position_win(*position, *count, unit_h, plan);
        for number in position.covered() {
            if let Some(total) = totals.get_mut(usize::from(number)) {
                *total = total.zip(win).and_then(|(t, w)| t.checked_add(w));
            }
        }
    }
    totals
}
