//! Reading a plan from its TOML text, and checking that its numbers make sense.

use super::document::Plan;
use super::odds::Odds;
use super::poker::{rank_of_letter, OfcPlan, TournamentPlan};
use super::table_games::{BlackjackPlan, RoulettePlan, UltimateTexasHoldemPlan, WheelPlan};
use crate::error::PlanError;
use crate::round_header::{validate_identifier, GameCode};

/// Why a plan's section is inconsistent (the reason of [`PlanError::Inconsistent`]).
type Reason = String;

impl Plan {
    pub fn from_toml_str(text: &str) -> Result<Plan, PlanError> {
        let plan: Plan = toml::from_str(text)?;
        plan.check()?;
        Ok(plan)
    }

    /// The plan's sections, each checked in turn; the first inconsistency found is the error.
    fn check(&self) -> Result<(), PlanError> {
        self.check_sections()
            .map_err(|reason| PlanError::Inconsistent {
                plan_id: self.plan_id.clone(),
                reason,
            })
    }

    fn check_sections(&self) -> Result<(), Reason> {
        if self.currency != "CZK" {
            return Err(format!("currency must be CZK, not {}", self.currency));
        }
        for (code, name) in &self.game_names {
            if GameCode::parse(code).is_none() || name.trim().is_empty() {
                return Err(format!(
                    "game_names: `{code}` must be a game code with a name"
                ));
            }
        }
        if let Some(r) = &self.roulette {
            check_roulette(r)?;
        }
        if let Some(b) = &self.blackjack {
            check_blackjack(b)?;
        }
        for (game, wheel) in [
            ("money_wheel_1", &self.money_wheel_1),
            ("money_wheel_2", &self.money_wheel_2),
        ] {
            if let Some(w) = wheel {
                check_wheel(game, w)?;
            }
        }
        if let Some(o) = &self.open_face_chinese {
            check_ofc(o)?;
        }
        if let Some(t) = &self.poker_tournament {
            check_tournament(t)?;
        }
        if let Some(u) = &self.ultimate_texas_holdem {
            check_uth(u)?;
        }
        Ok(())
    }
}

fn limits(game: &str, min: i64, max: i64) -> Result<(), Reason> {
    if 0 < min && min <= max {
        Ok(())
    } else {
        Err(format!(
            "{game} limits must satisfy 0 < min ({min}) <= max ({max})"
        ))
    }
}

fn odds(what: &str, o: Odds) -> Result<(), Reason> {
    if o.num > 0 && o.den > 0 {
        Ok(())
    } else {
        Err(format!("{what} odds {}:{} are not a ratio", o.num, o.den))
    }
}

fn check_roulette(r: &RoulettePlan) -> Result<(), Reason> {
    limits("roulette", r.min_bet_h, r.max_bet_h)?;
    if r.max_win_h <= 0 {
        return Err("roulette max_win_h must be positive".into());
    }
    Ok(())
}

fn check_blackjack(b: &BlackjackPlan) -> Result<(), Reason> {
    limits("blackjack", b.min_bet_h, b.box_max_h)?;
    limits(
        "perfect pairs",
        b.perfect_pairs.min_bet_h,
        b.perfect_pairs.max_bet_h,
    )?;
    odds("blackjack", b.blackjack_odds)?;
    odds("insurance", b.insurance_odds)?;
    odds("insurance maximum", b.insurance_max_fraction)?;
    if b.decks == 0 || b.max_bets_per_box == 0 {
        return Err("blackjack needs at least one deck and one bet per box".into());
    }
    Ok(())
}

fn check_wheel(game: &str, w: &WheelPlan) -> Result<(), Reason> {
    limits(game, w.min_bet_h, w.max_bet_h)?;
    if w.max_net_win_h <= 0 || w.min_turns == 0 {
        return Err(format!(
            "{game}: max_net_win_h and min_turns must be positive"
        ));
    }
    if w.boxes.is_empty() || w.boxes.iter().any(|b| b.pays == 0 || b.segments == 0) {
        return Err(format!(
            "{game}: every box needs a payout and at least one segment"
        ));
    }
    for (i, b) in w.boxes.iter().enumerate() {
        validate_identifier("box", &b.id).map_err(|e| format!("{game}: {e}"))?;
        if w.boxes[..i].iter().any(|other| other.id == b.id) {
            return Err(format!("{game}: box {} is listed twice", b.id));
        }
    }
    Ok(())
}

fn check_ofc(o: &OfcPlan) -> Result<(), Reason> {
    if !(2..=3).contains(&o.min_players) || !(o.min_players..=3).contains(&o.max_players) {
        return Err("open face chinese is for 2 or 3 players (min_players <= max_players)".into());
    }
    if o.rake_per_player_h < 0 || o.row_points <= 0 || o.scoop_bonus < 0 {
        return Err(
            "open face chinese: rake and scoop bonus must not be negative, row points positive"
                .into(),
        );
    }
    for (what, map) in [
        ("front_pair_royalties", &o.front_pair_royalties),
        ("front_trip_royalties", &o.front_trip_royalties),
    ] {
        if let Some(key) = map.keys().find(|k| rank_of_letter(k).is_none()) {
            return Err(format!(
                "open face chinese {what}: `{key}` is not a rank (2-9, T, J, Q, K, A)"
            ));
        }
    }
    if let Some(key) = o
        .fantasy_pair_cards
        .keys()
        .find(|k| rank_of_letter(k).is_none())
    {
        return Err(format!(
            "open face chinese fantasy_pair_cards: `{key}` is not a rank"
        ));
    }
    let counts = o
        .fantasy_pair_cards
        .values()
        .chain([&o.fantasy_trips_cards, &o.fantasy_stay_cards]);
    if let Some(n) = counts.into_iter().find(|n| !(14..=17).contains(*n)) {
        return Err(format!(
            "open face chinese: fantasy land deals 14 to 17 cards, not {n}"
        ));
    }
    Ok(())
}

fn check_tournament(t: &TournamentPlan) -> Result<(), Reason> {
    if t.fee_percent_min > t.fee_percent_max || t.fee_percent_max >= 100 {
        return Err("poker tournament fee: min <= max < 100 percent".into());
    }
    for c in &t.payouts {
        if c.entries[0] == 0 || c.entries[0] > c.entries[1] || c.places_bp.is_empty() {
            return Err(format!(
                "poker tournament payouts: column {:?} needs 1 <= first <= last entries and at least one place",
                c.entries
            ));
        }
        if c.places_bp.len() > c.entries[0] as usize {
            return Err(format!(
                "poker tournament payouts: column {:?} pays {} places, more than its {} entries",
                c.entries,
                c.places_bp.len(),
                c.entries[0]
            ));
        }
    }
    Ok(())
}

fn check_uth(u: &UltimateTexasHoldemPlan) -> Result<(), Reason> {
    limits("ultimate texas hold'em", u.min_bet_h, u.max_bet_h)?;
    for table in [&u.blind, &u.trips] {
        for o in [
            table.royal_flush,
            table.straight_flush,
            table.quads,
            table.full_house,
            table.flush,
            table.straight,
        ]
        .into_iter()
        .chain(table.trips)
        {
            odds("ultimate texas hold'em pay table", o)?;
        }
    }
    if u.play_preflop.is_empty() || u.play_flop == 0 || u.play_river == 0 {
        return Err("ultimate texas hold'em play multiples must be positive".into());
    }
    Ok(())
}
