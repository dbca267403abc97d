//! The limits a table posts (its vývěska). The plan makes them binding on every bet: "Všechny
//! sázky musí být v souladu s minimy a maximy stolu, u něhož se hraje" (roulette, blackjack,
//! Perfect Pairs, UTH, the wheels). They lie inside the plan's own range; a bet inside the plan's
//! range but outside the table's is a finding of its own kind.

use serde::{Deserialize, Serialize};

use crate::error::RecordError;
use crate::money::{format_czk, validate_amount};
use crate::plan::document::Plan;
use crate::round_header::GameCode;
use crate::verdict::{Finding, FindingKind};

/// One table's posted limits, for the bet groups its game has. Every amount in haléře.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableLimits {
    /// Roulette: the least on any bet (per player and position); blackjack: a main bet; UTH:
    /// the Ante (and so the Blind); a money wheel: a box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bet_h: Option<i64>,
    /// Blackjack: all main bets on a box together; UTH: the Ante; a money wheel: a box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bet_h: Option<i64>,
    /// Roulette: a straight-up number (per player).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_straight_up_h: Option<i64>,
    /// Roulette: a split, street, corner or six line (per player and position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_inside_h: Option<i64>,
    /// Roulette: a dozen, column or even chance (per player and position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_outside_h: Option<i64>,
    /// Blackjack: the Perfect Pairs side bet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perfect_pairs_max_h: Option<i64>,
    /// UTH: the Trips side bet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trips_max_h: Option<i64>,
    /// Poker cash game: the blinds the table plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small_blind_h: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub big_blind_h: Option<i64>,
}

/// The fields of [`TableLimits`] by name, for the games that post them.
const FIELDS: [&str; 9] = [
    "min_bet_h",
    "max_bet_h",
    "max_straight_up_h",
    "max_inside_h",
    "max_outside_h",
    "perfect_pairs_max_h",
    "trips_max_h",
    "small_blind_h",
    "big_blind_h",
];

/// A limit the table posts, checked: the least or the most a bet group may stake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posted {
    pub min_h: i64,
    pub max_h: i64,
}

