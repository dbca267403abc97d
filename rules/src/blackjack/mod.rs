//! Black Jack (six decks, European no hole card) with Perfect Pairs and insurance: records,
//! re-adjudication from the cards, and theoretical figures.
//!
//! A round records every card in the order it left the shoe (`deal`), and for each box the
//! decisions of each of its hands in play order. The adjudicator rebuilds the hands from those
//! ([`play::replay`]), checks every decision and the dealer's drawing, and computes what each bet
//! must be paid.

pub mod play;
pub mod points;
pub mod shoe;

use self::play::{replay, PlayIssue, PlayedBox, Replay};
use crate::error::RecordError;
use crate::game::{reported_totals, Game, GameRecord, Judged, Statistics, TableSetup};
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::plan::odds::Odds;
use crate::plan::table_games::{BlackjackPlan, DealerBlackjackTakes};
use crate::round_header::{validate_bet_id, validate_identifier, validate_positions, GameCode};
use crate::statistics::{StatisticsSum, UnitMoments};
use crate::verdict::{BetTotals, BetVerdict, Finding, FindingKind, Verdict};
use crate::void_hand::{Returned, VoidHand};

pub use record::{
    BlackjackBet, BlackjackBetKind, BlackjackBox, BlackjackRound, Decision, MAX_BOXES,
};

/// The plan has no void blackjack hand: a card dealt wrongly is dealt on ("Kterákoliv karta
/// během rozdávání chybně použitá, vytažená, či chybně přidělená komukoliv, se musí použít jako
/// nejbližší další karta z ‚boty‘"), one dealt to a box without a bet moves on in order, a
/// damaged card is replaced, and only a counter's win is withheld (the stake back). A hand
/// declared void is a finding for every chip handed back instead of being settled
/// (`expected_h` 0: how the hand would have ended the record cannot say).
fn void_without_basis(round: &BlackjackRound, void: VoidHand) -> Finding {
    let returned_h = round
        .boxes
        .iter()
        .flat_map(|b| &b.bets)
        .fold(0i64, |sum, bet| sum.saturating_add(bet.paid_h));
    Finding::new(
        FindingKind::VoidHandledWrongly,
        None,
        Some(0),
        Some(returned_h),
        format!(
            "the hand was declared void ({}), but the plan has no void blackjack hand: \
             „Kterákoliv karta během rozdávání chybně použitá, vytažená, či chybně přidělená \
             komukoliv, se musí použít jako nejbližší další karta z ‚boty‘“; {} went back to the \
             players instead of the hand being played on and settled",
            void.reason.as_str(),
            format_czk(returned_h)
        ),
    )
}

/// Re-adjudicates a blackjack round against the plan.
pub fn adjudicate<'a>(
    bp: &'a BlackjackPlan,
    plan: &'a Plan,
    setup: &TableSetup,
    round: &'a BlackjackRound,
) -> Result<Verdict<'a>, RecordError> {
    if let Some(void) = round.void {
        return judge_void(plan, round, void);
    }
    let played = replay(round, bp)?;
    let mut findings = Vec::new();
    check_cards(round, bp, &mut findings);
    findings.extend(played.issues.iter().map(issue_finding));
    let mut totals = BetTotals::default();
    for (b, box_play) in round.boxes.iter().zip(&played.boxes) {
        check_box_limits(b, bp, setup, &mut findings);
        for bet in &b.bets {
            let settled = settle(bet, b, box_play, &played, bp)?;
            check_bet(bet, box_play, &settled, bp, &mut findings);
            totals.add(BetVerdict {
                bet_id: &bet.bet_id,
                player: &bet.player,
                kind: bet.kind.as_str(),
                stake_h: settled.staked_h,
                expected_paid_h: settled.expected_h,
                paid_h: bet.paid_h,
            })?;
        }
    }
    Ok(Verdict {
        findings,
        ..Verdict::of(&plan.plan_id, GameCode::Blackjack, round).with_bets(totals)
    })
}

/// A void round: every stake back, and a finding that the plan gives no ground for voiding.
fn judge_void<'a>(
    plan: &'a Plan,
    round: &'a BlackjackRound,
    void: VoidHand,
) -> Result<Verdict<'a>, RecordError> {
    let stakes = round
        .boxes
        .iter()
        .flat_map(|b| &b.bets)
        .map(|bet| Returned {
            bet_id: &bet.bet_id,
            player: &bet.player,
            kind: bet.kind.as_str(),
            stake_h: bet.stake_h,
            paid_h: bet.paid_h,
        });
    let mut verdict = crate::void_hand::judge(
        &plan.plan_id,
        GameCode::Blackjack,
        &round.table_id,
        round.seq_no,
        void,
        stakes,
    )?;
    verdict.findings.insert(0, void_without_basis(round, void));
    Ok(verdict)
}

