#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The quarter's gambling tax from signed rounds, with hand-computed figures: a roulette table
//! that paid a big win (a negative base), poker's rake and time collection, a tournament whose
//! guarantee cost more than its fee, and a rate table that changes its rates inside the quarter.
//! Amounts in haléře: 1 Kč = 100 h.

mod common;

use api::server;
use common::*;
use reports::tax::{Quarter, RateTable};
use rules::gaming_day::GamingDayClock;
use serde_json::{json, Value};

/// Two partial bases, both 23 % and 30 % from the gaming day of 15 August 2026.
fn split_rates() -> String {
    let rates = r#"
[[category.rates]]
from = "2017-01-01"
rate_bp = 2300
law_version = "test: 23 %"

[[category.rates]]
from = "2026-08-15"
rate_bp = 3000
law_version = "test: 30 %"
"#;
    format!(
        r#"
name = "hand-made: 30 % from 15 August 2026"

[[category]]
id = "house"
name = "hry proti provozovateli"
games = ["roulette", "blackjack", "ultimate_texas_holdem", "money_wheel_1", "money_wheel_2"]
{rates}
[[category]]
id = "players"
name = "hry mezi hráči"
games = ["poker_cash", "open_face_chinese", "poker_tournament"]
{rates}"#
    )
}

fn table(table_id: &str, game: &str, k: &ed25519_dalek::SigningKey) -> Value {
    let mut t = registration_of(table_id, game, k);
    t["valid_from"] = json!("2026-06-01T00:00:00Z");
    t
}

/// A roulette spin at `at` with straight bets `(number, stake_h, paid_h)`.
fn spin_at(seq_no: u64, at: &str, number: u8, bets: &[(u8, i64, i64)]) -> Value {
    let bets: Vec<Value> = bets
        .iter()
        .enumerate()
        .map(|(i, (n, stake, paid))| straight(&format!("b{i}"), *n, *stake, *paid))
        .collect();
    let mut r = spin("R1", seq_no, number, Value::Array(bets));
    r["played_at"] = json!(at);
    r
}

/// Heads-up Hold'em: pot 300 Kč, rake 5 % = 15 Kč, 285 Kč to seat 1 (cli/tests/ingest.rs).
fn poker_hand() -> Value {
    heads_up_kings_over_queens("2026-07-20T21:00:00Z", 28_500, 1_500)
}

/// Four players pay 500 Kč per half hour for an hour: 4 × 1 000 Kč.
fn time_collection() -> Value {
    let players: Vec<Value> = (1..=4)
        .map(|s| json!({"seat": s, "player": format!("p{s}"), "paid_h": 100_000}))
        .collect();
    json!({
        "type": "time_collection", "game": "poker_cash", "table_id": "P1", "seq_no": 2,
        "plan_id": "69games-ziva-hra", "played_at": "2026-08-20T21:30:00Z",
        "period_minutes": 60, "per_player_h": 50_000, "players": players
    })
}

/// Freezeout: 5 buy-ins of 2 000 Kč = 10 000 Kč, fee 10 % = 1 000 Kč; the 12 000 Kč guarantee
/// is paid to the winner: overlay 3 000 Kč.
fn tournament() -> Value {
    freezeout_of_five(
        "september-freezeout",
        "2026-09-05",
        "2026-08-20T12:00:00Z",
        1_200_000,
    )
}

/// The part of `category` starting on `first`.
fn part<'a>(report: &'a Value, category: &str, first: &str) -> &'a Value {
    report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == category)
        .unwrap()["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["first_gaming_day"] == first)
        .unwrap_or_else(|| panic!("no part of {category} from {first}: {report:#}"))
}

fn category<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == id)
        .unwrap()
}

