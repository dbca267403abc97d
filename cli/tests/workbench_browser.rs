#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The workbench in a real browser (headless Chromium driven over WebDriver) against `dozor
//! serve`: the officer lists the findings, opens a blackjack finding laid out hand by hand with
//! the dealer's draw, resolves it with the page's form; a form another site posts is refused.
//! In Czech: the page opens at yesterday's gaming day, newest first, every description, bet
//! kind, day and time as a Czech officer reads them, and a refused form keeps what was typed.

mod common;

use std::io::{Read as _, Write as _};

use common::site::{Server, Site};
use common::webdriver::Browser;
use common::{each, key, signed};
use dozor_log::keys::encode_public_key;
use serde_json::{json, Value};

/// The finding `id` as the API shows it to `key`.
fn finding(server: &Server, key: &str, id: &str) -> Value {
    server
        .http
        .get(&format!("/api/v1/findings/{id}"), Some(key))
        .1
}

/// The browser's screenshot `name` is taken and saved.
fn assert_screenshot(browser: &Browser, name: &str) {
    let (shot, _) = browser.screenshot(name);
    assert!(shot.exists());
}

/// Serves `html` to every request on `localhost` (another site than `127.0.0.1`).
fn serve_elsewhere(html: String) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    port
}

/// A request to the workbench with the key as Basic credentials, over a socket of its own:
/// status and body.
fn workbench_request(port: u16, key: &str, head: &str, body: &str) -> (u16, String) {
    use base64::Engine as _;
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!("officer:{key}"));
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "{head}\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Authorization: Basic {credentials}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The token of the finding page's form, as the page gives it to the key's holder.
fn form_token(port: u16, finding: &str, key: &str) -> String {
    let (status, page) = workbench_request(
        port,
        key,
        &format!("GET /workbench/findings/{finding} HTTP/1.1"),
        "",
    );
    assert_eq!(status, 200, "{page}");
    let at = page.find("name=\"token\" value=\"").unwrap() + "name=\"token\" value=\"".len();
    page[at..].split('"').next().unwrap().to_owned()
}

/// A form post to the finding's page carrying the page's own valid `form` token, the key as
/// Basic credentials and `origin` as the `Origin` header: status and body. Only where it came
/// from can refuse it.
fn form_post_from(port: u16, finding: &str, key: &str, form: &str, origin: &str) -> (u16, String) {
    workbench_request(
        port,
        key,
        &format!(
            "POST /workbench/findings/{finding}/resolutions HTTP/1.1\r\nOrigin: {origin}\r\n\
             Content-Type: application/x-www-form-urlencoded"
        ),
        &format!("token={form}&state=dismissed&reason=forged&comment=forged"),
    )
}

