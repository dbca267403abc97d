//! A misdeal declared too late. Seeds 000–002: a misdeal is one "pouze v případě, že se na chybu
//! přijde dříve … než dva Hráči rozehrají hru (provedou jakoukoliv akci – Bet/Fold/Call…)";
//! "V okamžiku, kdy jednali dva a více Hráčů, již nemůže nastat Misdeal. Hra se musí dohrát s
//! kartami tak, jak byly rozdány" and (seed 001) "Blindy se potom nevrací ani hráčům, kteří mají
//! např. jenom jednu kartu". A hand the record shows two players acted in, declared a misdeal
//! and its chips handed back, is a finding for every chip that went back.

use crate::money::format_czk;
use crate::verdict::{Finding, FindingKind};

use super::record::{ActionKind, PokerHand};

/// The seats that acted in the hand: any action of their own choosing (not a blind or a
/// straddle, which are posted before the cards), each seat once, in the order they first acted.
fn acted(hand: &PokerHand) -> Vec<u8> {
    let mut seats = Vec::new();
    for a in &hand.actions {
        let forced = matches!(
            a.action,
            ActionKind::SmallBlind | ActionKind::BigBlind | ActionKind::Straddle
        );
        if !forced && !seats.contains(&a.seat) {
            seats.push(a.seat);
        }
    }
    seats
}

/// The finding for a hand declared a misdeal after two or more players had acted: what went
/// back to the players (the blinds among it), which the plan says must be played for. `None`
/// when fewer than two acted (the misdeal stands) or nothing went back.
pub(super) fn too_late(hand: &PokerHand) -> Option<Finding> {
    let seats = acted(hand);
    if seats.len() < 2 {
        return None;
    }
    let returned_h = hand
        .awards
        .iter()
        .fold(0i64, |sum, a| sum.saturating_add(a.amount_h));
    if returned_h == 0 {
        return None;
    }
    let blinds_h = hand
        .actions
        .iter()
        .filter_map(|a| match a.action {
            ActionKind::SmallBlind => Some(a.to_h.unwrap_or(hand.small_blind_h)),
            ActionKind::BigBlind => Some(a.to_h.unwrap_or(hand.big_blind_h)),
            _ => None,
        })
        .fold(0i64, i64::saturating_add);
    let list: Vec<String> = seats.iter().map(u8::to_string).collect();
    Some(Finding::new(
        FindingKind::VoidHandledWrongly,
        None,
        Some(0),
        Some(returned_h),
        format!(
            "the hand was declared a misdeal after {} players had acted (seats {}): „V okamžiku, \
             kdy jednali dva a více Hráčů, již nemůže nastat Misdeal. Hra se musí dohrát s kartami \
             tak, jak byly rozdány“ and „Blindy se potom nevrací“; {} went back to the players \
             that the plan says must be played for (blinds of {} were posted)",
            seats.len(),
            list.join(", "),
            format_czk(returned_h),
            format_czk(blinds_h)
        ),
    ))
}