#[actix_web::test]
async fn a_hand_made_quarter_gives_the_hand_computed_tax() {
    let (_state, url, app) = api_app().await;
    let (r_key, p_key, t_key) = (key(1), key(2), key(3));
    for (id, game, k) in [
        ("R1", "roulette", &r_key),
        ("P1", "poker_cash", &p_key),
        ("ROOM", "poker_tournament", &t_key),
    ] {
        register_table(&app, table(id, game, k)).await;
    }
    let mut void = spin_at(3, "2026-07-20T18:00:00Z", 0, &[(4, 50_000, 50_000)]);
    void["outcome"] = json!({"result": "void", "reason": "inspector_decision"});
    // Prague is UTC+2 all quarter; a gaming day starts at 06:00 Prague time (04:00 UTC).
    let records = [
        // 1 July 00:00 in Prague: still gaming day 30 June, the quarter before. Not counted.
        (
            spin_at(1, "2026-06-30T22:00:00Z", 3, &[(5, 100_000, 0)]),
            &r_key,
        ),
        // 1 July 06:00: the quarter's first gaming day. 17 wins a straight up of 1 000 Kč:
        // 36 000 Kč paid.
        (
            spin_at(2, "2026-07-01T04:00:00Z", 17, &[(17, 100_000, 3_600_000)]),
            &r_key,
        ),
        // A void spin: 500 Kč staked and handed back, counted neither way.
        (void, &r_key),
        // 15 August 00:30: still gaming day 14 August, under the old rate. 2 000 Kč lost.
        (
            spin_at(4, "2026-08-14T22:30:00Z", 1, &[(2, 200_000, 0)]),
            &r_key,
        ),
        // 15 August 06:00: the new rate's first gaming day. 10 000 Kč lost.
        (
            spin_at(5, "2026-08-15T04:00:00Z", 1, &[(2, 1_000_000, 0)]),
            &r_key,
        ),
        // 100 Kč on 9 lost, 100 Kč on 20 won: 3 600 Kč paid.
        (
            spin_at(
                6,
                "2026-09-10T18:00:00Z",
                20,
                &[(9, 10_000, 0), (20, 10_000, 360_000)],
            ),
            &r_key,
        ),
        // 1 October 05:30: gaming day 30 September, this quarter. 250 Kč lost.
        (
            spin_at(7, "2026-10-01T03:30:00Z", 1, &[(2, 25_000, 0)]),
            &r_key,
        ),
        // 1 October 06:00: the next quarter. Not counted.
        (
            spin_at(8, "2026-10-01T04:00:00Z", 1, &[(2, 1_000_000, 0)]),
            &r_key,
        ),
        (poker_hand(), &p_key),
        (time_collection(), &p_key),
        (tournament(), &t_key),
    ];
    for (record, k) in records {
        submitted_record(&app, record, k).await;
    }

    // House, before 15 August: stakes 1 000 + 500 (void) + 2 000 = 3 500 Kč, 500 Kč returned,
    //   36 000 Kč paid: 3 500 − 500 − 36 000 = −33 000 Kč → base 0, tax 0.
    // House, from 15 August: stakes 10 000 + 100 + 100 + 250 = 10 450 Kč, 3 600 Kč paid:
    //   6 850 Kč → 6 900 Kč × 30 % = 2 070 Kč. The −33 000 Kč is not carried into this part.
    // Players, before 15 August: the rake, 15 Kč → 100 Kč × 23 % = 23 Kč.
    // Players, from 15 August: time collection 4 000 Kč; the tournament took 10 000 Kč and
    //   paid 12 000 Kč (fee 1 000 − overlay 3 000 = −2 000 Kč): 2 000 Kč × 30 % = 600 Kč.
    // Total 2 070 + 23 + 600 = 2 693 Kč, due Monday 26 October (the 25th is a Sunday).
    let dir = tempfile::tempdir().unwrap();
    let rates_path = dir.path().join("rates.toml");
    std::fs::write(&rates_path, split_rates()).unwrap();
    let rates = RateTable::load(&rates_path).unwrap();
    let built = reports::tax::build(
        &mut ledger::storage::connect(&url).unwrap(),
        &GamingDayClock::default(),
        Quarter::parse("2026Q3").unwrap(),
        &rates,
    )
    .unwrap();
    let report = serde_json::to_value(&built).unwrap();

    let house_before = part(&report, "house", "2026-07-01");
    assert_eq!(house_before["last_gaming_day"], "2026-08-14");
    assert_eq!(house_before["stakes_h"], 350_000);
    assert_eq!(house_before["returned_stakes_h"], 50_000);
    assert_eq!(house_before["wins_h"], 3_600_000);
    assert_eq!(house_before["difference_h"], -3_300_000);
    assert_eq!(house_before["base_h"], 0);
    assert_eq!(house_before["negative_difference_h"], 3_300_000);
    assert_eq!(house_before["rate_bp"], 2300);
    assert_eq!(house_before["tax_h"], 0);
    let roulette = &house_before["games"][0];
    assert_eq!(
        (
            &roulette["game"],
            &roulette["rounds"],
            &roulette["void_rounds"]
        ),
        (&json!("roulette"), &json!(3), &json!(1))
    );
    let house_after = part(&report, "house", "2026-08-15");
    assert_eq!(house_after["last_gaming_day"], "2026-09-30");
    assert_eq!(house_after["starts_at"], "2026-08-15T04:00:00Z");
    assert_eq!(house_after["ends_at"], "2026-10-01T04:00:00Z");
    assert_eq!(house_after["stakes_h"], 1_045_000);
    assert_eq!(house_after["wins_h"], 360_000);
    assert_eq!(house_after["difference_h"], 685_000);
    assert_eq!(house_after["base_h"], 685_000);
    assert_eq!(house_after["rounded_base_h"], 690_000);
    assert_eq!(house_after["rate_bp"], 3000);
    assert_eq!(house_after["law_version"], "test: 30 %");
    assert_eq!(house_after["tax_h"], 207_000);
    let house = category(&report, "house");
    assert_eq!(house["difference_h"], -3_300_000 + 685_000);
    assert_eq!(house["tax_h"], 207_000);

    let players_before = part(&report, "players", "2026-07-01");
    assert_eq!(players_before["difference_h"], 1_500);
    assert_eq!(players_before["rounded_base_h"], 10_000);
    assert_eq!(players_before["tax_h"], 2_300);
    let players_after = part(&report, "players", "2026-08-15");
    assert_eq!(players_after["difference_h"], 200_000);
    assert_eq!(players_after["rounded_base_h"], 200_000);
    assert_eq!(players_after["tax_h"], 60_000);
    let games = players_after["games"].as_array().unwrap();
    let poker = games.iter().find(|g| g["game"] == "poker_cash").unwrap();
    assert_eq!(poker["time_collection_h"], 400_000);
    assert_eq!(poker["basis"], "rake");
    let room = games
        .iter()
        .find(|g| g["game"] == "poker_tournament")
        .unwrap();
    assert_eq!(
        (
            &room["stakes_h"],
            &room["wins_h"],
            &room["difference_h"],
            &room["tournament_fees_h"],
            &room["tournament_overlay_h"]
        ),
        (
            &json!(1_000_000),
            &json!(1_200_000),
            &json!(-200_000),
            &json!(100_000),
            &json!(300_000)
        )
    );
    assert_eq!(category(&report, "players")["tax_h"], 62_300);

    assert_eq!(report["total_tax_h"], 269_300);
    assert_eq!(report["due_date"], "2026-10-26");
    assert_eq!(report["starts_at"], "2026-07-01T04:00:00Z");
    assert_eq!(report["ends_at"], "2026-10-01T04:00:00Z");
    assert_eq!(report["law_versions"], json!(["test: 23 %", "test: 30 %"]));

    // The command gives the same report, as JSON and as CSV.
    let out = dozor()
        .args(["report", "tax", "--quarter", "2026Q3", "--format", "json"])
        .arg("--rates")
        .arg(&rates_path)
        .env("DATABASE_URL", &url)
        .succeeds();
    let from_cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_cli, report);
    // And so does the API of a server given the table (`serve --tax-rates`).
    let mut settings = server::Settings::new(url.clone(), operator());
    settings.configured.tax_rates = Some(std::sync::Arc::new(rates.clone()));
    let configured = server::state(&settings).unwrap();
    let configured = test_app(&configured).await;
    let request = role_get(
        "/api/v1/reports/tax?quarter=2026Q3",
        dozor_log::access::Role::Compliance,
    );
    let from_api: Value = actix_web::test::call_and_read_body_json(&configured, request).await;
    assert_eq!(from_api, report);
    let csv_path = dir.path().join("tax.csv");
    dozor()
        .args(["report", "tax", "--quarter", "2026Q3", "--out"])
        .arg(&csv_path)
        .arg("--rates")
        .arg(&rates_path)
        .env("DATABASE_URL", &url)
        .succeeds();
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "quarter,level,category,game,first_gaming_day,last_gaming_day,rounds,void_rounds,\
         stakes_h,returned_stakes_h,wins_h,difference_h,basis,time_collection_h,\
         tournament_fees_h,tournament_overlay_h,base_h,rounded_base_h,negative_difference_h,\
         rate_bp,law_version,tax_h,due_date,provisional"
    );
    assert_eq!(
        lines.last().unwrap(),
        &"2026Q3,total,,,2026-07-01,2026-09-30,,,,,,,,,,,,,,,test: 23 %; test: 30 %,269300,2026-10-26,false"
    );
    assert!(lines.contains(
        &"2026Q3,part,house,,2026-08-15,2026-09-30,,,1045000,0,360000,685000,,,,,685000,690000,0,3000,test: 30 %,207000,,false"
    ), "{csv}");

    // The bundled table: live games are one base at 30 % all quarter, and together they lost
    // money: −33 000 + 6 850 + 15 + 4 000 − 2 000 = −24 135 Kč. Base 0, no tax.
    let out = dozor()
        .args(["report", "tax", "--quarter", "2026Q3", "--format", "json"])
        .env("DATABASE_URL", &url)
        .succeeds();
    let bundled: Value = serde_json::from_slice(&out.stdout).unwrap();
    let live = category(&bundled, "live_game");
    assert_eq!(live["parts"].as_array().unwrap().len(), 1);
    assert_eq!(live["difference_h"], -2_413_500);
    assert_eq!(live["negative_difference_h"], 2_413_500);
    assert_eq!((&live["base_h"], &live["tax_h"]), (&json!(0), &json!(0)));
    assert_eq!(live["parts"][0]["rate_bp"], 3000);
    assert_eq!(bundled["total_tax_h"], 0);
    assert!(bundled["law_versions"][0]
        .as_str()
        .unwrap()
        .contains("349/2023"));
}