impl TableLimits {
    /// The limits a table of `game` posts, by field name: every one of them must be given.
    pub fn fields_of(game: GameCode) -> &'static [&'static str] {
        match game {
            GameCode::Roulette => &[
                "min_bet_h",
                "max_straight_up_h",
                "max_inside_h",
                "max_outside_h",
            ],
            GameCode::Blackjack => &["min_bet_h", "max_bet_h", "perfect_pairs_max_h"],
            GameCode::UltimateTexasHoldem => &["min_bet_h", "max_bet_h", "trips_max_h"],
            GameCode::MoneyWheel1 | GameCode::MoneyWheel2 => &["min_bet_h", "max_bet_h"],
            GameCode::PokerCash => &["small_blind_h", "big_blind_h"],
            GameCode::OpenFaceChinese | GameCode::PokerTournament => &[],
        }
    }

    fn get(&self, field: &str) -> Option<i64> {
        match field {
            "min_bet_h" => self.min_bet_h,
            "max_bet_h" => self.max_bet_h,
            "max_straight_up_h" => self.max_straight_up_h,
            "max_inside_h" => self.max_inside_h,
            "max_outside_h" => self.max_outside_h,
            "perfect_pairs_max_h" => self.perfect_pairs_max_h,
            "trips_max_h" => self.trips_max_h,
            "small_blind_h" => self.small_blind_h,
            "big_blind_h" => self.big_blind_h,
            _ => None,
        }
    }

    fn amount(&self, field: &'static str) -> Result<i64, RecordError> {
        self.get(field)
            .ok_or_else(|| RecordError::invalid(field, "is required"))
    }

    /// Checks that the limits are the full set `game` posts, each a valid amount, inside the
    /// plan's own range: a table may narrow the plan's limits, never widen them.
    pub fn validate(&self, plan: &Plan, game: GameCode) -> Result<(), RecordError> {
        let wanted = TableLimits::fields_of(game);
        if wanted.is_empty() {
            return Err(RecordError::invalid(
                "limits",
                format!("a `{}` table posts no bet limits", game.as_str()),
            ));
        }
        for field in FIELDS {
            match (self.get(field), wanted.contains(&field)) {
                (Some(_), false) => {
                    return Err(RecordError::invalid(
                        field,
                        format!("is not a limit of a `{}` table", game.as_str()),
                    ))
                }
                (None, true) => return Err(RecordError::invalid(field, "is required")),
                (Some(amount), true) => {
                    validate_amount(field, amount)?;
                    if amount == 0 {
                        return Err(RecordError::invalid(field, "must be more than 0"));
                    }
                }
                (None, false) => {}
            }
        }
        let within = |field: &'static str, low: i64, high: i64, what: &str| {
            let amount = self.amount(field)?;
            if (low..=high).contains(&amount) {
                Ok(())
            } else {
                Err(RecordError::invalid(
                    field,
                    format!(
                        "{} is outside {what} ({} to {})",
                        format_czk(amount),
                        format_czk(low),
                        format_czk(high)
                    ),
                ))
            }
        };
        let min_h = || self.amount("min_bet_h");
        match game {
            GameCode::Roulette => {
                let rp = plan.roulette()?;
                within("min_bet_h", rp.min_bet_h, rp.max_bet_h, "the plan's range")?;
                for field in ["max_straight_up_h", "max_inside_h", "max_outside_h"] {
                    within(
                        field,
                        min_h()?,
                        rp.max_bet_h,
                        "the table minimum and the plan's maximum",
                    )?;
                }
            }
            GameCode::Blackjack => {
                let bp = plan.blackjack()?;
                within("min_bet_h", bp.min_bet_h, bp.box_max_h, "the plan's range")?;
                within(
                    "max_bet_h",
                    min_h()?,
                    bp.box_max_h,
                    "the table minimum and the plan's box maximum",
                )?;
                let pp = &bp.perfect_pairs;
                within(
                    "perfect_pairs_max_h",
                    pp.min_bet_h,
                    pp.max_bet_h,
                    "the plan's Perfect Pairs range",
                )?;
            }
            GameCode::UltimateTexasHoldem => {
                let up = plan.ultimate_texas_holdem()?;
                within("min_bet_h", up.min_bet_h, up.max_bet_h, "the plan's range")?;
                within(
                    "max_bet_h",
                    min_h()?,
                    up.max_bet_h,
                    "the table minimum and the plan's maximum",
                )?;
                within(
                    "trips_max_h",
                    up.min_bet_h,
                    up.max_bet_h,
                    "the plan's range",
                )?;
            }
            GameCode::MoneyWheel1 | GameCode::MoneyWheel2 => {
                let wp = plan.wheel(game)?;
                within("min_bet_h", wp.min_bet_h, wp.max_bet_h, "the plan's range")?;
                within(
                    "max_bet_h",
                    min_h()?,
                    wp.max_bet_h,
                    "the table minimum and the plan's maximum",
                )?;
            }
            GameCode::PokerCash => {
                let pc = plan.poker_cash()?;
                let big_h = self.amount("big_blind_h")?;
                within("small_blind_h", 1, big_h, "1 h and the big blind")?;
                for field in ["small_blind_h", "big_blind_h"] {
                    if self.amount(field)? % pc.chip_unit_h != 0 {
                        return Err(RecordError::invalid(
                            field,
                            format!("must be whole chips of {}", format_czk(pc.chip_unit_h)),
                        ));
                    }
                }
            }
            GameCode::OpenFaceChinese | GameCode::PokerTournament => {}
        }
        Ok(())
    }

    /// The posted range of a main bet group: the table's minimum and the maximum `max_field`
    /// names. `None` when the table posts no such limit.
    pub fn range(&self, max_field: &str) -> Option<Posted> {
        Some(Posted {
            min_h: self.min_bet_h?,
            max_h: self.get(max_field)?,
        })
    }

    /// The posted maximum of a side bet (its minimum is the plan's).
    pub fn cap(&self, max_field: &str) -> Option<Posted> {
        Some(Posted {
            min_h: 0,
            max_h: self.get(max_field)?,
        })
    }
}

