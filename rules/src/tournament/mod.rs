//! Poker tournaments (Hold'em, Omaha, OFC): tournament chips have no money value, so a
//! tournament is judged once, from its settlement record — every entry's money, the fee, the
//! prize pool (or the guarantee and the operator's overlay), each place's prize by the plan's
//! payout table, a players' deal, re-entry and rebuy legality, simultaneous eliminations, and
//! the refunds of a cancelled tournament.

mod entries;
mod prizes;
pub(crate) mod record;

use crate::error::RecordError;
use crate::game::{Game, GameRecord, Judged, TableSetup};
use crate::money::format_czk;
use crate::plan::document::Plan;
use crate::plan::poker::TournamentPlan;
use crate::round_header::GameCode;
use crate::verdict::{BetVerdict, Finding, FindingKind, TournamentFigures, Verdict};

pub use prizes::{fee_for, prize_pool, table_prizes, PrizePool};
pub use record::{
    Cancellation, Deal, DealShare, Elimination, Entry, EntryKind, Format, Placing, Refund,
    TournamentRecord, TournamentVariant,
};

/// The fee: announced in advance, within the plan's range, of the moneypool; the prize pool it
/// leaves (none of a cancelled tournament).
fn check_fee(
    tp: &TournamentPlan,
    t: &TournamentRecord,
    moneypool: i64,
    findings: &mut Vec<Finding>,
) -> PrizePool {
    let days_ahead = (t.starts_at - t.announced_at).num_days();
    if days_ahead < i64::from(tp.fee_announced_days_before) {
        findings.push(Finding::note(
            FindingKind::FeeWrong,
            format!(
                "the fee was announced {days_ahead} days before the start; the plan requires at least {}",
                tp.fee_announced_days_before
            ),
        ));
    }
    if !(tp.fee_percent_min..=tp.fee_percent_max).contains(&t.fee_percent) {
        findings.push(Finding::note(
            FindingKind::FeeWrong,
            format!(
                "a fee of {} %; the plan allows {} to {} %",
                t.fee_percent, tp.fee_percent_min, tp.fee_percent_max
            ),
        ));
    }
    let (expected_fee, pool) = if t.cancelled.is_some() {
        (0, PrizePool::default())
    } else {
        let fee = fee_for(tp.fee_base, moneypool, t.fee_percent);
        (fee, prize_pool(moneypool, fee, t.guarantee_h))
    };
    if t.fee_h != expected_fee {
        findings.push(Finding::new(
            FindingKind::FeeWrong,
            None,
            Some(expected_fee),
            Some(t.fee_h),
            format!(
                "fee {}: {} % of the {} {} is {}",
                format_czk(t.fee_h),
                t.fee_percent,
                tp.fee_base.as_str(),
                format_czk(moneypool),
                format_czk(expected_fee)
            ),
        ));
    }
    pool
}

/// The players, each once, in the order of their first entry: one verdict line each, with what
/// they paid in, what they were paid and what they should be.
fn players_of(t: &TournamentRecord) -> Vec<&str> {
    let mut players: Vec<&str> = Vec::new();
    for e in &t.entries {
        if !players.contains(&e.player.as_str()) {
            players.push(&e.player);
        }
    }
    players
}

/// What `player` was paid: prizes, or refunds of a cancelled tournament.
fn paid_to(t: &TournamentRecord, player: &str) -> i64 {
    match &t.cancelled {
        Some(c) => c
            .refunds
            .iter()
            .filter(|r| r.player == player)
            .fold(0i64, |s, r| s.saturating_add(r.amount_h)),
        None => t
            .results
            .iter()
            .filter(|r| r.player == player)
            .fold(0i64, |s, r| s.saturating_add(r.prize_h)),
    }
}

/// No more is paid out than there is: the prize pool, or what was paid in if cancelled.
fn check_paid_out(t: &TournamentRecord, paid_h: i64, available: i64, findings: &mut Vec<Finding>) {
    if paid_h > available {
        findings.push(Finding::new(
            FindingKind::ChipsNotConserved,
            None,
            Some(available),
            Some(paid_h),
            format!(
                "{} paid out, more than the {} {}",
                format_czk(paid_h),
                if t.cancelled.is_some() {
                    "money paid in,"
                } else {
                    "prize pool of"
                },
                format_czk(available)
            ),
        ));
    }
}

pub fn adjudicate<'a>(tp: &TournamentPlan, plan: &'a Plan, t: &'a TournamentRecord) -> Verdict<'a> {
    let mut findings = Vec::new();
    entries::check(t, &mut findings);
    let moneypool = t.moneypool_h();
    let entries = t.entry_count();
    let pool = check_fee(tp, t, moneypool, &mut findings);
    let expected = match &t.cancelled {
        Some(_) => prizes::refunds_due(t),
        None => prizes::expected_prizes(tp, t, &pool, entries, &mut findings),
    };
    let players = players_of(t);
    let mut bets = Vec::with_capacity(players.len());
    let (mut paid_h, mut expected_paid_h) = (0i64, 0i64);
    for player in players {
        let paid = paid_to(t, player);
        let due = expected.get(player).copied().unwrap_or(0);
        if let Some(f) = Finding::payout(
            player,
            format_args!("{player}"),
            paid,
            due,
            if t.cancelled.is_some() {
                " (refund of everything paid in)"
            } else {
                ""
            },
        ) {
            findings.push(f);
        }
        paid_h = paid_h.saturating_add(paid);
        expected_paid_h = expected_paid_h.saturating_add(due);
        bets.push(BetVerdict {
            bet_id: player,
            player,
            kind: "tournament_player",
            stake_h: t.paid_in(player),
            expected_paid_h: due,
            paid_h: paid,
        });
    }
    let available = if t.cancelled.is_some() {
        moneypool
    } else {
        pool.prize_pool_h
    };
    check_paid_out(t, paid_h, available, &mut findings);
    Verdict {
        void_reason: t.cancelled.as_ref().map(|_| "cancelled"),
        void: t.cancelled.is_some(),
        stakes_h: moneypool,
        expected_paid_h,
        paid_h,
        bets,
        findings,
        tournament: Some(TournamentFigures {
            entries,
            fee_h: t.fee_h,
            moneypool_h: moneypool,
            overlay_h: pool.overlay_h,
            prize_pool_h: pool.prize_pool_h,
        }),
        ..Verdict::of(&plan.plan_id, GameCode::PokerTournament, t)
    }
}

impl Game for TournamentRecord {
    fn validate(&self) -> Result<(), RecordError> {
        TournamentRecord::validate(self)
    }

    fn find_impossible(&self) -> Result<(), RecordError> {
        TournamentRecord::find_impossible(self)
    }

    /// The money paid in; the prizes (or, cancelled, the refunds) paid out.
    fn reported_totals(&self) -> (i64, i64) {
        let paid = match &self.cancelled {
            Some(c) => crate::game::reported_totals(c.refunds.iter().map(|r| (0, r.amount_h))),
            None => crate::game::reported_totals(self.results.iter().map(|r| (0, r.prize_h))),
        };
        (self.moneypool_h(), paid.1)
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, _: &'a TableSetup) -> Judged<'a> {
        Ok(adjudicate(plan.poker_tournament()?, plan, self))
    }
}

impl GameRecord for TournamentRecord {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::PokerTournament];
}

#[cfg(test)]
mod tests;