/// A wrong decision or a wrong draw of the dealer, found while replaying the round.
fn issue_finding(issue: &PlayIssue) -> Finding {
    Finding {
        kind: if issue.dealer {
            FindingKind::DealerDrawingWrong
        } else {
            FindingKind::IllegalDecision
        },
        bet_ids: None,
        expected_h: None,
        actual_h: None,
        amount_h: 0,
        message: issue.message.clone(),
    }
}

/// One bet's findings once it is settled: a bet the plan refuses, a wrong payout, a withheld
/// win, a win above the plan's maximum.
fn check_bet(
    bet: &BlackjackBet,
    box_play: &PlayedBox,
    settled: &Settled,
    bp: &BlackjackPlan,
    findings: &mut Vec<Finding>,
) {
    if let Some(why) = settled.refused {
        findings.push(Finding {
            kind: FindingKind::BetNotAllowed,
            bet_ids: Some(vec![bet.bet_id.clone()]),
            expected_h: Some(settled.expected_h),
            actual_h: Some(bet.paid_h),
            amount_h: bet.stake_h,
            message: format!(
                "bet {} ({}): {why}; its stake of {} must be returned",
                bet.bet_id,
                bet.kind.as_str(),
                format_czk(bet.stake_h)
            ),
        });
    }
    check_payout(bet, settled.expected_h, findings);
    if bet.withheld {
        findings.push(Finding {
            kind: FindingKind::PayoutWithheld,
            bet_ids: Some(vec![bet.bet_id.clone()]),
            expected_h: Some(settled.won_h),
            actual_h: Some(bet.paid_h),
            amount_h: settled.won_h.saturating_sub(bet.paid_h).max(0),
            message: format!(
                "bet {}: the casino withheld the win of {} (card counting) and returned the stake of {}; the decision must be justified",
                bet.bet_id,
                format_czk(settled.won_h),
                format_czk(bet.stake_h)
            ),
        });
    }
    let max_win = match bet.kind {
        BlackjackBetKind::PerfectPairs => Some(bp.perfect_pairs.max_win_h),
        // The plan's maximum is a blackjack on the largest bet: it speaks of one
        // undoubled hand, so doubled and split boxes are not held to it.
        BlackjackBetKind::Main if box_play.hands.len() == 1 && !box_play.hands[0].doubled => {
            Some(bp.max_win_h)
        }
        _ => None,
    };
    if let Some(max) = max_win.filter(|max| bet.paid_h > *max) {
        findings.push(Finding::win_above_maximum(
            &bet.bet_id,
            "paid",
            bet.paid_h,
            "maximum possible win",
            max,
        ));
    }
}

fn overflow() -> RecordError {
    RecordError::invalid("bets", "amounts too large to add up")
}

/// How one bet settles.
struct Settled {
    /// Everything the player staked on it (a main bet's doubles and splits included).
    staked_h: i64,
    /// What the plan says must be handed back.
    expected_h: i64,
    /// What the bet won before any withholding.
    won_h: i64,
    /// Why the bet could not be accepted at all (its stake is returned).
    refused: Option<&'static str>,
}

