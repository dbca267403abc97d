//! `dozor plan lint`: what is wrong with the plan itself, each point citing its section. A plan
//! file is data; numbers that contradict each other there would be approved by the Ministry and
//! then enforced, so a compliance officer checks them before submitting a change.

use serde::Serialize;

use crate::plan::document::Plan;
use crate::plan::odds::Odds;
use crate::plan::poker::PokerCashPlan;
use crate::plan::table_games::{BlackjackPlan, RoulettePlan, UltimateTexasHoldemPlan, WheelPlan};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintFinding {
    /// The plan's section, as the plan names it.
    pub section: String,
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
    if let Some(r) = &plan.roulette {
        lint_roulette(r, &mut out);
    }
    if let Some(b) = &plan.blackjack {
        lint_blackjack(b, &mut out);
    }
    if let Some(u) = &plan.ultimate_texas_holdem {
        lint_uth_maximum(u, &mut out);
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
        if let Some(w) = wheel {
            lint_wheel(section, w, &mut out);
        }
    }
    if let Some(p) = &plan.poker_cash {
        lint_rake_glossary(p, &mut out);
    }
    if let Some(t) = &plan.poker_tournament {
        lint_tournament(t, &mut out);
    }
    if let Some(u) = &plan.ultimate_texas_holdem {
        for stated in &u.trips_stated {
            lint_stated_trips(&u.trips, stated, &mut out);
        }
    }
    out
}

/// A maximum the plan states against the one its limits and pay table give (`how`).
fn maximum(
    out: &mut Vec<LintFinding>,
    section: &'static str,
    what: &str,
    stated: i64,
    derived: i128,
    how: String,
) {
    if i128::from(stated) != derived {
        out.push(LintFinding {
            section: section.into(),
            message: format!(
                "{what}: the plan states {}, its limits and pay table give {} ({how})",
                kc(i128::from(stated)),
                kc(derived)
            ),
        });
    }
}

fn lint_roulette(r: &RoulettePlan, out: &mut Vec<LintFinding>) {
    let best = r.odds.straight;
    maximum(
        out,
        "Ruleta, 5. MOŽNOSTI VÝHRY",
        "maximum possible win",
        r.max_win_h,
        paid(r.max_bet_h, Odds { num: best, den: 1 }),
        format!("{} × {best} + the stake", kc(i128::from(r.max_bet_h))),
    );
}