#[test]
fn the_officer_resolves_a_blackjack_finding_in_a_browser_and_a_cross_site_post_is_refused() {
    let site = Site::new();
    let server = site.serve();
    let admin = site.apikey("it-admin", "admin");
    let officer = site.apikey("officer", "compliance");
    let table_key = key(1);
    let (status, body) = server.http.post(
        "/api/v1/tables",
        Some(&admin),
        &json!({"table_id": "BJ1", "game": "blackjack", "location": "Praha, sál B",
                "public_key": encode_public_key(&table_key.verifying_key()),
                "valid_from": "2026-11-20T00:00:00Z"}),
    );
    assert_eq!(status, 201, "{body}");
    // Box 1: 10♠ 7♦ (17), stands. The dealer: 9♥, 8♣ (17) — the plan says stand — but drew 5♦
    // (22). By the plan 17 against 17 is a push: the 100 Kč stake comes back, 100 Kč; the table
    // paid 200 Kč as if the dealer had bust (overpaid 100 Kč).
    let round = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:15:03Z", "shoe_id": "BJ1-S1",
        "deal": ["Ts", "9h", "7d", "8c", "5d"],
        "boxes": [{"box": 1, "hands": [["stand"]],
                   "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "main",
                             "stake_h": 10000, "paid_h": 20000}]}]});
    let (status, receipt) = server
        .http
        .post("/api/v1/records", None, &signed(round, &table_key));
    assert_eq!(status, 201, "{receipt}");
    let index = receipt["index"].as_u64().unwrap();
    let (_, findings) = server
        .http
        .get("/api/v1/findings?table_id=BJ1", Some(&officer));
    let kinds: Vec<(&str, &str)> = each(&findings["items"], |f| {
        (f["id"].as_str().unwrap(), f["kind"].as_str().unwrap())
    });
    let dealer = format!("{index}.0");
    let overpaid = format!("{index}.1");
    assert_eq!(
        kinds,
        vec![
            (dealer.as_str(), "dealer_drawing_wrong"),
            (overpaid.as_str(), "overpaid")
        ]
    );
    // A checkpoint covers the round (the server signs one a second).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while server.http.get("/api/v1/ledger/checkpoint", None).0 != 200
        || !server
            .http
            .try_call("GET", "/api/v1/ledger/checkpoint", None, None)
            .is_some_and(|(_, note)| {
                note.lines()
                    .nth(1)
                    .and_then(|l| l.parse::<u64>().ok())
                    .is_some_and(|size| size > index)
            })
    {
        assert!(std::time::Instant::now() < deadline, "no checkpoint");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }

    let port = server.http.port;
    let browser = Browser::start();
    // The key is the password of HTTP Basic authentication; the browser keeps it for the site.
    browser.go(&format!(
        "http://officer:{officer}@127.0.0.1:{port}/workbench/findings?lang=en&all=1"
    ));
    let list = browser.wait_for("Findings");
    assert!(list.contains(&dealer) && list.contains(&overpaid), "{list}");
    assert!(
        list.contains("Black Jack") && list.contains("dealer drew wrongly"),
        "{list}"
    );
    let (shot, size) = browser.screenshot("workbench-findings");
    assert!(size > 10_000, "{}", shot.display());

    // The dealer's finding, opened from the list: each hand with its total, the dealer's draw
    // against the plan's, the checkpoint that covers the round with its proof checked.
    browser.click(&format!("a[href^='/workbench/findings/{dealer}?']"));
    let page = browser.wait_for("The round");
    for shown in [
        "10♠ 7♦",
        "<td>17</td>",
        "9♥ 8♣ 5♦",
        "22 bust",
        "by the plan 9♥ 8♣ (17)",
        "inclusion proof checked",
        "BJ1-S1",
    ] {
        assert!(page.contains(shown), "the page lacks `{shown}`:\n{page}");
    }
    let (shot, size) = browser.screenshot("workbench-finding");
    assert!(size > 10_000, "{}", shot.display());

    // Resolved with the page's form: confirmed, and recorded.
    browser.click("select[name=state] option[value=confirmed]");
    browser.type_into(
        "textarea[name=comment]",
        "Dealer retrained; the video shows the extra card.",
    );
    browser.click("form.resolve button");
    let done = browser.wait_for("Recorded in the ledger: 1 resolution(s).");
    assert!(done.contains("state-confirmed"), "{done}");
    assert_screenshot(&browser, "workbench-resolved");
    let resolved = finding(&server, &officer, &dealer);
    assert_eq!(resolved["state"], "confirmed", "{resolved}");
    assert_eq!(resolved["history"][0]["key_name"], "officer", "{resolved}");

    // Another site's page posts a form to the overpaid finding while the browser holds the
    // officer's key: refused, and the finding stays open.
    let forged = format!(
        "<!DOCTYPE html><html><body><form id=\"f\" method=\"post\" \
         action=\"http://127.0.0.1:{port}/workbench/findings/{overpaid}/resolutions\">\
         <input name=\"token\" value=\"00\"><input name=\"state\" value=\"dismissed\">\
         <input name=\"reason\" value=\"forged\"><input name=\"comment\" value=\"forged\"></form>\
         <script>document.getElementById('f').submit();</script></body></html>"
    );
    let elsewhere = serve_elsewhere(forged);
    browser.go(&format!("http://localhost:{elsewhere}/"));
    // (Chromium sends the site's Basic credentials with another site's form: the token and
    // the browser's word on where the form came from are what refuse it.)
    let refused = browser.wait_for("\"code\"");
    assert!(refused.contains("cross_site_request"), "{refused}");
    assert_screenshot(&browser, "workbench-cross-site");
    let still = finding(&server, &officer, &overpaid);
    assert_eq!(still["state"], "open", "{still}");

    // The same post with the officer's key, the page's valid token and another origin (another
    // site, or this host over another scheme), as a browser sends it: refused for where it came
    // from alone.
    let form = form_token(port, &overpaid, &officer);
    for origin in [
        format!("http://localhost:{elsewhere}"),
        format!("https://127.0.0.1:{port}"),
        "null".to_owned(),
    ] {
        let (status, answer) = form_post_from(port, &overpaid, &officer, &form, &origin);
        assert_eq!(status, 403, "{origin}: {answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["code"], "cross_site_request", "{answer}");
        let still = finding(&server, &officer, &overpaid);
        assert_eq!(still["state"], "open", "{still}");
    }
    // From the page's own origin the very same post is taken: the token was valid, so only
    // the origin refused the posts above.
    let (status, answer) = form_post_from(
        port,
        &overpaid,
        &officer,
        &form,
        &format!("http://127.0.0.1:{port}"),
    );
    assert!(status == 200 || status == 303, "{status}: {answer}");
    let resolved = finding(&server, &officer, &overpaid);
    assert_eq!(resolved["state"], "dismissed", "{resolved}");
}