fn settle(
    bet: &BlackjackBet,
    b: &BlackjackBox,
    box_play: &PlayedBox,
    played: &Replay,
    bp: &BlackjackPlan,
) -> Result<Settled, RecordError> {
    let s = bet.stake_h;
    let main_of_player = b
        .bets
        .iter()
        .find(|m| m.kind == BlackjackBetKind::Main && m.player == bet.player);
    let refuse = |why| Settled {
        staked_h: s,
        expected_h: s,
        won_h: s,
        refused: Some(why),
    };
    let (staked_h, won_h) = match bet.kind {
        BlackjackBetKind::Main => main_bet(s, box_play, played, bp).ok_or_else(overflow)?,
        BlackjackBetKind::PerfectPairs => {
            if main_of_player.is_none() {
                return Ok(refuse(
                    "Perfect Pairs is played only with a main bet on the box",
                ));
            }
            let [a, c] = box_play.first_two;
            let pp = &bp.perfect_pairs;
            let odds = if a.rank() != c.rank() {
                None
            } else if a.suit() == c.suit() {
                Some(pp.perfect)
            } else if a.suit().is_red() == c.suit().is_red() {
                Some(pp.coloured)
            } else {
                Some(pp.mixed)
            };
            let returned = match odds {
                Some(n) => Odds { num: n, den: 1 }.pays(s).ok_or_else(overflow)?,
                None => 0,
            };
            (s, returned)
        }
        BlackjackBetKind::Insurance => {
            if played.dealer.first().map(|c| c.rank()) != Some(crate::cards::Rank::ACE) {
                return Ok(refuse("insurance is offered only on a dealer ace"));
            }
            let Some(main) = main_of_player else {
                return Ok(refuse("insurance needs the player's main bet on the box"));
            };
            let share = bp.insurance_max_fraction;
            let max = main
                .stake_h
                .checked_mul(i64::from(share.num))
                .ok_or_else(overflow)?
                / i64::from(share.den.max(1));
            if s > max {
                return Ok(refuse("insurance above the plan's share of the main bet"));
            }
            let returned = if played.dealer_blackjack() {
                bp.insurance_odds.pays(s).ok_or_else(overflow)?
            } else {
                0
            };
            (s, returned)
        }
    };
    Ok(Settled {
        staked_h,
        expected_h: if bet.withheld { s } else { won_h },
        won_h,
        refused: None,
    })
}

/// A main bet of `s` on a box: what it staked in all (doubles and splits add `s` again) and
/// what it must get back.
fn main_bet(
    s: i64,
    box_play: &PlayedBox,
    played: &Replay,
    bp: &BlackjackPlan,
) -> Option<(i64, i64)> {
    let dealer = played.dealer_total();
    let dealer_blackjack = played.dealer_blackjack();
    let mut staked = 0i64;
    let mut returned = 0i64;
    for hand in &box_play.hands {
        let hand_stake = if hand.doubled { s.checked_mul(2)? } else { s };
        staked = staked.checked_add(hand_stake)?;
        let total = hand.total();
        let back = if box_play.has_blackjack() {
            if dealer_blackjack {
                hand_stake
            } else {
                bp.blackjack_odds.pays(hand_stake)?
            }
        } else if dealer_blackjack || total.is_bust() {
            0
        } else if dealer.is_bust() || total.value() > dealer.value() {
            hand_stake.checked_mul(2)?
        } else if total.value() == dealer.value() {
            hand_stake
        } else {
            0
        };
        returned = returned.checked_add(back)?;
    }
    // Against a dealer blackjack the plan may take only the original bet.
    if dealer_blackjack
        && !box_play.has_blackjack()
        && bp.dealer_blackjack_takes == DealerBlackjackTakes::OriginalBetOnly
    {
        returned = staked.checked_sub(s)?;
    }
    Some((staked, returned))
}

fn check_payout(bet: &BlackjackBet, expected_h: i64, findings: &mut Vec<Finding>) {
    findings.extend(Finding::payout(
        &bet.bet_id,
        format_args!("bet {} ({})", bet.bet_id, bet.kind.as_str()),
        bet.paid_h,
        expected_h,
        "",
    ));
}