/// A command that must fail before touching any database: no DATABASE_URL, an empty data
/// directory.
fn offline(dir: &std::path::Path) -> std::process::Command {
    let mut c = dozor();
    c.env_remove("DATABASE_URL").env("DOZOR_DATA_DIR", dir);
    c
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let refusal = |args: &[&str], rates: Option<&std::path::Path>| {
        let mut command = offline(dir.path());
        command.args(["report", "tax", "--quarter"]).args(args);
        if let Some(rates) = rates {
            command.arg("--rates").arg(rates);
        }
        command.fails()
    };
    let e = refusal(&["2026Q5"], None);
    assert!(e.contains("--quarter `2026Q5` is not YYYYQn"), "{e}");
    let e = refusal(&["2026-09"], None);
    assert!(e.contains("`2026-09`"), "{e}");
    let e = refusal(&["2026Q3", "--format", "xml"], None);
    assert!(
        e.contains("--format must be table, csv, json, csv-cz or xlsx"),
        "{e}"
    );
    // A rates file that does not parse, one that is not valid, one that is missing.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\n[[category]]\nid = \n").unwrap();
    let e = refusal(&["2026Q3"], Some(&bad));
    assert!(e.contains("bad.toml"), "{e}");
    std::fs::write(
        &bad,
        split_rates().replace("rate_bp = 3000", "rate_bp = 30000"),
    )
    .unwrap();
    let e = refusal(&["2026Q3"], Some(&bad));
    assert!(e.contains("rate_bp"), "{e}");
    let e = refusal(&["2026Q3"], Some(&dir.path().join("missing.toml")));
    assert!(e.contains("missing.toml"), "{e}");
    // Before the law: no rate in force.
    let e = refusal(&["2016Q4"], None);
    assert!(e.contains("no rate for `live_game` on 2016-10-01"), "{e}");
    // None of it started a database.
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "only bad.toml"
    );
}

