//! Pineapple Open Face Chinese poker (cash game): 2–3 players each set 13 cards into a front
//! (3), middle (5) and back (5) row. A hand is re-scored from the rows — fouls, rows won, the
//! scoop bonus, royalties by the plan's tables — pair by pair at each pair's agreed point value,
//! with the optional stop-loss; the money each player won or lost and the rake (per player)
//! are checked, and the fantasy-land entitlement each player earned for the next hand is stated
//! in the verdict (see [`check_fantasy_deal`] for the next hand's side).

mod scoring;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::cards::{Card, CardSet};
use crate::money::{format_czk, MAX_AMOUNT_H};
use crate::plan::{OfcPlan, Plan};
use crate::poker_cash::Collection;
use crate::record::{validate_identifier, validate_round_identity, GameCode};
use crate::roulette::RoundType;
use crate::verdict::{BetVerdict, FantasyEntitlement, Finding, FindingKind, Verdict};
use crate::{RecordError, RULES_VERSION};

pub use scoring::{apply_stop_loss, fantasy_next, pair_points, score_rows, share, ScoredRows};

/// Cards of each dealing round outside fantasy land: five, then four times three (one of each
/// three discarded).
pub const NORMAL_DEAL: [usize; 5] = [5, 3, 3, 3, 3];

/// The verdict names each player's line by their place in the record.
const PLAYER_IDS: [&str; 3] = ["player-1", "player-2", "player-3"];

/// One hand as the table reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfcHand {
    #[serde(rename = "type")]
    pub record_type: RoundType,
    pub game: GameCode,
    pub table_id: String,
    pub seq_no: u64,
    pub plan_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_id: Option<String>,
    /// When the hand was settled, UTC.
    pub played_at: DateTime<Utc>,
    /// In dealing order from the button.
    pub players: Vec<OfcPlayer>,
    /// The money value of one point, agreed for each pair of players.
    pub point_values: Vec<PointValue>,
    /// The players agreed a stop-loss: no one wins or loses more than their stack.
    #[serde(default)]
    pub stop_loss: bool,
    /// A hand of this tournament: points are tournament chips (no money value), no rake; the
    /// tournament's money is in its own record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<String>,
    #[serde(default)]
    pub collection: Collection,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfcPlayer {
    pub player: String,
    /// Money in front of the player when the hand started (needed with a stop-loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_h: Option<i64>,
    /// Dealt as fantasy land: all cards at once.
    #[serde(default)]
    pub fantasy: bool,
    /// The cards as dealt: five, then four times three; in fantasy land one group of 14–17.
    pub deal: Vec<Vec<Card>>,
    pub front: Vec<Card>,
    pub middle: Vec<Card>,
    pub back: Vec<Card>,
    /// The dealt cards not set in a row.
    pub discards: Vec<Card>,
    /// What the player won (positive) or lost (negative) against the others, rake excluded.
    pub net_h: i64,
    /// The rake taken from the player for this hand.
    pub rake_h: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointValue {
    pub players: [String; 2],
    pub point_h: i64,
}

impl OfcHand {
    pub fn validate(&self) -> Result<(), RecordError> {
        if self.game != GameCode::OpenFaceChinese {
            return Err(RecordError::invalid("game", "must be `open_face_chinese`"));
        }
        validate_round_identity(&self.table_id, &self.plan_id, self.seq_no)?;
        if let Some(id) = &self.tournament_id {
            validate_identifier("tournament_id", id)?;
        }
        if !(2..=3).contains(&self.players.len()) {
            return Err(RecordError::invalid(
                "players",
                "a hand is played by 2 or 3 players",
            ));
        }
        let mut all = CardSet::default();
        for (i, p) in self.players.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("players[{i}]"));
            validate_identifier("player", &p.player).map_err(at)?;
            if self.players[..i].iter().any(|q| q.player == p.player) {
                return Err(at(RecordError::invalid("player", "listed twice")));
            }
            if p.net_h.unsigned_abs() > MAX_AMOUNT_H as u64 {
                return Err(at(RecordError::invalid(
                    "net_h",
                    format!("exceeds the absolute limit of {MAX_AMOUNT_H} h"),
                )));
            }
            crate::money::validate_amount("rake_h", p.rake_h).map_err(at)?;
            match p.stack_h {
                Some(stack) => {
                    crate::money::validate_amount("stack_h", stack).map_err(at)?;
                }
                None if self.stop_loss => {
                    return Err(at(RecordError::invalid(
                        "stack_h",
                        "is required with a stop-loss",
                    )))
                }
                None => {}
            }
            for (row, cards, len) in [
                ("front", &p.front, 3),
                ("middle", &p.middle, 5),
                ("back", &p.back, 5),
            ] {
                if cards.len() != len {
                    return Err(at(RecordError::invalid(
                        row,
                        format!("the {row} row holds {len} cards, not {}", cards.len()),
                    )));
                }
            }
            let sizes: Vec<usize> = p.deal.iter().map(Vec::len).collect();
            let shape_ok = if p.fantasy {
                sizes.len() == 1 && (14..=17).contains(&sizes[0])
            } else {
                sizes == NORMAL_DEAL
            };
            if !shape_ok {
                let expected = if p.fantasy {
                    "fantasy land deals one group of 14 to 17 cards"
                } else {
                    "outside fantasy land the deal is 5 cards, then 4 × 3"
                };
                return Err(at(RecordError::invalid(
                    "deal",
                    format!("{expected}; got groups of {sizes:?}"),
                )));
            }
            let dealt: Vec<Card> = p.deal.iter().flatten().copied().collect();
            let dealt = CardSet::of(&dealt).map_err(|c| {
                at(RecordError::invalid(
                    "deal",
                    format!("{c} is dealt twice to the player"),
                ))
            })?;
            if dealt.0 & all.0 != 0 {
                let card = crate::cards::Card::deck()
                    .find(|c| dealt.contains(*c) && all.contains(*c))
                    .map_or_else(String::new, |c| c.to_string());
                return Err(at(RecordError::invalid(
                    "deal",
                    format!("{card} is dealt to two players (one deck)"),
                )));
            }
            all = CardSet(all.0 | dealt.0);
            let placed: Vec<Card> = p
                .front
                .iter()
                .chain(&p.middle)
                .chain(&p.back)
                .chain(&p.discards)
                .copied()
                .collect();
            CardSet::of(&placed).map_err(|c| {
                at(RecordError::invalid(
                    "rows",
                    format!("{c} appears twice in the rows and discards"),
                ))
            })?;
        }
        let mut pairs = Vec::new();
        for (i, v) in self.point_values.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("point_values[{i}]"));
            let [a, b] = &v.players;
            let known = |name: &String| self.players.iter().position(|p| &p.player == name);
            let (Some(x), Some(y)) = (known(a), known(b)) else {
                return Err(at(RecordError::invalid(
                    "players",
                    "names a player not in the hand",
                )));
            };
            if x == y {
                return Err(at(RecordError::invalid("players", "two different players")));
            }
            let pair = (x.min(y), x.max(y));
            if pairs.contains(&pair) {
                return Err(at(RecordError::invalid(
                    "players",
                    "this pair has two point values",
                )));
            }
            pairs.push(pair);
            if crate::money::validate_amount("point_h", v.point_h).map_err(at)? == 0 {
                return Err(at(RecordError::invalid("point_h", "must be positive")));
            }
        }
        let n = self.players.len();
        if pairs.len() != n * (n - 1) / 2 {
            return Err(RecordError::invalid(
                "point_values",
                "every pair of players needs its point value",
            ));
        }
        Ok(())
    }

    fn point_value(&self, a: usize, b: usize) -> i64 {
        let (x, y) = (&self.players[a].player, &self.players[b].player);
        self.point_values
            .iter()
            .find(|v| {
                (&v.players[0] == x && &v.players[1] == y)
                    || (&v.players[0] == y && &v.players[1] == x)
            })
            .map_or(0, |v| v.point_h)
    }
}

