#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The compliance officer's work queue over the API: findings over a range of gaming days,
//! filtered by amount, sorted, as files for programs and for a Czech office (read back by
//! Python's csv module), and the round behind a finding as JSON with the checkpoint that
//! covers it and a proof that checks.

mod common;

use std::process::Command;

use actix_web::test;
use chrono::Utc;
use common::*;
use serde_json::{json, Value};

fn spin_at(seq_no: u64, played_at: &str, bets: Value) -> Value {
    let mut round = spin("R01", seq_no, 17, bets);
    round["played_at"] = json!(played_at);
    round
}

fn red(id: &str, stake_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": "seat-2", "kind": "red", "stake_h": stake_h, "paid_h": paid_h})
}

/// Reads a CSV for a Czech office with Python's csv module: the sum of the `column` heading's
/// koruny in haléře, and the games.
fn python_sum_of_koruny(text: &str, column: &str) -> (i64, Vec<String>) {
    let total = python_czech_column(text, column)
        .iter()
        .map(|k| haler_of_koruny(k))
        .sum();
    (total, python_czech_column(text, "Hra"))
}

/// Reads an XLSX workbook with openpyxl (installed from PyPI into the tests' scratch directory
/// once): the sum of the `column` heading's numbers in haléře, and the type of its `Played at`.
fn openpyxl_sum(bytes: &[u8], column: &str) -> (i64, String) {
    let packages = pypi("openpyxl", "openpyxl==3.1.5");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("findings.xlsx");
    std::fs::write(&file, bytes).unwrap();
    let script = r#"
import sys
from decimal import Decimal
import openpyxl
sheet = openpyxl.load_workbook(sys.argv[1]).active
rows = list(sheet.iter_rows(values_only=True))
heading = list(rows[0])
amount = heading.index(sys.argv[2])
played = heading.index("Played at")
print(int(sum(Decimal(str(r[amount])) for r in rows[1:]) * 100))
print(type(rows[1][played]).__name__)
"#;
    let out = Command::new("python3")
        .env("PYTHONPATH", &packages)
        .arg("-c")
        .arg(script)
        .arg(&file)
        .arg(column)
        .succeeds();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    (
        lines.next().unwrap().parse().unwrap(),
        lines.next().unwrap().to_owned(),
    )
}

/// Registers BJ1 (blackjack), OFC1 (Open Face Chinese) and P1 (poker) and submits, on gaming
/// day 20 Nov, rounds with no finding of their own that each give a report of the day a line:
/// the shoe report BJ1's shoe S1, the fantasy report OFC1's second hand (player A earned 14
/// cards with queens in front and was dealt a normal hand), the time collection and the table
/// audit P1's hand played for time with no time collected.
async fn report_lines_of_other_games(app: &impl TestApp) {
    for (table_id, game, k) in [
        ("BJ1", "blackjack", 2),
        ("OFC1", "open_face_chinese", 3),
        ("P1", "poker_cash", 4),
    ] {
        let table = registration_of(table_id, game, &key(k));
        register_table(app, table).await;
    }
    // T♠ Q♦ (20) stands against the dealer's 9♥ 8♣ (17): 100 Kč wins 1:1, 200 Kč paid.
    let blackjack = json!({"type": "round", "game": "blackjack", "table_id": "BJ1",
        "seq_no": 1, "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T19:30:00Z",
        "shoe_id": "S1", "deal": ["Ts", "9h", "Qd", "8c"],
        "boxes": [{"box": 1, "hands": [["stand"]], "bets": [{"bet_id": "b1",
            "player": "p1", "kind": "main", "stake_h": 10_000, "paid_h": 20_000}]}]});
    // The rules' worked OFC hand: A +2 050 Kč, B −820 Kč, C −1 230 Kč, rake 25 Kč each.
    let hand = ofc_scoop_hand();
    let mut next = hand.clone();
    next["seq_no"] = json!(2);
    next["played_at"] = json!("2026-11-20T21:04:00Z");
    // Heads-up for time: the small blind folds, the big blind gets its 50 Kč and the 25 Kč.
    let timed = json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T20:10:00Z",
        "variant": "holdem", "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": [{"seat": 1, "player": "p1", "stack_h": 100_000},
                  {"seat": 2, "player": "p2", "stack_h": 100_000}],
        "actions": [{"seat": 2, "street": "preflop", "action": "small_blind", "to_h": 2_500},
                    {"seat": 1, "street": "preflop", "action": "big_blind", "to_h": 5_000},
                    {"seat": 2, "street": "preflop", "action": "fold"}],
        "awards": [{"seat": 1, "amount_h": 7_500}], "collection": "time", "rake_h": 0});
    for (record, k) in [(blackjack, 2), (hand, 3), (next, 3), (timed, 4)] {
        let (s, receipt) = call(app, record_request(record, &key(k))).await;
        assert_eq!(s, 201, "{receipt}");
        // None adds a finding: the workbench's counts below are the roulette's.
        let index = &receipt["index"];
        let (_, entry) = get(app, &format!("/api/v1/ledger/entries/{index}")).await;
        assert_eq!(entry["verdict"]["findings"], json!([]), "{entry}");
    }
}

