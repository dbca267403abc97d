//! The tax from hand-made sums: rounding, negative differences, a rate change inside a quarter.
//! Amounts in haléře: 1 Kč = 100 h, 100 Kč = 10 000 h.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rules::gaming_day::GamingDayClock;

use super::*;

/// A day written `YYYY-MM-DD` (the tests of the tax's modules write their days so).
pub(super) fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn sums(stakes_h: i64, returned_h: i64, wins_h: i64) -> GameSums {
    GameSums {
        counts: ledger::storage::report_reads::round_sums::RoundCounts {
            rounds: 1,
            stakes_h,
            returned_h,
            ..Default::default()
        },
        wins_h,
        ..GameSums::default()
    }
}

/// Two categories: games against the house (23 %, 30 % from 15 August 2026) and games between
/// players (23 %).
const TWO_CATEGORIES: &str = r#"
name = "test table"

[[category]]
id = "house"
name = "hry proti provozovateli"
games = ["roulette", "blackjack", "ultimate_texas_holdem", "money_wheel_1", "money_wheel_2"]

[[category.rates]]
from = "2017-01-01"
rate_bp = 2300
law_version = "v2017"

[[category.rates]]
from = "2026-08-15"
rate_bp = 3000
law_version = "v2026"

[[category]]
id = "players"
name = "hry mezi hráči"
games = ["poker_cash", "open_face_chinese", "poker_tournament"]

[[category.rates]]
from = "2017-01-01"
rate_bp = 2300
law_version = "v2017"
"#;

fn q3() -> Quarter {
    Quarter::parse("2026Q3").unwrap()
}

#[test]
fn bases_round_up_to_whole_hundreds_of_koruny() {
    assert_eq!(round_up(0, BASE_ROUNDING_H).unwrap(), 0);
    assert_eq!(round_up(1, BASE_ROUNDING_H).unwrap(), 10_000);
    assert_eq!(round_up(9_999, BASE_ROUNDING_H).unwrap(), 10_000);
    assert_eq!(round_up(10_000, BASE_ROUNDING_H).unwrap(), 10_000);
    assert_eq!(round_up(10_001, BASE_ROUNDING_H).unwrap(), 20_000);
    // 1 234 567,89 Kč → 1 234 600 Kč.
    assert_eq!(round_up(123_456_789, BASE_ROUNDING_H).unwrap(), 123_460_000);
    assert!(round_up(i64::MAX, BASE_ROUNDING_H).is_err());
}

#[test]
fn tax_is_the_rounded_base_times_the_rate_up_to_whole_koruny() {
    // 1 234 600 Kč × 30 % = 370 380 Kč exactly.
    assert_eq!(tax_of(123_460_000, 3000).unwrap(), 37_038_000);
    // 100 Kč × 23 % = 23 Kč.
    assert_eq!(tax_of(10_000, 2300).unwrap(), 2_300);
    // 100 Kč × 23,45 % = 23,45 Kč → 24 Kč.
    assert_eq!(tax_of(10_000, 2345).unwrap(), 2_400);
    // 100 Kč × 0,01 % = 0,01 Kč → 1 Kč.
    assert_eq!(tax_of(10_000, 1).unwrap(), 100);
    assert_eq!(tax_of(0, 3000).unwrap(), 0);
    assert_eq!(tax_of(10_000, 0).unwrap(), 0);
}

#[test]
fn the_quarter_is_cut_where_a_rate_changes_and_fails_where_none_is_in_force() {
    let rates = RateTable::parse(TWO_CATEGORIES, "t").unwrap();
    assert_eq!(
        segments(q3(), &rates).unwrap(),
        [
            (day("2026-07-01"), day("2026-08-15")),
            (day("2026-08-15"), day("2026-10-01"))
        ]
    );
    let bundled = RateTable::bundled().unwrap();
    assert_eq!(
        segments(q3(), &bundled).unwrap(),
        [(day("2026-07-01"), day("2026-10-01"))]
    );
    // The law is in force from 2017: no rate for 2016.
    let e = segments(Quarter::parse("2016Q4").unwrap(), &bundled).unwrap_err();
    assert!(
        matches!(&e, TaxError::NoRate { category, day: d, .. } if category == "live_game" && *d == day("2016-10-01")),
        "{e}"
    );
}

