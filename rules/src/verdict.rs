//! What re-adjudication says about a round.

use serde::{Deserialize, Serialize};

use crate::round_header::{GameCode, Identified};

/// Kinds of discrepancy between what the table did and what the plan requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// The table paid more than the plan requires.
    Overpaid,
    /// The table paid less than the plan requires.
    Underpaid,
    /// A stake (per player and position) below the plan's minimum.
    StakeBelowMinimum,
    /// A stake (per player and position) above the plan's maximum.
    StakeAboveMaximum,
    /// A stake inside the plan's limits but below the minimum the table posted.
    StakeBelowTableMinimum,
    /// A stake inside the plan's limits but above the maximum the table posted (poker: blinds
    /// other than the table's).
    StakeAboveTableMaximum,
    /// A payout above the plan's maximum possible win.
    WinAboveMaximum,
    /// A bet on numbers that are not a position of the layout.
    InvalidNumber,
    /// A void spin where stakes were not returned exactly.
    VoidHandledWrongly,
    /// A player decision the rules do not allow (a hit on 21, a split of unequal cards, …).
    IllegalDecision,
    /// The dealer drew where the plan says stand, or stood where it says draw.
    DealerDrawingWrong,
    /// Cards that cannot have come from the shoe as recorded (too many of one card, burns).
    CardsInconsistent,
    /// A win withheld by the casino (card counting): always for review.
    PayoutWithheld,
    /// A bet the plan does not allow at all (insurance without a dealer ace, a side bet without
    /// a main bet, too many bets on a box).
    BetNotAllowed,
    /// Chips that do not add up: more put in than a stack held, or pots ≠ awards + rake.
    ChipsNotConserved,
    /// A poker rake other than the plan's (5 % rounded down, capped by the number of players).
    RakeWrong,
    /// Open Face Chinese: a fantasy-land deal other than the previous hand earned.
    FantasyLandWrong,
    /// A tournament fee other than the plan allows (range, notice, amount).
    FeeWrong,
    /// A roulette spin settled although its own evidence (rotor and ball direction, ball
    /// revolutions) shows the plan makes it void.
    SpinInvalid,
    /// A signed record saying something that cannot have happened (a card dealt twice from one
    /// deck, a pocket the wheel does not have): kept as evidence, its settlement not judged.
    RecordImpossible,
}

impl FindingKind {
    pub const ALL: [FindingKind; 20] = [
        FindingKind::Overpaid,
        FindingKind::Underpaid,
        FindingKind::StakeBelowMinimum,
        FindingKind::StakeAboveMaximum,
        FindingKind::StakeBelowTableMinimum,
        FindingKind::StakeAboveTableMaximum,
        FindingKind::WinAboveMaximum,
        FindingKind::InvalidNumber,
        FindingKind::VoidHandledWrongly,
        FindingKind::IllegalDecision,
        FindingKind::DealerDrawingWrong,
        FindingKind::CardsInconsistent,
        FindingKind::PayoutWithheld,
        FindingKind::BetNotAllowed,
        FindingKind::ChipsNotConserved,
        FindingKind::RakeWrong,
        FindingKind::FantasyLandWrong,
        FindingKind::FeeWrong,
        FindingKind::SpinInvalid,
        FindingKind::RecordImpossible,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::Overpaid => "overpaid",
            FindingKind::Underpaid => "underpaid",
            FindingKind::StakeBelowMinimum => "stake_below_minimum",
            FindingKind::StakeAboveMaximum => "stake_above_maximum",
            FindingKind::StakeBelowTableMinimum => "stake_below_table_minimum",
            FindingKind::StakeAboveTableMaximum => "stake_above_table_maximum",
            FindingKind::WinAboveMaximum => "win_above_maximum",
            FindingKind::InvalidNumber => "invalid_number",
            FindingKind::VoidHandledWrongly => "void_handled_wrongly",
            FindingKind::IllegalDecision => "illegal_decision",
            FindingKind::DealerDrawingWrong => "dealer_drawing_wrong",
            FindingKind::CardsInconsistent => "cards_inconsistent",
            FindingKind::PayoutWithheld => "payout_withheld",
            FindingKind::BetNotAllowed => "bet_not_allowed",
            FindingKind::ChipsNotConserved => "chips_not_conserved",
            FindingKind::RakeWrong => "rake_wrong",
            FindingKind::FantasyLandWrong => "fantasy_land_wrong",
            FindingKind::FeeWrong => "fee_wrong",
            FindingKind::SpinInvalid => "spin_invalid",
            FindingKind::RecordImpossible => "record_impossible",
        }
    }

    pub fn parse(kind: &str) -> Option<FindingKind> {
        FindingKind::ALL.into_iter().find(|k| k.as_str() == kind)
    }
}