#[actix_web::test]
async fn findings_over_days_sorted_as_files_and_the_round_behind_each() {
    // Entries 0-1: the admin and compliance keys; 2: the table; 3-6: the rounds.
    let (_state, url, app) = api_app().await;
    register_table(&app, registration("R01", &key(1))).await;
    let mut with_id = spin_at(
        3,
        "2026-11-20T19:00:00Z",
        // 17 is black: red pays nothing, 40 000 paid (overpaid 40 000); the straight is due
        // 35 × 10 000 + 10 000 = 360 000, paid 361 000 (overpaid 1 000).
        json!([
            straight("b1", 17, 10_000, 361_000),
            red("b2", 20_000, 40_000)
        ]),
    );
    with_id["round_id"] = json!("R01-777");
    for round in [
        // Gaming day 19 Nov: due 360 000, paid 370 000 (overpaid 10 000).
        spin_at(
            1,
            "2026-11-19T18:00:00Z",
            json!([straight("b1", 17, 10_000, 370_000)]),
        ),
        // 20 Nov: paid 350 000 (underpaid 10 000).
        spin_at(
            2,
            "2026-11-20T18:00:00Z",
            json!([straight("b1", 17, 10_000, 350_000)]),
        ),
        with_id,
        // 21 Nov: paid right.
        spin_at(
            4,
            "2026-11-21T18:00:00Z",
            json!([straight("b1", 17, 10_000, 360_000)]),
        ),
    ] {
        submitted_record(&app, round, &key(1)).await;
    }

    // A range of gaming days: the 20th holds three findings, 10 000 + 40 000 + 1 000 h.
    let (s, page) = get(&app, "/api/v1/findings?from=2026-11-20&to=2026-11-20").await;
    assert_eq!(s, 200, "{page}");
    assert_eq!(
        (&page["total"], &page["total_amount_h"]),
        (&json!(3), &json!(51_000))
    );
    let (_, all) = get(&app, "/api/v1/findings?from=2026-11-19&to=2026-11-21").await;
    assert_eq!(
        (&all["total"], &all["total_amount_h"]),
        (&json!(4), &json!(61_000))
    );
    // Largest first; at least 10 000 h; the round's seq_no and id on each finding.
    let (_, largest) = get(&app, "/api/v1/findings?sort=-amount&min_amount_h=10000").await;
    let amounts: Vec<i64> = each(&largest["items"], |f| f["amount_h"].as_i64().unwrap());
    assert_eq!(amounts, vec![40_000, 10_000, 10_000]);
    let first = &largest["items"][0];
    assert_eq!(
        (&first["id"], &first["seq_no"], &first["round_id"]),
        (&json!("5.1"), &json!(3), &json!("R01-777")),
        "{first}"
    );
    // Words for days are accepted; contradictions and unknown values are refused.
    let (s, b) = get(&app, "/api/v1/findings?day=yesterday").await;
    assert_eq!(s, 200, "{b}");
    // A day with a range: every bound holds; a range with nothing in it is an empty page.
    let (_, both) = get(&app, "/api/v1/findings?day=2026-11-20&from=2026-11-19").await;
    assert_eq!(both["total"], 3, "{both}");
    for empty in [
        "from=2026-11-21&to=2026-11-20",
        "min_amount_h=5&max_amount_h=4",
    ] {
        let (s, page) = get(&app, &format!("/api/v1/findings?{empty}")).await;
        assert_eq!((s, &page["total"]), (200, &json!(0)), "{empty}: {page}");
    }
    for bad in [
        "day=20.11.2026",
        "sort=size",
        "format=pdf",
        "lang=de",
        "min_amount_h=-1",
    ] {
        let (s, b) = get(&app, &format!("/api/v1/findings?{bad}")).await;
        assert_error(s, &b, 400, "invalid_query");
    }

    // CSV for programs: every finding of the range, amounts in haléře, adding up to the JSON.
    let (s, csv) = get_text(
        &app,
        "/api/v1/findings?from=2026-11-19&to=2026-11-21&format=csv",
    )
    .await;
    assert_eq!(s, 200, "{csv}");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let amount = header.iter().position(|h| h == "amount_h").unwrap();
    let seq_no = header.iter().position(|h| h == "seq_no").unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let total: i64 = rows.iter().map(|r| r[amount].parse::<i64>().unwrap()).sum();
    assert_eq!((rows.len(), total), (4, 61_000));
    assert_eq!(&rows[0][seq_no], "1");
    // Programs read the description as the ledger keeps it, in the rules' English.
    let message = header.iter().position(|h| h == "message").unwrap();
    assert_eq!(
        &rows[0][message],
        "bet b1 (straight): overpaid; paid 3 700,00 Kč, the plan requires 3 600,00 Kč"
    );

    // CSV for a Czech office, read by Python's csv module: the same total, the plan's names.
    let (s, people) = get_text(
        &app,
        "/api/v1/findings?from=2026-11-19&to=2026-11-21&format=csv-cz",
    )
    .await;
    assert_eq!(s, 200, "{people}");
    assert!(people.contains(";100,00;"), "{people}");
    let (total, games) = python_sum_of_koruny(&people, "Částka (Kč)");
    assert_eq!(total, 61_000);
    assert_eq!(games, vec!["Ruleta"; 4]);
    // A Czech office reads the description in Czech, the bet kind by its Czech name.
    assert_eq!(
        python_czech_column(&people, "Popis")[0],
        "sázka b1 (číslo (plein)): přeplaceno; vyplaceno 3 700,00 Kč, plán požaduje 3 600,00 Kč"
    );

    // The daily report for people, read back by Python's csv module: the same payouts as the
    // JSON (every line, games and tables).
    let (_, daily) = get(&app, "/api/v1/reports/daily?day=2026-11-20").await;
    let paid: i64 = each(&daily["rows"], |r| r["payouts_h"].as_i64().unwrap())
        .iter()
        .sum();
    let (s, people_daily) =
        get_text(&app, "/api/v1/reports/daily?day=2026-11-20&format=csv-cz").await;
    assert_eq!(s, 200, "{people_daily}");
    let (total, games) = python_sum_of_koruny(&people_daily, "Vyplaceno (Kč)");
    assert_eq!(total, paid);
    assert!(games.iter().all(|g| g == "Ruleta"), "{games:?}");
    // Rounds of other games on the 20th that give each report of the day a line: a blackjack
    // round dealt from a shoe, two OFC hands where the second deals a normal hand to the
    // player the first earned fantasy land, a poker hand played for time with no time
    // collected (the time collection's and the table audit's line).
    report_lines_of_other_games(&app).await;
    // Every report for people, and as a workbook: one line of the sheet per line of the JSON,
    // and as many lines as the test data gives it at least (a sheet dropping lines cannot pass
    // as an empty one). The periods' sheet lists the tables' cash-desk periods; none is open
    // here.
    for (path, lines, heading, at_least) in [
        ("shoes?day=2026-11-20", "shoes", "Sáňky (shoe)", 1),
        ("fantasy?day=2026-11-20", "mismatches", "Nesoulad", 1),
        (
            "time-collection?day=2026-11-20",
            "uncollected",
            "Naposledy zaplaceno do",
            1,
        ),
        (
            "table-audit?day=2026-11-20",
            "findings",
            "Porovnáno s kolem (seq_no)",
            1,
        ),
        ("wheels?month=2026-11", "wheels", "Roztočení", 1),
        ("periods?month=2026-11", "tables", "Rozdíl (Kč)", 0),
        ("rtp?month=2026-11", "rows", "Kol", 1),
    ] {
        let (_, json) = get(&app, &format!("/api/v1/reports/{path}")).await;
        let lines = json[lines].as_array().unwrap().len();
        assert!(lines >= at_least, "{path}: {json}");
        let (s, people) = get_text(&app, &format!("/api/v1/reports/{path}&format=csv-cz")).await;
        assert_eq!(s, 200, "{path}: {people}");
        assert_eq!(python_czech_column(&people, heading).len(), lines, "{path}");
        let (s, workbook) = get_text(&app, &format!("/api/v1/reports/{path}&format=xlsx")).await;
        assert_eq!((s, &workbook[..2]), (200, "PK"), "{path}");
    }
    // What the audits found reads in Czech for people, as the rules' catalogue reads the
    // English the JSON keeps: OFC1's player A earned 14 cards and was dealt a normal hand; P1's
    // hand was played for time with no time collected.
    let (_, fantasy) = get(&app, "/api/v1/reports/fantasy?day=2026-11-20").await;
    assert_eq!(
        fantasy["mismatches"][0]["message"],
        "A: earned fantasy land with 14 cards in the previous hand, dealt a normal hand"
    );
    let (_, people) = get_text(&app, "/api/v1/reports/fantasy?day=2026-11-20&format=csv-cz").await;
    assert_eq!(
        python_czech_column(&people, "Nesoulad"),
        ["A: v předchozí hře získal fantasy land se 14 kartami, rozdána běžná hra"]
    );
    let (_, people) = get_text(
        &app,
        "/api/v1/reports/time-collection?day=2026-11-20&format=csv-cz",
    )
    .await;
    let found = python_czech_column(&people, "Nález");
    assert!(
        found.len() == 1 && found[0].contains("se hrála na čas") && !found[0].contains("played"),
        "{found:?}"
    );
    // The wheel's spins for people are the JSON's, under the plan's name of the game.
    let (_, wheels) = get(&app, "/api/v1/reports/wheels?month=2026-11").await;
    let (_, people) = get_text(&app, "/api/v1/reports/wheels?month=2026-11&format=csv-cz").await;
    assert_eq!(python_czech_column(&people, "Hra"), ["Ruleta"]);
    assert_eq!(
        python_czech_column(&people, "Roztočení"),
        [wheels["wheels"][0]["spins"].to_string()]
    );
    // A month not over is provisional in every form; one that is over is not.
    for report in ["wheels", "periods"] {
        let (_, this) = get(&app, &format!("/api/v1/reports/{report}?month=this")).await;
        assert_eq!(this["provisional"], true, "{report}: {this}");
        assert!(
            this["provisional_note"]
                .as_str()
                .unwrap()
                .starts_with("provisional: the month "),
            "{this}"
        );
        let (_, over) = get(&app, &format!("/api/v1/reports/{report}?month=2026-10")).await;
        assert_eq!(
            (&over["provisional"], &over["provisional_note"]),
            (&serde_json::json!(false), &serde_json::Value::Null),
            "{report}: {over}"
        );
    }
    let words = if wheels["provisional"] == true {
        "ano"
    } else {
        "ne"
    };
    assert_eq!(python_czech_column(&people, "Předběžné"), [words]);

    // XLSX: a workbook (a zip holding the sheet), its headings in English on request.
    let bytes = call_for_file(
        &app,
        role_get(
            "/api/v1/findings?format=xlsx&lang=en",
            dozor_log::access::Role::Compliance,
        ),
        "content-disposition",
        "attachment; filename=\"dozor-findings.xlsx\"",
    )
    .await;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut strings = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("xl/sharedStrings.xml").unwrap(),
        &mut strings,
    )
    .unwrap();
    assert!(
        strings.contains("Amount (CZK)") && strings.contains("Ruleta"),
        "{strings}"
    );
    // openpyxl reads numbers in koruny that add up to the JSON, and times as times.
    assert_eq!(
        openpyxl_sum(&bytes, "Amount (CZK)"),
        (61_000, "datetime".to_owned())
    );

    // The round behind a finding, by seq_no and by round id: the record as JSON, its findings.
    let (s, round) = get(&app, "/api/v1/tables/R01/records/3").await;
    assert_eq!(s, 200, "{round}");
    assert_eq!(round["record"]["outcome"]["number"], 17, "{round}");
    assert_eq!(
        (
            &round["ledger_index"],
            &round["round_id"],
            &round["checkpoint"]
        ),
        (&json!(5), &json!("R01-777"), &Value::Null)
    );
    let ids: Vec<&str> = each(&round["findings"], |f| f["id"].as_str().unwrap());
    assert_eq!(ids, vec!["5.0", "5.1"]);
    assert_eq!(round["verdict"]["findings"].as_array().unwrap().len(), 2);
    let (_, by_id) = get(&app, "/api/v1/tables/R01/rounds/R01-777").await;
    assert_eq!(by_id["ledger_index"], 5, "{by_id}");
    let (s, b) = get(&app, "/api/v1/tables/R01/records/99").await;
    assert_error(s, &b, 404, "unknown_record");
    let (s, b) = get(&app, "/api/v1/tables/R02/rounds/R01-777").await;
    assert_error(s, &b, 404, "unknown_record");

    // Once a checkpoint covers it, the round carries the checkpoint and a proof that checks.
    let mut conn = ledger::storage::connect(&url).unwrap();
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
    let (_, round) = get(&app, "/api/v1/tables/R01/records/3").await;
    let checkpoint = &round["checkpoint"];
    assert_eq!(checkpoint["size"], size, "{round}");
    let hash = |text: &Value| -> [u8; 32] {
        hex::decode(text.as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap()
    };
    let proof: Vec<[u8; 32]> = each(&checkpoint["inclusion_proof"], hash);
    assert!(dozor_log::merkle::verify_inclusion(
        5,
        size,
        &hash(&round["entry_hash"]),
        &proof,
        &hash(&checkpoint["root"]),
    ));
    assert!(checkpoint["note"]
        .as_str()
        .unwrap()
        .contains(&format!("\n{size}\n")));

    // One decision for the whole round: 5.0 with an amount, 5.1 the same way without one, in
    // one transaction; a scope that is neither is refused and changes nothing.
    let resolve = |body: Value| {
        let request = test::TestRequest::post()
            .uri("/api/v1/findings/5.0/resolutions")
            .insert_header(bearer(dozor_log::access::Role::Compliance))
            .set_json(body)
            .to_request();
        call(&app, request)
    };
    let (s, b) = resolve(json!({"state": "confirmed", "comment": "c", "scope": "table"})).await;
    assert_error(s, &b, 422, "invalid_resolution");
    let (_, open) = get(&app, "/api/v1/findings?state=open").await;
    assert_eq!(open["items"].as_array().unwrap().len(), 4, "{open}");
    let (s, receipt) = resolve(json!({"state": "confirmed", "amount_settled_h": 1_000,
        "comment": "the player repaid the round at the cage", "scope": "round"}))
    .await;
    assert_eq!(s, 201, "{receipt}");
    assert_eq!(receipt["finding"], "5.0");
    let also: Vec<&Value> = each(&receipt["also_resolved"], |a| &a["finding"]);
    assert_eq!(also, [&json!("5.1")]);
    let (_, other) = get(&app, "/api/v1/findings/5.1").await;
    assert_eq!(other["state"], "confirmed", "{other}");
    let history = other["history"].as_array().unwrap();
    assert_eq!(history.len(), 1, "{other}");
    assert_eq!(history[0]["amount_settled_h"], Value::Null, "{other}");
    assert_eq!(history[0]["state"], "confirmed", "{other}");
    let (_, open) = get(&app, "/api/v1/findings?state=open").await;
    assert_eq!(open["items"].as_array().unwrap().len(), 2, "{open}");
    // The round again: nothing of it is open, so only the named finding's step is taken —
    // and refused, confirmed cannot become confirmed.
    let (s, b) = resolve(json!({"state": "confirmed", "comment": "again", "scope": "round"})).await;
    assert_error(s, &b, 409, "resolution_not_allowed");

    // A settlement above the finding's amount, with the reason it needs: recorded with it.
    let (_, open) = get(&app, "/api/v1/findings?state=open").await;
    let finding = &open["items"][0];
    let (id, amount) = (
        finding["id"].as_str().unwrap(),
        finding["amount_h"].as_i64().unwrap(),
    );
    let (s, receipt) = call(
        &app,
        test::TestRequest::post()
            .uri(&format!("/api/v1/findings/{id}/resolutions"))
            .insert_header(bearer(dozor_log::access::Role::Compliance))
            .set_json(
                json!({"state": "confirmed", "amount_settled_h": amount + 5_000,
                             "reason": "the player also repaid a 50 Kč advance",
                             "comment": "settled at the cage"}),
            )
            .to_request(),
    )
    .await;
    assert_eq!(s, 201, "{receipt}");
    assert_eq!(receipt["reason"], "the player also repaid a 50 Kč advance");
}

