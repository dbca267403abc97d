//! Pineapple Open Face Chinese poker (cash game): 2–3 players each set 13 cards into a front
//! (3), middle (5) and back (5) row. A hand is re-scored from the rows — fouls, rows won, the
//! scoop bonus, royalties by the plan's tables — pair by pair at each pair's agreed point value,
//! with the optional stop-loss; the money each player won or lost and the rake (per player)
//! are checked, and the fantasy-land entitlement each player earned for the next hand is stated
//! in the verdict (see [`check_fantasy_deal`] for the next hand's side).

mod fantasy;
pub(crate) mod record;
mod scoring;

use crate::cards::{Card, CardSet};
use crate::error::RecordError;
use crate::game::{Game, GameRecord, Judged, TableSetup};
use crate::money::format_czk;
use crate::plan::document::Plan;
use crate::plan::poker::OfcPlan;
use crate::poker_cash::record::Collection;
use crate::round_header::GameCode;
use crate::verdict::{BetVerdict, FantasyEntitlement, Finding, FindingKind, Verdict};

pub use fantasy::{audit_fantasy_sequence, check_fantasy_deal, FantasyMismatch};
pub use record::{OfcHand, OfcPlayer, PointValue, NORMAL_DEAL};

use record::PLAYER_IDS;
pub use scoring::{
    apply_stop_loss, fantasy_next, pair_points, row_strength, score_rows, share, ScoredRows,
};

fn finding(
    kind: FindingKind,
    player: Option<usize>,
    expected: i64,
    actual: i64,
    message: String,
) -> Finding {
    Finding::new(
        kind,
        player.map(|i| PLAYER_IDS[i]),
        Some(expected),
        Some(actual),
        message,
    )
}

/// Cards set in the rows or discarded that were not dealt, or dealt cards missing from both;
/// outside fantasy land exactly one card of each three is discarded, none of the first five.
fn check_cards(i: usize, p: &OfcPlayer, findings: &mut Vec<Finding>) {
    let set = |cards: &[Card]| cards.iter().copied().collect::<CardSet>();
    let dealt: CardSet = p.deal.iter().flatten().copied().collect();
    let rows: CardSet = p
        .front
        .iter()
        .chain(&p.middle)
        .chain(&p.back)
        .copied()
        .collect();
    let discards = set(&p.discards);
    let mut problems = Vec::new();
    let not_dealt = CardSet((rows.0 | discards.0) & !dealt.0);
    if !not_dealt.is_empty() {
        problems.push(format!(
            "{} cards set or discarded were not dealt",
            not_dealt.len()
        ));
    }
    let unaccounted = CardSet(dealt.0 & !(rows.0 | discards.0));
    if !unaccounted.is_empty() {
        problems.push(format!(
            "{} dealt cards are neither in a row nor discarded",
            unaccounted.len()
        ));
    }
    if !p.fantasy {
        for (g, group) in p.deal.iter().enumerate() {
            let thrown = CardSet(set(group).0 & discards.0).len();
            let allowed = if g == 0 { 0 } else { 1 };
            if thrown != allowed {
                problems.push(format!(
                    "{thrown} cards of dealing round {} discarded, the game allows {allowed}",
                    g + 1
                ));
            }
        }
    }
    if !problems.is_empty() {
        let kind = if not_dealt.is_empty() && unaccounted.is_empty() {
            FindingKind::IllegalDecision
        } else {
            FindingKind::CardsInconsistent
        };
        findings.push(Finding::new(
            kind,
            Some(PLAYER_IDS[i]),
            None,
            None,
            format!("{}: {}", p.player, problems.join("; ")),
        ));
    }
}

/// The money each player wins (+) or loses (−) by the rows, before rake.
pub fn expected_nets(plan: &OfcPlan, hand: &OfcHand, rows: &[ScoredRows]) -> Vec<i64> {
    let n = hand.players.len();
    let mut nets = vec![0i64; n];
    for a in 0..n {
        for b in a + 1..n {
            let money =
                pair_points(plan, &rows[a], &rows[b]).saturating_mul(hand.point_value(a, b));
            nets[a] = nets[a].saturating_add(money);
            nets[b] = nets[b].saturating_sub(money);
        }
    }
    if hand.stop_loss {
        let stacks: Vec<i64> = hand
            .players
            .iter()
            .map(|p| p.stack_h.unwrap_or(0))
            .collect();
        apply_stop_loss(&mut nets, &stacks);
    }
    nets
}

/// Money in Kč, tournament points in chips.
fn amount_text(chips: bool, v: i64) -> String {
    if chips {
        format!("{v} chips")
    } else {
        format_czk(v)
    }
}

fn check_player_count(op: &OfcPlan, n: usize, findings: &mut Vec<Finding>) {
    if n < usize::from(op.min_players) || n > usize::from(op.max_players) {
        findings.push(Finding::note(
            FindingKind::BetNotAllowed,
            format!(
                "{n} players; the plan allows {} to {}",
                op.min_players, op.max_players
            ),
        ));
    }
}

/// What one player's line must say: the net the rows give and the plan's rake.
struct Settlement {
    expected: i64,
    fouled: bool,
    expected_rake: i64,
    /// A tournament hand: points in chips, no rake.
    chips: bool,
}

