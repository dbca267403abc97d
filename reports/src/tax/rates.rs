//! The rate table: which games make each partial tax base, and its rates by date. Data, read
//! from `reports/tax-rates.toml` (embedded) or from an operator's file of the same format.

use std::path::Path;

use chrono::NaiveDate;
use rules::GameCode;
use serde::Deserialize;

use super::error::TaxError;

/// The bundled table.
pub const BUNDLED: &str = include_str!("../../tax-rates.toml");

/// Most basis points a rate can have (100 %).
pub const MAX_RATE_BP: u32 = 10_000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    name: String,
    #[serde(default)]
    category: Vec<CategoryFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CategoryFile {
    id: String,
    name: String,
    games: Vec<String>,
    #[serde(default)]
    rates: Vec<RateFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RateFile {
    from: String,
    rate_bp: u32,
    law_version: String,
}

/// A checked rate table: every game in exactly one category, each category's rates in date
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateTable {
    pub name: String,
    pub categories: Vec<Category>,
}

/// One partial tax base (dílčí základ daně).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    pub id: String,
    pub name: String,
    pub games: Vec<GameCode>,
    /// Strictly increasing `from`.
    pub rates: Vec<Rate>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rate {
    /// The first gaming day the rate applies to.
    pub from: NaiveDate,
    /// Basis points: 3000 = 30 %.
    pub rate_bp: u32,
    pub law_version: String,
}

impl RateTable {
    /// The table shipped with dozor.
    pub fn bundled() -> Result<RateTable, TaxError> {
        RateTable::parse(BUNDLED, "bundled tax-rates.toml")
    }

    /// An operator's table.
    pub fn load(path: &Path) -> Result<RateTable, TaxError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| TaxError::Rates {
            origin: origin.clone(),
            reason: e.to_string(),
        })?;
        RateTable::parse(&text, &origin)
    }

    /// Reads and checks a table; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<RateTable, TaxError> {
        let bad = |reason: String| TaxError::Rates {
            origin: origin.to_owned(),
            reason,
        };
        let file: TableFile = toml::from_str(text).map_err(|e| bad(e.message().to_owned()))?;
        if file.name.trim().is_empty() {
            return Err(bad("`name` may not be empty".into()));
        }
        if file.category.is_empty() {
            return Err(bad("no [[category]]".into()));
        }
        let mut categories: Vec<Category> = Vec::with_capacity(file.category.len());
        for (i, c) in file.category.into_iter().enumerate() {
            let at = |what: &str| format!("category[{i}] ({}): {what}", c.id);
            let id_ok = !c.id.is_empty()
                && c.id.len() <= 50
                && c.id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !id_ok {
                return Err(bad(at("`id` must be 1-50 of a-z, 0-9, _")));
            }
            if categories.iter().any(|o| o.id == c.id) {
                return Err(bad(at("`id` is used twice")));
            }
            if c.name.trim().is_empty() {
                return Err(bad(at("`name` may not be empty")));
            }
            let mut games = Vec::with_capacity(c.games.len());
            for g in &c.games {
                let game =
                    GameCode::parse(g).ok_or_else(|| bad(at(&format!("unknown game `{g}`"))))?;
                if games.contains(&game) || categories.iter().any(|o| o.games.contains(&game)) {
                    return Err(bad(at(&format!("game `{g}` is listed twice"))));
                }
                games.push(game);
            }
            if games.is_empty() {
                return Err(bad(at("`games` may not be empty")));
            }
            let mut rates: Vec<Rate> = Vec::with_capacity(c.rates.len());
            for (j, r) in c.rates.iter().enumerate() {
                let at = |what: &str| at(&format!("rates[{j}]: {what}"));
                let from = NaiveDate::parse_from_str(&r.from, "%Y-%m-%d")
                    .map_err(|_| bad(at(&format!("`from` `{}` is not YYYY-MM-DD", r.from))))?;
                if rates.last().is_some_and(|prev| prev.from >= from) {
                    return Err(bad(at("`from` dates must increase")));
                }
                if r.rate_bp > MAX_RATE_BP {
                    return Err(bad(at("`rate_bp` must be 0-10000 (basis points)")));
                }
                if r.law_version.trim().is_empty() {
                    return Err(bad(at("`law_version` may not be empty")));
                }
                rates.push(Rate {
                    from,
                    rate_bp: r.rate_bp,
                    law_version: r.law_version.clone(),
                });
            }
            if rates.is_empty() {
                return Err(bad(at("no [[category.rates]]")));
            }
            categories.push(Category {
                id: c.id,
                name: c.name,
                games,
                rates,
            });
        }
        let missing: Vec<&str> = GameCode::ALL
            .iter()
            .filter(|g| !categories.iter().any(|c| c.games.contains(g)))
            .map(|g| g.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(bad(format!(
                "games in no category: {} (every game's stakes must be taxed somewhere)",
                missing.join(", ")
            )));
        }
        Ok(RateTable {
            name: file.name,
            categories,
        })
    }

    /// The category whose base `game` is part of.
    pub fn category_of(&self, game: GameCode) -> Option<&Category> {
        self.categories.iter().find(|c| c.games.contains(&game))
    }
}

