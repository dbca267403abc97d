//! The money of a tournament: the fee, the prize pool (or the guarantee), each place's prize
//! by the plan's payout table, a players' deal, and a cancelled tournament's refunds.

use std::collections::HashMap;

use super::record::{Deal, Elimination, Placing, TournamentRecord};
use crate::money::format_czk;
use crate::plan::poker::{FeeBase, PayoutColumn, TournamentPlan};
use crate::verdict::{Finding, FindingKind};

/// Prizes are whole koruny.
const KORUNA_H: i64 = 100;

/// The fee of `percent` on `moneypool_h`: of the moneypool itself, or — the OFC section's
/// wording — of the prize pool that remains (fee = moneypool × p / (100 + p)); rounded down to
/// the haléř.
pub fn fee_for(base: FeeBase, moneypool_h: i64, percent: u8) -> i64 {
    let (m, p) = (i128::from(moneypool_h), i128::from(percent));
    let fee = match base {
        FeeBase::Moneypool => m * p / 100,
        FeeBase::Prizepool => m * p / (100 + p),
    };
    i64::try_from(fee).unwrap_or(i64::MAX)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrizePool {
    pub prize_pool_h: i64,
    /// What the operator adds to reach the guarantee.
    pub overlay_h: i64,
}

/// Moneypool less the fee, or the guarantee when that is more (the operator pays the overlay).
pub fn prize_pool(moneypool_h: i64, fee_h: i64, guarantee_h: Option<i64>) -> PrizePool {
    let from_entries = moneypool_h.saturating_sub(fee_h);
    match guarantee_h {
        Some(g) if g > from_entries => PrizePool {
            prize_pool_h: g,
            overlay_h: g - from_entries,
        },
        _ => PrizePool {
            prize_pool_h: from_entries,
            overlay_h: 0,
        },
    }
}

/// Each paid place's prize: the pool shared in proportion to the column's percentages (so a
/// column that does not add up to 100 % still shares exactly the pool), rounded down to whole
/// koruny; what rounding leaves goes to the winner.
pub fn table_prizes(column: &PayoutColumn, pool_h: i64) -> Vec<i64> {
    let total: i128 = column.places_bp.iter().map(|&b| i128::from(b)).sum();
    if total == 0 {
        return vec![0; column.places_bp.len()];
    }
    let mut prizes: Vec<i64> = column
        .places_bp
        .iter()
        .map(|&bp| {
            let exact = i128::from(pool_h) * i128::from(bp) / total;
            i64::try_from(exact).unwrap_or(i64::MAX) / KORUNA_H * KORUNA_H
        })
        .collect();
    let rest = pool_h - prizes.iter().sum::<i64>();
    if let Some(first) = prizes.first_mut() {
        *first += rest;
    }
    prizes
}

/// What each player is to be paid: the table's prize for their place, or their share of a
/// valid deal.
pub(super) fn expected_prizes<'t>(
    tp: &TournamentPlan,
    t: &'t TournamentRecord,
    pool: &PrizePool,
    entries: u32,
    findings: &mut Vec<Finding>,
) -> HashMap<&'t str, i64> {
    let Some(column) = tp.payout_column(entries) else {
        findings.push(Finding::note(
            FindingKind::BetNotAllowed,
            format!("the plan has no payout table for {entries} entries"),
        ));
        // Nothing to compare the prizes with: each is taken as paid.
        return t
            .results
            .iter()
            .map(|r| (r.player.as_str(), r.prize_h))
            .collect();
    };
    let prizes = table_prizes(column, pool.prize_pool_h);
    if t.results.len() < prizes.len() {
        findings.push(Finding::note(
            FindingKind::Underpaid,
            format!(
                "the results list {} places; with {entries} entries the plan pays {}",
                t.results.len(),
                prizes.len()
            ),
        ));
    }
    let mut due: HashMap<&str, i64> = t
        .results
        .iter()
        .map(|r| {
            let prize = prizes.get(r.place as usize - 1).copied().unwrap_or(0);
            (r.player.as_str(), prize)
        })
        .collect();
    let mut in_deal: Vec<&str> = Vec::new();
    if let Some(deal) = &t.deal {
        if check_deal(t, deal, &prizes, findings) {
            for s in &deal.shares {
                due.insert(&s.player, s.amount_h);
                in_deal.push(&s.player);
            }
        }
    }
    split_equal_stacks(t, &prizes, &in_deal, &mut due);
    due
}

