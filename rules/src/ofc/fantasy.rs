//! Fantasy land across hands: a hand's verdict says who earned it; the next hand's deal is
//! checked here (a verdict sees one hand only).

use serde::Serialize;

use super::record::{OfcHand, PLAYER_IDS};
use super::scoring::{fantasy_next, score_rows};
use crate::plan::poker::OfcPlan;
use crate::verdict::{FantasyEntitlement, Finding, FindingKind};

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
        findings.push(Finding::new(
            FindingKind::FantasyLandWrong,
            Some(PLAYER_IDS[i]),
            None,
            None,
            message,
        ));
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
