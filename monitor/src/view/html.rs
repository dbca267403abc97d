//! The regulator's pages in Czech: every casino on one page, one round proven from the tiles.
//! Self-contained HTML (inline CSS, no script, nothing fetched: the Content-Security-Policy
//! forbids it), in the look of the casino's own pages.

use std::fmt::Write as _;

use rules::money::format_czk;

use super::figures::{age, count, decimal, prague, signed, Month};
use super::overview::{CasinoView, Overview};
use super::round::RoundView;

const STYLE: &str = "
* { box-sizing: border-box; }
body { font: 10.5pt/1.45 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; color: #1d2733;
  margin: 0 auto; max-width: 300mm; padding: 6mm 8mm; }
h1 { font-size: 16pt; margin: 0 0 2mm; } h2 { font-size: 12.5pt; margin: 6mm 0 2mm;
  border-bottom: 1px solid #c9d2dc; padding-bottom: 1mm; } h3 { font-size: 11pt; margin: 4mm 0 1mm; }
nav { float: right; font-size: 9pt; } a { color: #1f5fa8; }
p.meta { color: #4d5b6a; margin: 0 0 3mm; }
table { border-collapse: collapse; width: 100%; font-size: 9pt; margin: 1mm 0 3mm; }
th, td { padding: 1mm 1.5mm; border-bottom: 1px solid #e1e6ec; text-align: left; vertical-align: top; }
th { background: #eef2f6; font-weight: 600; } td.n, th.n { text-align: right; white-space: nowrap; }
tr.flag td { background: #fde8e8; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.5mm 5mm; margin: 0 0 3mm; }
dl.facts dt { color: #4d5b6a; } dl.facts dd { margin: 0; word-break: break-all; }
.ok { color: #1f7a3a; } .bad { color: #b3261e; font-weight: 600; } .muted { color: #7a8896; }
.notice { padding: 2mm 3mm; background: #e6f4ea; border: 1px solid #b7dfc2; margin: 2mm 0; }
.error { padding: 2mm 3mm; background: #fde8e8; border: 1px solid #f1b5b0; margin: 2mm 0; }
.state-following { color: #1f7a3a; font-weight: 600; } .state-halted, .state-failing { color: #b3261e; font-weight: 600; }
.state-waiting_for_witnesses { color: #a15c00; font-weight: 600; }
code { font-size: 8.5pt; }
";

/// `text` with HTML's special characters escaped.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"cs\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} — dozor monitor</title><style>{STYLE}</style></head><body>{body}</body></html>\n",
        esc(title)
    )
}

/// A casino's state in words.
pub fn state_words(state: &str) -> &'static str {
    match state {
        "following" => "sleduje se",
        "failing" => "selhává",
        "halted" => "zastaveno",
        "waiting_for_witnesses" => "čeká na svědky",
        _ => "dosud nesledováno",
    }
}

fn money(h: i64) -> String {
    esc(&format_czk(h))
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{} %", decimal(v, 2)))
}

/// The page of every casino for the overview's month.
pub fn overview_page(view: &Overview, month: Month) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<nav><a href=\"/?month={prev}\">← {prev_cs}</a> · <a href=\"/?month={next}\">{next_cs} →</a> · \
         <a href=\"/view.json?month={m}\">JSON</a> · <a href=\"/view.csv?month={m}\">CSV</a></nav>\
         <h1>Dozor nad kasiny — {month}</h1><p class=\"meta\">Stav k {at} (Europe/Prague). Čísla jsou \
         z vlastního přepočtu monitoru: každý záznam ověřen proti podepsanému kontrolnímu bodu, každé \
         kolo znovu posouzeno. z je odchylka výplat od teoretického RTP ve směrodatných odchylkách, \
         <span class=\"bad\">červeně</span> za ±3σ.</p>\
         <form method=\"get\" action=\"/\"><label>Měsíc <input name=\"month\" value=\"{m}\" pattern=\"[0-9]{{4}}-[0-9]{{2}}\" size=\"7\"></label> \
         <button type=\"submit\">Zobrazit</button></form>",
        prev = month.previous(),
        prev_cs = esc(&month.previous().czech()),
        next = month.next(),
        next_cs = esc(&month.next().czech()),
        m = month,
        month = esc(&month.czech()),
        at = prague(view.generated_at),
    );
    body.push_str(
        "<h2>Kasina</h2><table><thead><tr><th>kasino</th><th>stav</th><th class=\"n\">záznamů ověřeno</th>\
         <th class=\"n\">kontrolní bod</th><th class=\"n\">stáří</th><th>svědci</th><th class=\"n\">výstrahy</th>\
         <th class=\"n\">neshody s kasinem</th></tr></thead><tbody>",
    );
    for c in &view.casinos {
        casino_row(&mut body, c);
    }
    body.push_str("</tbody></table>");
    for c in &view.casinos {
        games_table(&mut body, c);
    }
    page(&format!("Dozor nad kasiny — {}", month.czech()), &body)
}

fn casino_row(body: &mut String, c: &CasinoView) {
    let w = &c.witnesses;
    let witnesses = if w.configured == 0 {
        "bez svědků".to_owned()
    } else {
        format!(
            "<span class=\"{}\">{} z {} (kvorum {})</span>{}",
            if w.quorum_met { "ok" } else { "bad" },
            w.cosigners.len(),
            w.configured,
            w.quorum,
            if w.cosigners.is_empty() {
                String::new()
            } else {
                format!(
                    "<br><span class=\"muted\">{}</span>",
                    esc(&w.cosigners.join(", "))
                )
            }
        )
    };
    let _ = write!(
        body,
        "<tr{flag}><td><a href=\"#c-{id}\">{name}</a></td><td><span class=\"state-{state}\">{words}</span>{detail}</td>\
         <td class=\"n\">{entries}</td><td class=\"n\">{size}</td><td class=\"n\">{age}</td><td>{witnesses}</td>\
         <td class=\"n\">{alerts}</td><td class=\"n\">{mismatches}</td></tr>",
        flag = if matches!(c.state, "halted" | "failing") { " class=\"flag\"" } else { "" },
        id = esc(&c.casino),
        name = esc(&c.casino),
        state = c.state,
        words = state_words(c.state),
        detail = c
            .state_detail
            .as_deref()
            .map(|d| format!("<br><span class=\"muted\">{}</span>", esc(d)))
            .unwrap_or_default(),
        entries = count(c.entries_followed),
        size = c.checkpoint_size.map_or("–".into(), count),
        age = c.checkpoint_age_seconds.map_or("–".into(), age),
        alerts = count(c.alerts_open),
        mismatches = count(c.mismatched_rounds.len() as i64),
    );
}

fn games_table(body: &mut String, c: &CasinoView) {
    let _ = write!(
        body,
        "<h2 id=\"c-{id}\">{name}: hry v měsíci</h2><table><thead><tr><th>hra</th><th class=\"n\">kol</th>\
         <th class=\"n\">vsazeno</th><th class=\"n\">vráceno (neplatná kola)</th><th class=\"n\">vyplaceno</th><th class=\"n\">skutečné RTP</th>\
         <th class=\"n\">teoretické</th><th class=\"n\">z (σ)</th><th class=\"n\">nálezy v měsíci</th>\
         <th class=\"n\">nálezy otevřené</th><th class=\"n\">vyřešené</th></tr></thead><tbody>",
        id = esc(&c.casino),
        name = esc(&c.casino),
    );
    if c.games.is_empty() {
        body.push_str(
            "<tr><td colspan=\"11\" class=\"muted\">V tomto měsíci žádná kola.</td></tr>",
        );
    }
    for g in &c.games {
        let z = match g.deviation_sd {
            None => "<span class=\"muted\">bez teorie</span>".to_owned(),
            Some(z) => format!(
                "<span class=\"{}\">{}</span>",
                if g.flagged { "bad" } else { "ok" },
                signed(z)
            ),
        };
        let _ = write!(
            body,
            "<tr{}><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{z}</td><td class=\"n\">{} ({})</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            if g.flagged { " class=\"flag\"" } else { "" },
            esc(&g.game_name),
            count(g.rounds),
            money(g.stakes_h),
            money(g.returned_h),
            money(g.paid_h),
            pct(g.actual_rtp_pct),
            pct(g.theoretical_rtp_pct),
            count(g.findings),
            money(g.findings_amount_h),
            count(g.findings_open),
            count(g.findings_resolved),
        );
    }
    body.push_str("</tbody></table>");
    alerts_table(body, c);
    if !c.mismatched_rounds.is_empty() {
        let links: Vec<String> = c
            .mismatched_rounds
            .iter()
            .take(200)
            .map(|i| format!("<a href=\"/casino/{}/round/{i}\">{i}</a>", esc(&c.casino)))
            .collect();
        let _ = write!(
            body,
            "<p class=\"bad\">Kola, jejichž verdikt kasina se liší od monitoru: {}</p>",
            links.join(", ")
        );
    }
}

/// An alert's kind in Czech; the code itself for one the view does not know.
pub fn alert_kind_words(kind: &str) -> &str {
    match kind {
        "checkpoint" => "kontrolní bod odmítnut",
        "checkpoint_stale" => "kontrolní bod zastaral",
        "checkpoint_recovered" => "kontrolní bod opět roste",
        "stale_checkpoint_served" => "kasino podává starší kontrolní bod",
        "quorum_missing" => "chybí kosignace svědků",
        "rollback" => "kniha vrácena zpět",
        "fork" | "not_extending" => "kniha se rozdvojila",
        "too_far_ahead" => "kontrolní bod příliš napřed",
        "tiles" => "dlaždice nesedí",
        "entry" => "záznam nesedí",
        "verdict_mismatch" => "verdikt kasina se liší",
        "verdicts_missing" => "verdikty kasina chybí",
        "unknown_plan" => "neznámý herní plán",
        "unjudged_round" => "kolo nelze posoudit",
        "findings_open" => "nálezy dlouho otevřené",
        "rtp_deviation" => "RTP za ±3σ",
        "daily_summary" => "denní souhrn",
        other => other,
    }
}

/// The casino's latest alerts, newest first.
fn alerts_table(body: &mut String, c: &CasinoView) {
    if c.latest_alerts.is_empty() {
        return;
    }
    let _ = write!(
        body,
        "<h3>Poslední výstrahy ({} z {})</h3><table><thead><tr><th>kdy</th><th>druh</th><th>zpráva monitoru</th></tr></thead><tbody>",
        c.latest_alerts.len(),
        count(c.alerts_open)
    );
    for a in &c.latest_alerts {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td class=\"muted\">{}</td></tr>",
            prague(a.raised_at),
            esc(alert_kind_words(&a.kind)),
            esc(&a.message)
        );
    }
    body.push_str("</tbody></table>");
}

fn facts(body: &mut String, facts: &[(&str, String)]) {
    body.push_str("<dl class=\"facts\">");
    for (label, value) in facts {
        let _ = write!(body, "<dt>{}</dt><dd>{value}</dd>", esc(label));
    }
    body.push_str("</dl>");
}

/// A finding's message in Czech (the rules' catalogue).
pub fn czech_message(message: &str) -> String {
    rules::messages::czech_or_english(message, &rules::bet_kinds::czech_bet_kind)
}

/// A finding kind in Czech.
pub fn kind_words(kind: &str) -> String {
    rules::FindingKind::parse(kind).map_or_else(
        || kind.to_owned(),
        |k| rules::messages::kind_words(k).cs.to_owned(),
    )
}

/// One round laid out, with its proof.
pub fn round_page(v: &RoundView) -> String {
    let mut body = String::new();
    let title = format!("{} — záznam č. {}", v.casino, v.index);
    let _ = write!(
        body,
        "<nav><a href=\"/casino/{c}/round/{i}.json\">JSON</a></nav><p class=\"meta\"><a href=\"/#c-{c}\">← Kasina</a></p><h1>{t}</h1>",
        c = esc(&v.casino),
        i = v.index,
        t = esc(&title)
    );
    let p = &v.proof;
    let _ = write!(
        body,
        "<p class=\"{}\" role=\"status\">Záznam č. {} je v kontrolním bodě velikosti {} s kořenem <code>{}</code>, {}.</p>",
        if p.verified { "notice" } else { "error" },
        p.index,
        count(p.checkpoint_size as i64),
        esc(&p.checkpoint_root),
        if p.verified { "ověřeno" } else { "DŮKAZ ZAHRNUTÍ NESEDÍ" }
    );
    if !v.mismatches.is_empty() {
        body.push_str("<p class=\"error\">Verdikt kasina se liší od posouzení monitoru.</p>");
    }
    let mut about: Vec<(&str, String)> = Vec::new();
    if let Some(g) = &v.game_name {
        about.push(("Hra", esc(g)));
    }
    if let Some(t) = &v.table_id {
        about.push(("Stůl", esc(t)));
    }
    if let Some(s) = v.seq_no {
        about.push(("Pořadí záznamu (seq_no)", s.to_string()));
    }
    if let Some(at) = &v.played_at {
        about.push(("Odehráno", esc(at)));
    }
    about.push(("Přijato", esc(&v.received_at)));
    if let Some(words) = &v.outcome_words {
        about.push(("Výsledek", esc(words)));
    } else if let Some(outcome) = &v.outcome {
        about.push(("Výsledek", esc(&outcome.to_string())));
    }
    if let (Some(s), Some(p), Some(e)) = (v.stakes_h, v.paid_h, v.expected_paid_h) {
        about.push(("Vsazeno", money(s)));
        about.push(("Vyplaceno", money(p)));
        about.push(("Podle plánu náleží", money(e)));
    }
    if let Some(why) = &v.not_judged {
        about.push(("Neposouzeno", esc(why)));
    }
    facts(&mut body, &about);
    round_tables(&mut body, v);
    ledger_facts(&mut body, v);
    page(&title, &body)
}

fn round_tables(body: &mut String, v: &RoundView) {
    let flagged = |id: &str| v.findings.iter().any(|f| f.bet_ids.iter().any(|b| b == id));
    if !v.bets.is_empty() {
        body.push_str(
            "<h2>Sázky</h2><table><thead><tr><th>sázka</th><th>druh</th><th>hráč</th><th class=\"n\">vsazeno</th>\
             <th class=\"n\">vyplaceno</th><th class=\"n\">podle plánu</th></tr></thead><tbody>",
        );
        for b in &v.bets {
            let _ = write!(
                body,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                if flagged(&b.bet_id) { " class=\"flag\"" } else { "" },
                esc(&b.bet_id),
                esc(&b.kind_name),
                esc(&b.player),
                money(b.stake_h),
                money(b.paid_h),
                money(b.expected_paid_h),
            );
        }
        body.push_str("</tbody></table>");
    }
    body.push_str("<h2>Nálezy monitoru</h2>");
    if v.findings.is_empty() {
        body.push_str("<p class=\"muted\">Monitor v kole nic nenašel.</p>");
    } else {
        body.push_str("<table><thead><tr><th>druh</th><th class=\"n\">částka</th><th>popis</th></tr></thead><tbody>");
        for f in &v.findings {
            let _ = write!(
                body,
                "<tr class=\"flag\"><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                esc(&kind_words(&f.kind)),
                money(f.amount_h),
                esc(&czech_message(&f.message))
            );
        }
        body.push_str("</tbody></table>");
    }
    body.push_str("<h2>Verdikt kasina</h2>");
    match &v.casino_verdict {
        None => body.push_str("<p class=\"muted\">Kasino k záznamu verdikt nezveřejnilo.</p>"),
        Some(verdict) => {
            let money_of = |key: &str| {
                verdict
                    .get(key)
                    .and_then(serde_json::Value::as_i64)
                    .map_or("–".into(), money)
            };
            let findings: Vec<String> = verdict
                .get("findings")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .map(|f| {
                    let kind = f
                        .get("kind")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or("");
                    let amount = f
                        .get("amount_h")
                        .and_then(serde_json::Value::as_i64)
                        .unwrap_or(0);
                    format!("{} {}", esc(&kind_words(kind)), money(amount))
                })
                .collect();
            facts(
                body,
                &[
                    ("Vyplaceno", money_of("paid_h")),
                    ("Podle plánu náleží", money_of("expected_paid_h")),
                    (
                        "Nálezy kasina",
                        if findings.is_empty() {
                            "žádné".into()
                        } else {
                            findings.join("; ")
                        },
                    ),
                ],
            );
        }
    }
    if !v.mismatches.is_empty() {
        body.push_str(
            "<h3>Neshody</h3><table><thead><tr><th>údaj</th><th>kasino</th><th>monitor</th></tr></thead><tbody>",
        );
        for m in &v.mismatches {
            let _ = write!(
                body,
                "<tr class=\"flag\"><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
                esc(&m.field),
                esc(&m.casino.to_string()),
                esc(&m.monitor.to_string())
            );
        }
        body.push_str("</tbody></table>");
    }
}

fn ledger_facts(body: &mut String, v: &RoundView) {
    let p = &v.proof;
    body.push_str("<h2>Důkaz z dlaždic kasina</h2>");
    facts(
        body,
        &[
            ("Index záznamu", p.index.to_string()),
            (
                "Hash záznamu (list stromu)",
                format!("<code>{}</code>", esc(&p.leaf_hash)),
            ),
            ("Balík záznamů", format!("<code>{}</code>", esc(&p.bundle))),
            (
                "Dlaždice hashů",
                format!("<code>{}</code>", esc(&p.tiles.join(", "))),
            ),
            (
                "Důkaz zahrnutí",
                format!(
                    "{} hashů: <code>{}</code>",
                    p.path.len(),
                    esc(&p.path.join(" "))
                ),
            ),
            (
                "Kořen kontrolního bodu",
                format!("<code>{}</code>", esc(&p.checkpoint_root)),
            ),
            ("Podepsal klíč", format!("<code>{}</code>", esc(&v.key_id))),
        ],
    );
}

/// An error page.
pub fn error_page(status: u16, message: &str) -> String {
    page(
        "Chyba",
        &format!(
            "<h1>Chyba {status}</h1><p class=\"error\">{}</p><p><a href=\"/\">← Kasina</a></p>",
            esc(message)
        ),
    )
}