/// Seed 001, rule 30: players knocked out in the same hand with the same stack at its start
/// "si výhru rovnoměrně rozdělí" — they share their places' prizes evenly in whole koruny, the
/// better hand (`hand_order` 1, else the better place) taking what does not divide.
fn split_equal_stacks<'t>(
    t: &'t TournamentRecord,
    prizes: &[i64],
    in_deal: &[&str],
    due: &mut HashMap<&'t str, i64>,
) {
    let place_of = |player: &str| t.results.iter().find(|r| r.player == player);
    let mut done: Vec<(u64, u64)> = Vec::new();
    for e in &t.eliminations {
        let key = (e.hand, e.stack_at_hand_start);
        if done.contains(&key) {
            continue;
        }
        done.push(key);
        let mut tied: Vec<(&Elimination, &Placing)> = t
            .eliminations
            .iter()
            .filter(|x| (x.hand, x.stack_at_hand_start) == key)
            .filter_map(|x| place_of(&x.player).map(|r| (x, r)))
            .filter(|(x, _)| !in_deal.contains(&x.player.as_str()))
            .collect();
        if tied.len() < 2 {
            continue;
        }
        tied.sort_by_key(|(x, r)| (x.hand_order.unwrap_or(u8::MAX), r.place));
        let total: i64 = tied
            .iter()
            .map(|(_, r)| prizes.get(r.place as usize - 1).copied().unwrap_or(0))
            .sum();
        let count = tied.len() as i64;
        let each = total / count / KORUNA_H * KORUNA_H;
        for (i, (x, _)) in tied.iter().enumerate() {
            let extra = if i == 0 { total - each * count } else { 0 };
            due.insert(&x.player, each + extra);
        }
    }
}

/// A deal: after registration closed, among exactly the players still in (the top places),
/// sharing exactly what their places pay. Returns whether it can replace the table's prizes.
fn check_deal(
    t: &TournamentRecord,
    deal: &Deal,
    prizes: &[i64],
    findings: &mut Vec<Finding>,
) -> bool {
    let mut valid = true;
    if deal.at < t.registration_closes_at {
        valid = false;
        findings.push(Finding::note(
            FindingKind::IllegalDecision,
            format!(
                "a deal at {} before registration closed at {}",
                deal.at.format("%Y-%m-%d %H:%M"),
                t.registration_closes_at.format("%Y-%m-%d %H:%M")
            ),
        ));
    }
    // Who was still in: those not knocked out before the deal (validation requires the times).
    let remaining: Vec<&Placing> = t
        .results
        .iter()
        .filter(|r| r.out_at.is_none_or(|out| out > deal.at))
        .collect();
    let in_deal: Vec<&str> = deal.shares.iter().map(|s| s.player.as_str()).collect();
    let same = in_deal.len() == remaining.len()
        && remaining
            .iter()
            .all(|r| in_deal.contains(&r.player.as_str()));
    if !same {
        valid = false;
        findings.push(Finding::note(
            FindingKind::IllegalDecision,
            format!(
                "a deal needs every remaining player: it names {}, the players still in were {}",
                in_deal.join(", "),
                remaining
                    .iter()
                    .map(|r| r.player.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let shared = deal
        .shares
        .iter()
        .fold(0i64, |s, x| s.saturating_add(x.amount_h));
    // What the remaining players' places pay.
    let places: i64 = remaining
        .iter()
        .map(|r| prizes.get(r.place as usize - 1).copied().unwrap_or(0))
        .sum();
    if shared != places {
        valid = false;
        findings.push(Finding::new(
            FindingKind::ChipsNotConserved,
            None,
            Some(places),
            Some(shared),
            format!(
                "the deal shares {}, the places it replaces pay {}: the prize pool is not preserved",
                format_czk(shared),
                format_czk(places)
            ),
        ));
    }
    valid
}

/// A cancelled tournament: every player gets back everything paid in, and no fee is kept.
pub(super) fn refunds_due(t: &TournamentRecord) -> HashMap<&str, i64> {
    let mut due: HashMap<&str, i64> = HashMap::new();
    for e in &t.entries {
        let owed = due.entry(&e.player).or_insert(0);
        *owed = owed.saturating_add(e.amount_h);
    }
    due
}
