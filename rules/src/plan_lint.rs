//! `dozor plan lint`: what is wrong with the plan itself, each point citing its section. A plan
//! file is data; numbers that contradict each other there would be approved by the Ministry and
//! then enforced, so a compliance officer checks them before submitting a change.

use serde::Serialize;

use crate::plan::{Odds, Plan};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintFinding {
    /// The plan's section, as the plan names it.
    pub section: &'static str,
    pub message: String,
}

fn kc(h: i128) -> String {
    crate::money::format_czk(i64::try_from(h).unwrap_or(i64::MAX))
}

/// What `stake` wins at `odds`, stake included, exactly (no rounding: a plan's maximum).
fn paid(stake: i64, odds: Odds) -> i128 {
    i128::from(stake) * i128::from(odds.num) / i128::from(odds.den.max(1)) + i128::from(stake)
}

/// Every contradiction the plan's numbers allow to be found.
pub fn lint(plan: &Plan) -> Vec<LintFinding> {
    let mut out = Vec::new();
    let mut maximum =
        |section: &'static str, what: &str, stated: i64, derived: i128, how: String| {
            if i128::from(stated) != derived {
                out.push(LintFinding {
                    section,
                    message: format!(
                        "{what}: the plan states {}, its limits and pay table give {} ({how})",
                        kc(i128::from(stated)),
                        kc(derived)
                    ),
                });
            }
        };
    if let Some(r) = &plan.roulette {
        let best = r.odds.straight;
        maximum(
            "Ruleta, 5. MOŽNOSTI VÝHRY",
            "maximum possible win",
            r.max_win_h,
            paid(r.max_bet_h, Odds { num: best, den: 1 }),
            format!("{} × {best} + the stake", kc(i128::from(r.max_bet_h))),
        );
    }
    if let Some(b) = &plan.blackjack {
        maximum(
            "Black Jack, Sázky a výhry",
            "maximum win of a main bet",
            b.max_win_h,
            paid(b.box_max_h, b.blackjack_odds),
            format!(
                "{} at {}:{} + the stake",
                kc(i128::from(b.box_max_h)),
                b.blackjack_odds.num,
                b.blackjack_odds.den
            ),
        );
        let pp = &b.perfect_pairs;
        maximum(
            "Black Jack, Vedlejší sázka – Perfect pairs",
            "maximum win of Perfect Pairs",
            pp.max_win_h,
            paid(
                pp.max_bet_h,
                Odds {
                    num: pp.perfect,
                    den: 1,
                },
            ),
            format!(
                "{} × {} + the stake",
                kc(i128::from(pp.max_bet_h)),
                pp.perfect
            ),
        );
    }
    if let Some(u) = &plan.ultimate_texas_holdem {
        let ante = u.max_bet_h;
        let play = ante * i64::from(u.play_preflop.iter().copied().max().unwrap_or(1));
        // A royal flush: Ante and Play 1:1, Blind and Trips by their tables, stakes back.
        let derived = paid(ante, Odds::EVEN)
            + paid(ante, u.blind.royal_flush)
            + paid(ante, u.trips.royal_flush)
            + paid(play, Odds::EVEN);
        maximum(
            "Ultimate Texas Hold'em, Sázky a výhry",
            "maximum possible win of a spot",
            u.max_win_h,
            derived,
            format!(
                "royal flush on Ante {0}, Blind {0}, Trips {0} and Play {1}",
                kc(i128::from(ante)),
                kc(i128::from(play))
            ),
        );
    }
    for (section, wheel) in [
        (
            "Šťastné kolo, Sázky, výhry a výplatní poměry",
            &plan.money_wheel_1,
        ),
        (
            "Šťastné kolo II, Sázky, výhry a výplatní poměry",
            &plan.money_wheel_2,
        ),
    ] {
        let Some(w) = wheel else { continue };
        let pays = w.boxes.iter().map(|b| b.pays).max().unwrap_or(0);
        let derived = i128::from(w.max_bet_h) * i128::from(pays);
        if i128::from(w.max_net_win_h) != derived {
            out.push(LintFinding {
                section,
                message: format!(
                    "maximum net win: the plan states {}, its limits and pay table give {} ({} × {pays})",
                    kc(i128::from(w.max_net_win_h)),
                    kc(derived),
                    kc(i128::from(w.max_bet_h))
                ),
            });
        }
        let segments = w.segments();
        if let Some(stated) = w.segments_stated {
            if stated != segments {
                out.push(LintFinding {
                    section,
                    message: format!(
                        "the wheel has {stated} segments, its boxes' segment counts add up to {segments}"
                    ),
                });
            }
        }
    }
    if let Some(p) = &plan.poker_cash {
        if let Some(glossary) = p.glossary_rake_cap_h {
            let caps: Vec<i64> = p.rake_caps.iter().map(|c| c.cap_h).collect();
            if caps.iter().any(|&c| c != glossary) {
                out.push(LintFinding {
                    section: "Výklad pojmů: Poplatek, Rake",
                    message: format!(
                        "the glossary caps the rake at {}, the Cash game sections at {} (by the number of players); dozor applies the game sections",
                        kc(i128::from(glossary)),
                        caps.iter()
                            .map(|&c| kc(i128::from(c)))
                            .collect::<Vec<_>>()
                            .join(" / ")
                    ),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::bundled_plan;

    #[test]
    fn the_bundled_plan_has_one_contradiction_the_rake_cap() {
        // Every maximum win of the plan follows from its limits (900 000, 62 500, 650 000,
        // 14 050 000, 250 000 and 7 500 000 Kč); the glossary's 500 Kč rake cap contradicts the
        // game sections' 200 / 300 Kč.
        let found = lint(&bundled_plan());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].section, "Výklad pojmů: Poplatek, Rake");
        assert!(found[0].message.contains("500"), "{found:?}");
    }

    #[test]
    fn a_maximum_that_does_not_follow_from_the_limits_is_reported() {
        let mut plan = bundled_plan();
        if let Some(r) = plan.roulette.as_mut() {
            // 25 000 × 35 + 25 000 = 900 000 Kč, not 875 000.
            r.max_win_h = 87_500_000;
        }
        if let Some(w) = plan.money_wheel_2.as_mut() {
            // 17 segments stated, 18 in the boxes.
            w.boxes[0].segments += 1;
        }
        let found = lint(&plan);
        let sections: Vec<&str> = found.iter().map(|f| f.section).collect();
        assert!(sections.contains(&"Ruleta, 5. MOŽNOSTI VÝHRY"), "{found:?}");
        assert!(
            found
                .iter()
                .any(|f| f.message.contains("17 segments") && f.message.contains("18")),
            "{found:?}"
        );
        let roulette = found
            .iter()
            .find(|f| f.section.starts_with("Ruleta"))
            .unwrap();
        assert!(roulette.message.contains("900 000"), "{roulette:?}");
    }
}
