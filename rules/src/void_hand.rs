//! A hand declared void. Seeds 000–002: before two players have acted a misdeal voids the hand;
//! a card with another back or two identical cards void it at any time ("všechny úkony jsou
//! neplatné a všechny žetony se vrací svým původním majitelům"). Every stake then goes back
//! exactly as it was put in; anything else is `void_handled_wrongly`.

use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::money::format_czk;
use crate::round_header::GameCode;
use crate::verdict::{BetTotals, BetVerdict, Finding, FindingKind, Verdict};

/// Why a card game's hand was declared void, as the seeds give the reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandVoidReason {
    /// Misdeal ("špatně rozdané karty"): cards exposed, dealt out of turn, to an empty seat, …
    Misdeal,
    /// A card with another back appeared during the hand ("karta s jiným rubem").
    CardWithAnotherBack,
    /// Two identical cards appeared ("dvě stejné karty").
    DuplicateCard,
    /// The flop, turn or river was turned before the betting ended and the hand could not be
    /// played on ("předčasné otočení").
    PrematureCard,
    /// Any other reason the inspector or floor gave.
    InspectorDecision,
}

impl HandVoidReason {
    pub fn as_str(self) -> &'static str {
        match self {
            HandVoidReason::Misdeal => "misdeal",
            HandVoidReason::CardWithAnotherBack => "card_with_another_back",
            HandVoidReason::DuplicateCard => "duplicate_card",
            HandVoidReason::PrematureCard => "premature_card",
            HandVoidReason::InspectorDecision => "inspector_decision",
        }
    }
}

/// A record's `void`: the hand was declared void, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoidHand {
    pub reason: HandVoidReason,
}

/// One stake of a void hand as recorded: what was put in and what was handed back.
pub struct Returned<'a> {
    pub bet_id: &'a str,
    pub player: &'a str,
    pub kind: &'a str,
    pub stake_h: i64,
    pub paid_h: i64,
}

/// The verdict of a void hand: each stake handed back exactly, else `void_handled_wrongly`
/// with what should have come back.
pub fn judge<'a>(
    plan_id: &'a str,
    game: GameCode,
    table_id: &'a str,
    seq_no: u64,
    void: VoidHand,
    stakes: impl IntoIterator<Item = Returned<'a>>,
) -> Result<Verdict<'a>, RecordError> {
    let mut totals = BetTotals::default();
    let mut findings = Vec::new();
    for s in stakes {
        if s.paid_h != s.stake_h {
            findings.push(Finding::new(
                FindingKind::VoidHandledWrongly,
                Some(s.bet_id),
                Some(s.stake_h),
                Some(s.paid_h),
                format!(
                    "{} ({}): the hand is void ({}), so {} must go back; {} was",
                    s.bet_id,
                    s.kind,
                    void.reason.as_str(),
                    format_czk(s.stake_h),
                    format_czk(s.paid_h)
                ),
            ));
        }
        totals.add(BetVerdict {
            bet_id: s.bet_id,
            player: s.player,
            kind: s.kind,
            stake_h: s.stake_h,
            expected_paid_h: s.stake_h,
            paid_h: s.paid_h,
        })?;
    }
    Ok(Verdict {
        void: true,
        void_reason: Some(void.reason.as_str()),
        findings,
        ..Verdict::new(plan_id, game, table_id, seq_no).with_bets(totals)
    })
}
