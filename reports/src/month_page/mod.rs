//! The monthly RTP report as a page a person reads: one self-contained HTML document (inline
//! CSS and SVG, no script, nothing fetched — its Content-Security-Policy forbids it), laid out
//! for A4 when printed.

mod charts;
mod format;
mod names;
mod tables;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::NaiveDate;

use crate::html::esc;
use crate::monthly::{RtpReport, RtpRow};
use crate::sheet::Language;
use charts::{findings_section, ggr_chart, rtp_chart};
use format::{day_text, number};
use names::GameName;
use tables::{kinds_table, summary_table};

const STYLE: &str = "
@page { size: A4; margin: 14mm 12mm; }
* { box-sizing: border-box; }
body { font: 10.5pt/1.4 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif; color: #1d2733;
  margin: 0 auto; max-width: 186mm; padding: 8mm 0; }
h1 { font-size: 17pt; margin: 0 0 2mm; }
h2 { font-size: 13pt; margin: 7mm 0 2mm; border-bottom: 1px solid #c9d2dc; padding-bottom: 1mm; }
h3 { font-size: 11pt; margin: 4mm 0 1mm; }
p.meta { color: #4d5b6a; margin: 0 0 3mm; }
table { border-collapse: collapse; width: 100%; font-size: 7.5pt; margin: 1mm 0 3mm; }
th, td { padding: 0.8mm 0.8mm; border-bottom: 1px solid #e1e6ec; text-align: right; white-space: nowrap; }
td.l:last-child { white-space: normal; min-width: 30mm; }
th { background: #eef2f6; font-weight: 600; }
td.l, th.l { text-align: left; }
tr.flag td { background: #fde8e8; }
.small { font-size: 6.5pt; }
.ok { color: #1f7a3a; } .bad { color: #b3261e; font-weight: 600; } .muted { color: #7a8896; }
section { break-inside: avoid; page-break-inside: avoid; }
svg { width: 100%; height: auto; display: block; }
svg text { font-family: 'DejaVu Sans', Arial, sans-serif; }
.legend span { display: inline-block; margin-right: 5mm; font-size: 8.5pt; }
.swatch { display: inline-block; width: 9mm; height: 2.5mm; vertical-align: middle; margin-right: 1mm; }
";

/// The page in English (the nightly job's sealed copy), games named as `plans` name them.
pub fn render(report: &RtpReport, plans: &rules::PlanBook) -> String {
    render_in(report, plans, Language::English)
}

/// The page in `l`: Czech or English, games named as `plans` name them.
pub fn render_in(report: &RtpReport, plans: &rules::PlanBook, l: Language) -> String {
    let name = |code: &str| plans.game_name(code).to_owned();
    let mut html = String::with_capacity(64 * 1024);
    head(&mut html, report, &name, l);
    notices(&mut html, report, l);
    let month_games: Vec<&RtpRow> = report
        .rows
        .iter()
        .filter(|r| r.gaming_day.is_none() && r.table_id.is_none())
        .collect();
    if month_games.iter().all(|r| r.rounds == 0) {
        let _ = write!(
            html,
            "<p class=\"bad\">{}</p>",
            l.pick(
                "V těchto herních dnech se nehrálo.",
                "No rounds were played in these gaming days."
            )
        );
    }
    summary_table(&mut html, &month_games, &name, l);
    let days: Vec<NaiveDate> = report
        .first_day
        .iter_days()
        .take_while(|d| *d <= report.through_day)
        .collect();
    rtp_charts(&mut html, report, &month_games, &days, &name, l);
    ggr_chart(&mut html, report, &name, l);
    findings_section(&mut html, report, &days, &name, l);
    kinds_table(&mut html, &report.kinds, &name, l);
    html.push_str("</body></html>\n");
    html
}

/// The document's head, the title with the report's scope (a game, a table) and what the
/// figures mean.
fn head(html: &mut String, report: &RtpReport, name: &GameName<'_>, l: Language) {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let scope = match (&report.game, &report.table_id) {
        (None, None) => String::new(),
        (game, table) => format!(
            " — {}{}",
            game.as_deref().map(|g| esc(&name(g))).unwrap_or_default(),
            table
                .as_deref()
                .map(|t| format!(" {} {}", w("stůl", "table"), esc(t)))
                .unwrap_or_default()
        ),
    };
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>dozor — {title}, {month}{scope}</title><style>{STYLE}</style></head><body>\
         <h1>{title}, {month}{scope}</h1><p class=\"meta\">{meta}</p>",
        lang = l.code(),
        title = w("Výplaty a RTP", "Payouts and RTP"),
        meta = match l {
            Language::Czech => format!(
                "Herní dny {} až {} (Europe/Prague, od {:02}:00). Teoretické RTP je RTP skutečně \
                 vsazených sázek; z je odchylka výplat od něj ve směrodatných odchylkách, \
                 <span class=\"bad\">červeně</span> za ±{}σ. Označení má smysl, až šikmost \
                 sečtených výplat klesne na {}: do té doby buňka říká, kolik kol je potřeba.",
                day_text(report.first_day, l), day_text(report.through_day, l),
                report.gaming_day_start_hour, number(report.flag_sd, l),
                number(report.skewness_limit, l)
            ),
            Language::English => format!(
                "Gaming days {} to {} (Europe/Prague, from {:02}:00). Theoretical RTP is that of \
                 the bets actually placed; z is the deviation of the payouts from it in standard \
                 deviations, <span class=\"bad\">red</span> beyond ±{}σ. A flag means something \
                 once the skewness of the summed payouts is at most {}: until then the cell says \
                 how many rounds that needs.",
                report.first_day, report.through_day, report.gaming_day_start_hour,
                report.flag_sd, report.skewness_limit
            ),
        },
        month = esc(&report.month),
    );
}

/// What the reader must know first: the figures are provisional, the Ministry has not
/// confirmed packages.
fn notices(html: &mut String, report: &RtpReport, l: Language) {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    if let Some(note) = &report.provisional_note {
        let note = match l {
            Language::Czech => format!(
                "herní den {} končí {} (Europe/Prague); do té doby se čísla mění",
                day_text(report.through_day, l),
                report
                    .ends_at
                    .with_timezone(&chrono_tz::Europe::Prague)
                    .format("%-d. %-m. %Y %H:%M")
            ),
            Language::English => note.clone(),
        };
        let _ = write!(
            html,
            "<p class=\"bad\" role=\"status\">{} — {}</p>",
            w("PŘEDBĚŽNÉ", "PROVISIONAL"),
            esc(&note)
        );
    }
    if !report.ministry_packages_unconfirmed.is_empty() {
        let listed: Vec<String> = report
            .ministry_packages_unconfirmed
            .iter()
            .map(|p| {
                let state = crate::words::delivery_state(&p.state, l);
                format!("{} ({})", esc(&p.package), esc(&state))
            })
            .collect();
        let _ = write!(
            html,
            "<p class=\"bad\" role=\"status\">{}: {}</p>",
            w(
                "Ministerstvo dosud nepotvrdilo balíčky",
                "Packages the Ministry has not confirmed yet"
            ),
            listed.join(", ")
        );
    }
}

/// Each game against the house: its actual RTP against its theory, day by day.
fn rtp_charts(
    html: &mut String,
    report: &RtpReport,
    month_games: &[&RtpRow],
    days: &[NaiveDate],
    name: &GameName<'_>,
    l: Language,
) {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let _ = write!(
        html,
        "<h2>{}</h2><p class=\"legend\"><span><i class=\"swatch\" style=\"background:#1f5fa8\"></i>{}</span>\
         <span><i class=\"swatch\" style=\"background:#444;height:1px\"></i>{}</span>\
         <span><i class=\"swatch\" style=\"background:#cfe0f3\"></i>{}</span>\
         <span><i class=\"swatch\" style=\"background:#b3261e\"></i>{}</span></p>",
        w("Skutečné proti teoretickému RTP, den po dni", "Actual against theoretical RTP, day by day"),
        w("skutečné RTP", "actual RTP"),
        w("teoretické RTP", "theoretical RTP"),
        w("pásmo ±3σ", "±3σ band"),
        w("za 3σ", "beyond 3σ"),
    );
    let mut charted = 0;
    for game in month_games {
        let per_day: BTreeMap<NaiveDate, &RtpRow> = report
            .rows
            .iter()
            .filter(|r| r.table_id.is_none() && r.game == game.game)
            .filter_map(|r| r.gaming_day.map(|d| (d, r)))
            .collect();
        if game.theoretical_rtp_pct.is_some() {
            charted += 1;
            rtp_chart(html, &esc(&name(&game.game)), days, &per_day, l);
        }
    }
    if charted == 0 {
        let _ = write!(
            html,
            "<p class=\"muted\">{}</p>",
            w(
                "Nehrála se žádná hra proti kasinu.",
                "No game against the house was played."
            )
        );
    }
}
