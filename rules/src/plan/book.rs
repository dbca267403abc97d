//! The plans known to an instance, the bundled ones first.

use std::collections::BTreeMap;

use super::document::Plan;
use crate::error::PlanError;
use crate::rtp::figures::TheoreticalFigures;

/// The plans shipped with this version of dozor, each with its theoretical figures
/// (`dozor rtp --write`).
const BUILTIN_PLANS: &[(&str, &str)] = &[(
    include_str!("../../plans/69games-ziva-hra.toml"),
    include_str!("../../plans/69games-ziva-hra.rtp.toml"),
)];

/// The plan a table plays under unless configured otherwise.
pub const DEFAULT_PLAN: &str = "69games-ziva-hra";

/// All plans known to this instance, by id.
#[derive(Debug, Clone, Default)]
pub struct PlanBook {
    plans: BTreeMap<String, Plan>,
}

impl PlanBook {
    /// The plans bundled with dozor.
    pub fn builtin() -> Result<PlanBook, PlanError> {
        let mut book = PlanBook::default();
        for (text, figures) in BUILTIN_PLANS {
            let mut plan = Plan::from_toml_str(text)?;
            plan.theoretical = TheoreticalFigures::from_toml_str(figures)
                .map_err(|e| PlanError::Inconsistent {
                    plan_id: plan.plan_id.clone(),
                    reason: format!("theoretical figures: {e}"),
                })?
                .matching(&plan);
            book.insert(plan)?;
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

    /// A game's name as the first plan naming it writes it, or its code.
    pub fn game_name<'a>(&'a self, code: &'a str) -> &'a str {
        self.plans
            .values()
            .find_map(|p| p.game_names.get(code))
            .map_or(code, String::as_str)
    }

    /// The theoretical figures file of a bundled plan (`<plan_id>.rtp.toml`), for inspection
    /// exports.
    pub fn builtin_figures_source(plan_id: &str) -> Option<&'static str> {
        BUILTIN_PLANS
            .iter()
            .find(|(text, _)| Plan::from_toml_str(text).is_ok_and(|plan| plan.plan_id == plan_id))
            .map(|(_, figures)| *figures)
    }

    /// The source text of a bundled plan, for inspection exports.
    pub fn builtin_source(plan_id: &str) -> Option<&'static str> {
        BUILTIN_PLANS
            .iter()
            .map(|(text, _)| *text)
            .find(|text| Plan::from_toml_str(text).is_ok_and(|plan| plan.plan_id == plan_id))
    }
}