/// Limits of a box: main bets per player, all main bets of the box together, the number of
/// main bets, and the Perfect Pairs limits; inside the plan's, the limits the table posted.
fn check_box_limits(
    b: &BlackjackBox,
    bp: &BlackjackPlan,
    setup: &TableSetup,
    findings: &mut Vec<Finding>,
) {
    let posted = setup.posted_range("max_bet_h");
    let mains: Vec<&BlackjackBet> = b
        .bets
        .iter()
        .filter(|bet| bet.kind == BlackjackBetKind::Main)
        .collect();
    let limit = |kind, bet: &BlackjackBet, limit_h: i64, what: &str| Finding {
        kind,
        bet_ids: Some(vec![bet.bet_id.clone()]),
        expected_h: Some(limit_h),
        actual_h: Some(bet.stake_h),
        amount_h: (bet.stake_h - limit_h).abs(),
        message: format!(
            "bet {} ({}): stake {} {what} {}",
            bet.bet_id,
            bet.kind.as_str(),
            format_czk(bet.stake_h),
            format_czk(limit_h)
        ),
    };
    for bet in &mains {
        if bet.stake_h < bp.min_bet_h {
            findings.push(limit(
                FindingKind::StakeBelowMinimum,
                bet,
                bp.min_bet_h,
                "below the minimum of",
            ));
        } else if let Some(posted) = posted.filter(|p| bet.stake_h < p.min_h) {
            let what = format!("bet {} ({})", bet.bet_id, bet.kind.as_str());
            findings.extend(posted.judge(bet.stake_h, vec![bet.bet_id.clone()], &what));
        }
    }
    let box_total: i64 = mains
        .iter()
        .map(|bet| bet.stake_h)
        .fold(0, i64::saturating_add);
    if box_total > bp.box_max_h {
        findings.push(Finding::stakes_above_maximum(
            mains.iter().map(|bet| bet.bet_id.clone()).collect(),
            bp.box_max_h,
            box_total,
            format!(
                "box {}: main bets of {} together, above the box maximum of {}",
                b.box_no,
                format_czk(box_total),
                format_czk(bp.box_max_h)
            ),
        ));
    } else if let Some(posted) = posted.filter(|p| box_total > p.max_h) {
        let what = format!("box {}: main bets together", b.box_no);
        let ids = mains.iter().map(|bet| bet.bet_id.clone()).collect();
        findings.extend(posted.judge(box_total, ids, &what));
    }
    if mains.len() > usize::from(bp.max_bets_per_box) {
        findings.push(Finding {
            kind: FindingKind::BetNotAllowed,
            bet_ids: Some(mains.iter().map(|bet| bet.bet_id.clone()).collect()),
            expected_h: None,
            actual_h: None,
            amount_h: 0,
            message: format!(
                "box {}: {} main bets, the plan allows at most {} per box",
                b.box_no,
                mains.len(),
                bp.max_bets_per_box
            ),
        });
    }
    let pp = &bp.perfect_pairs;
    for bet in b
        .bets
        .iter()
        .filter(|bet| bet.kind == BlackjackBetKind::PerfectPairs)
    {
        if bet.stake_h < pp.min_bet_h {
            findings.push(limit(
                FindingKind::StakeBelowMinimum,
                bet,
                pp.min_bet_h,
                "below the minimum of",
            ));
        } else if bet.stake_h > pp.max_bet_h {
            findings.push(limit(
                FindingKind::StakeAboveMaximum,
                bet,
                pp.max_bet_h,
                "above the maximum of",
            ));
        } else if let Some(posted) = setup.posted_cap("perfect_pairs_max_h") {
            let what = format!("bet {} ({})", bet.bet_id, bet.kind.as_str());
            findings.extend(posted.judge(bet.stake_h, vec![bet.bet_id.clone()], &what));
        }
    }
}

/// The cards of the round: burns as the plan requires, and no card more often than the shoe
/// holds it.
fn check_cards(round: &BlackjackRound, bp: &BlackjackPlan, findings: &mut Vec<Finding>) {
    let expected_burns = usize::from(bp.burn_after_shuffle) * usize::from(round.shuffled)
        + usize::from(bp.burn_after_dealer_change) * usize::from(round.dealer_changed);
    findings.extend(Finding::burns(
        round.burned.len(),
        expected_burns,
        format_args!(
            "the plan burns {} after a shuffle and {} after a dealer change, {expected_burns} here",
            bp.burn_after_shuffle, bp.burn_after_dealer_change
        ),
    ));
    let mut seen = [0u8; 52];
    for card in round.burned.iter().chain(&round.deal) {
        let count = &mut seen[card.ordinal()];
        *count = count.saturating_add(1);
        if *count == bp.decks.saturating_add(1) {
            findings.push(Finding::note(
                FindingKind::CardsInconsistent,
                format!(
                    "{card} appears more than {} times, more than a {}-deck shoe holds",
                    bp.decks, bp.decks
                ),
            ));
        }
    }
}

