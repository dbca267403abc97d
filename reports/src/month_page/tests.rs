#![allow(clippy::unwrap_used)]
use super::charts::nice_step;
use super::format::{day_text, pct_cell, shortened, signed, trim_number};
use super::*;
use crate::coverage::{Coverage, ReadFrom};
use crate::deviation::Deviation;
use crate::monthly::{FindingSummary, KindFindings, KindRow};
use chrono::NaiveDate;

/// Roulette on the one gaming day 1 October 2026: RTP 96.5 % against 97.2973 %, z = +1.234;
/// two findings (one open); straight ups at 96.5 %.
fn october_first() -> RtpReport {
    let day = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
    let deviation = Deviation {
        deviation_sd: 1.234,
        band_3sd_pct: 4.0,
        skewness: 0.1,
        rounds_needed: 851,
        flagged: false,
        flag_meaningful: true,
    };
    let findings = FindingSummary {
        count: 2,
        amount_h: 10_000,
        open: 1,
        by_kind: [(
            "overpaid".to_owned(),
            KindFindings {
                count: 2,
                amount_h: 10_000,
                open: 1,
            },
        )]
        .into(),
        ..FindingSummary::default()
    };
    let row = |gaming_day: Option<NaiveDate>| RtpRow {
        gaming_day,
        game: "roulette".into(),
        table_id: None,
        rounds: 100,
        void_rounds: 0,
        stakes_h: 1_000_000,
        returned_stakes_h: 0,
        payouts_h: 965_000,
        ggr_h: 35_000,
        actual_rtp_pct: Some(96.5),
        theoretical_rtp_pct: Some(97.297_297),
        deviation: Some(deviation),
        findings: findings.clone(),
    };
    RtpReport {
        month: "2026-10".into(),
        first_day: day,
        through_day: day,
        starts_at: "2026-09-30T22:00:00Z".parse().unwrap(),
        ends_at: "2026-10-01T22:00:00Z".parse().unwrap(),
        gaming_day_start_hour: 0,
        game: None,
        table_id: None,
        flag_sd: 3.0,
        skewness_limit: 0.2,
        provisional: false,
        provisional_note: None,
        ministry_packages_unconfirmed: vec![],
        rows: vec![row(None), row(Some(day))],
        kinds: vec![KindRow {
            game: "roulette".into(),
            table_id: None,
            bet_kind: "straight".into(),
            rounds: 100,
            bets: 100,
            stakes_h: 1_000_000,
            payouts_h: 965_000,
            actual_rtp_pct: Some(96.5),
            theoretical_rtp_pct: Some(97.297_297),
            deviation: Some(deviation),
        }],
        covers: Coverage {
            ledger_size: 0,
            read_from: ReadFrom::Primary,
            at_checkpoint: false,
        },
        archived_days: Vec::new(),
    }
}

/// Every one of `parts` is on `page`.
fn assert_contains_all(page: &str, parts: &[&str]) {
    for part in parts {
        assert!(page.contains(part), "{part}: {page}");
    }
}

/// The texts between tags (styles left out) with a digit, a point and a digit.
fn decimal_points(html: &str) -> Vec<&str> {
    html.split('>')
        .filter_map(|s| s.split('<').next())
        .filter(|t| !t.contains('{'))
        .filter(|t| {
            t.as_bytes()
                .windows(3)
                .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit())
        })
        .collect()
}

/// The page of `october_first` in `language`, with the bundled plans' names.
fn october_first_page(language: Language) -> String {
    let plans = rules::PlanBook::builtin().unwrap();
    render_in(&october_first(), &plans, language)
}

#[test]
fn the_czech_page_names_bet_kinds_with_decimal_commas_and_czech_dates() {
    let page = october_first_page(Language::Czech);
    // The kinds table: the straight up by its Czech name, not its code. 96.5 % and
    // 97.297297 % to two places, z = +1.234 to two. The tooltips: the day as Czech write it.
    assert_contains_all(
        &page,
        &[
            "<td class=\"l\">Ruleta</td><td class=\"l\">číslo (plein)</td>",
            "<td>96,50 %</td><td>97,30 %</td>",
            "<span class=\"ok\">+1,23</span>",
            "<title>1. 10. 2026: 96,50 %, z = +1,23</title>",
            "<title>1. 10. 2026: 2 nálezů, 1 otevřených</title>",
            "Herní dny 1. 10. 2026 až 1. 10. 2026",
            "za ±3σ",
            "klesne na 0,2:",
        ],
    );
    assert!(!page.contains(">straight<"), "{page}");
    // No number anywhere with a decimal point, the axes' included; no ISO date.
    assert_eq!(decimal_points(&page), Vec::<&str>::new());
    assert!(!page.contains("2026-10-01"), "{page}");
}

