//! Rebuilding a blackjack round from the recorded deal order and decisions: which card went to
//! which hand, which decisions broke a rule, what the dealer should have drawn.
//!
//! Deal order (European, no hole card): a first card to each box from left to right, the
//! dealer's card, a second card to each box; then each box plays its hands in order (a split
//! hand receives its second card when its turn comes); then the dealer draws.

use std::collections::VecDeque;

use super::points::{card_points, Total};
use super::record::{BlackjackRound, Decision};
use crate::cards::{Card, Rank};
use crate::error::RecordError;
use crate::plan::table_games::BlackjackPlan;

/// One hand as played to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedHand {
    pub cards: Vec<Card>,
    pub doubled: bool,
    /// Made by a split (so 21 in two cards is not a blackjack).
    pub from_split: bool,
}

impl PlayedHand {
    pub fn total(&self) -> Total {
        Total::of(&self.cards)
    }
}

/// A box as played: its first two cards and its final hands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedBox {
    pub first_two: [Card; 2],
    pub hands: Vec<PlayedHand>,
}

impl PlayedBox {
    /// A blackjack: 21 in the first two cards of an unsplit box.
    pub fn has_blackjack(&self) -> bool {
        self.hands.len() == 1
            && !self.hands[0].from_split
            && self.hands[0].cards.len() == 2
            && self.hands[0].total().value() == 21
    }
}

/// A rule the play broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayIssue {
    /// What happened, for the finding's message.
    pub message: String,
    pub dealer: bool,
}

/// The whole round rebuilt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    pub boxes: Vec<PlayedBox>,
    /// The dealer's hand as the plan has it drawn; bets are settled on it (cards drawn beyond
    /// it are a finding and do not count).
    pub dealer: Vec<Card>,
    pub issues: Vec<PlayIssue>,
}

impl Replay {
    pub fn dealer_total(&self) -> Total {
        Total::of(&self.dealer)
    }

    pub fn dealer_blackjack(&self) -> bool {
        self.dealer.len() == 2 && self.dealer_total().value() == 21
    }
}

struct Shoe<'r> {
    cards: std::slice::Iter<'r, Card>,
}

impl Shoe<'_> {
    fn next(&mut self, for_what: impl FnOnce() -> String) -> Result<Card, RecordError> {
        self.cards.next().copied().ok_or_else(|| {
            RecordError::impossible(
                "deal",
                format!("the deal has no card left for {}", for_what()),
            )
        })
    }
}

/// Replays the round; a deal too short for what the players did is a malformed record.
pub fn replay(round: &BlackjackRound, plan: &BlackjackPlan) -> Result<Replay, RecordError> {
    let mut shoe = Shoe {
        cards: round.deal.iter(),
    };
    let mut issues = Vec::new();
    let mut firsts = Vec::with_capacity(round.boxes.len());
    for b in &round.boxes {
        firsts.push(shoe.next(|| format!("box {}'s first card", b.box_no))?);
    }
    let up = shoe.next(|| "the dealer's card".into())?;
    let mut boxes = Vec::with_capacity(round.boxes.len());
    let mut seconds = Vec::with_capacity(round.boxes.len());
    for b in &round.boxes {
        seconds.push(shoe.next(|| format!("box {}'s second card", b.box_no))?);
    }
    for ((b, first), second) in round.boxes.iter().zip(firsts).zip(seconds) {
        let hands = play_box(
            b.box_no,
            &b.hands,
            [first, second],
            plan,
            &mut shoe,
            &mut issues,
        )?;
        boxes.push(PlayedBox {
            first_two: [first, second],
            hands,
        });
    }

    // With a hand still standing the dealer draws to 17. When every hand is settled already
    // (bust, or a blackjack), the dealer takes a second card only when something waits on a
    // dealer blackjack (an insurance bet, or a player's blackjack against an ace or a ten), and
    // may then stop or complete the hand.
    let mut dealer = vec![up];
    let all_bust = boxes
        .iter()
        .all(|b| b.has_blackjack() || b.hands.iter().all(|h| h.total().is_bust()));
    let up_can_blackjack = card_points(up) == 1 || card_points(up) == 10;
    let waiting = round.boxes.iter().any(|b| b.has_insurance())
        || (up_can_blackjack && boxes.iter().any(PlayedBox::has_blackjack));
    let rest: Vec<Card> = shoe.cards.copied().collect();
    let mut rest = rest.into_iter();
    let check_only = all_bust && waiting;
    if !all_bust || waiting {
        loop {
            let total = Total::of(&dealer);
            let must_draw = total.value() < 17
                || (total.value() == 17 && total.is_soft() && !plan.dealer_stands_soft_17);
            if !must_draw {
                break;
            }
            match rest.next() {
                Some(card) => dealer.push(card),
                // Only checking for blackjack, the dealer may stop after the second card.
                None if check_only && dealer.len() >= 2 => break,
                None => {
                    issues.push(PlayIssue {
                        message: format!(
                            "the dealer stood on {} but must draw to 17",
                            total.value()
                        ),
                        dealer: true,
                    });
                    break;
                }
            }
        }
    }
    let extra: Vec<Card> = rest.collect();
    if !extra.is_empty() {
        let total = Total::of(&dealer).value();
        issues.push(PlayIssue {
            message: if !all_bust || waiting {
                format!(
                    "the dealer drew {} on {total}, where the plan says stand",
                    list(&extra)
                )
            } else {
                format!(
                    "the dealer drew {} although every player hand was settled",
                    list(&extra)
                )
            },
            dealer: true,
        });
    }
    Ok(Replay {
        boxes,
        dealer,
        issues,
    })
}

