//! Poker cash games (Texas Hold'em, Omaha Hold'em): the casino only takes the rake. A hand is
//! re-played from its actions — turn order, minimum bets and raises, an all-in short of a full
//! raise not reopening the betting, no action after a fold — then the pots are rebuilt from what
//! each seat put in (side pots at each all-in), awarded from the shown cards (Hold'em: best five
//! of seven; Omaha: exactly two hole cards and three of the board) with odd chips to the first
//! winner left of the button, and the rake is checked against the plan (5 % of the closed pot,
//! rounded down to whole Kč, capped by the number of players).

mod betting;
mod misdeal;
mod pots;
pub mod time_audit;
pub(crate) mod time_collection;

use crate::cards::CardSet;
use crate::error::RecordError;
use crate::game::{Game, GameRecord, Judged, TableSetup};
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::plan::poker::{PokerCashPlan, RakeCapCounts};
use crate::round_header::{validate_identifier, GameCode};
use crate::verdict::{BetVerdict, Finding, FindingKind, Verdict};
use crate::void_hand::{HandVoidReason, VoidHand};
use betting::Played;

pub use time_collection::{adjudicate as time_collection_adjudicate, TimeCollection, TimePayment};

use record::SEAT_IDS;
pub use record::{
    ActionKind, Award, Collection, DealerPot, PokerAction, PokerHand, PokerSeat, Street, Variant,
    MAX_SEATS,
};

fn finding(
    kind: FindingKind,
    seat: Option<u8>,
    expected: i64,
    actual: i64,
    message: String,
) -> Finding {
    let bet = seat.map(|s| format!("seat-{s}"));
    Finding::new(kind, bet.as_deref(), Some(expected), Some(actual), message)
}