#[test]
fn the_english_page_keeps_decimal_points_and_iso_dates() {
    let page = october_first_page(Language::English);
    assert_contains_all(
        &page,
        &[
            "<td class=\"l\">Ruleta</td><td class=\"l\">straight up</td>",
            "<td>96.50 %</td><td>97.30 %</td>",
            "<span class=\"ok\">+1.23</span>",
            "<title>2026-10-01: 96.50 %, z = +1.23</title>",
            "<title>2026-10-01: 2 findings, 1 open</title>",
            "Gaming days 2026-10-01 to 2026-10-01",
            "at most 0.2:",
        ],
    );
    assert!(!page.contains("96,50"), "{page}");
    // The check the Czech page passes finds English's points.
    assert!(decimal_points(&page).contains(&"96.50 %"), "{page}");
}

#[test]
fn numbers_and_days_follow_the_language() {
    assert_eq!(pct_cell(Some(96.5), Language::Czech), "96,50 %");
    assert_eq!(pct_cell(Some(96.5), Language::English), "96.50 %");
    assert_eq!(pct_cell(None, Language::Czech), "–");
    assert_eq!(signed(-0.125_1, Language::Czech), "-0,13");
    assert_eq!(signed(4.162, Language::English), "+4.16");
    assert_eq!(trim_number(97.5, Language::Czech), "97,5");
    assert_eq!(trim_number(98.0, Language::Czech), "98");
    assert_eq!(trim_number(97.25, Language::English), "97.25");
    let day = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
    assert_eq!(day_text(day, Language::Czech), "1. 10. 2026");
    assert_eq!(day_text(day, Language::English), "2026-10-01");
}

#[test]
fn text_is_escaped() {
    assert_eq!(
        esc("<a href='x'>&\"</a>"),
        "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
    );
}

#[test]
fn long_names_are_cut_with_an_ellipsis() {
    // 40 characters cut to 30: the first 29 and "…".
    let name = "Cash game – Texas Hold’em, Omaha Hold’em";
    assert_eq!(name.chars().count(), 40);
    assert_eq!(shortened(name, 30), "Cash game – Texas Hold’em, Om…");
    assert_eq!(shortened("Ruleta", 30), "Ruleta");
}

#[test]
fn steps_are_round_numbers() {
    assert_eq!(nice_step(0.3), 0.5);
    assert_eq!(nice_step(1.0), 1.0);
    assert_eq!(nice_step(2.3), 5.0);
    assert_eq!(nice_step(12.0), 20.0);
}

#[test]
fn counts_carry_the_thousands_space_and_package_states_are_in_words() {
    let mut report = october_first();
    // A month of 3 100 spins with 13 826 bets, 1 251 findings of which 1 004 open.
    report.kinds[0].rounds = 3_100;
    report.kinds[0].bets = 13_826;
    for row in &mut report.rows {
        row.findings.count = 1_251;
        row.findings.open = 1_004;
    }
    report.ministry_packages_unconfirmed = vec![crate::mf::status::Unconfirmed {
        package: "MF-2026-10".into(),
        state: "sealed".into(),
    }];
    let plans = rules::PlanBook::builtin().unwrap();
    let cs = render_in(&report, &plans, Language::Czech);
    assert_contains_all(
        &cs,
        &[
            "<td>3&#8239;100</td><td>13&#8239;826</td>",
            "<td>1&#8239;251 (1&#8239;004)</td>",
            "MF-2026-10 (zapečetěn, ke stažení)",
        ],
    );
    assert!(!cs.contains("(sealed)"), "{cs}");
    assert!(!cs.contains("3100") && !cs.contains("13826"), "{cs}");
    let en = render_in(&report, &plans, Language::English);
    assert!(en.contains("MF-2026-10 (sealed, to be downloaded)"), "{en}");
}