/// One discrepancy, with the amounts that show it. Fields are declared in sorted order (as are
/// those of the verdict), so that serde's output is already RFC 8785 canonical JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What the table did (payout, or the stake).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub actual_h: Option<i64>,
    /// Size of the discrepancy: |actual − expected|, or the excess over a limit.
    pub amount_h: i64,
    /// The bet(s) concerned, if the finding is about bets.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub bet_ids: Option<Vec<String>>,
    /// What the plan requires (payout, or the limit that was crossed).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expected_h: Option<i64>,
    pub kind: FindingKind,
    pub message: String,
}

impl Finding {
    /// A finding about `bet_id` (or the whole round) with what the plan requires and what the
    /// table did, when they are amounts; `amount_h` is their difference (0 otherwise).
    pub fn new(
        kind: FindingKind,
        bet_id: Option<&str>,
        expected_h: Option<i64>,
        actual_h: Option<i64>,
        message: String,
    ) -> Finding {
        let amount_h = match (expected_h, actual_h) {
            (Some(e), Some(a)) => a.abs_diff(e).try_into().unwrap_or(i64::MAX),
            _ => 0,
        };
        Finding {
            kind,
            bet_ids: bet_id.map(|b| vec![b.to_owned()]),
            expected_h,
            actual_h,
            amount_h,
            message,
        }
    }

    /// A finding about the round as a whole, with no amount.
    pub fn note(kind: FindingKind, message: String) -> Finding {
        Finding::new(kind, None, None, None, message)
    }

    /// A bet that won more than the plan's maximum. The message reads `bet <id>: <won> <won_h>,
    /// above the plan's <limit> of <max_h>` (`won`: "paid", "a net win of").
    pub fn win_above_maximum(
        bet_id: &str,
        won: &str,
        won_h: i64,
        limit: &str,
        max_h: i64,
    ) -> Finding {
        Finding::new(
            FindingKind::WinAboveMaximum,
            Some(bet_id),
            Some(max_h),
            Some(won_h),
            format!(
                "bet {bet_id}: {won} {}, above the plan's {limit} of {}",
                crate::money::format_czk(won_h),
                crate::money::format_czk(max_h)
            ),
        )
    }

    /// Bets `bet_ids` that together stake `staked_h`, above the maximum `max_h` (the caller has
    /// found `staked_h > max_h`), as `message` says.
    pub fn stakes_above_maximum(
        bet_ids: Vec<String>,
        max_h: i64,
        staked_h: i64,
        message: String,
    ) -> Finding {
        Finding {
            kind: FindingKind::StakeAboveMaximum,
            bet_ids: Some(bet_ids),
            expected_h: Some(max_h),
            actual_h: Some(staked_h),
            amount_h: staked_h - max_h,
            message,
        }
    }

    /// Cards burned other than the rule says, or `None` when `burned` is `expected`. The
    /// message reads `<burned> cards burned; <rule>`.
    pub fn burns(burned: usize, expected: usize, rule: std::fmt::Arguments<'_>) -> Option<Finding> {
        (burned != expected).then(|| {
            Finding::note(
                FindingKind::CardsInconsistent,
                format!("{burned} cards burned; {rule}"),
            )
        })
    }

    /// An overpaid or underpaid bet, or `None` when it was paid as the plan requires. The
    /// message reads `<subject>: overpaid; paid …, the plan requires …<context>`.
    pub fn payout(
        bet_id: &str,
        subject: std::fmt::Arguments<'_>,
        paid_h: i64,
        expected_h: i64,
        context: &str,
    ) -> Option<Finding> {
        Finding::settlement(bet_id, subject, paid_h, expected_h, false, context)
    }

    /// [`Finding::payout`] of a round that may be void: on a void round (declared, or one the
    /// plan makes void though the table settled it) every stake goes back exactly, and any
    /// other amount is `void_handled_wrongly` — the stake not returned, or the win paid that
    /// must come back. The wheels of every game judge a void spin by this one rule.
    pub fn settlement(
        bet_id: &str,
        subject: std::fmt::Arguments<'_>,
        paid_h: i64,
        expected_h: i64,
        void: bool,
        context: &str,
    ) -> Option<Finding> {
        let (kind, what) = match (void, paid_h.cmp(&expected_h)) {
            (_, std::cmp::Ordering::Equal) => return None,
            (true, _) => (
                FindingKind::VoidHandledWrongly,
                "void spin: the stake must be returned exactly",
            ),
            (false, std::cmp::Ordering::Greater) => (FindingKind::Overpaid, "overpaid"),
            (false, std::cmp::Ordering::Less) => (FindingKind::Underpaid, "underpaid"),
        };
        Some(Finding::new(
            kind,
            Some(bet_id),
            Some(expected_h),
            Some(paid_h),
            format!(
                "{subject}: {what}; paid {}, the plan requires {}{context}",
                crate::money::format_czk(paid_h),
                crate::money::format_czk(expected_h)
            ),
        ))
    }
}

