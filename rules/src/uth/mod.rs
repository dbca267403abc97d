//! Ultimate Texas Hold'em (one 52-card deck): records, re-adjudication from the cards, and
//! theoretical figures.
//!
//! Each spot's best five of its two cards and the board against the dealer's best five of the
//! dealer's two and the board; the dealer qualifies with a pair; Ante, Blind, Play and Trips are
//! settled by the plan's tables.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::cards::{Card, CardSet};
use crate::error::RecordError;
use crate::examined::Examined;
use crate::game::{reported_totals, Game, GameRecord, Judged, Statistics, TableSetup};
use crate::hand_rank::{evaluate, Category, HandRank};
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::plan::odds::Odds;
use crate::plan::table_games::{TripsOnFold, UltimateTexasHoldemPlan};
use crate::round_header::{
    round_record, validate_bet_id, validate_identifier, validate_positions, GameCode,
};
use crate::statistics::{StatisticsSum, UnitMoments, UTH_HAND};
use crate::verdict::{BetTotals, BetVerdict, Finding, FindingKind, Verdict};
use crate::void_hand::{Returned, VoidHand};

/// Spots on the layout.
pub const MAX_SPOTS: u8 = 7;

round_record! {
    /// An Ultimate Texas Hold'em round as the table reports it.
    pub struct UthRound examined {
        /// Cards burned: one before the flop, one before the turn and river.
        pub burned: Vec<Card>,
        /// The dealer's two cards and the five of the board (a void hand: those dealt). Kept
        /// inline: a round is judged without a pointer to follow.
        pub dealer: SmallVec<[Card; 2]>,
        pub board: SmallVec<[Card; 5]>,
        pub spots: Vec<UthSpot>,
        /// The hand was declared void: every stake goes back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub void: Option<VoidHand>,
        /// What cannot have happened, as found when the record was read (not part of it).
        #[serde(skip)]
        pub examined: Examined,
    }
}

/// One player's spot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UthSpot {
    pub spot: u8,
    pub player: String,
    /// Its two cards (a void hand: those dealt).
    pub cards: SmallVec<[Card; 2]>,
    /// When the Play bet was made; absent when the player folded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub play_street: Option<Street>,
    pub bets: Vec<UthBet>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Street {
    Preflop,
    Flop,
    River,
}

