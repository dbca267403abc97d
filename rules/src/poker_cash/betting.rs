//! Re-playing a hand's betting: whose turn it is, what each action may be, what each seat put
//! in. Every breach is a finding; the chips are followed as the table moved them.

use super::record::{ActionKind, PokerAction, PokerHand, Street};
use crate::money::format_czk;
use crate::verdict::{Finding, FindingKind};

/// What the betting left behind.
#[derive(Debug, Clone)]
pub struct Played {
    /// Seats clockwise from the first left of the button.
    pub order: Vec<u8>,
    pub put_in: Vec<i64>,
    pub folded: Vec<bool>,
    /// The hand went to a showdown (more than one player left when the betting ended).
    pub showdown: bool,
    /// The last street reached.
    pub last_street: Street,
}

impl Played {
    fn index(&self, seat: u8) -> Option<usize> {
        self.order.iter().position(|&s| s == seat)
    }

    pub fn put_in(&self, seat: u8) -> i64 {
        self.index(seat).map_or(0, |i| self.put_in[i])
    }
}

#[derive(Debug, Clone, Default)]
struct SeatState {
    left: i64,
    street_in: i64,
    put_in: i64,
    folded: bool,
    all_in: bool,
    /// Must still act in this betting round.
    needs_action: bool,
    /// May raise: a full bet or raise came since it last acted.
    can_raise: bool,
}

struct Table<'a> {
    hand: &'a PokerHand,
    order: Vec<u8>,
    seats: Vec<SeatState>,
    street: Street,
    current_bet: i64,
    last_increment: i64,
    /// Index of the seat that acted last.
    pointer: usize,
    findings: &'a mut Vec<Finding>,
}

fn illegal(seat: Option<u8>, message: String) -> Finding {
    Finding {
        kind: FindingKind::IllegalDecision,
        bet_ids: seat.map(|s| vec![format!("seat-{s}")]),
        expected_h: None,
        actual_h: None,
        amount_h: 0,
        message,
    }
}