/// The workbench's list as a page: a range of days, an amount, an order, links to the files
/// with the same filter, pages of 100; and a finding's form resolving its whole round.
#[actix_web::test]
async fn the_workbench_page_filters_sorts_pages_and_resolves_a_whole_round() {
    // Entries 0-1: the keys; 2: the table; 3: a spin of the 20th with two findings; 4: a spin
    // of the 19th with 101 straight bets on 17, each paid nothing (101 findings).
    let (_state, _url, app) = api_app().await;
    register_table(&app, registration("R01", &key(1))).await;
    // 17 is black: the straight is due 35 × 10 000 + 10 000 = 360 000, paid 350 000
    // (10 000 h = 100 Kč short); red pays nothing, paid 40 000 (400 Kč too much).
    let two = spin_at(
        1,
        "2026-11-20T19:00:00Z",
        json!([
            straight("b1", 17, 10_000, 350_000),
            red("b2", 20_000, 40_000)
        ]),
    );
    let many: Vec<Value> = (0..101)
        .map(|i| straight(&format!("s{i}"), 17, 1_000, 0))
        .collect();
    for round in [two, spin_at(2, "2026-11-19T18:00:00Z", json!(many))] {
        submitted_record(&app, round, &key(1)).await;
    }
    let page = |query: &'static str| {
        let app = &app;
        async move {
            let (s, html) = get_text(app, &format!("/workbench/findings?{query}")).await;
            assert_eq!(s, 200, "{query}: {html}");
            html
        }
    };
    // The order of the findings a page lists, by their links.
    let listed = |html: &str| -> Vec<String> {
        html.split("<tr><td><a href=\"/workbench/findings/")
            .skip(1)
            .map(|rest| rest.split('?').next().unwrap().to_owned())
            .collect()
    };
    // The page shows each of `parts`.
    let shows = |html: &str, parts: &[&str]| {
        assert!(parts.iter().all(|part| html.contains(part)), "{html}");
    };

    // The 20th (typed as Czech write it), largest first: 400 Kč (3.1), then 100 Kč (3.0); the
    // totals and the files say the same filter.
    let html = page("from=20.+11.+2026&to=20.11.2026&sort=-amount").await;
    assert_eq!(listed(&html), ["3.1", "3.0"]);
    shows(&html, &["<b>2</b>", "<b>500,00 Kč</b>"]);
    shows(
        &html,
        &["/api/v1/findings?from=2026-11-20&amp;to=2026-11-20&amp;sort=-amount&amp;format=csv-cz"],
    );
    // Smallest first; and from 200 Kč up only the 400 Kč one, its file asking the same in haléře.
    let html = page("from=2026-11-20&to=2026-11-20&sort=amount").await;
    assert_eq!(listed(&html), ["3.0", "3.1"]);
    let html = page("from=2026-11-20&to=2026-11-20&min_amount=200").await;
    assert_eq!(listed(&html), ["3.1"]);
    shows(&html, &["min_amount_h=20000"]);

    // 103 findings: a page of 100 and the way to the next, which holds the other 3.
    let html = page("sort=played_at&all=1").await;
    assert_eq!(listed(&html).len(), 100);
    shows(&html, &["<b>103</b>", "1–100"]);
    shows(&html, &["offset=100"]);
    let html = page("sort=played_at&all=1&offset=100").await;
    assert_eq!(listed(&html).len(), 3);
    shows(&html, &["101–103", "offset=0"]);

    // The form of 3.0, with "the round's other open findings the same way": both recorded.
    let (_, finding) = get_text(&app, "/workbench/findings/3.0").await;
    let token = finding
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    // A form the page refuses: why, in Czech (the ledger's English reason read by the
    // catalogue, or the form's own check), and the page keeps what was typed.
    let post = |form: String| {
        let app = &app;
        async move {
            let response = test::call_service(
                app,
                test::TestRequest::post()
                    .uri("/workbench/findings/3.0/resolutions")
                    .insert_header(bearer(dozor_log::access::Role::Compliance))
                    .insert_header(("sec-fetch-site", "same-origin"))
                    .insert_header(("content-type", "application/x-www-form-urlencoded"))
                    .set_payload(form)
                    .to_request(),
            )
            .await;
            let status = response.status().as_u16();
            let body = test::read_body(response).await;
            (status, String::from_utf8(body.to_vec()).unwrap())
        }
    };
    let (status, refused) = post(format!(
        "token={token}&state=dismissed&amount_settled=&reason=&comment=Kamera+%3C1%3E&scope=round"
    ))
    .await;
    assert_eq!(status, 422, "{refused}");
    shows(
        &refused,
        &[
            "Zamítnutí nálezu potřebuje důvod o 1 až 500 znacích.",
            "<option value=\"dismissed\" selected>",
            "required>Kamera &lt;1&gt;</textarea>",
            "name=\"scope\" value=\"round\" checked>",
        ],
    );
    let (status, refused) = post(format!(
        "token={token}&state=confirmed&amount_settled=sto&reason=viz+video&comment=x"
    ))
    .await;
    assert_eq!(status, 422, "{refused}");
    shows(
        &refused,
        &[
            "Částka se píše v korunách, např. 1 234,50, ne `sto`",
            "value=\"sto\"",
            "value=\"viz video\"",
            "required>x</textarea>",
        ],
    );
    let (_, f) = get(&app, "/api/v1/findings/3.0").await;
    assert_eq!(f["state"], "open", "{f}");

    let response = test::call_service(
        &app,
        test::TestRequest::post()
            .uri("/workbench/findings/3.0/resolutions")
            .insert_header(bearer(dozor_log::access::Role::Compliance))
            .insert_header(("sec-fetch-site", "same-origin"))
            .insert_header(("content-type", "application/x-www-form-urlencoded"))
            .set_payload(format!(
                "token={token}&state=confirmed&amount_settled=100&reason=&comment=repaid+at+the+cage&scope=round"
            ))
            .to_request(),
    )
    .await;
    assert_eq!(response.status().as_u16(), 303);
    for (id, settled) in [("3.0", json!(10_000)), ("3.1", Value::Null)] {
        let (_, f) = get(&app, &format!("/api/v1/findings/{id}")).await;
        assert_eq!(f["state"], "confirmed", "{f}");
        let history = f["history"].as_array().unwrap();
        assert_eq!(history.len(), 1, "{f}");
        assert_eq!(history[0]["amount_settled_h"], settled, "{f}");
        assert_eq!(history[0]["comment"], "repaid at the cage", "{f}");
    }
    let html = page("from=2026-11-20&to=2026-11-20&state=open").await;
    assert!(listed(&html).is_empty(), "{html}");
}