impl Street {
    pub fn as_str(self) -> &'static str {
        match self {
            Street::Preflop => "preflop",
            Street::Flop => "flop",
            Street::River => "river",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UthBetKind {
    Ante,
    Blind,
    Play,
    Trips,
}

impl UthBetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            UthBetKind::Ante => "ante",
            UthBetKind::Blind => "blind",
            UthBetKind::Play => "play",
            UthBetKind::Trips => "trips",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UthBet {
    pub bet_id: String,
    pub kind: UthBetKind,
    pub stake_h: i64,
    /// Everything handed back for this bet, stake included.
    pub paid_h: i64,
}

impl UthSpot {
    fn bet(&self, kind: UthBetKind) -> Option<&UthBet> {
        self.bets.iter().find(|b| b.kind == kind)
    }
}

/// The hands of a round.
struct Hands {
    dealer: HandRank,
    dealer_qualifies: bool,
}

/// `seen` with `cards` added, or the first of them dealt already: one deck holds each card once.
fn add_once(mut seen: CardSet, cards: &[Card]) -> Result<CardSet, RecordError> {
    for card in cards {
        if seen.0 & card.bit() != 0 {
            return Err(RecordError::impossible(
                "cards",
                format!("{card} is dealt twice; a one-deck game holds each card once"),
            ));
        }
        seen.0 |= card.bit();
    }
    Ok(seen)
}

fn best(hole: &[Card], board: &[Card]) -> HandRank {
    evaluate(board.iter().chain(hole).copied().collect())
}

fn overflow() -> RecordError {
    RecordError::invalid("bets", "amounts too large to add up")
}

/// Re-adjudicates an Ultimate Texas Hold'em round against the plan.
pub fn adjudicate<'a>(
    up: &'a UltimateTexasHoldemPlan,
    plan: &'a Plan,
    setup: &TableSetup,
    round: &'a UthRound,
) -> Result<Verdict<'a>, RecordError> {
    if let Some(void) = round.void {
        let stakes = round.spots.iter().flat_map(|spot| {
            spot.bets.iter().map(move |bet| Returned {
                bet_id: &bet.bet_id,
                player: &spot.player,
                kind: bet.kind.as_str(),
                stake_h: bet.stake_h,
                paid_h: bet.paid_h,
            })
        });
        return crate::void_hand::judge(
            &plan.plan_id,
            GameCode::UltimateTexasHoldem,
            &round.table_id,
            round.seq_no,
            void,
            stakes,
        );
    }
    let dealer = best(&round.dealer, &round.board);
    let hands = Hands {
        dealer,
        dealer_qualifies: dealer.category() >= Category::Pair,
    };
    let mut findings = Vec::new();
    findings.extend(Finding::burns(
        round.burned.len(),
        usize::from(up.burns),
        format_args!(
            "the plan burns {} (before the flop, before the turn and river)",
            up.burns
        ),
    ));
    let mut totals = BetTotals::default();
    for spot in &round.spots {
        check_spot(spot, up, setup, &mut findings);
        let player = best(&spot.cards, &round.board);
        let mut spot_paid = 0i64;
        for bet in &spot.bets {
            let expected_h = settle(bet, spot, player, &hands, up).ok_or_else(overflow)?;
            // The hands go into the message only when there is one to write.
            if bet.paid_h != expected_h {
                let context = format!(
                    " (player {}, dealer {}{})",
                    player.category().as_str(),
                    hands.dealer.category().as_str(),
                    if hands.dealer_qualifies {
                        ""
                    } else {
                        ", not qualifying"
                    }
                );
                findings.extend(Finding::payout(
                    &bet.bet_id,
                    format_args!("spot {} {} ({})", spot.spot, bet.kind.as_str(), bet.bet_id),
                    bet.paid_h,
                    expected_h,
                    &context,
                ));
            }
            spot_paid = spot_paid.checked_add(bet.paid_h).ok_or_else(overflow)?;
            totals.add(BetVerdict {
                bet_id: &bet.bet_id,
                player: &spot.player,
                kind: bet.kind.as_str(),
                stake_h: bet.stake_h,
                expected_paid_h: expected_h,
                paid_h: bet.paid_h,
            })?;
        }
        if spot_paid > up.max_win_h {
            findings.push(Finding {
                kind: FindingKind::WinAboveMaximum,
                bet_ids: Some(spot.bets.iter().map(|b| b.bet_id.clone()).collect()),
                expected_h: Some(up.max_win_h),
                actual_h: Some(spot_paid),
                amount_h: spot_paid - up.max_win_h,
                message: format!(
                    "spot {}: paid {} in all, above the plan's maximum possible win of {}",
                    spot.spot,
                    format_czk(spot_paid),
                    format_czk(up.max_win_h)
                ),
            });
        }
    }
    Ok(Verdict {
        findings,
        ..Verdict::of(&plan.plan_id, GameCode::UltimateTexasHoldem, round).with_bets(totals)
    })
}

fn note(kind: FindingKind, bet: Option<&UthBet>, message: String) -> Finding {
    Finding {
        kind,
        bet_ids: bet.map(|b| vec![b.bet_id.clone()]),
        expected_h: None,
        actual_h: None,
        amount_h: 0,
        message,
    }
}

/// What a bet must get back.
fn settle(
    bet: &UthBet,
    spot: &UthSpot,
    player: HandRank,
    hands: &Hands,
    up: &UltimateTexasHoldemPlan,
) -> Option<i64> {
    let s = bet.stake_h;
    if bet.kind == UthBetKind::Trips {
        if spot.play_street.is_none() && up.trips_on_fold == TripsOnFold::Lost {
            return Some(0);
        }
        return match up.trips.odds_for(player) {
            Some(odds) => odds.pays(s),
            None => Some(0),
        };
    }
    if spot.play_street.is_none() {
        // A fold loses Ante and Blind (there is no Play bet).
        return Some(0);
    }
    use std::cmp::Ordering::{Equal, Greater};
    match (bet.kind, player.cmp(&hands.dealer)) {
        // A dealer without a pair: the Ante pushes whoever wins; the rest is settled normally.
        (UthBetKind::Ante, _) if !hands.dealer_qualifies => Some(s),
        (UthBetKind::Ante | UthBetKind::Play, Greater) => Odds::EVEN.pays(s),
        // The Blind pays its table from a straight up; a smaller winning hand pushes it.
        (UthBetKind::Blind, Greater) => match up.blind.odds_for(player) {
            Some(odds) => odds.pays(s),
            None => Some(s),
        },
        (_, Equal) => Some(s),
        _ => Some(0),
    }
}