impl Posted {
    /// A finding when `stake_h` (already inside the plan's range) is outside the table's.
    /// `what` names the bet group for the message (e.g. "box 3 main bets").
    pub fn judge(self, stake_h: i64, bet_ids: Vec<String>, what: &str) -> Option<Finding> {
        let (kind, limit_h, word) = if stake_h < self.min_h {
            (
                FindingKind::StakeBelowTableMinimum,
                self.min_h,
                "below the table's posted minimum of",
            )
        } else if stake_h > self.max_h {
            (
                FindingKind::StakeAboveTableMaximum,
                self.max_h,
                "above the table's posted maximum of",
            )
        } else {
            return None;
        };
        Some(Finding {
            kind,
            bet_ids: Some(bet_ids),
            expected_h: Some(limit_h),
            actual_h: Some(stake_h),
            amount_h: stake_h.abs_diff(limit_h).try_into().unwrap_or(i64::MAX),
            message: format!(
                "{what}: stake {} {word} {}",
                format_czk(stake_h),
                format_czk(limit_h)
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::plan::bundled_plan as plan;

    fn check(game: GameCode, limits: Value) -> Result<(), String> {
        let limits: TableLimits = serde_json::from_value(limits).map_err(|e| e.to_string())?;
        limits.validate(&plan(), game).map_err(|e| e.to_string())
    }

    #[test]
    fn limits_must_be_the_games_full_set_inside_the_plans_range() {
        let roulette = json!({"min_bet_h": 10_000, "max_straight_up_h": 100_000,
                              "max_inside_h": 200_000, "max_outside_h": 500_000});
        check(GameCode::Roulette, roulette.clone()).unwrap();
        // The plan's roulette range is 10–25 000 Kč (1 000 – 2 500 000 h).
        let mut below = roulette.clone();
        below["min_bet_h"] = json!(500);
        let e = check(GameCode::Roulette, below).unwrap_err();
        assert!(
            e.starts_with("min_bet_h: 5,00 Kč is outside the plan's range"),
            "{e}"
        );
        let mut above = roulette.clone();
        above["max_outside_h"] = json!(2_500_001);
        assert!(check(GameCode::Roulette, above)
            .unwrap_err()
            .starts_with("max_outside_h:"));
        // A maximum under the table's own minimum is no range.
        let mut crossed = roulette.clone();
        crossed["max_straight_up_h"] = json!(5_000);
        assert!(check(GameCode::Roulette, crossed)
            .unwrap_err()
            .starts_with("max_straight_up_h:"));
        let mut missing = roulette.clone();
        missing.as_object_mut().unwrap().remove("max_inside_h");
        assert_eq!(
            check(GameCode::Roulette, missing).unwrap_err(),
            "max_inside_h: is required"
        );
        let mut foreign = roulette;
        foreign["trips_max_h"] = json!(10_000);
        assert_eq!(
            check(GameCode::Roulette, foreign).unwrap_err(),
            "trips_max_h: is not a limit of a `roulette` table"
        );
        assert!(check(GameCode::Roulette, json!({"min_bet": 1}))
            .unwrap_err()
            .contains("unknown field"));
        // Blackjack's box maximum is the plan's 25 000 Kč; Perfect Pairs its own 25–25 000 Kč.
        check(
            GameCode::Blackjack,
            json!({"min_bet_h": 5_000, "max_bet_h": 2_500_000, "perfect_pairs_max_h": 2_500}),
        )
        .unwrap();
        assert!(check(
            GameCode::Blackjack,
            json!({"min_bet_h": 5_000, "max_bet_h": 2_500_000, "perfect_pairs_max_h": 2_000})
        )
        .unwrap_err()
        .starts_with("perfect_pairs_max_h:"));
        // Blinds: positive, the small one at most the big one, whole chips of 1 Kč.
        check(
            GameCode::PokerCash,
            json!({"small_blind_h": 2_500, "big_blind_h": 5_000}),
        )
        .unwrap();
        assert!(check(
            GameCode::PokerCash,
            json!({"small_blind_h": 6_000, "big_blind_h": 5_000})
        )
        .is_err());
        assert!(check(
            GameCode::PokerCash,
            json!({"small_blind_h": 2_550, "big_blind_h": 5_000})
        )
        .unwrap_err()
        .contains("whole chips"));
        assert_eq!(
            check(GameCode::OpenFaceChinese, json!({})).unwrap_err(),
            "limits: a `open_face_chinese` table posts no bet limits"
        );
    }
}