impl Settlement {
    /// Player `i`'s net and rake against what they must be.
    fn check(&self, i: usize, p: &OfcPlayer, findings: &mut Vec<Finding>) {
        let (expected, chips, expected_rake) = (self.expected, self.chips, self.expected_rake);
        if p.net_h != expected {
            let (kind, what) = if p.net_h > expected {
                (FindingKind::Overpaid, "overpaid")
            } else {
                (FindingKind::Underpaid, "underpaid")
            };
            let foul = if self.fouled { ", fouled" } else { "" };
            findings.push(finding(
                kind,
                Some(i),
                expected,
                p.net_h,
                format!(
                    "{} ({}{foul}): {what}; settled at {}, the rows give {}",
                    PLAYER_IDS[i],
                    p.player,
                    amount_text(chips, p.net_h),
                    amount_text(chips, expected)
                ),
            ));
        }
        if p.rake_h != expected_rake {
            findings.push(finding(
                FindingKind::RakeWrong,
                Some(i),
                expected_rake,
                p.rake_h,
                format!(
                    "{}: rake {}, the plan takes {} per player and hand{}",
                    p.player,
                    format_czk(p.rake_h),
                    format_czk(expected_rake),
                    if chips { " (none in a tournament)" } else { "" }
                ),
            ));
        }
    }
}

/// What one player wins another loses: the nets add up to zero.
fn check_conserved(net_sum: i64, chips: bool, findings: &mut Vec<Finding>) {
    if net_sum != 0 {
        findings.push(finding(
            FindingKind::ChipsNotConserved,
            None,
            0,
            net_sum,
            format!(
                "the players' results add up to {}, not 0 (what one wins another loses)",
                amount_text(chips, net_sum)
            ),
        ));
    }
}

/// Chip differences are in the messages; the money fields stay money.
fn clear_chip_amounts(findings: &mut [Finding]) {
    for f in findings {
        if matches!(
            f.kind,
            FindingKind::Overpaid | FindingKind::Underpaid | FindingKind::ChipsNotConserved
        ) {
            (f.amount_h, f.expected_h, f.actual_h) = (0, None, None);
        }
    }
}

pub fn adjudicate<'a>(op: &OfcPlan, plan: &'a Plan, hand: &'a OfcHand) -> Verdict<'a> {
    let mut findings = Vec::new();
    let n = hand.players.len();
    check_player_count(op, n, &mut findings);
    let rows: Vec<ScoredRows> = hand
        .players
        .iter()
        .map(|p| score_rows(op, &p.front, &p.middle, &p.back))
        .collect();
    for (i, p) in hand.players.iter().enumerate() {
        check_cards(i, p, &mut findings);
    }
    let nets = expected_nets(op, hand, &rows);
    let chips = hand.tournament_id.is_some();
    let expected_rake = match hand.collection {
        _ if chips => 0,
        Collection::Rake => op.rake_per_player_h,
        Collection::Time => 0,
    };
    let mut bets = Vec::with_capacity(n);
    let mut fantasy = Vec::new();
    let (mut stakes_h, mut paid_h, mut expected_paid_h, mut net_sum) = (0i64, 0i64, 0i64, 0i64);
    for (i, p) in hand.players.iter().enumerate() {
        let expected = nets[i];
        let settled = Settlement {
            expected,
            fouled: rows[i].fouled,
            expected_rake,
            chips,
        };
        settled.check(i, p, &mut findings);
        net_sum = net_sum.saturating_add(p.net_h);
        // Tournament chips are not money: the money lines of a tournament hand are zero (the
        // rake, which must be zero there, stays, so a wrong one still shows).
        let (lost, won, due) = if chips {
            (0, 0, 0)
        } else {
            ((-p.net_h).max(0), p.net_h.max(0), expected.max(0))
        };
        let stake = lost.saturating_add(p.rake_h);
        stakes_h = stakes_h.saturating_add(stake);
        paid_h = paid_h.saturating_add(won);
        expected_paid_h = expected_paid_h.saturating_add(due);
        bets.push(BetVerdict {
            bet_id: PLAYER_IDS[i],
            player: &p.player,
            kind: "ofc_player",
            stake_h: stake,
            expected_paid_h: due,
            paid_h: won,
        });
        if let Some(cards) = fantasy_next(op, &rows[i], p.fantasy) {
            fantasy.push(FantasyEntitlement {
                cards,
                player: &p.player,
            });
        }
    }
    check_conserved(net_sum, chips, &mut findings);
    if chips {
        clear_chip_amounts(&mut findings);
    }
    Verdict {
        stakes_h,
        expected_paid_h,
        paid_h,
        bets,
        findings,
        fantasy_next: Some(fantasy),
        ..Verdict::of(&plan.plan_id, GameCode::OpenFaceChinese, hand)
    }
}

impl Game for OfcHand {
    fn validate(&self) -> Result<(), RecordError> {
        OfcHand::validate(self)
    }

    fn find_impossible(&self) -> Result<(), RecordError> {
        OfcHand::find_impossible(self)
    }

    /// What the players lost and paid in rake; what they won (a tournament hand's points are
    /// chips, not money: its rake only).
    fn reported_totals(&self) -> (i64, i64) {
        let chips = self.tournament_id.is_some();
        crate::game::reported_totals(self.players.iter().map(|p| {
            let (lost, won) = if chips {
                (0, 0)
            } else {
                ((-p.net_h).max(0), p.net_h.max(0))
            };
            (lost.saturating_add(p.rake_h), won)
        }))
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, _: &'a TableSetup) -> Judged<'a> {
        Ok(adjudicate(plan.open_face_chinese()?, plan, self))
    }
}

impl GameRecord for OfcHand {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::OpenFaceChinese];
}

#[cfg(test)]
mod tests;
