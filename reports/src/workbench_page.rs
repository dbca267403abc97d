//! The compliance officer's workbench as pages: the findings with filters, sorting, paging and
//! files to download, and each finding with its round laid out, where it stands in the ledger
//! and the form that resolves it. Self-contained HTML (inline CSS, no script, nothing fetched),
//! in Czech or English.

use std::fmt::Write as _;

use dozor_log::access::FindingState;
use rules::money::format_czk;

use crate::findings::{FindingItem, FindingPage, FindingWithHistory};
pub use crate::html::esc;
use crate::round_layout::{self, FindingFacts};
use crate::round_view::RecordView;
use crate::sheet::Language;
use crate::words;
use ledger::storage::report_reads::findings::FindingSort;

const STYLE: &str = "
* { box-sizing: border-box; }
body { font: 10.5pt/1.45 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; color: #1d2733;
  margin: 0 auto; max-width: 300mm; padding: 6mm 8mm; }
h1 { font-size: 16pt; margin: 0 0 2mm; } h2 { font-size: 12.5pt; margin: 6mm 0 2mm;
  border-bottom: 1px solid #c9d2dc; padding-bottom: 1mm; }
nav { float: right; font-size: 9pt; } a { color: #1f5fa8; }
p.meta { color: #4d5b6a; margin: 0 0 3mm; }
form.filters { display: flex; flex-wrap: wrap; gap: 2mm 4mm; align-items: flex-end;
  background: #f3f6f9; padding: 3mm; border: 1px solid #dde4eb; }
form.filters label, form.resolve label { display: flex; flex-direction: column; font-size: 8.5pt; color: #4d5b6a; }
input, select, textarea { font: inherit; font-size: 9.5pt; padding: 1mm; }
button { font: inherit; padding: 1.5mm 4mm; background: #1f5fa8; color: #fff; border: 0; cursor: pointer; }
table { border-collapse: collapse; width: 100%; font-size: 9pt; margin: 1mm 0 3mm; }
th, td { padding: 1mm 1.5mm; border-bottom: 1px solid #e1e6ec; text-align: left; vertical-align: top; }
th { background: #eef2f6; font-weight: 600; } td.n, th.n { text-align: right; white-space: nowrap; }
tr.flag td { background: #fde8e8; } tr.this td { background: #fff4d6; }
.state-open { color: #b3261e; font-weight: 600; } .state-confirmed { color: #1f7a3a; }
.state-dismissed { color: #4d5b6a; } .state-escalated { color: #a15c00; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.5mm 5mm; margin: 0 0 3mm; }
dl.facts dt { color: #4d5b6a; } dl.facts dd { margin: 0; }
.headline { font-size: 13pt; font-weight: 600; margin: 2mm 0; }
.notice { padding: 2mm 3mm; background: #e6f4ea; border: 1px solid #b7dfc2; margin: 2mm 0; }
.error { padding: 2mm 3mm; background: #fde8e8; border: 1px solid #f1b5b0; margin: 2mm 0; }
form.resolve { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 2mm 5mm;
  background: #f3f6f9; padding: 3mm; border: 1px solid #dde4eb; max-width: 180mm; }
form.resolve .wide { grid-column: 1 / -1; } .muted { color: #7a8896; } code { font-size: 8.5pt; }
.paging { display: flex; gap: 5mm; margin: 2mm 0; }
";

/// A query string of `pairs`, each value URL-encoded.
pub fn query(pairs: &[(String, String)]) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs.iter().filter(|(_, v)| !v.is_empty()) {
        out.append_pair(k, v);
    }
    out.finish()
}

fn with(pairs: &[(String, String)], key: &str, value: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = pairs.iter().filter(|(k, _)| k != key).cloned().collect();
    out.push((key.to_owned(), value.to_owned()));
    out
}

fn page(title: &str, language: Language, switch: &str, body: &str) -> String {
    let other = match language {
        Language::Czech => ("English", "en"),
        Language::English => ("Česky", "cs"),
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{} — dozor</title>\
         <style>{STYLE}</style></head><body><nav><a href=\"{}\" hreflang=\"{}\">{}</a></nav>{body}</body></html>\n",
        language.code(),
        esc(title),
        esc(&format!("{switch}lang={}", other.1)),
        other.1,
        other.0,
    )
}

fn state_cell(state: &str, language: Language) -> String {
    format!(
        "<span class=\"state-{}\">{}</span>",
        esc(state),
        esc(&words::finding_state_code(state, language))
    )
}

fn prague(t: chrono::DateTime<chrono::Utc>) -> String {
    t.with_timezone(&chrono_tz::Europe::Prague)
        .format("%d.%m.%Y %H:%M:%S")
        .to_string()
}

/// What the list page shows.
pub struct ListView<'a> {
    pub page: &'a FindingPage,
    /// The filter as the request gave it (name, value), echoed in the form and the links.
    pub filter: &'a [(String, String)],
    pub plans: &'a rules::PlanBook,
    pub language: Language,
}

fn value_of<'a>(pairs: &'a [(String, String)], key: &str) -> &'a str {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

fn select(name: &str, label: &str, options: &[(String, String)], chosen: &str) -> String {
    let mut out = format!("<label>{}<select name=\"{name}\">", esc(label));
    for (value, text) in options {
        let selected = if value == chosen { " selected" } else { "" };
        let _ = write!(
            out,
            "<option value=\"{}\"{selected}>{}</option>",
            esc(value),
            esc(text)
        );
    }
    out.push_str("</select></label>");
    out
}

/// The findings list: filters, totals, files, the page of findings and the way to the next.
pub fn render_list(v: &ListView<'_>) -> String {
    let l = v.language;
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let f = v.filter;
    let mut body = String::new();
    let _ = write!(
        body,
        "<h1>{}</h1><p class=\"meta\">{}</p>",
        w("Nálezy", "Findings"),
        w(
            "Rozdíly mezi tím, co stoly udělaly, a tím, co žádá herní plán. Každý nález otevře své kolo.",
            "Discrepancies between what the tables did and what the plan requires. Each finding opens its round."
        )
    );
    // The filter form: a GET of this page.
    let mut games = vec![(String::new(), w("všechny hry", "every game").to_owned())];
    for game in rules::GameCode::ALL {
        games.push((
            game.as_str().to_owned(),
            v.plans.game_name(game.as_str()).to_owned(),
        ));
    }
    let mut kinds = vec![(String::new(), w("všechny druhy", "every kind").to_owned())];
    for kind in rules::FindingKind::ALL {
        kinds.push((
            kind.as_str().to_owned(),
            words::finding_kind(kind, l).to_owned(),
        ));
    }
    let mut states = vec![(String::new(), w("všechny stavy", "every state").to_owned())];
    for state in FindingState::ALL {
        states.push((
            state.as_str().to_owned(),
            words::finding_state(state, l).to_owned(),
        ));
    }
    let sorts: Vec<(String, String)> = FindingSort::ALL
        .iter()
        .map(|s| {
            let text = match s {
                FindingSort::PlayedAt => w("nejstarší první", "oldest first"),
                FindingSort::PlayedAtDesc => w("nejnovější první", "newest first"),
                FindingSort::AmountDesc => w("největší částka první", "largest amount first"),
                FindingSort::Amount => w("nejmenší částka první", "smallest amount first"),
                FindingSort::Table => w("podle stolu", "by table"),
                FindingSort::Kind => w("podle druhu", "by kind"),
            };
            (s.as_str().to_owned(), text.to_owned())
        })
        .collect();
    let input = |name: &str, label: &str, kind: &str| {
        format!(
            "<label>{}<input type=\"{kind}\" name=\"{name}\" value=\"{}\"></label>",
            esc(label),
            esc(value_of(f, name))
        )
    };
    let _ = write!(
        body,
        "<form class=\"filters\" method=\"get\">{}{}{}{}{}{}{}{}{}\
         <input type=\"hidden\" name=\"lang\" value=\"{}\"><button type=\"submit\">{}</button></form>",
        input("from", w("Od herního dne", "From gaming day"), "date"),
        input("to", w("Do herního dne", "To gaming day"), "date"),
        select("game", w("Hra", "Game"), &games, value_of(f, "game")),
        input("table_id", w("Stůl", "Table"), "text"),
        select("kind", w("Druh", "Kind"), &kinds, value_of(f, "kind")),
        select("state", w("Stav", "State"), &states, value_of(f, "state")),
        input("min_amount", w("Částka od (Kč)", "Amount from (CZK)"), "text"),
        input("max_amount", w("Částka do (Kč)", "Amount to (CZK)"), "text"),
        select("sort", w("Řazení", "Order"), &sorts, value_of(f, "sort")),
        l.code(),
        w("Vybrat", "Filter"),
    );
    let shown_to = v.page.offset + v.page.items.len() as i64;
    let _ = write!(
        body,
        "<p class=\"meta\">{} <b>{}</b>, {} <b>{}</b>; {} {}–{}. {}: \
         <a href=\"/api/v1/findings?{}\">CSV</a> · <a href=\"/api/v1/findings?{}\">XLSX</a> · \
         <a href=\"/api/v1/findings?{}\">{}</a></p>",
        w("Nálezů", "Findings"),
        v.page.total,
        w("v částce", "amounting to"),
        esc(&format_czk(v.page.total_amount_h)),
        w("zobrazeny", "showing"),
        if v.page.items.is_empty() {
            0
        } else {
            v.page.offset + 1
        },
        shown_to,
        w("Stáhnout vše", "Download all"),
        esc(&query(&with(&api_filter(f), "format", "csv-cz"))),
        esc(&query(&with(&api_filter(f), "format", "xlsx"))),
        esc(&query(&with(&api_filter(f), "format", "csv"))),
        w("CSV pro programy", "CSV for programs"),
    );
    let _ = write!(
        body,
        "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th class=\"n\">{}</th>\
         <th>{}</th><th class=\"n\">{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        w("Nález", "Finding"),
        w("Herní den", "Gaming day"),
        w("Odehráno", "Played at"),
        w("Hra", "Game"),
        w("Stůl", "Table"),
        w("Záznam", "Record"),
        w("Druh", "Kind"),
        w("Částka", "Amount"),
        w("Stav", "State"),
        w("Popis", "Description"),
    );
    for item in &v.page.items {
        list_row(&mut body, item, v.plans, l);
    }
    body.push_str("</tbody></table><div class=\"paging\">");
    if v.page.offset > 0 {
        let previous = (v.page.offset - v.page.limit).max(0);
        let _ = write!(
            body,
            "<a href=\"?{}\">← {}</a>",
            esc(&query(&with(f, "offset", &previous.to_string()))),
            w("předchozí", "previous")
        );
    }
    if shown_to < v.page.total {
        let _ = write!(
            body,
            "<a href=\"?{}\">{} →</a>",
            esc(&query(&with(f, "offset", &shown_to.to_string()))),
            w("další", "next")
        );
    }
    body.push_str("</div>");
    let switch = format!(
        "?{}&",
        query(
            &f.iter()
                .filter(|(k, _)| k != "lang")
                .cloned()
                .collect::<Vec<_>>()
        )
    );
    page(w("Nálezy", "Findings"), l, &switch, &body)
}

/// The list page's filter as the API's findings query (amounts in haléře).
fn api_filter(f: &[(String, String)]) -> Vec<(String, String)> {
    f.iter()
        .filter(|(k, _)| k != "offset")
        .filter_map(|(k, v)| match k.as_str() {
            "min_amount" | "max_amount" => {
                parse_koruny(v).map(|h| (format!("{k}_h"), h.to_string()))
            }
            _ => Some((k.clone(), v.clone())),
        })
        .collect()
}

fn list_row(body: &mut String, item: &FindingItem, plans: &rules::PlanBook, l: Language) {
    let lang = l.code();
    let _ = write!(
        body,
        "<tr><td><a href=\"/workbench/findings/{id}?lang={lang}\">{id}</a></td><td>{}</td><td>{}</td>\
         <td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
        item.gaming_day.format("%d.%m.%Y"),
        prague(item.played_at),
        esc(plans.game_name(&item.game)),
        esc(&item.table_id),
        item.seq_no.map_or_else(String::new, |n| n.to_string()),
        esc(&words::finding_kind_code(&item.kind, l)),
        esc(&format_czk(item.amount_h)),
        state_cell(&item.state, l),
        esc(&item.message),
        id = esc(&item.id),
    );
}

/// Koruny as people type them — `1 234,50`, `1234.5`, `100` — in haléře; none if it is not an
/// amount (or has more than two decimals).
pub fn parse_koruny(text: &str) -> Option<i64> {
    let cleaned: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{a0}' && *c != '\u{202f}')
        .collect();
    let cleaned = cleaned
        .strip_suffix("Kč")
        .unwrap_or(&cleaned)
        .replace(',', ".");
    if cleaned.is_empty() {
        return None;
    }
    let (koruny, halere) = cleaned.split_once('.').unwrap_or((&cleaned, ""));
    if koruny.is_empty() && halere.is_empty()
        || !koruny.bytes().all(|b| b.is_ascii_digit())
        || !halere.bytes().all(|b| b.is_ascii_digit())
        || halere.len() > 2
    {
        return None;
    }
    let koruny: i64 = if koruny.is_empty() {
        0
    } else {
        koruny.parse().ok()?
    };
    let halere: i64 = match halere.len() {
        0 => 0,
        1 => halere.parse::<i64>().ok()? * 10,
        _ => halere.parse().ok()?,
    };
    koruny.checked_mul(100)?.checked_add(halere)
}

/// The resolution form of a finding page.
pub struct ResolveForm {
    /// The page's form token.
    pub token: String,
    /// The states the finding may take now.
    pub next_states: Vec<FindingState>,
    /// Other open findings of the same round (for "all of the round").
    pub open_in_round: usize,
}

/// What a finding's page shows.
pub struct FindingPageView<'a> {
    pub finding: &'a FindingWithHistory,
    pub record: &'a RecordView,
    /// Whether the inclusion proof checked against the checkpoint's root.
    pub proof_checked: Option<bool>,
    pub form: Option<ResolveForm>,
    /// A word after a resolution, or why one was refused.
    pub notice: Option<(bool, String)>,
    pub plans: &'a rules::PlanBook,
    pub language: Language,
}

fn facts(body: &mut String, facts: &[(String, String)]) {
    body.push_str("<dl class=\"facts\">");
    for (label, value) in facts {
        let _ = write!(body, "<dt>{}</dt><dd>{}</dd>", esc(label), esc(value));
    }
    body.push_str("</dl>");
}

/// What the round's layout reads of a finding the workbench lists.
pub fn finding_facts(f: &FindingItem) -> FindingFacts {
    FindingFacts {
        kind: f.kind.clone(),
        bet_ids: round_layout::bet_ids(&f.bet_ids),
        expected_h: f.expected_h,
        actual_h: f.actual_h,
        amount_h: f.amount_h,
    }
}

/// A finding with its round laid out, its place in the ledger, its history and its form. The
/// figures it heads with and those its bet's row shows are one computation
/// ([`round_layout::figures`]).
pub fn render_finding(v: &FindingPageView<'_>) -> String {
    let l = v.language;
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let f = &v.finding.finding;
    let r = v.record;
    let finding = finding_facts(f);
    let layout = round_layout::lay_out_finding(&r.record, r.verdict.as_ref(), &finding, v.plans, l);
    let mut body = String::new();
    let title = format!(
        "{} {} — {} {}",
        w("Nález", "Finding"),
        f.id,
        words::finding_kind_code(&f.kind, l),
        format_czk(f.amount_h)
    );
    let _ = write!(
        body,
        "<p class=\"meta\"><a href=\"/workbench/findings?lang={}\">← {}</a></p><h1>{}</h1><p>{}</p>",
        l.code(),
        w("Nálezy", "Findings"),
        esc(&title),
        esc(&f.message)
    );
    if let Some((ok, text)) = &v.notice {
        let _ = write!(
            body,
            "<div class=\"{}\" role=\"status\">{}</div>",
            if *ok { "notice" } else { "error" },
            esc(text)
        );
    }
    let mut about = vec![
        (
            w("Stav", "State").to_owned(),
            words::finding_state_code(&f.state, l),
        ),
        (
            w("Hra", "Game").to_owned(),
            v.plans.game_name(&f.game).to_owned(),
        ),
        (w("Stůl", "Table").to_owned(), f.table_id.clone()),
        (
            w("Pořadí záznamu (seq_no)", "Record number (seq_no)").to_owned(),
            r.seq_no.to_string(),
        ),
        (w("Odehráno", "Played at").to_owned(), prague(f.played_at)),
        (
            w("Herní den", "Gaming day").to_owned(),
            f.gaming_day.format("%d.%m.%Y").to_string(),
        ),
        (w("Přijato", "Received").to_owned(), prague(r.received_at)),
    ];
    if let Some(id) = &r.round_id {
        about.insert(
            4,
            (
                w("Kolo (round_id)", "Round (round_id)").to_owned(),
                id.clone(),
            ),
        );
    }
    about.extend(round_layout::figures(&finding, &r.record, l).facts());
    facts(&mut body, &about);

    let _ = write!(body, "<h2>{}</h2>", w("Kolo", "The round"));
    round_html(&mut body, &layout);

    let _ = write!(
        body,
        "<h2>{}</h2><table><thead><tr><th>{}</th><th>{}</th><th class=\"n\">{}</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        w("Nálezy tohoto kola", "This round's findings"),
        w("Nález", "Finding"),
        w("Druh", "Kind"),
        w("Částka", "Amount"),
        w("Stav", "State"),
        w("Popis", "Description"),
    );
    for other in &r.findings {
        let class = if other.id == f.id {
            " class=\"this\""
        } else {
            ""
        };
        let _ = write!(
            body,
            "<tr{class}><td><a href=\"/workbench/findings/{id}?lang={}\">{id}</a></td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            l.code(),
            esc(&words::finding_kind_code(&other.kind, l)),
            esc(&format_czk(other.amount_h)),
            state_cell(&other.state, l),
            esc(&other.message),
            id = esc(&other.id),
        );
    }
    body.push_str("</tbody></table>");

    if let Some(form) = &v.form {
        resolve_form(&mut body, f, form, l);
    }

    history_html(&mut body, &v.finding.history, l);

    let _ = write!(body, "<h2>{}</h2>", w("V knize záznamů", "In the ledger"));
    ledger_html(&mut body, r, v.proof_checked, l);
    let switch = format!("/workbench/findings/{}?", f.id);
    page(&title, l, &switch, &body)
}

/// The finding's resolutions: who, when, what, why.
fn history_html(body: &mut String, history: &[crate::findings::ResolutionView], l: Language) {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let _ = write!(body, "<h2>{}</h2>", w("Historie řešení", "Resolutions"));
    if history.is_empty() {
        let _ = write!(
            body,
            "<p class=\"muted\">{}</p>",
            w("Zatím neřešeno.", "Not resolved yet.")
        );
    } else {
        let _ = write!(
            body,
            "<table><thead><tr><th>{}</th><th>{}</th><th class=\"n\">{}</th><th>{}</th><th>{}</th><th>{}</th><th class=\"n\">{}</th></tr></thead><tbody>",
            w("Kdy", "When"),
            w("Stav", "State"),
            w("Vypořádáno", "Settled"),
            w("Důvod", "Reason"),
            w("Komentář", "Comment"),
            w("Kdo", "Who"),
            w("Index v knize", "Ledger index"),
        );
        for h in history {
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{} ({})</td><td class=\"n\">{}</td></tr>",
                prague(h.resolved_at),
                state_cell(&h.state, l),
                esc(&h.amount_settled_h.map_or_else(String::new, format_czk)),
                esc(h.reason.as_deref().unwrap_or("")),
                esc(&h.comment),
                esc(&h.key_name),
                esc(&h.key_role),
                h.ledger_index,
            );
        }
        body.push_str("</tbody></table>");
    }
}

/// The round as laid out: its headline, facts and tables, the rows a finding names marked.
fn round_html(body: &mut String, layout: &round_layout::Layout) {
    if !layout.headline.is_empty() {
        let _ = write!(body, "<p class=\"headline\">{}</p>", esc(&layout.headline));
    }
    facts(body, &layout.facts);
    for section in &layout.sections {
        let _ = write!(body, "<h3>{}</h3><table><thead><tr>", esc(&section.title));
        for c in &section.columns {
            let _ = write!(body, "<th>{}</th>", esc(c));
        }
        body.push_str("</tr></thead><tbody>");
        for row in &section.rows {
            body.push_str(if row.flagged {
                "<tr class=\"flag\">"
            } else {
                "<tr>"
            });
            for c in &row.cells {
                let _ = write!(body, "<td>{}</td>", esc(c));
            }
            body.push_str("</tr>");
        }
        body.push_str("</tbody></table>");
    }
}

/// Where the round stands in the ledger: its index, hash, key and the checkpoint covering it.
fn ledger_html(body: &mut String, r: &RecordView, proof_checked: Option<bool>, l: Language) {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let mut ledger = vec![
        (
            w("Index záznamu", "Entry index").to_owned(),
            r.ledger_index.to_string(),
        ),
        (
            w("Hash záznamu (list stromu)", "Entry hash (the tree's leaf)").to_owned(),
            r.entry_hash.clone(),
        ),
        (
            w("Podepsal klíč stolu", "Signed by the table key").to_owned(),
            r.key_id.clone(),
        ),
    ];
    match &r.checkpoint {
        Some(c) => {
            let checked = match proof_checked {
                Some(true) => w("důkaz zahrnutí ověřen", "inclusion proof checked"),
                Some(false) => w("DŮKAZ ZAHRNUTÍ NESEDÍ", "THE INCLUSION PROOF FAILS"),
                None => "",
            };
            ledger.push((
                w("Kontrolní bod", "Checkpoint").to_owned(),
                format!(
                    "{} {} {} {}; {checked}",
                    w("velikost", "size"),
                    c.size,
                    w("podepsán", "signed"),
                    prague(c.created_at)
                ),
            ));
            ledger.push((w("Kořen stromu", "Tree root").to_owned(), c.root.clone()));
            ledger.push((
                w("Ověřovací klíč", "Verifier key").to_owned(),
                c.verifier_key.clone(),
            ));
        }
        None => ledger.push((
            w("Kontrolní bod", "Checkpoint").to_owned(),
            w(
                "zatím žádný nepokrývá tento záznam",
                "none covers this entry yet",
            )
            .to_owned(),
        )),
    }
    facts(body, &ledger);
}

fn resolve_form(body: &mut String, f: &FindingItem, form: &ResolveForm, l: Language) {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let _ = write!(
        body,
        "<h2>{}</h2><form class=\"resolve\" method=\"post\" action=\"/workbench/findings/{}/resolutions?lang={}\">\
         <input type=\"hidden\" name=\"token\" value=\"{}\">",
        w("Vyřešit", "Resolve"),
        esc(&f.id),
        l.code(),
        esc(&form.token),
    );
    let states: Vec<(String, String)> = form
        .next_states
        .iter()
        .map(|s| {
            (
                s.as_str().to_owned(),
                words::finding_state(*s, l).to_owned(),
            )
        })
        .collect();
    body.push_str(&select("state", w("Nový stav", "New state"), &states, ""));
    let _ = write!(
        body,
        "<label>{}<input name=\"amount_settled\" inputmode=\"decimal\" placeholder=\"{}\"></label>\
         <label class=\"wide\">{}<input name=\"reason\" maxlength=\"500\"></label>\
         <label class=\"wide\">{}<textarea name=\"comment\" rows=\"3\" maxlength=\"2000\" required></textarea></label>",
        w("Vráceno nebo doplaceno (Kč, jen potvrzení)", "Recovered or paid back (CZK, confirmations only)"),
        esc(&format_czk(f.amount_h)),
        w(
            "Důvod (zamítnutí; potvrzení s částkou nad částkou nálezu)",
            "Reason (a dismissal; a confirmation settling more than the finding)"
        ),
        w("Komentář (vždy): co se stalo a proč", "Comment (always): what was done and why"),
    );
    if form.open_in_round > 0 {
        let _ = write!(
            body,
            "<label class=\"wide\" style=\"flex-direction:row;gap:2mm\"><input type=\"checkbox\" name=\"scope\" value=\"round\">{} ({})</label>",
            w(
                "stejně vyřešit i ostatní otevřené nálezy tohoto kola (bez částky)",
                "resolve this round's other open findings the same way (without an amount)"
            ),
            form.open_in_round
        );
    }
    let _ = write!(
        body,
        "<div class=\"wide\"><button type=\"submit\">{}</button></div></form>",
        w("Zapsat do knihy", "Record in the ledger")
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::{json, Value};

    use super::*;

    /// The page of the first finding of kind `kind` of `record`, judged under the bundled plan.
    fn page_of(record: Value, kind: &str) -> String {
        let plans = rules::PlanBook::builtin().unwrap();
        let plan = plans.get("69games-ziva-hra").unwrap();
        let round = rules::Round::parse(&record).unwrap();
        let verdict = rules::adjudicate_at(plan, &rules::TableSetup::NONE, &round).unwrap();
        let verdict = serde_json::to_value(&verdict).unwrap();
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-21T20:16:03Z")
            .unwrap()
            .to_utc();
        let findings: Vec<FindingItem> = verdict["findings"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(n, f)| FindingItem {
                id: format!("7.{n}"),
                ledger_index: 7,
                position: n as i32,
                state: "open".into(),
                table_id: record["table_id"].as_str().unwrap().into(),
                seq_no: record["seq_no"].as_i64(),
                round_id: None,
                game: record["game"].as_str().unwrap().into(),
                played_at: at,
                gaming_day: at.date_naive(),
                kind: f["kind"].as_str().unwrap().into(),
                bet_ids: f["bet_ids"].clone(),
                expected_h: f["expected_h"].as_i64(),
                actual_h: f["actual_h"].as_i64(),
                amount_h: f["amount_h"].as_i64().unwrap(),
                message: f["message"].as_str().unwrap().into(),
            })
            .collect();
        let finding = findings.iter().find(|f| f.kind == kind).unwrap().clone();
        let view = RecordView {
            table_id: finding.table_id.clone(),
            seq_no: finding.seq_no.unwrap(),
            round_id: None,
            record_type: "round".into(),
            ledger_index: 7,
            received_at: at,
            entry_hash: "00".repeat(32),
            record,
            key_id: "table-key".into(),
            signature: String::new(),
            verdict: Some(verdict),
            findings,
            checkpoint: None,
        };
        let with_history = FindingWithHistory {
            finding,
            history: Vec::new(),
        };
        render_finding(&FindingPageView {
            finding: &with_history,
            record: &view,
            proof_checked: None,
            form: None,
            notice: None,
            plans: &plans,
            language: Language::Czech,
        })
    }

    #[test]
    fn a_withheld_blackjack_win_heads_its_page_with_the_figures_its_flagged_row_shows() {
        // Box 1's T♠ Q♦ (20) beats the dealer's 9♥ 8♣ (17): the 1 000 Kč main bet wins 1:1,
        // 2 000 Kč. The casino withheld the win and returned the 1 000 Kč stake: the finding is
        // 2 000 − 1 000 = 1 000 Kč. The page once headed "Dle plánu 2 000 / Skutečně 1 000"
        // over a row paid 1 000, due 1 000, no difference.
        let record = json!({"type": "round", "game": "blackjack", "table_id": "BJ1",
            "seq_no": 3, "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:16:03Z",
            "shoe_id": "S1", "deal": ["Ts", "9h", "Qd", "8c"],
            "boxes": [{"box": 1, "hands": [["stand"]], "bets": [{"bet_id": "b1",
                "player": "p1", "kind": "main", "stake_h": 100_000, "paid_h": 100_000,
                "withheld": true}]}]});
        let page = page_of(record, "payout_withheld");
        let figures = "<dt>Vyhráno (zadrženo)</dt><dd>2 000,00 Kč</dd>\
             <dt>Vyplaceno</dt><dd>1 000,00 Kč</dd><dt>Rozdíl</dt><dd>-1 000,00 Kč</dd>";
        assert!(page.contains(figures), "{page}");
        assert!(!page.contains("<dt>Dle plánu</dt>"));
        let row = "<tr class=\"flag\"><td>b1</td><td>p1</td><td>main</td><td>box 1</td>\
             <td>1 000,00 Kč</td><td>1 000,00 Kč</td><td>1 000,00 Kč</td><td></td>\
             <td>výhra nevyplacena: Vyhráno (zadrženo) 2 000,00 Kč · Vyplaceno 1 000,00 Kč · \
             Rozdíl -1 000,00 Kč</td></tr>";
        assert!(page.contains(row), "{page}");
        assert!(page.contains("Nález 7.0 — výhra nevyplacena 1 000,00 Kč"));
    }

    #[test]
    fn koruny_are_read_as_people_type_them() {
        assert_eq!(parse_koruny("100"), Some(10_000));
        assert_eq!(parse_koruny("1 234,50"), Some(123_450));
        assert_eq!(parse_koruny("1234.5"), Some(123_450));
        assert_eq!(parse_koruny("0,05 Kč"), Some(5));
        assert_eq!(parse_koruny(",5"), Some(50));
        assert_eq!(parse_koruny("1,234"), None);
        assert_eq!(parse_koruny("-5"), None);
        assert_eq!(parse_koruny("deset"), None);
        assert_eq!(parse_koruny(""), None);
        assert_eq!(parse_koruny("99999999999999999999"), None);
    }

    #[test]
    fn text_is_escaped_and_queries_encoded() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let q = query(&[
            ("table_id".into(), "R 01&x".into()),
            ("kind".into(), String::new()),
        ]);
        assert_eq!(q, "table_id=R+01%26x");
    }
}
