//! Who paid in how, and when: each player's first payment a buy-in, every price the announced
//! one, re-entries, rebuys and add-ons only where the tournament's format allows them and only
//! during registration, and players knocked out in one hand ranked by their chips at its start.

use std::collections::HashMap;

use super::record::{EntryKind, Format, TournamentRecord};
use crate::money::format_czk;
use crate::verdict::{Finding, FindingKind};

pub(super) fn check(t: &TournamentRecord, findings: &mut Vec<Finding>) {
    let mut seen: HashMap<&str, (u32, u32)> = HashMap::new(); // rebuys, add-ons
    for (i, e) in t.entries.iter().enumerate() {
        let what = |m: String| format!("entries[{i}] ({}): {m}", e.player);
        let first = !seen.contains_key(e.player.as_str());
        let counts = seen.entry(&e.player).or_insert((0, 0));
        let mut problems: Vec<String> = Vec::new();
        let mut illegal = |m: String| problems.push(m);
        if first && e.kind != EntryKind::BuyIn {
            illegal(format!("a {:?} before the player's buy-in", e.kind));
        }
        if !first && e.kind == EntryKind::BuyIn {
            illegal("a second buy-in (a re-entry must be recorded as one)".into());
        }
        if e.at > t.registration_closes_at {
            illegal(format!(
                "{:?} after registration closed at {}",
                e.kind,
                t.registration_closes_at.format("%Y-%m-%d %H:%M")
            ));
        }
        let allowed = matches!(
            (t.format, e.kind),
            (_, EntryKind::BuyIn)
                | (Format::ReEntry, EntryKind::ReEntry)
                | (
                    Format::OneRebuy | Format::UnlimitedRebuysAddOn,
                    EntryKind::Rebuy
                )
                | (Format::UnlimitedRebuysAddOn, EntryKind::AddOn)
        );
        if !allowed {
            findings.push(Finding::new(
                FindingKind::BetNotAllowed,
                Some(&e.player),
                None,
                None,
                what(format!("a {:?} in a {:?} tournament", e.kind, t.format)),
            ));
        }
        match e.kind {
            EntryKind::Rebuy => {
                counts.0 += 1;
                if t.format == Format::OneRebuy && counts.0 > 1 {
                    illegal("a second rebuy in a one-rebuy tournament".into());
                }
                match e.stack_before {
                    Some(stack) if stack > t.starting_stack => illegal(format!(
                        "a rebuy with {stack} chips, more than the starting stack of {}",
                        t.starting_stack
                    )),
                    None => illegal("a rebuy without the player's chips before it".into()),
                    _ => {}
                }
            }
            EntryKind::ReEntry => {
                if e.stack_before != Some(0) && !e.chips_returned {
                    illegal("a re-entry while the player still had chips (not handed back)".into());
                }
            }
            EntryKind::AddOn => {
                counts.1 += 1;
                if counts.1 > 1 {
                    illegal("a second add-on".into());
                }
            }
            EntryKind::BuyIn => {}
        }
        for m in problems {
            findings.push(Finding::new(
                FindingKind::IllegalDecision,
                Some(&e.player),
                None,
                None,
                what(m),
            ));
        }
        let price = match e.kind {
            EntryKind::BuyIn | EntryKind::ReEntry => Some(t.buy_in_h),
            EntryKind::Rebuy => t.rebuy_h,
            EntryKind::AddOn => t.add_on_h,
        };
        match price {
            Some(p) if p != e.amount_h => findings.push(Finding::new(
                if e.amount_h > p {
                    FindingKind::StakeAboveMaximum
                } else {
                    FindingKind::StakeBelowMinimum
                },
                Some(&e.player),
                Some(p),
                Some(e.amount_h),
                what(format!(
                    "paid {} for a {:?} announced at {}",
                    format_czk(e.amount_h),
                    e.kind,
                    format_czk(p)
                )),
            )),
            None => findings.push(Finding::new(
                FindingKind::BetNotAllowed,
                Some(&e.player),
                None,
                Some(e.amount_h),
                what(format!(
                    "a {:?}, which this tournament does not price",
                    e.kind
                )),
            )),
            _ => {}
        }
    }
    check_eliminations(t, findings);
}

/// Players knocked out in the same hand: more chips at its start places higher (seed 001,
/// rule 30). A player missing from the results placed below every listed place.
fn check_eliminations(t: &TournamentRecord, findings: &mut Vec<Finding>) {
    let place = |player: &str| {
        t.results
            .iter()
            .find(|r| r.player == player)
            .map_or(u32::MAX, |r| r.place)
    };
    let shown = |place: u32| {
        if place == u32::MAX {
            "not placed".to_owned()
        } else {
            place.to_string()
        }
    };
    for (i, a) in t.eliminations.iter().enumerate() {
        for b in &t.eliminations[i + 1..] {
            if a.hand != b.hand || a.stack_at_hand_start == b.stack_at_hand_start {
                continue;
            }
            let (bigger, smaller) = if a.stack_at_hand_start > b.stack_at_hand_start {
                (a, b)
            } else {
                (b, a)
            };
            let (pb, ps) = (place(&bigger.player), place(&smaller.player));
            if pb > ps {
                findings.push(Finding::new(
                    FindingKind::IllegalDecision,
                    Some(&bigger.player),
                    None,
                    None,
                    format!(
                        "{} started hand {} with {} chips, {} with {}: knocked out together, {} places higher, not {} against {}",
                        bigger.player,
                        a.hand,
                        bigger.stack_at_hand_start,
                        smaller.player,
                        smaller.stack_at_hand_start,
                        bigger.player,
                        shown(pb),
                        shown(ps)
                    ),
                ));
            }
        }
    }
}