/// A period not over yet is marked provisional wherever it shows; periods are named by date or
/// by word (`this`, `last`, `today`, `yesterday`) in the API as on the command line.
#[actix_web::test]
async fn a_period_not_over_is_provisional_and_named_by_word() {
    let (_state, _url, app) = api_app().await;
    let clock = GamingDayClock::default();
    let today = clock.day_of(chrono::Utc::now());
    let this_quarter = Quarter::of(today);
    let (status, this) = get(&app, "/api/v1/reports/tax?quarter=this").await;
    assert_eq!(status, 200, "{this}");
    assert_eq!(this["quarter"], this_quarter.to_string());
    assert_eq!(this["provisional"], true);
    assert!(
        this["provisional_note"]
            .as_str()
            .unwrap()
            .contains("is not over"),
        "{this}"
    );
    let (_, last) = get(&app, "/api/v1/reports/tax?quarter=last").await;
    assert_eq!(last["quarter"], this_quarter.previous().to_string());
    assert_eq!(
        (&last["provisional"], &last["provisional_note"]),
        (&json!(false), &Value::Null)
    );
    let (_, csv) = get_text(&app, "/api/v1/reports/tax?quarter=this&format=csv").await;
    let header = csv.lines().next().unwrap();
    assert!(header.ends_with(",provisional"), "{header}");
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",true")), "{csv}");

    // For a Czech office: `;`, koruny with a decimal comma; the total line is the JSON's total.
    let (status, people) = get_text(&app, "/api/v1/reports/tax?quarter=last&format=csv-cz").await;
    assert_eq!(status, 200, "{people}");
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(people.trim_start_matches('\u{feff}').as_bytes());
    let header = reader.headers().unwrap().clone();
    let tax_column = header.iter().position(|h| h == "Daň (Kč)").unwrap();
    let total_line = reader.records().map(Result::unwrap).last().unwrap();
    let koruny = total_line[tax_column].replace(',', "");
    assert_eq!(
        koruny.parse::<i64>().unwrap(),
        last["total_tax_h"].as_i64().unwrap()
    );
    assert_eq!(&total_line[1], "Daň celkem");
    let (status, month_sheet) =
        get_text(&app, "/api/v1/reports/rtp?month=this&format=csv-cz&lang=en").await;
    assert_eq!(status, 200, "{month_sheet}");
    assert!(
        month_sheet.starts_with("\u{feff}Gaming day;Game;Table;"),
        "{month_sheet}"
    );

    let (_, month) = get(&app, "/api/v1/reports/rtp?month=this").await;
    assert_eq!(month["provisional"], true, "{month}");
    let (_, page) = get_text(&app, "/reports/month/this?lang=en").await;
    assert!(page.contains("PROVISIONAL — "), "{page}");
    // Czech unless asked otherwise.
    let (_, page) = get_text(&app, "/reports/month/this").await;
    assert!(
        page.contains("<html lang=\"cs\">")
            && page.contains("Výplaty a RTP")
            && page.contains("PŘEDBĚŽNÉ — "),
        "{page}"
    );
    let (_, october) = get(&app, "/api/v1/reports/rtp?month=2026-10").await;
    assert_eq!(october["provisional"], false);
    for day in ["today", "yesterday", "last"] {
        let (status, report) = get(&app, &format!("/api/v1/reports/daily?day={day}")).await;
        assert_eq!(status, 200, "{day}: {report}");
    }
    let (status, body) = get(&app, "/api/v1/reports/daily?day=tomorrow").await;
    assert_error(status, &body, 400, "invalid_query");
}
