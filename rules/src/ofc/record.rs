//! The hand record of Pineapple Open Face Chinese, and its structural checks (a record that
//! fails them is refused, not judged).

use serde::{Deserialize, Serialize};

use crate::cards::{Card, CardSet};
use crate::error::RecordError;
use crate::examined::Examined;
use crate::money::MAX_AMOUNT_H;
use crate::poker_cash::record::Collection;
use crate::round_header::{round_record, validate_identifier};

/// The verdict names each player's line by their place in the record.
pub(super) const PLAYER_IDS: [&str; 3] = ["player-1", "player-2", "player-3"];

/// Cards of each dealing round outside fantasy land: five, then four times three (one of each
/// three discarded).
pub const NORMAL_DEAL: [usize; 5] = [5, 3, 3, 3, 3];

round_record! {
    /// One hand as the table reports it.
    pub struct OfcHand examined {
        /// In dealing order from the button.
        pub players: Vec<OfcPlayer>,
        /// The money value of one point, agreed for each pair of players.
        pub point_values: Vec<PointValue>,
        /// The players agreed a stop-loss: no one wins or loses more than their stack.
        #[serde(default)]
        pub stop_loss: bool,
        /// A hand of this tournament: points are tournament chips (no money value), no rake; the
        /// tournament's money is in its own record.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tournament_id: Option<String>,
        #[serde(default)]
        pub collection: Collection,
        /// What cannot have happened, as found when the record was read (not part of it).
        #[serde(skip)]
        pub examined: Examined,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfcPlayer {
    pub player: String,
    /// Money in front of the player when the hand started (needed with a stop-loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack_h: Option<i64>,
    /// Dealt as fantasy land: all cards at once.
    #[serde(default)]
    pub fantasy: bool,
    /// The cards as dealt: five, then four times three; in fantasy land one group of 14–17.
    pub deal: Vec<Vec<Card>>,
    pub front: Vec<Card>,
    pub middle: Vec<Card>,
    pub back: Vec<Card>,
    /// The dealt cards not set in a row.
    pub discards: Vec<Card>,
    /// What the player won (positive) or lost (negative) against the others, rake excluded.
    pub net_h: i64,
    /// The rake taken from the player for this hand.
    pub rake_h: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointValue {
    pub players: [String; 2],
    pub point_h: i64,
}

/// More groups than a normal deal (five cards, then four times three) has.
const MAX_DEAL_GROUPS: usize = 5;

impl OfcHand {
    pub fn validate(&self) -> Result<(), RecordError> {
        if let Some(id) = &self.tournament_id {
            validate_identifier("tournament_id", id)?;
        }
        if !(2..=3).contains(&self.players.len()) {
            return Err(RecordError::invalid(
                "players",
                "a hand is played by 2 or 3 players",
            ));
        }
        for (i, p) in self.players.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("players[{i}]"));
            validate_identifier("player", &p.player).map_err(at)?;
            // Sizes a reader must bound; the right shape is for find_impossible.
            let placed = p.front.len() + p.middle.len() + p.back.len() + p.discards.len();
            let dealt: usize = p.deal.iter().map(Vec::len).sum();
            if p.deal.len() > MAX_DEAL_GROUPS || dealt > 52 || placed > 52 {
                return Err(at(RecordError::invalid(
                    "deal",
                    format!("at most {MAX_DEAL_GROUPS} groups and 52 cards dealt and placed"),
                )));
            }
            if self.players[..i].iter().any(|q| q.player == p.player) {
                return Err(at(RecordError::invalid("player", "listed twice")));
            }
            if p.net_h.unsigned_abs() > MAX_AMOUNT_H as u64 {
                return Err(at(RecordError::invalid(
                    "net_h",
                    format!("exceeds the absolute limit of {MAX_AMOUNT_H} h"),
                )));
            }
            crate::money::validate_amount("rake_h", p.rake_h).map_err(at)?;
            match p.stack_h {
                Some(stack) => {
                    crate::money::validate_amount("stack_h", stack).map_err(at)?;
                }
                None if self.stop_loss => {
                    return Err(at(RecordError::invalid(
                        "stack_h",
                        "is required with a stop-loss",
                    )))
                }
                None => {}
            }
        }
        let mut pairs = Vec::new();
        for (i, v) in self.point_values.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("point_values[{i}]"));
            let [a, b] = &v.players;
            let known = |name: &String| self.players.iter().position(|p| &p.player == name);
            let (Some(x), Some(y)) = (known(a), known(b)) else {
                return Err(at(RecordError::invalid(
                    "players",
                    "names a player not in the hand",
                )));
            };
            if x == y {
                return Err(at(RecordError::invalid("players", "two different players")));
            }
            let pair = (x.min(y), x.max(y));
            if pairs.contains(&pair) {
                return Err(at(RecordError::invalid(
                    "players",
                    "this pair has two point values",
                )));
            }
            pairs.push(pair);
            if crate::money::validate_amount("point_h", v.point_h).map_err(at)? == 0 {
                return Err(at(RecordError::invalid("point_h", "must be positive")));
            }
        }
        let n = self.players.len();
        if pairs.len() != n * (n - 1) / 2 {
            return Err(RecordError::invalid(
                "point_values",
                "every pair of players needs its point value",
            ));
        }
        Ok(())
    }

    /// What the hand's cards say that cannot have happened: rows of the wrong size, a deal of
    /// the wrong shape, a card twice from the one deck. Kept as evidence with a finding.
    pub(super) fn find_impossible(&self) -> Result<(), RecordError> {
        let mut all = CardSet::default();
        for (i, p) in self.players.iter().enumerate() {
            let at = |e: RecordError| e.within(format_args!("players[{i}]"));
            for (row, cards, len) in [
                ("front", &p.front, 3),
                ("middle", &p.middle, 5),
                ("back", &p.back, 5),
            ] {
                if cards.len() != len {
                    return Err(at(RecordError::impossible(
                        row,
                        format!("the {row} row holds {len} cards, not {}", cards.len()),
                    )));
                }
            }
            let sizes: Vec<usize> = p.deal.iter().map(Vec::len).collect();
            let shape_ok = if p.fantasy {
                sizes.len() == 1 && (14..=17).contains(&sizes[0])
            } else {
                sizes == NORMAL_DEAL
            };
            if !shape_ok {
                let expected = if p.fantasy {
                    "fantasy land deals one group of 14 to 17 cards"
                } else {
                    "outside fantasy land the deal is 5 cards, then 4 × 3"
                };
                return Err(at(RecordError::impossible(
                    "deal",
                    format!("{expected}; got groups of {sizes:?}"),
                )));
            }
            let dealt: Vec<Card> = p.deal.iter().flatten().copied().collect();
            let dealt = CardSet::of(&dealt).map_err(|c| {
                at(RecordError::impossible(
                    "deal",
                    format!("{c} is dealt twice to the player"),
                ))
            })?;
            if dealt.0 & all.0 != 0 {
                let card = crate::cards::Card::deck()
                    .find(|c| dealt.contains(*c) && all.contains(*c))
                    .map_or_else(String::new, |c| c.to_string());
                return Err(at(RecordError::impossible(
                    "deal",
                    format!("{card} is dealt to two players (one deck)"),
                )));
            }
            all = CardSet(all.0 | dealt.0);
            let placed: Vec<Card> = p
                .front
                .iter()
                .chain(&p.middle)
                .chain(&p.back)
                .chain(&p.discards)
                .copied()
                .collect();
            CardSet::of(&placed).map_err(|c| {
                at(RecordError::impossible(
                    "rows",
                    format!("{c} appears twice in the rows and discards"),
                ))
            })?;
        }
        Ok(())
    }

    pub(super) fn point_value(&self, a: usize, b: usize) -> i64 {
        let (x, y) = (&self.players[a].player, &self.players[b].player);
        self.point_values
            .iter()
            .find(|v| {
                (&v.players[0] == x && &v.players[1] == y)
                    || (&v.players[0] == y && &v.players[1] == x)
            })
            .map_or(0, |v| v.point_h)
    }
}