/// Ante = Blind, the limits, Trips ≤ Ante, and a Play bet of a multiple the street allows.
/// Inside the plan's limits, the table's posted ones: the Ante's range (the Blind equals it) and
/// the Trips maximum.
fn check_spot(
    spot: &UthSpot,
    up: &UltimateTexasHoldemPlan,
    setup: &TableSetup,
    findings: &mut Vec<Finding>,
) {
    let ante = spot.bet(UthBetKind::Ante);
    let ante_h = ante.map_or(0, |b| b.stake_h);
    for bet in &spot.bets {
        if bet.kind == UthBetKind::Play {
            continue;
        }
        let limit = if bet.stake_h < up.min_bet_h {
            Some((
                FindingKind::StakeBelowMinimum,
                up.min_bet_h,
                "below the minimum of",
            ))
        } else if bet.stake_h > up.max_bet_h {
            Some((
                FindingKind::StakeAboveMaximum,
                up.max_bet_h,
                "above the maximum of",
            ))
        } else {
            let posted = match bet.kind {
                UthBetKind::Trips => setup.posted_cap("trips_max_h"),
                _ => setup.posted_range("max_bet_h"),
            };
            if let Some(posted) = posted {
                let what = format!("spot {} {}", spot.spot, bet.kind.as_str());
                findings.extend(posted.judge(bet.stake_h, vec![bet.bet_id.clone()], &what));
            }
            None
        };
        if let Some((kind, limit_h, what)) = limit {
            findings.push(Finding {
                kind,
                bet_ids: Some(vec![bet.bet_id.clone()]),
                expected_h: Some(limit_h),
                actual_h: Some(bet.stake_h),
                amount_h: (bet.stake_h - limit_h).abs(),
                message: format!(
                    "spot {} {}: stake {} {what} {}",
                    spot.spot,
                    bet.kind.as_str(),
                    format_czk(bet.stake_h),
                    format_czk(limit_h)
                ),
            });
        }
    }
    match spot.bet(UthBetKind::Blind) {
        Some(blind) if blind.stake_h == ante_h => {}
        blind => findings.push(note(
            FindingKind::BetNotAllowed,
            blind.or(ante),
            format!(
                "spot {}: the Blind must equal the Ante ({}), it is {}",
                spot.spot,
                format_czk(ante_h),
                format_czk(blind.map_or(0, |b| b.stake_h))
            ),
        )),
    }
    if let Some(trips) = spot.bet(UthBetKind::Trips).filter(|t| t.stake_h > ante_h) {
        findings.push(Finding::stakes_above_maximum(
            vec![trips.bet_id.clone()],
            ante_h,
            trips.stake_h,
            format!(
                "spot {}: Trips of {} above the Ante of {}",
                spot.spot,
                format_czk(trips.stake_h),
                format_czk(ante_h)
            ),
        ));
    }
    if let (Some(play), Some(street)) = (spot.bet(UthBetKind::Play), spot.play_street) {
        let allowed: Vec<u8> = match street {
            Street::Preflop => up.play_preflop.clone(),
            Street::Flop => vec![up.play_flop],
            Street::River => vec![up.play_river],
        };
        let legal = allowed
            .iter()
            .any(|m| ante_h.checked_mul(i64::from(*m)) == Some(play.stake_h));
        if !legal {
            findings.push(note(
                FindingKind::IllegalDecision,
                Some(play),
                format!(
                    "spot {}: a Play bet of {} {}; the plan allows {} × the Ante of {}",
                    spot.spot,
                    format_czk(play.stake_h),
                    match street {
                        Street::Preflop => "before the flop",
                        Street::Flop => "after the flop",
                        Street::River => "after the river",
                    },
                    allowed
                        .iter()
                        .map(u8::to_string)
                        .collect::<Vec<_>>()
                        .join(" or "),
                    format_czk(ante_h)
                ),
            ));
        }
    }
}

/// Theoretical figures for RTP reports, over all the round's stakes: Ante + Blind + Play lose
/// the exact house edge of the best strategy on the Ante, Trips returns its exact RTP (the
/// plan's figures, [`crate::rtp::UthFigures`]). Without figures for the plan's rules the round
/// adds nothing to the RTP stakes.
pub fn round_statistics(
    figures: Option<&crate::rtp::figures::UthFigures>,
    round: &UthRound,
) -> crate::statistics::RoundStatistics {
    let Some(figures) = figures else {
        return crate::statistics::RoundStatistics::default();
    };
    let mut sum = StatisticsSum::default();
    for spot in &round.spots {
        for bet in &spot.bets {
            let s = bet.stake_h;
            let at_even = i128::from(s) * 1000;
            match bet.kind {
                UthBetKind::Ante => sum.add(
                    UTH_HAND,
                    s,
                    at_even - figures.house_edge.of_amount_mh(s),
                    UnitMoments {
                        standard_deviation: figures.standard_deviation,
                        third_moment: figures.third_moment,
                    },
                ),
                // The hand's edge and moments are the Ante's figures; Blind and Play count at
                // even, with the hand.
                UthBetKind::Blind | UthBetKind::Play => {
                    sum.add(UTH_HAND, s, at_even, UnitMoments::default())
                }
                UthBetKind::Trips => sum.add(
                    bet.kind.as_str(),
                    s,
                    figures.trips_rtp.of_amount_mh(s),
                    UnitMoments {
                        standard_deviation: figures.trips_standard_deviation,
                        third_moment: figures.trips_third_moment,
                    },
                ),
            }
        }
    }
    sum.finish()
}