fn lint_blackjack(b: &BlackjackPlan, out: &mut Vec<LintFinding>) {
    maximum(
        out,
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
        out,
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

fn lint_uth_maximum(u: &UltimateTexasHoldemPlan, out: &mut Vec<LintFinding>) {
    let ante = u.max_bet_h;
    let play = ante * i64::from(u.play_preflop.iter().copied().max().unwrap_or(1));
    // A royal flush: Ante and Play 1:1, Blind and Trips by their tables, stakes back.
    let derived = paid(ante, Odds::EVEN)
        + paid(ante, u.blind.royal_flush)
        + paid(ante, u.trips.royal_flush)
        + paid(play, Odds::EVEN);
    maximum(
        out,
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

fn lint_wheel(section: &'static str, w: &WheelPlan, out: &mut Vec<LintFinding>) {
    let pays = w.boxes.iter().map(|b| b.pays).max().unwrap_or(0);
    maximum(
        out,
        section,
        "maximum net win",
        w.max_net_win_h,
        i128::from(w.max_bet_h) * i128::from(pays),
        format!("{} × {pays}", kc(i128::from(w.max_bet_h))),
    );
    let segments = w.segments();
    if let Some(stated) = w.segments_stated {
        if stated != segments {
            out.push(LintFinding {
                section: section.into(),
                message: format!(
                    "the wheel has {stated} segments, its boxes' segment counts add up to {segments}"
                ),
            });
        }
    }
}

/// The glossary's rake cap against the cash-game sections' caps.
fn lint_rake_glossary(p: &PokerCashPlan, out: &mut Vec<LintFinding>) {
    if let Some(glossary) = p.glossary_rake_cap_h {
        let caps: Vec<i64> = p.rake_caps.iter().map(|c| c.cap_h).collect();
        if caps.iter().any(|&c| c != glossary) {
            out.push(LintFinding {
                section: "Výklad pojmů: Poplatek, Rake".into(),
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

/// A Trips table stated elsewhere against the plan's: each line that differs, and a cap the
/// plan does not have.
fn lint_stated_trips(
    plan: &crate::plan::odds::HandPayTable,
    stated: &crate::plan::odds::StatedPayTable,
    out: &mut Vec<LintFinding>,
) {
    let odds = |o: Option<Odds>| o.map_or("nothing".to_owned(), |o| format!("{}:{}", o.num, o.den));
    let t = &stated.table;
    let lines = [
        ("Royal Flush", Some(plan.royal_flush), Some(t.royal_flush)),
        (
            "Straight Flush",
            Some(plan.straight_flush),
            Some(t.straight_flush),
        ),
        ("Quads", Some(plan.quads), Some(t.quads)),
        ("Full House", Some(plan.full_house), Some(t.full_house)),
        ("Flush", Some(plan.flush), Some(t.flush)),
        ("Straight", Some(plan.straight), Some(t.straight)),
        ("Trips", plan.trips, t.trips),
    ];
    let differ: Vec<String> = lines
        .iter()
        .filter(|(_, p, s)| p != s)
        .map(|(hand, p, s)| format!("{hand} {} (the plan: {})", odds(*s), odds(*p)))
        .collect();
    if !differ.is_empty() {
        out.push(LintFinding {
            section: "Ultimate Texas Hold'em, Trips".into(),
            message: format!(
                "{} pays Trips {}; dozor applies the plan's table",
                stated.source,
                differ.join(", ")
            ),
        });
    }
    if let Some(cap) = stated.max_payout_h {
        out.push(LintFinding {
            section: "Ultimate Texas Hold'em, Trips".into(),
            message: format!(
                "{} caps the Trips payout at {}; the plan has no such cap, and dozor applies none",
                stated.source,
                kc(i128::from(cap))
            ),
        });
    }
}

/// The payout table's columns (each adds up to 100 %, ranges of entries do not overlap and
/// leave no gap, shares do not grow with the place) and the fee's base across sections.
fn lint_tournament(t: &crate::plan::poker::TournamentPlan, out: &mut Vec<LintFinding>) {
    const SECTION: &str = "Turnajová Pravidla (Texas Hold´em, Omaha Hold´em, OFC), VÝPLATY";
    let range = |c: &crate::plan::poker::PayoutColumn| format!("{}–{}", c.entries[0], c.entries[1]);
    let percent = |bp: u64| format!("{},{:02} %", bp / 100, bp % 100);
    let mut push = |message: String| {
        out.push(LintFinding {
            section: SECTION.into(),
            message,
        })
    };
    for (i, c) in t.payouts.iter().enumerate() {
        let sum: u64 = c.places_bp.iter().map(|&b| u64::from(b)).sum();
        if sum != 10_000 {
            push(format!(
                "the column for {} entries adds up to {}, not 100 % (the prize pool is shared in proportion to the column; see docs/PLAN-NOTES.md)",
                range(c),
                percent(sum)
            ));
        }
        if let Some(place) = c.places_bp.windows(2).position(|w| w[1] > w[0]) {
            push(format!(
                "the column for {} entries pays place {} more than place {}",
                range(c),
                place + 2,
                place + 1
            ));
        }
        if let Some(previous) = i.checked_sub(1).map(|p| &t.payouts[p]) {
            if c.entries[0] <= previous.entries[1] {
                push(format!(
                    "the columns for {} and {} entries overlap: {} entries fall in both (dozor uses the first)",
                    range(previous),
                    range(c),
                    if c.entries[0] == previous.entries[1] {
                        c.entries[0].to_string()
                    } else {
                        format!("{}–{}", c.entries[0], previous.entries[1].min(c.entries[1]))
                    }
                ));
            } else if c.entries[0] > previous.entries[1] + 1 {
                let (from, to) = (previous.entries[1] + 1, c.entries[0] - 1);
                push(if from == to {
                    format!("no column for {from} entries")
                } else {
                    format!("no column for {from}–{to} entries")
                });
            }
        }
    }
    if let Some(last) = t.payouts.iter().map(|c| c.entries[1]).max() {
        push(format!(
            "no column for more than {last} entries: a larger tournament has no payout table"
        ));
    }
    let bases: std::collections::BTreeSet<_> = t.fee_base_stated.iter().map(|s| s.base).collect();
    if bases.len() > 1 {
        let said = t
            .fee_base_stated
            .iter()
            .map(|s| format!("{}: of the {}", s.section, s.base.as_str()))
            .collect::<Vec<_>>()
            .join("; ");
        out.push(LintFinding {
            section: t
                .fee_base_stated
                .iter()
                .find(|s| s.base != t.fee_base)
                .map_or_else(|| SECTION.to_owned(), |s| s.section.clone()),
            message: format!(
                "the fee's base differs between sections ({said}); a 10 % fee on a 100 000 Kč moneypool is 10 000 Kč from the moneypool but 9 090,91 Kč as 10 % of the prize pool; dozor applies the {}",
                t.fee_base.as_str()
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::bundled_plan;

    #[test]
    fn the_bundled_plan_contradicts_itself_on_the_rake_cap_payouts_and_the_fee_base() {
        // Every maximum win of the plan follows from its limits (900 000, 62 500, 650 000,
        // 14 050 000, 250 000 and 7 500 000 Kč). What does not hold together:
        let found = lint(&bundled_plan());
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(found.len(), 7, "{messages:#?}");
        // the glossary's 500 Kč rake cap against the game sections' 200 / 300 Kč;
        assert_eq!(found[0].section, "Výklad pojmů: Poplatek, Rake");
        assert!(messages[0].contains("500"));
        // the headings "6.–9." and "9.–15." share 9 entries;
        assert!(messages[1].starts_with("the columns for 6–9 and 9–15 entries overlap: 9 entries"));
        // the last column: 18,80 + 13,10 + 9,25 + 6,60 + 5,00 + 3,65 + 2,65 + 1,75 + 1,45
        // (= 62,25) + 3 × (1,28 + 1,15 + 0,93 + 0,74 + 0,65 + 0,55) (= 15,90) + 9 × (0,45 +
        // 0,40 + 0,35 + 0,30 + 0,27 + 0,24 + 0,22 + 0,20) (= 21,87) = 100,02 %;
        assert!(messages[2].starts_with("the column for 951–1050 entries adds up to 100,02 %"));
        assert!(messages[3].starts_with("no column for more than 1050 entries"));
        // and the OFC section's fee "z Prizepoolu" against "z Moneypoolu".
        assert!(found[4].section.contains("Open Face"));
        assert!(messages[4].contains("9 090,91"));
        // The room's rules (seed 004) pay Trips Flush 6:1 and Straight 5:1 (the plan: 7:1,
        // 4:1) and cap its payout at 100 000 Kč, which the plan does not.
        assert_eq!(found[5].section, "Ultimate Texas Hold'em, Trips");
        assert_eq!(
            messages[5],
            "Pravidla herny (seed 004), Poměry výplat pays Trips Flush 6:1 (the plan: 7:1), Straight 5:1 (the plan: 4:1); dozor applies the plan's table"
        );
        assert!(messages[6].contains("at 100 000,00 Kč"), "{}", messages[6]);
    }

    #[test]
    fn payout_columns_with_gaps_or_rising_shares_are_reported() {
        let mut plan = bundled_plan();
        if let Some(t) = plan.poker_tournament.as_mut() {
            t.payouts[3].entries = [17, 26]; // after 9–15: 16 is in no column
            t.payouts[4].places_bp.swap(0, 1); // 27–35: 2nd place 40 %, 1st 24 %
            t.fee_base_stated.pop();
        }
        let found = lint(&plan);
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert!(
            messages.contains(&"no column for 16 entries"),
            "{messages:#?}"
        );
        assert!(
            messages.contains(&"the column for 27–35 entries pays place 2 more than place 1"),
            "{messages:#?}"
        );
        assert!(!messages.iter().any(|m| m.contains("fee")), "{messages:#?}");
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
        let sections: Vec<&str> = found.iter().map(|f| f.section.as_str()).collect();
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