/// The dealer's pots against those the chips make: each pot's size and who may win it.
fn check_dealer_pots(made: &[DealerPot], rebuilt: &[pots::Pot], findings: &mut Vec<Finding>) {
    let describe = |amount: i64, seats: &[u8]| {
        format!(
            "{} for seats {}",
            format_czk(amount),
            seats
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for n in 0..made.len().max(rebuilt.len()) {
        let dealer = made.get(n);
        let chips = rebuilt.get(n);
        let same = match (dealer, chips) {
            (Some(d), Some(c)) => {
                let mut seats = d.seats.clone();
                seats.sort_unstable();
                let mut eligible = c.eligible.clone();
                eligible.sort_unstable();
                d.amount_h == c.amount_h && seats == eligible
            }
            _ => false,
        };
        if !same {
            let what = |p: Option<String>| p.unwrap_or_else(|| "no such pot".into());
            findings.push(Finding {
                kind: FindingKind::ChipsNotConserved,
                bet_ids: None,
                expected_h: chips.map(|c| c.amount_h),
                actual_h: dealer.map(|d| d.amount_h),
                amount_h: dealer
                    .map_or(0, |d| d.amount_h)
                    .abs_diff(chips.map_or(0, |c| c.amount_h))
                    .try_into()
                    .unwrap_or(i64::MAX),
                message: format!(
                    "pot {}: the dealer made {}; the chips put in make {}",
                    n + 1,
                    what(dealer.map(|d| describe(d.amount_h, &d.seats))),
                    what(chips.map(|c| describe(c.amount_h, &c.eligible)))
                ),
            });
        }
    }
}

/// The players the rake cap counts: those dealt in, or (as the plan may read "Hráčů u stolu")
/// those seated when the table recorded them — never fewer than were dealt in.
pub fn rake_cap_players(pp: &PokerCashPlan, hand: &PokerHand) -> usize {
    let dealt = hand.seats.len();
    match (pp.rake_cap_counts, hand.seated_players) {
        (RakeCapCounts::Seated, Some(seated)) => dealt.max(usize::from(seated)),
        _ => dealt,
    }
}

/// The most rake the plan allows from a hand dealt to `players`: the first cap line that covers
/// them, or the last line for more players than any covers.
pub fn rake_cap(pp: &PokerCashPlan, players: usize) -> i64 {
    pp.rake_caps
        .iter()
        .find(|c| players <= usize::from(c.players_up_to))
        .or(pp.rake_caps.last())
        .map_or(i64::MAX, |c| c.cap_h)
}

/// The plan's rake for a closed pot of `pot_h` dealt to `players`: 5 % rounded down to whole
/// Kč, at most the cap for that many players.
pub fn rake_for(pp: &PokerCashPlan, pot_h: i64, players: usize) -> i64 {
    let share = pot_h.saturating_mul(i64::from(pp.rake_percent)) / 100;
    let whole_kc = share - share % 100;
    whole_kc.min(rake_cap(pp, players))
}

/// What a correct table hands each seat (uncalled bets included) and takes as rake, for a hand
/// whose betting and cards are as recorded (its own `awards` and `rake_h` are not read).
pub fn settle(pp: &PokerCashPlan, hand: &PokerHand) -> (std::collections::BTreeMap<u8, i64>, i64) {
    let mut ignored = Vec::new();
    let played = betting::replay(hand, &mut ignored);
    let pots = pots::build(&played);
    let total: i64 = pots.pots.iter().map(|p| p.amount_h).sum();
    let rake = match hand.collection {
        Collection::Rake => rake_for(pp, total, rake_cap_players(pp, hand)),
        Collection::Time => 0,
    };
    (pots::award(pp, hand, &pots, rake, &mut ignored), rake)
}

/// Burned cards, when recorded: one before each street the board shows (seeds 000–002: "Dealer
/// spálí kartu" before the flop, the turn and the river).
fn check_burned(hand: &PokerHand, findings: &mut Vec<Finding>) {
    if hand.burned.is_empty() {
        return;
    }
    let streets = match hand.board.len() {
        0 => 0,
        1..=3 => 1,
        4 => 2,
        _ => 3,
    };
    findings.extend(Finding::burns(
        hand.burned.len(),
        streets,
        format_args!(
            "the dealer burns one before each street, {streets} for a board of {}",
            hand.board.len()
        ),
    ));
}

/// No seat puts in more than it started with.
fn check_stacks(hand: &PokerHand, played: &Played, findings: &mut Vec<Finding>) {
    for s in &hand.seats {
        let put_in = played.put_in(s.seat);
        if put_in > s.stack_h {
            findings.push(finding(
                FindingKind::ChipsNotConserved,
                Some(s.seat),
                s.stack_h,
                put_in,
                format!(
                    "seat {} put {} into the pot but started with {}",
                    s.seat,
                    format_czk(put_in),
                    format_czk(s.stack_h)
                ),
            ));
        }
    }
}

/// The board has the cards the hand needs: five at a showdown, else the last street's.
fn check_board(hand: &PokerHand, played: &Played, findings: &mut Vec<Finding>) {
    let expected_board = if played.showdown {
        5
    } else {
        played.last_street.board_cards()
    };
    if hand.board.len() != expected_board && (played.showdown || hand.board.len() < expected_board)
    {
        findings.push(Finding::note(
            FindingKind::CardsInconsistent,
            format!(
                "the board has {} cards, the hand needs {expected_board}",
                hand.board.len()
            ),
        ));
    }
}

/// The rake the plan allows from `total_pot` (none for time collection), checked against the
/// hand's.
fn check_rake(
    pp: &PokerCashPlan,
    hand: &PokerHand,
    total_pot: i64,
    findings: &mut Vec<Finding>,
) -> i64 {
    let expected_rake = match hand.collection {
        Collection::Rake => rake_for(pp, total_pot, rake_cap_players(pp, hand)),
        Collection::Time => 0,
    };
    if hand.rake_h != expected_rake {
        findings.push(finding(
            FindingKind::RakeWrong,
            None,
            expected_rake,
            hand.rake_h,
            format!(
                "rake {}: the plan allows {} ({} % of the {} pot rounded down to whole Kč, at most {} with {} players)",
                format_czk(hand.rake_h),
                format_czk(expected_rake),
                pp.rake_percent,
                format_czk(total_pot),
                format_czk(rake_cap(pp, rake_cap_players(pp, hand))),
                rake_cap_players(pp, hand)
            ),
        ));
    }
    expected_rake
}

/// What a seat was handed against what the pots give it.
fn check_award(s: &PokerSeat, expected_h: i64, paid_h: i64, findings: &mut Vec<Finding>) {
    if paid_h != expected_h {
        let (kind, what) = if paid_h > expected_h {
            (FindingKind::Overpaid, "overpaid")
        } else {
            (FindingKind::Underpaid, "underpaid")
        };
        findings.push(finding(
            kind,
            Some(s.seat),
            expected_h,
            paid_h,
            format!(
                "seat {} ({}): {what}; handed {}, the pots give {}",
                s.seat,
                s.player,
                format_czk(paid_h),
                format_czk(expected_h)
            ),
        ));
    }
}

/// Stakes are the pots and payouts what the pots paid (uncalled bets left out of both).
fn check_conserved(stakes_h: i64, paid_total_h: i64, rake_h: i64, findings: &mut Vec<Finding>) {
    let handed = paid_total_h.saturating_add(rake_h);
    if handed != stakes_h {
        findings.push(finding(
            FindingKind::ChipsNotConserved,
            None,
            stakes_h,
            handed,
            format!(
                "{} went into the pot, {} came out (awards {} + rake {})",
                format_czk(stakes_h),
                format_czk(handed),
                format_czk(paid_total_h),
                format_czk(rake_h)
            ),
        ));
    }
}

/// Re-adjudicates a hand: the betting, the pots, the showdown, the rake.
pub fn adjudicate<'a>(pp: &PokerCashPlan, plan: &'a Plan, hand: &'a PokerHand) -> Verdict<'a> {
    let mut findings = Vec::new();
    let played = betting::replay(hand, &mut findings);
    check_stacks(hand, &played, &mut findings);
    let pots = pots::build(&played);
    check_board(hand, &played, &mut findings);
    check_burned(hand, &mut findings);
    if let Some(made) = &hand.pots {
        check_dealer_pots(made, &pots.pots, &mut findings);
    }
    let total_pot: i64 = pots.pots.iter().map(|p| p.amount_h).sum();
    let expected_rake = check_rake(pp, hand, total_pot, &mut findings);
    let expected_awards = pots::award(pp, hand, &pots, expected_rake, &mut findings);
    let mut bets = Vec::with_capacity(hand.seats.len());
    let (mut stakes_h, mut expected_total_h, mut paid_total_h) = (0i64, 0i64, 0i64);
    for s in &hand.seats {
        let put_in = played.put_in(s.seat);
        // An uncalled bet handed back is neither staked in a pot nor paid out by one.
        let returned = match pots.returned {
            Some((seat, amount)) if seat == s.seat => amount,
            _ => 0,
        };
        let expected_h = expected_awards.get(&s.seat).copied().unwrap_or(0);
        let paid_h = hand
            .awards
            .iter()
            .filter(|a| a.seat == s.seat)
            .fold(0i64, |sum, a| sum.saturating_add(a.amount_h));
        check_award(s, expected_h, paid_h, &mut findings);
        let (stake_h, expected_h, paid_h) =
            (put_in - returned, expected_h - returned, paid_h - returned);
        stakes_h = stakes_h.saturating_add(stake_h);
        expected_total_h = expected_total_h.saturating_add(expected_h);
        paid_total_h = paid_total_h.saturating_add(paid_h);
        bets.push(BetVerdict {
            bet_id: SEAT_IDS.get(usize::from(s.seat)).copied().unwrap_or("seat"),
            player: &s.player,
            kind: "seat",
            stake_h,
            expected_paid_h: expected_h,
            paid_h,
        });
    }
    check_conserved(stakes_h, paid_total_h, hand.rake_h, &mut findings);
    Verdict {
        stakes_h,
        expected_paid_h: expected_total_h,
        paid_h: paid_total_h,
        bets,
        findings,
        ..Verdict::of(&plan.plan_id, GameCode::PokerCash, hand)
    }
}

impl Game for PokerHand {
    /// Structural checks; anything failing here is a malformed record (rejected, 4xx).
    fn validate(&self) -> Result<(), RecordError> {
        if !(2..=usize::from(MAX_SEATS)).contains(&self.seats.len()) {
            return Err(RecordError::invalid(
                "seats",
                format!("a hand is dealt to 2 to {MAX_SEATS} seats"),
            ));
        }
        let mut previous = 0u8;
        for (i, s) in self.seats.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("seats[{i}]"));
            if s.seat <= previous || s.seat > MAX_SEATS {
                return Err(at(RecordError::invalid(
                    "seat",
                    format!("seats are numbered 1 to {MAX_SEATS}, in order, each once"),
                )));
            }
            previous = s.seat;
            validate_identifier("player", &s.player).map_err(at)?;
            if validate_amount("stack_h", s.stack_h).map_err(at)? == 0 {
                return Err(at(RecordError::invalid("stack_h", "must be positive")));
            }
            if s.shown.as_ref().is_some_and(|shown| shown.len() > 4) {
                return Err(at(RecordError::invalid("shown", "at most 4 cards")));
            }
        }
        if !matches!(self.board.len(), 0 | 3 | 4 | 5) {
            return Err(RecordError::invalid(
                "board",
                format!("0, 3, 4 or 5 cards, not {}", self.board.len()),
            ));
        }
        validate_amount("small_blind_h", self.small_blind_h)?;
        validate_amount("big_blind_h", self.big_blind_h)?;
        for (i, a) in self.actions.iter().enumerate() {
            if let Some(to) = a.to_h {
                validate_amount("to_h", to).map_err(|e| e.within(format_args!("actions[{i}]")))?;
            }
        }
        if self.actions.len() > 1_000 {
            return Err(RecordError::invalid("actions", "at most 1 000 actions"));
        }
        for (i, award) in self.awards.iter().enumerate() {
            validate_amount("amount_h", award.amount_h)
                .map_err(|e| e.within(format_args!("awards[{i}]")))?;
        }
        validate_amount("rake_h", self.rake_h)?;
        Ok(())
    }

    /// What a table can sign but cannot have dealt: hole cards other than the variant's, a
    /// button off the table, a card twice from one deck, blinds the wrong way round, actions
    /// or awards of seats not dealt in.
    fn find_impossible(&self) -> Result<(), RecordError> {
        // A void hand's cards are whatever was dealt when it was stopped (two identical cards,
        // a card too many); its betting must still be of seats dealt in.
        let cards_matter = self.void.is_none();
        for (i, s) in self.seats.iter().enumerate().filter(|_| cards_matter) {
            if let Some(shown) = &s.shown {
                if shown.len() != self.variant.hole_cards() {
                    return Err(RecordError::impossible(
                        "shown",
                        format!(
                            "{} hole cards in {:?}, {} shown",
                            self.variant.hole_cards(),
                            self.variant,
                            shown.len()
                        ),
                    )
                    .within(format_args!("seats[{i}]")));
                }
            }
        }
        if let Some(seated) = self.seated_players.filter(|&n| n > MAX_SEATS) {
            return Err(RecordError::impossible(
                "seated_players",
                format!("a table seats at most {MAX_SEATS}, not {seated}"),
            ));
        }
        if self.button == 0 || self.button > MAX_SEATS {
            return Err(RecordError::impossible(
                "button",
                format!("a seat number 1 to {MAX_SEATS}, not {}", self.button),
            ));
        }
        let cards = self
            .board
            .iter()
            .chain(&self.burned)
            .chain(self.seats.iter().filter_map(|s| s.shown.as_ref()).flatten());
        if let (true, Err(card)) = (cards_matter, CardSet::of_all(cards)) {
            return Err(RecordError::impossible(
                "board",
                format!("{card} is dealt twice; one deck holds each card once"),
            ));
        }
        if self.small_blind_h == 0 || self.big_blind_h < self.small_blind_h {
            return Err(RecordError::impossible(
                "big_blind_h",
                "blinds must be positive, the big blind at least the small one",
            ));
        }
        // Seats are 1 to 10: one bit each.
        let dealt_mask = self.seats.iter().fold(0u32, |mask, s| {
            mask | 1u32.checked_shl(u32::from(s.seat)).unwrap_or(0)
        });
        let dealt = |seat: u8| dealt_mask & 1u32.checked_shl(u32::from(seat)).unwrap_or(0) != 0;
        let seats = (self.actions.iter().map(|a| a.seat).enumerate())
            .map(|(i, seat)| ("actions", i, seat))
            .chain(
                (self.awards.iter().map(|a| a.seat).enumerate())
                    .map(|(i, seat)| ("awards", i, seat)),
            );
        for (field, i, seat) in seats {
            if !dealt(seat) {
                return Err(RecordError::impossible(
                    "seat",
                    format!("seat {seat} is not dealt in"),
                )
                .within(format_args!("{field}[{i}]")));
            }
        }
        Ok(())
    }

    /// The pots as what was handed out plus the rake; what was handed out.
    fn reported_totals(&self) -> (i64, i64) {
        let awarded = self
            .awards
            .iter()
            .fold(0i64, |total, a| total.saturating_add(a.amount_h));
        (awarded.saturating_add(self.rake_h), awarded)
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, setup: &'a TableSetup) -> Judged<'a> {
        if let Some(void) = self.void {
            return void_hand(plan, self, void);
        }
        let mut verdict = adjudicate(plan.poker_cash()?, plan, self);
        verdict.findings.extend(blinds_against_posted(self, setup));
        Ok(verdict)
    }
}

/// A void hand: each seat gets back exactly what it put in, and the casino takes nothing.
fn void_hand<'a>(plan: &'a Plan, hand: &'a PokerHand, void: VoidHand) -> Judged<'a> {
    let mut ignored = Vec::new();
    let played = betting::replay(hand, &mut ignored);
    let awarded = |seat: u8| {
        hand.awards
            .iter()
            .filter(|a| a.seat == seat)
            .fold(0i64, |total, a| total.saturating_add(a.amount_h))
    };
    let seats = hand.seats.iter().map(|s| crate::void_hand::Returned {
        bet_id: SEAT_IDS.get(usize::from(s.seat)).copied().unwrap_or("seat"),
        player: &s.player,
        kind: "seat",
        stake_h: played.put_in(s.seat),
        paid_h: awarded(s.seat),
    });
    let mut verdict = crate::void_hand::judge(
        &plan.plan_id,
        GameCode::PokerCash,
        &hand.table_id,
        hand.seq_no,
        void,
        seats,
    )?;
    if void.reason == HandVoidReason::Misdeal {
        verdict.findings.extend(misdeal::too_late(hand));
    }
    if hand.rake_h != 0 {
        verdict.findings.push(finding(
            FindingKind::VoidHandledWrongly,
            None,
            0,
            hand.rake_h,
            format!(
                "the hand is void ({}): no rake is taken, {} was",
                void.reason.as_str(),
                format_czk(hand.rake_h)
            ),
        ));
    }
    Ok(verdict)
}

/// The blinds a hand is played for must be the ones the table posted.
fn blinds_against_posted(hand: &PokerHand, setup: &TableSetup) -> Vec<Finding> {
    let Some(limits) = &setup.limits else {
        return Vec::new();
    };
    [
        ("small blind", hand.small_blind_h, limits.small_blind_h),
        ("big blind", hand.big_blind_h, limits.big_blind_h),
    ]
    .into_iter()
    .filter_map(|(what, played_h, posted_h)| {
        let posted_h = posted_h?;
        let kind = match played_h.cmp(&posted_h) {
            std::cmp::Ordering::Equal => return None,
            std::cmp::Ordering::Less => FindingKind::StakeBelowTableMinimum,
            std::cmp::Ordering::Greater => FindingKind::StakeAboveTableMaximum,
        };
        Some(finding(
            kind,
            None,
            posted_h,
            played_h,
            format!(
                "the hand is played with a {what} of {}, the table posts {}",
                format_czk(played_h),
                format_czk(posted_h)
            ),
        ))
    })
    .collect()
}

impl GameRecord for PokerHand {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::PokerCash];
}

pub mod record;
#[cfg(test)]
mod tests;
