//! The button and the big blind from hand to hand at a poker cash table (seeds 000–002): the
//! button moves one position clockwise every hand, under the dead-button rule ("Dead button se
//! definuje jako Button, který nelze posunout dopředu kvůli vyřazení Hráče nebo usazení nového
//! Hráče"), and the big blind moves on to the next player, so that nobody is skipped and nobody
//! is the big blind twice running ("aby nikdo nebyl na pozici velkého Blindu dvakrát za sebou").
//!
//! Seats are numbered clockwise, 1 to [`MAX_SEATS`]. A hand is compared with the record right
//! before it in the table's sequence only (`seq_no` one less); hands [`NEW_GAME_AFTER`] or more
//! apart are not compared: the game stopped, and the button is drawn again before its first
//! hand.

use chrono::Duration;
use smallvec::SmallVec;

use super::finding::{AuditFinding, AuditFindingKind, AuditedRound};
use crate::poker_cash::record::{ActionKind, PokerHand, Street, MAX_SEATS};

/// A pause this long or longer starts a new game.
pub const NEW_GAME_AFTER: Duration = Duration::minutes(60);

/// A hand's positions as the audit needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandPositions {
    /// The hand: its table, sequence number and when it was played.
    pub round: AuditedRound,
    pub button: u8,
    pub small_blind: Option<u8>,
    pub big_blind: Option<u8>,
    /// Played for time (no rake): the time collection audit looks for its period.
    pub for_time: bool,
    /// Each seat dealt in and a fingerprint of its player, so that a new player in a seat is
    /// not taken for the one before.
    pub seats: SmallVec<[(u8, u64); 10]>,
}

/// FNV-1a: a stable fingerprint of a player reference (no randomness, same on every machine).
fn fingerprint(player: &str) -> u64 {
    player.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl HandPositions {
    /// The positions of a hand that was played; `None` for a void hand and for one that cannot
    /// have happened (a button off the table, a blind from a seat not dealt in).
    pub fn of(hand: &PokerHand) -> Option<HandPositions> {
        if hand.void.is_some() || crate::game::Game::check_possible(hand).is_err() {
            return None;
        }
        let posted = |kind: ActionKind| {
            hand.actions
                .iter()
                .find(|a| a.action == kind && a.street == Street::Preflop)
                .map(|a| a.seat)
        };
        Some(HandPositions {
            round: AuditedRound::of(hand),
            button: hand.button,
            small_blind: posted(ActionKind::SmallBlind),
            big_blind: posted(ActionKind::BigBlind),
            for_time: hand.collection == crate::poker_cash::record::Collection::Time,
            seats: hand
                .seats
                .iter()
                .map(|s| (s.seat, fingerprint(&s.player)))
                .collect(),
        })
    }

    fn player(&self, seat: u8) -> Option<u64> {
        self.seats.iter().find(|s| s.0 == seat).map(|s| s.1)
    }
}

/// Seats from `from` clockwise to `to`: 0 when they are the same seat (in `u16`: a record's
/// seat numbers are checked before, but arithmetic on them never overflows).
fn clockwise(from: u8, to: u8) -> u16 {
    let seats = u16::from(MAX_SEATS);
    (u16::from(to) % seats + seats - u16::from(from) % seats) % seats
}

/// The findings for hand `current` against the table's hand before it.
pub fn compare(previous: &HandPositions, current: &HandPositions, out: &mut Vec<AuditFinding>) {
    // Only the hand right after in the table's sequence: with a record missing (or another
    // record between them) the positions in between are unknown.
    if !current.round.follows(&previous.round, NEW_GAME_AFTER) {
        return;
    }
    let mut found = |kind, message| {
        out.push(AuditFinding::after(
            kind,
            &current.round,
            &previous.round,
            message,
        ));
    };
    // A seat dealt in both hands to the same player.
    let continues = |seat: u8| {
        previous
            .player(seat)
            .is_some_and(|p| current.player(seat) == Some(p))
    };
    let Some(before) = previous.big_blind else {
        // A hand without a big blind is its own verdict's finding; nothing to follow from it.
        return;
    };
    if let Some(now) = current.big_blind {
        if now == before && continues(now) {
            found(
                AuditFindingKind::BigBlindOutOfTurn,
                format!(
                    "seat {now} posted the big blind in hand {} too: nobody is the big blind twice running",
                    previous.round.seq_no
                ),
            );
        } else {
            let passed: Vec<String> = current
                .seats
                .iter()
                .map(|s| s.0)
                .filter(|&seat| {
                    let d = clockwise(before, seat);
                    d > 0 && d < clockwise(before, now) && continues(seat)
                })
                .map(|seat| seat.to_string())
                .collect();
            if !passed.is_empty() {
                found(
                    AuditFindingKind::BigBlindOutOfTurn,
                    format!(
                        "the big blind moved from seat {before} to seat {now}, passing over seat {} dealt in both hands",
                        passed.join(", ")
                    ),
                );
            }
        }
    }
    // The button moves one position: onto the seat of the previous small blind when that
    // player plays on, and never past the previous big blind. Heads-up the button posts the
    // small blind, and may have to move on so that nobody is the big blind twice running
    // ("může být potřeba Button posunout"): only the limit applies.
    let moved = clockwise(previous.button, current.button);
    let heads_up = current.seats.len() == 2;
    let expected = previous
        .small_blind
        .filter(|&s| s != previous.button && !heads_up && continues(s));
    let wrong = match expected {
        Some(seat) => current.button != seat,
        None => moved == 0 || moved > clockwise(previous.button, before),
    };
    if wrong {
        found(
            AuditFindingKind::ButtonOutOfTurn,
            match expected {
                Some(seat) => format!(
                    "the button went from seat {} to seat {}; it moves one position clockwise each hand, to seat {seat}, the small blind of hand {}",
                    previous.button, current.button, previous.round.seq_no
                ),
                None => format!(
                    "the button went from seat {} to seat {}; it moves one position clockwise each hand, and no further than seat {before}, the big blind of hand {}",
                    previous.button, current.button, previous.round.seq_no
                ),
            },
        );
    }
}