#[test]
fn a_negative_difference_is_a_zero_base_and_a_rate_change_splits_the_category() {
    let rates = RateTable::parse(TWO_CATEGORIES, "t").unwrap();
    let clock = GamingDayClock::default();
    let games = |list: &[(&str, GameSums)]| -> BTreeMap<String, GameSums> {
        list.iter().map(|(g, s)| ((*g).to_owned(), *s)).collect()
    };
    let sums: SegmentSums = vec![
        (
            (day("2026-07-01"), day("2026-08-15")),
            games(&[
                // Roulette took 1 000 Kč and returned 200 Kč of a void spin: +1 000 Kč.
                ("roulette", sums(120_000, 20_000, 0)),
                // Blackjack: 500 Kč staked, 400 Kč paid: +100 Kč.
                ("blackjack", sums(50_000, 0, 40_000)),
                // Poker: 15,50 Kč rake.
                ("poker_cash", sums(30_000, 0, 28_450)),
            ]),
        ),
        (
            (day("2026-08-15"), day("2026-10-01")),
            games(&[
                // Roulette paid a straight up of 10 000 Kč: 360 000 Kč for 10 000 Kč staked.
                ("roulette", sums(1_000_000, 0, 36_000_000)),
                // Poker: 400 Kč time collection.
                ("poker_cash", sums(40_000, 0, 0)),
            ]),
        ),
    ];
    let report = assess(q3(), &clock, &rates, &sums).unwrap();
    let [house, players] = &report.categories[..] else {
        panic!("{report:?}")
    };
    // House before 15 August: 1 000 + 100 = 1 100 Kč at 23 % = 253 Kč.
    let before = &house.parts[0];
    assert_eq!(
        (before.first_gaming_day, before.last_gaming_day),
        (day("2026-07-01"), day("2026-08-14"))
    );
    assert_eq!(before.difference_h, 110_000);
    assert_eq!((before.base_h, before.rounded_base_h), (110_000, 110_000));
    assert_eq!((before.rate_bp, before.tax_h), (2300, 25_300));
    assert_eq!(before.law_version, "v2017");
    assert_eq!(before.games.len(), 2);
    // From 15 August: 10 000 − 360 000 = −350 000 Kč: base 0, tax 0, nothing carried.
    let after = &house.parts[1];
    assert_eq!(after.difference_h, -35_000_000);
    assert_eq!((after.base_h, after.rounded_base_h, after.tax_h), (0, 0, 0));
    assert_eq!(after.negative_difference_h, 35_000_000);
    assert_eq!((after.rate_bp, after.rate_from), (3000, day("2026-08-15")));
    // The category: −348 900 Kč overall, yet the part before the change owes its 253 Kč.
    assert_eq!(house.difference_h, 110_000 - 35_000_000);
    assert_eq!(house.base_h, 110_000);
    assert_eq!(house.negative_difference_h, 35_000_000);
    assert_eq!(house.tax_h, 25_300);
    // Players: one rate all quarter, one part: 15,50 + 400 = 415,50 Kč → 500 Kč × 23 % = 115 Kč.
    assert_eq!(players.parts.len(), 1);
    let p = &players.parts[0];
    assert_eq!(
        (p.first_gaming_day, p.last_gaming_day),
        (day("2026-07-01"), day("2026-09-30"))
    );
    assert_eq!(p.games.len(), 1);
    assert_eq!(p.games[0].rounds, 2);
    assert_eq!(p.games[0].basis, "rake");
    assert_eq!((p.base_h, p.rounded_base_h), (41_550, 50_000));
    assert_eq!(p.tax_h, 11_500);
    assert_eq!(report.total_tax_h, 25_300 + 11_500);
    assert_eq!(report.law_versions, ["v2017", "v2026"]);
    assert_eq!(report.due_date, day("2026-10-26"));
    assert_eq!(report.quarter, "2026Q3");
    assert_eq!(report.negative_base_rule, NEGATIVE_BASE_RULE);

    // CSV: a line per game and part, per part, per category, and the total; CRLF.
    let csv = to_csv(&report).unwrap();
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert!(!csv.replace("\r\n", "").contains('\n'));
    assert_eq!(lines.len(), 1 + (2 + 1) + (1 + 1) + 1 + (1 + 1) + 1 + 1);
    assert!(lines[0].starts_with("quarter,level,category,game,"));
    assert!(
        lines.contains(&"2026Q3,part,house,,2026-08-15,2026-09-30,,,1000000,0,36000000,-35000000,,,,,0,0,35000000,3000,v2026,0,,false"),
        "{csv}"
    );
    assert_eq!(
        lines.last().unwrap(),
        &"2026Q3,total,,,2026-07-01,2026-09-30,,,,,,,,,,,,,,,v2017; v2026,36800,2026-10-26,false"
    );
    // 2026Q3 ended before today: final.
    assert!(!report.provisional && report.provisional_note.is_none());
}

#[test]
fn a_game_the_table_does_not_know_is_an_error_not_a_silent_gap() {
    let rates = RateTable::bundled().unwrap();
    let sums: SegmentSums = vec![(
        (day("2026-07-01"), day("2026-10-01")),
        [("craps".to_owned(), sums(100, 0, 0))]
            .into_iter()
            .collect(),
    )];
    let e = assess(q3(), &GamingDayClock::default(), &rates, &sums).unwrap_err();
    assert!(
        matches!(&e, TaxError::UnknownGame(g) if g == "craps"),
        "{e}"
    );
}

#[test]
fn a_quiet_quarter_owes_nothing_but_still_lists_every_category() {
    let rates = RateTable::bundled().unwrap();
    let sums: SegmentSums = vec![((day("2026-07-01"), day("2026-10-01")), BTreeMap::new())];
    let report = assess(q3(), &GamingDayClock::default(), &rates, &sums).unwrap();
    assert_eq!(report.categories.len(), 1);
    let live = &report.categories[0];
    assert_eq!((live.tax_h, live.base_h, live.parts.len()), (0, 0, 1));
    assert_eq!(live.parts[0].rate_bp, 3000);
    assert!(live.parts[0].games.is_empty());
    assert_eq!(report.total_tax_h, 0);
    assert_eq!(report.law_versions.len(), 1);
}
