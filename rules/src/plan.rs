//! Plan parameters as data: one TOML file per herní plán (see `rules/plans/`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{PlanError, RecordError};

/// The plans shipped with this version of dozor.
const BUILTIN_PLANS: &[&str] = &[include_str!("../plans/69games-ziva-hra.toml")];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub plan_id: String,
    pub name: String,
    pub version: String,
    pub currency: String,
    #[serde(default)]
    pub roulette: Option<RoulettePlan>,
}

/// Ruleta section of the plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoulettePlan {
    /// Minimum stake per bet (per player and position).
    pub min_bet_h: i64,
    /// Maximum stake per bet (per player and position).
    pub max_bet_h: i64,
    /// "Maximální možná Výhra": the most a single bet may be paid, stake included.
    pub max_win_h: i64,
    pub odds: RouletteOdds,
}

/// Pay table, N meaning N:1.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouletteOdds {
    pub straight: u32,
    pub split: u32,
    pub street: u32,
    pub corner: u32,
    pub six_line: u32,
    pub dozen: u32,
    pub column: u32,
    pub even_chance: u32,
}

impl Plan {
    pub fn from_toml_str(text: &str) -> Result<Plan, PlanError> {
        let plan: Plan = toml::from_str(text)?;
        plan.check()?;
        Ok(plan)
    }

    pub fn roulette(&self) -> Result<&RoulettePlan, RecordError> {
        self.roulette
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "roulette".into(),
            })
    }

    fn check(&self) -> Result<(), PlanError> {
        let bad = |reason: String| PlanError::Inconsistent {
            plan_id: self.plan_id.clone(),
            reason,
        };
        if self.currency != "CZK" {
            return Err(bad(format!("currency must be CZK, not {}", self.currency)));
        }
        if let Some(r) = &self.roulette {
            if r.min_bet_h <= 0 || r.min_bet_h > r.max_bet_h {
                return Err(bad(format!(
                    "roulette limits must satisfy 0 < min ({}) <= max ({})",
                    r.min_bet_h, r.max_bet_h
                )));
            }
            if r.max_win_h <= 0 {
                return Err(bad("roulette max_win_h must be positive".into()));
            }
        }
        Ok(())
    }
}

/// All plans known to this instance, by id.
#[derive(Debug, Clone, Default)]
pub struct PlanBook {
    plans: BTreeMap<String, Plan>,
}

impl PlanBook {
    /// The plans bundled with dozor.
    pub fn builtin() -> Result<PlanBook, PlanError> {
        let mut book = PlanBook::default();
        for text in BUILTIN_PLANS {
            book.insert(Plan::from_toml_str(text)?)?;
        }
        Ok(book)
    }

    pub fn insert(&mut self, plan: Plan) -> Result<(), PlanError> {
        if self.plans.contains_key(&plan.plan_id) {
            return Err(PlanError::Duplicate(plan.plan_id));
        }
        self.plans.insert(plan.plan_id.clone(), plan);
        Ok(())
    }

    pub fn get(&self, plan_id: &str) -> Option<&Plan> {
        self.plans.get(plan_id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.plans.keys().map(String::as_str)
    }

    /// The source text of a bundled plan, for inspection exports.
    pub fn builtin_source(plan_id: &str) -> Option<&'static str> {
        BUILTIN_PLANS
            .iter()
            .copied()
            .find(|text| Plan::from_toml_str(text).is_ok_and(|plan| plan.plan_id == plan_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_plan_carries_the_roulette_numbers_of_the_plan() {
        let book = PlanBook::builtin().unwrap();
        let plan = book.get("69games-ziva-hra").unwrap();
        let r = plan.roulette().unwrap();
        // Ruleta, 1. SÁZKY: 10 Kč .. 25 000 Kč = 1 000 h .. 2 500 000 h.
        assert_eq!((r.min_bet_h, r.max_bet_h), (1_000, 2_500_000));
        // 25 000 × 35 + 25 000 = 900 000 Kč = 90 000 000 h.
        assert_eq!(r.max_win_h, 90_000_000);
        assert_eq!(r.odds.straight, 35);
    }

    #[test]
    fn rejects_inverted_limits_and_unknown_keys() {
        let text = include_str!("../plans/69games-ziva-hra.toml")
            .replace("min_bet_h = 1_000", "min_bet_h = 9_000_000");
        assert!(matches!(
            Plan::from_toml_str(&text),
            Err(PlanError::Inconsistent { .. })
        ));
        let text = format!(
            "{}\nsurprise = 1\n",
            include_str!("../plans/69games-ziva-hra.toml")
        );
        assert!(Plan::from_toml_str(&text).is_err());
    }
}