/// A record of `round` at `played_at` on table `table_id` of `game`, registered from a month
/// before; its receipt's ledger index.
fn submitted(
    server: &Server,
    admin: &str,
    round: Value,
    table_key: &ed25519_dalek::SigningKey,
) -> u64 {
    let (status, receipt) = server
        .http
        .post("/api/v1/records", None, &signed(round, table_key));
    assert_eq!(status, 201, "{receipt} ({admin})");
    receipt["index"].as_u64().unwrap()
}

#[test]
fn a_czech_officer_opens_yesterday_reads_every_finding_in_czech_and_a_refused_form_keeps_the_comment(
) {
    use chrono::{Duration, Utc};
    let site = Site::new();
    let server = site.serve();
    let admin = site.apikey("it-admin", "admin");
    let officer = site.apikey("officer", "compliance");
    let clock = rules::gaming_day::GamingDayClock::default();
    let now = Utc::now();
    let today = clock.day_of(now);
    let yesterday = today - Duration::days(1);
    // Played yesterday (24 h ago: yesterday's gaming day) and, a round the page must not open
    // with, three days ago.
    let at = |ago: Duration| (now - ago).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let valid_from = at(Duration::days(30));
    for (table, game, n) in [("R01", "roulette", 1), ("BJ1", "blackjack", 2)] {
        let (status, body) = server.http.post(
            "/api/v1/tables",
            Some(&admin),
            &json!({"table_id": table, "game": game, "location": "Praha, sál B",
                    "public_key": encode_public_key(&key(n).verifying_key()),
                    "valid_from": valid_from}),
        );
        assert_eq!(status, 201, "{body}");
    }
    // 27 comes up. Tiers (malá série) of 50 Kč chips: six chips, 300 Kč; the split 27/30 wins
    // 17:1, its chip back with 17 × 50 = 18 × 50 = 900 Kč. The table paid 450 Kč.
    let spin = |seq_no: u64, played_at: String| {
        json!({"type": "round", "game": "roulette", "table_id": "R01", "seq_no": seq_no,
               "plan_id": "69games-ziva-hra", "played_at": played_at,
               "outcome": {"result": "number", "number": 27},
               "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "tiers", "numbers": [],
                         "chip_h": 5_000, "paid_h": 45_000}]})
    };
    let older = submitted(&server, &admin, spin(1, at(Duration::days(3))), &key(1));
    let tiers = submitted(
        &server,
        &admin,
        spin(2, at(Duration::hours(24) + Duration::minutes(10))),
        &key(1),
    );
    // Box 1: 10♠ 7♦ (17), stands; the dealer's 9♥ 8♣ (17) drew 5♦: by the plan a push, 100 Kč
    // back; the table paid 200 Kč. Played ten minutes after the spin.
    let blackjack = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": at(Duration::hours(24)), "shoe_id": "BJ1-S1",
        "deal": ["Ts", "9h", "7d", "8c", "5d"],
        "boxes": [{"box": 1, "hands": [["stand"]],
                   "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "main",
                             "stake_h": 10000, "paid_h": 20000},
                            {"bet_id": "b2", "player": "seat-1", "kind": "perfect_pairs",
                             "stake_h": 1000, "paid_h": 0}]}]});
    let dealt = submitted(&server, &admin, blackjack, &key(2));

    let port = server.http.port;
    let browser = Browser::start();
    browser.go(&format!(
        "http://officer:{officer}@127.0.0.1:{port}/workbench/findings"
    ));
    let list = browser.wait_for("Nálezy");
    // Yesterday's gaming day, marked among the shortcuts; the older spin is not listed.
    assert!(
        list.contains("<b aria-current=\"page\">včera</b>"),
        "{list}"
    );
    assert!(
        list.contains(
            &yesterday
                .format("name=\"from\" value=\"%-d. %-m. %Y\"")
                .to_string()
        ),
        "{list}"
    );
    assert!(
        !list.contains(&format!("/workbench/findings/{older}.")),
        "{list}"
    );
    // Newest first: the blackjack round's findings before the spin's.
    let first_bj = list.find(&format!("/workbench/findings/{dealt}.")).unwrap();
    let first_spin = list
        .find(&format!("/workbench/findings/{tiers}.0"))
        .unwrap();
    assert!(first_bj < first_spin, "{list}");
    // The description in Czech, with the month page's name for the bet kind; the day as Czech
    // write it; nothing of the rules' English.
    assert!(
        list.contains(
            "sázka b1 (malá série): nedoplaceno; vyplaceno 450,00 Kč, plán požaduje 900,00 Kč"
        ),
        "{list}"
    );
    assert!(
        !list.contains("the plan requires") && !list.contains("; paid "),
        "{list}"
    );
    assert!(
        list.contains(&yesterday.format("<td>%-d. %-m. %Y</td>").to_string()),
        "{list}"
    );
    let (shot, size) = browser.screenshot("workbench-findings-cs");
    assert!(size > 10_000, "{}", shot.display());

    // Every day: the older spin too; the shortcut keeps the page's other filters.
    browser.click("a[href*='all=1']");
    let all = browser.wait_for("<b aria-current=\"page\">všechny dny</b>");
    assert!(
        all.contains(&format!("/workbench/findings/{older}.0")),
        "{all}"
    );

    // The spin's finding: the round laid out in Czech, the bet kind by its Czech name.
    browser.go(&format!(
        "http://officer:{officer}@127.0.0.1:{port}/workbench/findings/{tiers}.0"
    ));
    let page = browser.wait_for("Kolo");
    for shown in [
        "<td>malá série</td>",
        "<p>sázka b1 (malá série): nedoplaceno; vyplaceno 450,00 Kč, plán požaduje 900,00 Kč</p>",
        "Nálezy tohoto kola",
    ] {
        assert!(page.contains(shown), "the page lacks `{shown}`:\n{page}");
    }
    assert!(!page.contains(">tiers<"), "{page}");
    let (shot, size) = browser.screenshot("workbench-round-cs");
    assert!(size > 10_000, "{}", shot.display());

    // Dismissed without a reason: refused in Czech, and the comment typed stays in the form.
    browser.click("select[name=state] option[value=dismissed]");
    browser.type_into(
        "textarea[name=comment]",
        "Kamera ukazuje správnou výplatu; zápis stolu je chybný.",
    );
    browser.click("form.resolve button");
    let refused = browser.wait_for("Zamítnutí nálezu potřebuje důvod");
    assert!(
        refused.contains("Kamera ukazuje správnou výplatu; zápis stolu je chybný.</textarea>"),
        "{refused}"
    );
    assert!(
        refused.contains("<option value=\"dismissed\" selected"),
        "{refused}"
    );
    assert_screenshot(&browser, "workbench-refused-cs");
    let still = finding(&server, &officer, &format!("{tiers}.0"));
    assert_eq!(still["state"], "open", "{still}");
}