impl Category {
    /// The rate in force on gaming day `day` (the last whose `from` is not after it), with its
    /// place in the table.
    pub fn rate_at(&self, day: NaiveDate) -> Option<(usize, &Rate)> {
        self.rates
            .iter()
            .enumerate()
            .rev()
            .find(|(_, r)| r.from <= day)
    }

    /// The rate in force on gaming day `day`.
    pub fn rate_on(&self, day: NaiveDate) -> Option<&Rate> {
        self.rate_at(day).map(|(_, r)| r)
    }

    /// The days in `(after, before)` on which this category's rate changes.
    pub fn changes_between(
        &self,
        after: NaiveDate,
        before: NaiveDate,
    ) -> impl Iterator<Item = NaiveDate> + '_ {
        self.rates
            .iter()
            .map(|r| r.from)
            .filter(move |d| *d > after && *d < before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    const ALL_GAMES: &str = r#"["roulette", "blackjack", "ultimate_texas_holdem",
        "money_wheel_1", "money_wheel_2", "poker_cash", "open_face_chinese", "poker_tournament"]"#;

    fn table(games: &str, rates: &str) -> String {
        format!(
            "name = \"t\"\n[[category]]\nid = \"live_game\"\nname = \"živá hra\"\ngames = {games}\n{rates}"
        )
    }

    fn rate(from: &str, bp: u32) -> String {
        format!(
            "[[category.rates]]\nfrom = \"{from}\"\nrate_bp = {bp}\nlaw_version = \"v {from}\"\n"
        )
    }

    fn error(text: &str) -> String {
        RateTable::parse(text, "x.toml").unwrap_err().to_string()
    }

    #[test]
    fn the_bundled_table_is_23_percent_until_2023_and_30_from_2024() {
        let t = RateTable::bundled().unwrap();
        assert_eq!(t.categories.len(), 1);
        let live = t.category_of(GameCode::PokerTournament).unwrap();
        assert_eq!(live.id, "live_game");
        assert_eq!(live.games.len(), GameCode::ALL.len());
        assert_eq!(live.rate_on(day("2016-12-31")), None);
        assert_eq!(live.rate_on(day("2017-01-01")).unwrap().rate_bp, 2300);
        assert_eq!(live.rate_on(day("2023-12-31")).unwrap().rate_bp, 2300);
        let now = live.rate_on(day("2024-01-01")).unwrap();
        assert_eq!(now.rate_bp, 3000);
        assert!(now.law_version.contains("349/2023"), "{}", now.law_version);
        assert_eq!(live.rate_on(day("2026-09-30")), Some(now));
    }

    #[test]
    fn a_rate_applies_from_its_day_until_the_next_ones() {
        let text = table(
            ALL_GAMES,
            &(rate("2017-01-01", 2300) + &rate("2026-08-15", 3000) + &rate("2026-09-01", 2500)),
        );
        let t = RateTable::parse(&text, "x.toml").unwrap();
        let c = &t.categories[0];
        let bp = |d: &str| c.rate_on(day(d)).map(|r| r.rate_bp);
        assert_eq!(bp("2026-08-14"), Some(2300));
        assert_eq!(bp("2026-08-15"), Some(3000));
        assert_eq!(bp("2026-08-31"), Some(3000));
        assert_eq!(bp("2026-09-01"), Some(2500));
        assert_eq!(bp("2030-01-01"), Some(2500));
        let changes: Vec<_> = c
            .changes_between(day("2026-07-01"), day("2026-10-01"))
            .collect();
        assert_eq!(changes, [day("2026-08-15"), day("2026-09-01")]);
        // The quarter's own first day is no change inside it.
        let none: Vec<_> = c
            .changes_between(day("2026-08-15"), day("2026-08-31"))
            .collect();
        assert!(none.is_empty());
    }

    #[test]
    fn bad_tables_are_refused_with_what_is_wrong() {
        let ok_rate = rate("2017-01-01", 2300);
        assert!(error("name = ").contains("x.toml"));
        assert!(error(&table(ALL_GAMES, "")).contains("no [[category.rates]]"));
        assert!(error(&table(ALL_GAMES, &rate("2017-13-01", 2300))).contains("not YYYY-MM-DD"));
        assert!(error(&table(ALL_GAMES, &rate("2017-01-01", 10_001))).contains("rate_bp"));
        assert!(
            error(&table(ALL_GAMES, &(rate("2024-01-01", 3000) + &ok_rate)))
                .contains("must increase")
        );
        assert!(
            error(&table(r#"["roulette", "craps"]"#, &ok_rate)).contains("unknown game `craps`")
        );
        assert!(error(&table(r#"["roulette", "roulette"]"#, &ok_rate)).contains("listed twice"));
        let missing = error(&table(r#"["roulette"]"#, &ok_rate));
        assert!(
            missing.contains("games in no category: blackjack"),
            "{missing}"
        );
        assert!(
            error(&(table(ALL_GAMES, &ok_rate) + "rate_pct = 30\n")).contains("rate_pct"),
            "unknown fields are refused"
        );
        let empty_law = table(
            ALL_GAMES,
            "[[category.rates]]\nfrom = \"2017-01-01\"\nrate_bp = 2300\nlaw_version = \" \"\n",
        );
        assert!(error(&empty_law).contains("law_version"));
        // Errors name the file and fit on one line.
        let e = error(&table(ALL_GAMES, &rate("2017-01-01", 10_001)));
        assert!(e.starts_with("x.toml: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