impl Table<'_> {
    fn active(&self, i: usize) -> bool {
        !self.seats[i].folded && !self.seats[i].all_in
    }

    fn in_hand(&self) -> usize {
        self.seats.iter().filter(|s| !s.folded).count()
    }

    /// The next seat after the pointer that must act, clockwise.
    fn next_to_act(&self) -> Option<usize> {
        let n = self.order.len();
        (1..=n)
            .map(|k| (self.pointer + k) % n)
            .find(|&i| self.active(i) && self.seats[i].needs_action)
    }

    fn pay(&mut self, i: usize, to: i64) {
        let s = &mut self.seats[i];
        let more = (to - s.street_in).max(0);
        s.left -= more;
        s.street_in += more;
        s.put_in += more;
        if s.left <= 0 {
            s.all_in = true;
            s.needs_action = false;
        }
    }

    fn start_street(&mut self, street: Street) {
        self.street = street;
        self.current_bet = 0;
        self.last_increment = self.hand.big_blind_h;
        let playing = (0..self.seats.len()).filter(|&i| self.active(i)).count();
        for s in &mut self.seats {
            s.street_in = 0;
            s.needs_action = !s.folded && !s.all_in && playing > 1;
            s.can_raise = true;
        }
        // Betting after the flop starts left of the button: the pointer sits on the button.
        self.pointer = self.order.len() - 1;
    }

    /// Posts the blinds at the start of the hand; returns how many actions they took. Seeds
    /// 001/002: a hand may start without a small blind (its seat left or sits out: the first seat
    /// dealt in left of the button posts the big blind), never without a big blind; a player
    /// entering the game may post a big blind from any seat, a live bet of the round.
    fn post_blinds(&mut self, actions: &[PokerAction]) -> usize {
        let no_small = actions
            .first()
            .is_some_and(|a| a.action != ActionKind::SmallBlind);
        // The blinds' positions among the seats that may be there: a player dealt in between
        // the button and the big blind is named, not the blinds posted after them.
        let newcomers = self.between_button_and_big_blind(actions, no_small);
        for &i in &newcomers {
            let seat = self.order[i];
            self.findings.push(illegal(
                Some(seat),
                format!(
                    "seat {seat} is dealt in between the button (seat {}) and the big blind: \
                     „Nikdy nemůže nový hráč začít hrát mezi buttonem a big blindem“",
                    self.hand.button
                ),
            ));
        }
        let placed: Vec<usize> = (0..self.order.len())
            .filter(|i| !newcomers.contains(i))
            .collect();
        let n = placed.len();
        // Heads-up the button posts the small blind and the other seat the big blind.
        let (small, big) = if n == 2 || no_small { (1, 0) } else { (0, 1) };
        let mut taken = 0;
        let mut last_poster = None;
        for (kind, position, amount) in [
            (ActionKind::SmallBlind, small, self.hand.small_blind_h),
            (ActionKind::BigBlind, big, self.hand.big_blind_h),
            (
                ActionKind::Straddle,
                (big + 1) % n,
                2 * self.hand.big_blind_h,
            ),
        ] {
            let Some(a) = actions.get(taken).filter(|a| a.action == kind) else {
                if kind == ActionKind::BigBlind {
                    self.findings
                        .push(illegal(None, "the hand starts without a big blind".into()));
                }
                continue;
            };
            taken += 1;
            let seat = self.order[placed[position]];
            if a.seat != seat {
                self.findings.push(illegal(
                    Some(a.seat),
                    format!(
                        "{} posted by seat {}, but seat {seat} is in that position",
                        kind.as_str(),
                        a.seat
                    ),
                ));
            }
            let i = self
                .order
                .iter()
                .position(|&s| s == a.seat)
                .unwrap_or(placed[position]);
            let to = a.to_h.unwrap_or(amount);
            let allowed = amount.min(self.seats[i].left);
            if to != allowed {
                self.findings.push(illegal(
                    Some(a.seat),
                    format!(
                        "{} of {}, the table's is {}",
                        kind.as_str(),
                        format_czk(to),
                        format_czk(amount)
                    ),
                ));
            }
            self.pay(i, to);
            self.current_bet = self.current_bet.max(to);
            if kind == ActionKind::Straddle {
                self.last_increment = to;
            }
            last_poster = Some(i);
        }
        // Big blinds posted to enter the game, by seats that posted nothing yet.
        while let Some(a) = actions
            .get(taken)
            .filter(|a| a.action == ActionKind::BigBlind && a.street == Street::Preflop)
        {
            let Some(i) = self.order.iter().position(|&s| s == a.seat) else {
                break;
            };
            if self.seats[i].street_in > 0 {
                break;
            }
            taken += 1;
            let amount = self.hand.big_blind_h;
            let to = a.to_h.unwrap_or(amount);
            if to != amount.min(self.seats[i].left) {
                self.findings.push(illegal(
                    Some(a.seat),
                    format!(
                        "an entering big blind of {}, the table's is {}",
                        format_czk(to),
                        format_czk(amount)
                    ),
                ));
            }
            self.pay(i, to);
            self.current_bet = self.current_bet.max(to);
        }
        for i in 0..self.order.len() {
            let active = self.active(i);
            self.seats[i].needs_action = active;
            self.seats[i].can_raise = true;
        }
        self.pointer = last_poster.unwrap_or(placed[big]);
        taken
    }

    /// Seed 001, Pravidla používání blindů 6: "Nikdy nemůže nový hráč začít hrát mezi buttonem
    /// a big blindem." The places in `order` of the seats dealt in between the button and the
    /// seat that posted the big blind, other than the small blind's: nobody may sit there but
    /// the small blind (heads-up: nobody). Empty when the blinds are not in order (a small
    /// blind after the big one, not on the button), where the blinds' own positions are what
    /// is wrong.
    fn between_button_and_big_blind(&self, actions: &[PokerAction], no_small: bool) -> Vec<usize> {
        let at = |seat: u8| self.order.iter().position(|&s| s == seat);
        let (small, big) = if no_small {
            (None, actions.first())
        } else {
            (actions.first(), actions.get(1))
        };
        let Some(big_at) = big
            .filter(|a| a.action == ActionKind::BigBlind && a.street == Street::Preflop)
            .and_then(|a| at(a.seat))
        else {
            return Vec::new();
        };
        let small_at = small.and_then(|a| at(a.seat));
        // Heads-up the button posts the small blind: it is last in `order`, after the big.
        let small_on_button = small.is_some_and(|a| a.seat == self.hand.button);
        if small_at.is_some_and(|s| s >= big_at && !small_on_button) {
            return Vec::new();
        }
        (0..big_at).filter(|&i| Some(i) != small_at).collect()
    }

    fn act(&mut self, a: &PokerAction) {
        let Some(i) = self.order.iter().position(|&s| s == a.seat) else {
            return;
        };
        if !self.may_act(i, a) {
            return;
        }
        self.check_turn(i, a);
        let to_call = self.current_bet - self.seats[i].street_in;
        let everything = self.seats[i].street_in + self.seats[i].left;
        match a.action {
            ActionKind::Fold => self.seats[i].folded = true,
            ActionKind::Check => {
                if to_call > 0 {
                    self.findings.push(illegal(
                        Some(a.seat),
                        format!(
                            "seat {} checks facing {} to call",
                            a.seat,
                            format_czk(to_call)
                        ),
                    ));
                }
            }
            ActionKind::Call => {
                if to_call <= 0 {
                    self.findings.push(illegal(
                        Some(a.seat),
                        format!("seat {} calls with nothing to call", a.seat),
                    ));
                }
                let to = self.current_bet.min(everything);
                self.pay(i, to);
            }
            ActionKind::SmallBlind | ActionKind::BigBlind | ActionKind::Straddle => {
                self.findings.push(illegal(
                    Some(a.seat),
                    format!("{} after the blinds were posted", a.action.as_str()),
                ));
            }
            ActionKind::Bet | ActionKind::Raise | ActionKind::AllIn => {
                if !self.bet(i, a, everything) {
                    return;
                }
            }
        }
        self.seats[i].needs_action = false;
        self.seats[i].can_raise = false;
        self.pointer = i;
    }

    /// A seat that folded or went all in takes no more actions.
    fn may_act(&mut self, i: usize, a: &PokerAction) -> bool {
        if self.seats[i].folded {
            self.findings.push(illegal(
                Some(a.seat),
                format!("seat {} acts ({}) after folding", a.seat, a.action.as_str()),
            ));
            return false;
        }
        if self.seats[i].all_in {
            self.findings.push(illegal(
                Some(a.seat),
                format!(
                    "seat {} acts ({}) after going all in",
                    a.seat,
                    a.action.as_str()
                ),
            ));
            return false;
        }
        true
    }

    /// Seat `i` acts in its turn, and while the street's betting is open.
    fn check_turn(&mut self, i: usize, a: &PokerAction) {
        match self.next_to_act() {
            Some(next) if next != i => self.findings.push(illegal(
                Some(a.seat),
                format!(
                    "seat {} acts out of turn on the {}: seat {} is to act",
                    a.seat,
                    self.street.as_str(),
                    self.order[next]
                ),
            )),
            None => self.findings.push(illegal(
                Some(a.seat),
                format!(
                    "seat {} acts ({}) after the {} betting was over",
                    a.seat,
                    a.action.as_str(),
                    self.street.as_str()
                ),
            )),
            _ => {}
        }
    }

    /// A bet, raise or all-in by seat `i`, which has `everything` for this street; false when
    /// the record gives no amount (the action is passed over).
    fn bet(&mut self, i: usize, a: &PokerAction, everything: i64) -> bool {
        let to = match (a.action, a.to_h) {
            (ActionKind::AllIn, None) => everything,
            (_, Some(to)) => to,
            (_, None) => {
                self.findings.push(illegal(
                    Some(a.seat),
                    format!("seat {}: a {} without an amount", a.seat, a.action.as_str()),
                ));
                return false;
            }
        };
        if a.action == ActionKind::AllIn && to != everything {
            self.findings.push(illegal(
                Some(a.seat),
                format!(
                    "seat {} all in to {}, but has {} in all",
                    a.seat,
                    format_czk(to),
                    format_czk(everything)
                ),
            ));
        }
        if to <= self.current_bet {
            if a.action != ActionKind::AllIn {
                self.findings.push(illegal(
                    Some(a.seat),
                    format!(
                        "seat {}: a {} to {} does not exceed the bet of {}",
                        a.seat,
                        a.action.as_str(),
                        format_czk(to),
                        format_czk(self.current_bet)
                    ),
                ));
            }
            self.pay(i, to);
        } else {
            self.raise(i, a, to, to == everything);
        }
        true
    }

    fn raise(&mut self, i: usize, a: &PokerAction, to: i64, all_in: bool) {
        let increment = to - self.current_bet;
        let full = increment >= self.last_increment;
        let minimum = self.current_bet + self.last_increment;
        if !full && !all_in {
            self.findings.push(illegal(
                Some(a.seat),
                if self.current_bet == 0 {
                    format!(
                        "seat {} bets {}, below the minimum bet of {} (the big blind)",
                        a.seat,
                        format_czk(to),
                        format_czk(self.last_increment)
                    )
                } else {
                    format!(
                        "seat {} raises to {}, below the minimum raise to {} ({} + the last raise of {})",
                        a.seat,
                        format_czk(to),
                        format_czk(minimum),
                        format_czk(self.current_bet),
                        format_czk(self.last_increment)
                    )
                },
            ));
        }
        if !self.seats[i].can_raise {
            self.findings.push(illegal(
                Some(a.seat),
                format!(
                    "seat {} raises, but the betting was not reopened to it (an all in short of a full raise)",
                    a.seat
                ),
            ));
        }
        self.pay(i, to);
        self.current_bet = to;
        for j in 0..self.seats.len() {
            if j != i && self.active(j) {
                self.seats[j].needs_action = true;
                // Only a full raise lets those who have acted raise again.
                if full {
                    self.seats[j].can_raise = true;
                }
            }
        }
        if full {
            self.last_increment = increment;
        }
    }
}