fn list(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A hand being played.
struct Live {
    cards: Vec<Card>,
    doubled: bool,
    from_split: bool,
    /// Made by splitting aces: one card only, no decisions.
    split_aces: bool,
}

/// One box being played: the hands still to play (a split puts its halves first), the splits
/// made so far, the shoe the cards come from and where broken rules go.
struct BoxPlay<'p, 's, 'r> {
    box_no: u8,
    plan: &'p BlackjackPlan,
    shoe: &'s mut Shoe<'r>,
    issues: &'p mut Vec<PlayIssue>,
    pending: VecDeque<Live>,
    splits: u8,
}

fn play_box(
    box_no: u8,
    recorded: &[Vec<Decision>],
    first_two: [Card; 2],
    plan: &BlackjackPlan,
    shoe: &mut Shoe<'_>,
    issues: &mut Vec<PlayIssue>,
) -> Result<Vec<PlayedHand>, RecordError> {
    let mut play = BoxPlay {
        box_no,
        plan,
        shoe,
        issues,
        pending: VecDeque::from([Live {
            cards: first_two.to_vec(),
            doubled: false,
            from_split: false,
            split_aces: false,
        }]),
        splits: 0,
    };
    let mut done = Vec::new();
    let mut recorded = recorded.iter().enumerate();
    while let Some(mut hand) = play.pending.pop_front() {
        if hand.cards.len() == 1 {
            hand.cards
                .push(play.shoe.next(|| format!("a split hand of box {box_no}"))?);
        }
        let (n, decisions) = recorded.next().ok_or_else(|| {
            RecordError::impossible(
                "boxes",
                format!("box {box_no}: more hands were played than `hands` records"),
            )
        })?;
        play.play_hand(n, &mut hand, decisions)?;
        // A split replaces the hand by its two halves; anything else is a final hand.
        if !decisions.contains(&Decision::Split) {
            done.push(PlayedHand {
                cards: hand.cards,
                doubled: hand.doubled,
                from_split: hand.from_split,
            });
        } else if decisions.last() != Some(&Decision::Split) {
            play.illegal(
                n,
                "decisions after a split belong to the split hands".into(),
            );
        }
    }
    if let Some((n, _)) = recorded.next() {
        return Err(RecordError::impossible(
            "boxes",
            format!(
                "box {box_no}: `hands` records {} hands, the play made {n}",
                n + 1 + recorded.count()
            ),
        ));
    }
    Ok(done)
}

impl BoxPlay<'_, '_, '_> {
    fn illegal(&mut self, hand: usize, message: String) {
        self.issues.push(PlayIssue {
            message: format!("box {}, hand {}: {message}", self.box_no, hand + 1),
            dealer: false,
        })
    }

    /// Plays the recorded decisions of hand `n`, drawing its cards; a split ends it.
    fn play_hand(
        &mut self,
        n: usize,
        hand: &mut Live,
        decisions: &[Decision],
    ) -> Result<(), RecordError> {
        let box_no = self.box_no;
        let mut ended = false;
        for decision in decisions {
            self.check_hand_open(n, hand, *decision, ended);
            match decision {
                Decision::Stand => ended = true,
                Decision::Hit => {
                    if hand.doubled {
                        self.illegal(n, "hit after a double".into());
                    }
                    hand.cards
                        .push(self.shoe.next(|| format!("a hit on box {box_no}"))?);
                }
                Decision::Double => {
                    self.check_double(n, hand);
                    hand.doubled = true;
                    hand.cards
                        .push(self.shoe.next(|| format!("a double on box {box_no}"))?);
                    ended = true;
                }
                Decision::Split => {
                    self.split(n, hand);
                    break;
                }
            }
        }
        Ok(())
    }

    /// A decision on a hand that takes none: complete, a split ace, or 21 or more.
    fn check_hand_open(&mut self, n: usize, hand: &Live, decision: Decision, ended: bool) {
        let total = Total::of(&hand.cards);
        let what = decision.as_str();
        if ended {
            self.illegal(n, format!("`{what}` after the hand was complete"));
        } else if hand.split_aces {
            self.illegal(
                n,
                format!("`{what}` on a split ace, which takes one card only"),
            );
        } else if total.value() >= 21 && decision != Decision::Stand {
            let why = if total.is_bust() { "a bust hand" } else { "21" };
            self.illegal(n, format!("`{what}` on {why}"));
        }
    }

    fn check_double(&mut self, n: usize, hand: &Live) {
        if hand.cards.len() != 2 {
            self.illegal(n, "double on more than two cards".into());
        } else if hand.from_split && !self.plan.double_after_split {
            self.illegal(
                n,
                "double after a split, which the plan does not allow".into(),
            );
        }
    }

    /// Splits hand `n` into two hands played next, left one first.
    fn split(&mut self, n: usize, hand: &Live) {
        let pair =
            hand.cards.len() == 2 && card_points(hand.cards[0]) == card_points(hand.cards[1]);
        if !pair {
            self.illegal(
                n,
                "split of cards that are not a pair of equal value".into(),
            );
        } else if self.splits >= self.plan.max_splits {
            self.illegal(n, format!("more than {} splits", self.plan.max_splits));
        } else if hand.from_split && hand.cards[0].rank() == Rank::ACE {
            self.illegal(n, "aces split a second time".into());
        }
        self.splits = self.splits.saturating_add(1);
        let aces = hand.cards[0].rank() == Rank::ACE;
        let split = |card: Card| Live {
            cards: vec![card],
            doubled: false,
            from_split: true,
            split_aces: aces,
        };
        let right = hand.cards.get(1).copied();
        let left = hand.cards[0];
        if let Some(right) = right {
            self.pending.push_front(split(right));
        }
        self.pending.push_front(split(left));
    }
}