/// Expected and reported money for one bet. Borrows from the round it judges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BetVerdict<'a> {
    pub bet_id: &'a str,
    /// What the plan says the table must hand back for this bet (stake included).
    pub expected_paid_h: i64,
    pub kind: &'a str,
    /// What the table reports it handed back.
    pub paid_h: i64,
    pub player: &'a str,
    pub stake_h: i64,
}

/// A round's bets as judged, and their sums: what the verdict's totals are made of.
#[derive(Debug, Default)]
pub struct BetTotals<'a> {
    pub bets: Vec<BetVerdict<'a>>,
    pub stakes_h: i64,
    pub expected_paid_h: i64,
    pub paid_h: i64,
}

impl<'a> BetTotals<'a> {
    pub fn with_capacity(bets: usize) -> BetTotals<'a> {
        BetTotals {
            bets: Vec::with_capacity(bets),
            ..BetTotals::default()
        }
    }

    /// Adds a judged bet; amounts too large to add up make the record invalid.
    pub fn add(&mut self, bet: BetVerdict<'a>) -> Result<(), crate::error::RecordError> {
        let sum = |total: i64, amount: i64| {
            total.checked_add(amount).ok_or_else(|| {
                crate::error::RecordError::invalid("bets", "amounts too large to add up")
            })
        };
        self.stakes_h = sum(self.stakes_h, bet.stake_h)?;
        self.expected_paid_h = sum(self.expected_paid_h, bet.expected_paid_h)?;
        self.paid_h = sum(self.paid_h, bet.paid_h)?;
        self.bets.push(bet);
        Ok(())
    }
}

/// The result of re-adjudicating one round. Borrows from the round and the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict<'a> {
    pub bets: Vec<BetVerdict<'a>>,
    pub expected_paid_h: i64,
    /// Open Face Chinese: the players who earned fantasy land for the next hand, with the cards
    /// they are to be dealt at once; absent in other games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fantasy_next: Option<Vec<FantasyEntitlement<'a>>>,
    pub findings: Vec<Finding>,
    pub game: GameCode,
    pub paid_h: i64,
    pub plan_id: &'a str,
    pub rules_version: &'static str,
    /// The segment the money wheel's pointer stopped on (its index in the table's layout) and
    /// the segment's label; absent on a void spin and in other games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment_label: Option<&'a str>,
    pub seq_no: u64,
    pub stakes_h: i64,
    pub table_id: &'a str,
    /// A tournament's money: entries, moneypool, fee, prize pool and the operator's overlay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentFigures>,
    pub void: bool,
    /// Why the round was void, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub void_reason: Option<&'static str>,
    /// The winning number (roulette); absent on a void round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winning_number: Option<u8>,
}

/// A tournament's money (fields sorted: canonical JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TournamentFigures {
    /// Buy-ins and re-entries (what the payout table counts).
    pub entries: u32,
    pub fee_h: i64,
    pub moneypool_h: i64,
    /// What the operator added to reach the guarantee.
    pub overlay_h: i64,
    pub prize_pool_h: i64,
}

/// Fantasy land earned by a player (fields sorted: canonical JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FantasyEntitlement<'a> {
    pub cards: u8,
    pub player: &'a str,
}

impl<'a> Verdict<'a> {
    /// A verdict of `game` with no bets, no money, no findings and none of the fields only some
    /// games fill (winning number, wheel segment, fantasy land, tournament figures, void): each
    /// game's adjudicator sets what it has.
    /// This verdict with the bets and sums of `totals`.
    pub fn with_bets(self, totals: BetTotals<'a>) -> Verdict<'a> {
        Verdict {
            bets: totals.bets,
            stakes_h: totals.stakes_h,
            expected_paid_h: totals.expected_paid_h,
            paid_h: totals.paid_h,
            ..self
        }
    }

    /// The verdict on `round` under plan `plan_id`, judged as `game`, before anything is found.
    pub fn of(plan_id: &'a str, game: GameCode, round: &'a impl Identified) -> Verdict<'a> {
        let identity = round.identity();
        Verdict::new(plan_id, game, identity.table_id, identity.seq_no)
    }

    pub fn new(plan_id: &'a str, game: GameCode, table_id: &'a str, seq_no: u64) -> Verdict<'a> {
        Verdict {
            bets: Vec::new(),
            expected_paid_h: 0,
            fantasy_next: None,
            findings: Vec::new(),
            game,
            paid_h: 0,
            plan_id,
            rules_version: crate::version::RULES_VERSION,
            segment: None,
            segment_label: None,
            seq_no,
            stakes_h: 0,
            table_id,
            tournament: None,
            void: false,
            void_reason: None,
            winning_number: None,
        }
    }

    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}