/// Re-plays the betting of `hand`, pushing a finding for each breach.
pub fn replay(hand: &PokerHand, findings: &mut Vec<Finding>) -> Played {
    let order = hand.left_of_button();
    let seats = order
        .iter()
        .map(|&s| SeatState {
            left: hand.seat(s).map_or(0, |x| x.stack_h),
            ..SeatState::default()
        })
        .collect();
    let mut t = Table {
        hand,
        order,
        seats,
        street: Street::Preflop,
        current_bet: 0,
        last_increment: hand.big_blind_h,
        pointer: 0,
        findings,
    };
    let taken = t.post_blinds(&hand.actions);
    let mut over = false;
    for a in &hand.actions[taken..] {
        if over {
            t.findings.push(illegal(
                Some(a.seat),
                format!(
                    "seat {} acts ({}) after the hand was won uncontested",
                    a.seat,
                    a.action.as_str()
                ),
            ));
            continue;
        }
        if a.street < t.street {
            t.findings.push(illegal(
                Some(a.seat),
                format!(
                    "a {} action after the {} had begun",
                    a.street.as_str(),
                    t.street.as_str()
                ),
            ));
            continue;
        }
        while a.street > t.street {
            if let Some(i) = t.next_to_act() {
                t.findings.push(illegal(
                    Some(t.order[i]),
                    format!(
                        "the {} betting ended before seat {} acted",
                        t.street.as_str(),
                        t.order[i]
                    ),
                ));
            }
            match t.street.next() {
                Some(next) => t.start_street(next),
                None => break,
            }
        }
        t.act(a);
        if t.in_hand() <= 1 {
            over = true;
        }
    }
    if !over {
        if let Some(i) = t.next_to_act() {
            t.findings.push(illegal(
                Some(t.order[i]),
                format!(
                    "the hand ends before seat {} acted on the {}",
                    t.order[i],
                    t.street.as_str()
                ),
            ));
        }
        // Later streets are dealt without betting only when at most one player can still bet.
        let can_bet = (0..t.seats.len()).filter(|&i| t.active(i)).count();
        if t.street < Street::River && can_bet > 1 {
            t.findings.push(illegal(
                None,
                format!(
                    "the betting stops on the {} with {can_bet} players still able to bet",
                    t.street.as_str()
                ),
            ));
        }
    }
    Played {
        put_in: t.seats.iter().map(|s| s.put_in).collect(),
        folded: t.seats.iter().map(|s| s.folded).collect(),
        showdown: !over,
        last_street: t.street,
        order: t.order,
    }
}
