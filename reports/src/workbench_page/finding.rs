//! A finding's page: its round laid out, where it stands in the ledger, its history and the
//! form that resolves it.

use std::fmt::Write as _;

use dozor_log::access::FindingState;
use rules::money::format_czk;

use super::frame::{day, page, prague, select, state_cell};
use crate::findings::{FindingItem, FindingWithHistory};
use crate::html::esc;
use crate::round_layout::{self, FindingFacts};
use crate::round_view::RecordView;
use crate::sheet::Language;
use crate::words;

/// The resolution form of a finding page.
pub struct ResolveForm {
    /// The page's form token.
    pub token: String,
    /// The states the finding may take now.
    pub next_states: Vec<FindingState>,
    /// Other open findings of the same round (for "all of the round").
    pub open_in_round: usize,
    /// What was typed into the form the last time, when it was refused: shown again.
    pub typed: Typed,
}

/// The form as it was filled in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Typed {
    pub state: String,
    pub amount_settled: String,
    pub reason: String,
    pub comment: String,
    /// The round's other open findings the same way.
    pub whole_round: bool,
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
        esc(&words::finding_message(&f.message, l))
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
        (
            w("Odehráno", "Played at").to_owned(),
            prague(f.played_at, l),
        ),
        (
            w("Herní den", "Gaming day").to_owned(),
            day(f.gaming_day, l),
        ),
        (
            w("Přijato", "Received").to_owned(),
            prague(r.received_at, l),
        ),
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
            esc(&words::finding_message(&other.message, l)),
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
                prague(h.resolved_at, l),
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
                    prague(c.created_at, l)
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
    let typed = &form.typed;
    body.push_str(&select(
        "state",
        w("Nový stav", "New state"),
        &states,
        &typed.state,
    ));
    let _ = write!(
        body,
        "<label>{}<input name=\"amount_settled\" inputmode=\"decimal\" placeholder=\"{}\" value=\"{}\"></label>\
         <label class=\"wide\">{}<input name=\"reason\" maxlength=\"500\" value=\"{}\"></label>\
         <label class=\"wide\">{}<textarea name=\"comment\" rows=\"3\" maxlength=\"2000\" required>{}</textarea></label>",
        w("Vráceno nebo doplaceno (Kč, jen potvrzení)", "Recovered or paid back (CZK, confirmations only)"),
        esc(&format_czk(f.amount_h)),
        esc(&typed.amount_settled),
        w(
            "Důvod (zamítnutí; potvrzení s částkou nad částkou nálezu)",
            "Reason (a dismissal; a confirmation settling more than the finding)"
        ),
        esc(&typed.reason),
        w("Komentář (vždy): co se stalo a proč", "Comment (always): what was done and why"),
        esc(&typed.comment),
    );
    if form.open_in_round > 0 {
        let _ = write!(
            body,
            "<label class=\"wide\" style=\"flex-direction:row;gap:2mm\"><input type=\"checkbox\" name=\"scope\" value=\"round\"{}>{} ({})</label>",
            if typed.whole_round { " checked" } else { "" },
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