impl Game for UthRound {
    /// Structural checks; anything failing here is a malformed record (rejected, 4xx).
    fn validate(&self) -> Result<(), RecordError> {
        if self.spots.is_empty() {
            return Err(RecordError::invalid(
                "spots",
                "a round has at least one spot",
            ));
        }
        let too_many = [
            ("dealer", self.dealer.len(), 2),
            ("board", self.board.len(), 5),
        ]
        .into_iter()
        .chain(self.spots.iter().map(|s| ("spots.cards", s.cards.len(), 2)))
        .find(|(_, dealt, most)| dealt > most);
        if let Some((field, _, most)) = too_many {
            return Err(RecordError::invalid(field, format!("at most {most} cards")));
        }
        validate_positions(
            self.spots.iter().map(|s| s.spot),
            MAX_SPOTS,
            "spots",
            "spot",
        )?;
        let mut ids: Vec<&str> = Vec::new();
        for (i, spot) in self.spots.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("spots[{i}]"));
            validate_identifier("player", &spot.player).map_err(at)?;
            for kind in [
                UthBetKind::Ante,
                UthBetKind::Blind,
                UthBetKind::Play,
                UthBetKind::Trips,
            ] {
                if spot.bets.iter().filter(|b| b.kind == kind).count() > 1 {
                    return Err(at(RecordError::invalid(
                        "bets",
                        format!("one `{}` bet per spot", kind.as_str()),
                    )));
                }
            }
            if spot.bet(UthBetKind::Ante).is_none() {
                return Err(at(RecordError::invalid(
                    "bets",
                    "a spot in play has an ante",
                )));
            }
            if spot.play_street.is_some() != spot.bet(UthBetKind::Play).is_some() {
                return Err(at(RecordError::invalid(
                    "play_street",
                    "a Play bet and its street come together (neither on a fold)",
                )));
            }
            for (j, bet) in spot.bets.iter().enumerate() {
                let at = |e: RecordError| at(e.within(format_args!("bets[{j}]")));
                validate_bet_id(&mut ids, &bet.bet_id).map_err(at)?;
                validate_amount("stake_h", bet.stake_h).map_err(at)?;
                validate_amount("paid_h", bet.paid_h).map_err(at)?;
            }
        }
        Ok(())
    }

    /// A hand played out: two cards to the dealer and each spot, five on the board; one deck:
    /// every card at most once among everything dealt and burned. A void hand holds what was
    /// dealt when it was stopped, whatever that is.
    fn find_impossible(&self) -> Result<(), RecordError> {
        if self.void.is_some() {
            return Ok(());
        }
        let hands = [
            ("dealer", &self.dealer[..], 2),
            ("board", &self.board[..], 5),
        ];
        let spots = self.spots.iter().map(|s| ("spots.cards", &s.cards[..], 2));
        let mut seen = CardSet::default();
        for (field, cards, wanted) in hands.into_iter().chain(spots) {
            if cards.len() != wanted {
                return Err(RecordError::impossible(
                    field,
                    format!("{} cards; a hand played out has {wanted}", cards.len()),
                ));
            }
            seen = add_once(seen, cards)?;
        }
        add_once(seen, &self.burned).map(|_| ())
    }

    fn reported_totals(&self) -> (i64, i64) {
        let bets = self.spots.iter().flat_map(|s| &s.bets);
        reported_totals(bets.map(|b| (b.stake_h, b.paid_h)))
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, setup: &'a TableSetup) -> Judged<'a> {
        adjudicate(plan.ultimate_texas_holdem()?, plan, setup, self)
    }

    fn statistics(&self, plan: &Plan, _: &TableSetup) -> Statistics {
        if self.void.is_some() {
            return Ok(crate::statistics::RoundStatistics::default());
        }
        Ok(round_statistics(
            plan.theoretical.ultimate_texas_holdem.as_ref(),
            self,
        ))
    }
}

impl GameRecord for UthRound {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::UltimateTexasHoldem];
}

#[cfg(test)]
mod tests;