fn finding(
    kind: FindingKind,
    player: Option<usize>,
    expected: i64,
    actual: i64,
    message: String,
) -> Finding {
    Finding {
        kind,
        bet_ids: player.map(|i| vec![PLAYER_IDS[i].to_owned()]),
        expected_h: Some(expected),
        actual_h: Some(actual),
        amount_h: actual.abs_diff(expected).try_into().unwrap_or(i64::MAX),
        message,
    }
}

/// Cards set in the rows or discarded that were not dealt, or dealt cards missing from both;
/// outside fantasy land exactly one card of each three is discarded, none of the first five.
fn check_cards(i: usize, p: &OfcPlayer, findings: &mut Vec<Finding>) {
    let set = |cards: &[Card]| cards.iter().fold(CardSet::default(), |s, &c| s.with(c));
    let dealt = p
        .deal
        .iter()
        .fold(CardSet::default(), |s, g| CardSet(s.0 | set(g).0));
    let rows = CardSet(set(&p.front).0 | set(&p.middle).0 | set(&p.back).0);
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
        findings.push(Finding {
            kind,
            bet_ids: Some(vec![PLAYER_IDS[i].to_owned()]),
            expected_h: None,
            actual_h: None,
            amount_h: 0,
            message: format!("{}: {}", p.player, problems.join("; ")),
        });
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

pub fn adjudicate<'a>(
    op: &OfcPlan,
    plan: &'a Plan,
    hand: &'a OfcHand,
) -> Result<Verdict<'a>, RecordError> {
    let mut findings = Vec::new();
    let n = hand.players.len();
    if n < usize::from(op.min_players) || n > usize::from(op.max_players) {
        findings.push(Finding {
            kind: FindingKind::BetNotAllowed,
            bet_ids: None,
            expected_h: None,
            actual_h: None,
            amount_h: 0,
            message: format!(
                "{n} players; the plan allows {} to {}",
                op.min_players, op.max_players
            ),
        });
    }
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
    // Money in Kč, tournament points in chips.
    let amount = |v: i64| {
        if chips {
            format!("{v} chips")
        } else {
            format_czk(v)
        }
    };
    let mut bets = Vec::with_capacity(n);
    let mut fantasy = Vec::new();
    let (mut stakes_h, mut paid_h, mut expected_paid_h, mut net_sum) = (0i64, 0i64, 0i64, 0i64);
    for (i, p) in hand.players.iter().enumerate() {
        let expected = nets[i];
        if p.net_h != expected {
            let (kind, what) = if p.net_h > expected {
                (FindingKind::Overpaid, "overpaid")
            } else {
                (FindingKind::Underpaid, "underpaid")
            };
            let foul = if rows[i].fouled { ", fouled" } else { "" };
            findings.push(finding(
                kind,
                Some(i),
                expected,
                p.net_h,
                format!(
                    "{} ({}{foul}): {what}; settled at {}, the rows give {}",
                    PLAYER_IDS[i],
                    p.player,
                    amount(p.net_h),
                    amount(expected)
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
    if net_sum != 0 {
        findings.push(finding(
            FindingKind::ChipsNotConserved,
            None,
            0,
            net_sum,
            format!(
                "the players' results add up to {}, not 0 (what one wins another loses)",
                amount(net_sum)
            ),
        ));
    }
    if chips {
        // Chip differences are in the messages; the money fields stay money.
        for f in &mut findings {
            if matches!(
                f.kind,
                FindingKind::Overpaid | FindingKind::Underpaid | FindingKind::ChipsNotConserved
            ) {
                (f.amount_h, f.expected_h, f.actual_h) = (0, None, None);
            }
        }
    }
    Ok(Verdict {
        plan_id: &plan.plan_id,
        rules_version: RULES_VERSION,
        game: GameCode::OpenFaceChinese,
        table_id: &hand.table_id,
        seq_no: hand.seq_no,
        winning_number: None,
        segment: None,
        segment_label: None,
        void_reason: None,
        void: false,
        stakes_h,
        expected_paid_h,
        paid_h,
        bets,
        findings,
        fantasy_next: Some(fantasy),
        tournament: None,
    })
}

/// The next hand's fantasy-land deals against what the previous hand at the table earned:
/// a player entitled to N cards must be dealt N at once, and no one else may be dealt fantasy
/// land.
pub fn check_fantasy_deal(earned: &[FantasyEntitlement<'_>], next: &OfcHand) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, p) in next.players.iter().enumerate() {
        let entitled = earned
            .iter()
            .find(|e| e.player == p.player)
            .map(|e| e.cards);
        let dealt = p
            .fantasy
            .then(|| p.deal.first().map_or(0, Vec::len))
            .and_then(|n| u8::try_from(n).ok());
        if entitled == dealt {
            continue;
        }
        let message = match (entitled, dealt) {
            (Some(e), Some(d)) => format!(
                "{}: earned fantasy land with {e} cards in the previous hand, dealt {d}",
                p.player
            ),
            (Some(e), None) => format!(
                "{}: earned fantasy land with {e} cards in the previous hand, dealt a normal hand",
                p.player
            ),
            (None, Some(d)) => format!(
                "{}: dealt fantasy land ({d} cards) without earning it in the previous hand",
                p.player
            ),
            (None, None) => continue,
        };
        findings.push(Finding {
            kind: FindingKind::FantasyLandWrong,
            bet_ids: Some(vec![PLAYER_IDS[i].to_owned()]),
            expected_h: None,
            actual_h: None,
            amount_h: 0,
            message,
        });
    }
    findings
}

/// A fantasy-land deal that does not follow from the table's previous hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FantasyMismatch {
    pub table_id: String,
    /// The hand that earned (or did not earn) fantasy land, and the hand dealt after it.
    pub previous_seq_no: u64,
    pub seq_no: u64,
    pub message: String,
}

/// Each hand's fantasy-land deals against the hand before it at the same table. `hands` must
/// be in (table, seq_no) order; `plan_of` gives the OFC section each hand was played under.
pub fn audit_fantasy_sequence<'p>(
    hands: &[OfcHand],
    plan_of: impl Fn(&OfcHand) -> Option<&'p OfcPlan>,
) -> Vec<FantasyMismatch> {
    let mut out = Vec::new();
    for pair in hands.windows(2) {
        let (previous, next) = (&pair[0], &pair[1]);
        // Only the hand right before: across a gap in the table's sequence the hand that
        // earned (or not) fantasy land is not known.
        if previous.table_id != next.table_id || next.seq_no != previous.seq_no + 1 {
            continue;
        }
        let Some(plan) = plan_of(previous) else {
            continue;
        };
        let earned: Vec<FantasyEntitlement<'_>> = previous
            .players
            .iter()
            .filter_map(|p| {
                let rows = score_rows(plan, &p.front, &p.middle, &p.back);
                fantasy_next(plan, &rows, p.fantasy).map(|cards| FantasyEntitlement {
                    cards,
                    player: &p.player,
                })
            })
            .collect();
        for f in check_fantasy_deal(&earned, next) {
            out.push(FantasyMismatch {
                table_id: next.table_id.clone(),
                previous_seq_no: previous.seq_no,
                seq_no: next.seq_no,
                message: f.message,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