/// Theoretical figures for RTP reports, over all the round's stakes (a main bet's doubles and
/// splits included, as in its actual RTP): the main bet loses the house edge of basic strategy
/// on its initial stake (the plan's figures, [`crate::rtp::BlackjackFigures`]); Perfect Pairs
/// and insurance return their exact RTP. Without figures for the plan's rules the round adds
/// nothing to the RTP stakes rather than a figure for part of its bets.
pub fn round_statistics(
    bp: &BlackjackPlan,
    figures: Option<&crate::rtp::figures::BlackjackFigures>,
    round: &BlackjackRound,
) -> crate::statistics::RoundStatistics {
    let Some(figures) = figures else {
        return crate::statistics::RoundStatistics::default();
    };
    let pairs = crate::rtp::bets::perfect_pairs(bp.decks, &bp.perfect_pairs);
    let insurance = crate::rtp::bets::insurance(bp.decks, bp.insurance_odds);
    let mut sum = StatisticsSum::default();
    for b in &round.boxes {
        // Each double and each split adds the main stake again.
        let added = b
            .hands
            .iter()
            .flatten()
            .filter(|d| matches!(d, Decision::Double | Decision::Split))
            .count() as i64;
        for bet in &b.bets {
            let s = bet.stake_h;
            match bet.kind {
                BlackjackBetKind::Main => {
                    let total = s.saturating_mul(added.saturating_add(1));
                    let edge_mh = (s as f64 * 1000.0 * figures.shoe.house_edge()).round();
                    let expected_mh = i128::from(total) * 1000 - edge_mh as i128;
                    // The moments are per initial bet: the doubles and splits are in them.
                    sum.add(
                        bet.kind.as_str(),
                        total,
                        expected_mh,
                        UnitMoments {
                            standard_deviation: figures.shoe.standard_deviation,
                            third_moment: figures.shoe.third_moment,
                        },
                    );
                }
                BlackjackBetKind::PerfectPairs | BlackjackBetKind::Insurance => {
                    let line = if bet.kind == BlackjackBetKind::Insurance {
                        &insurance
                    } else {
                        &pairs
                    };
                    sum.add(bet.kind.as_str(), s, line.rtp.of_amount_mh(s), line.moments);
                }
            }
        }
    }
    sum.finish()
}

impl Game for BlackjackRound {
    /// Structural checks; anything failing here is a malformed record (rejected, 4xx).
    fn validate(&self) -> Result<(), RecordError> {
        validate_identifier("shoe_id", &self.shoe_id)?;
        if self.boxes.is_empty() {
            return Err(RecordError::invalid(
                "boxes",
                "a round has at least one box",
            ));
        }
        if self.deal.len() > 6 * 52 || self.burned.len() > 52 {
            return Err(RecordError::invalid("deal", "more cards than a shoe holds"));
        }
        validate_positions(
            self.boxes.iter().map(|b| b.box_no),
            MAX_BOXES,
            "boxes",
            "box",
        )?;
        let mut ids: Vec<&str> = Vec::new();
        for (i, b) in self.boxes.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("boxes[{i}]"));
            // Each split ends a hand and starts two: 1 + 2 × splits hands are played.
            let splits = b
                .hands
                .iter()
                .flatten()
                .filter(|d| **d == Decision::Split)
                .count();
            if b.hands.len() != 2 * splits + 1 {
                return Err(at(RecordError::invalid(
                    "hands",
                    format!(
                        "{splits} splits make {} hands to record, not {}",
                        2 * splits + 1,
                        b.hands.len()
                    ),
                )));
            }
            if !b.bets.iter().any(|bet| bet.kind == BlackjackBetKind::Main) {
                return Err(at(RecordError::invalid(
                    "bets",
                    "a box in play has a main bet",
                )));
            }
            for (j, bet) in b.bets.iter().enumerate() {
                let at = |e: RecordError| at(e.within(format_args!("bets[{j}]")));
                validate_bet_id(&mut ids, &bet.bet_id).map_err(at)?;
                validate_identifier("player", &bet.player).map_err(at)?;
                validate_amount("stake_h", bet.stake_h).map_err(at)?;
                validate_amount("paid_h", bet.paid_h).map_err(at)?;
            }
        }
        Ok(())
    }

    fn reported_totals(&self) -> (i64, i64) {
        let bets = self.boxes.iter().flat_map(|b| &b.bets);
        reported_totals(bets.map(|b| (b.stake_h, b.paid_h)))
    }

    fn adjudicate<'a>(&'a self, plan: &'a Plan, setup: &'a TableSetup) -> Judged<'a> {
        adjudicate(plan.blackjack()?, plan, setup, self)
    }

    fn statistics(&self, plan: &Plan, _: &TableSetup) -> Statistics {
        if self.void.is_some() {
            return Ok(crate::statistics::RoundStatistics::default());
        }
        Ok(round_statistics(
            plan.blackjack()?,
            plan.theoretical.blackjack.as_ref(),
            self,
        ))
    }
}

impl GameRecord for BlackjackRound {
    const RECORD_TYPE: &'static str = "round";
    const CODES: &'static [GameCode] = &[GameCode::Blackjack];
}

pub mod record;
#[cfg(test)]
mod tests;
