//! The monthly RTP report as a page a person reads: one self-contained HTML document (inline
//! CSS and SVG, no script, nothing fetched — its Content-Security-Policy forbids it), laid out
//! for A4 when printed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::NaiveDate;
use rules::money::format_czk;

use crate::html::esc;
use crate::monthly::{KindRow, RtpReport, RtpRow};
use crate::sheet::Language;

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

fn pct_cell(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.2} %"))
}

/// An amount in koruny with its haléře, for a column whose heading says Kč.
fn money(h: i64) -> String {
    let text = format_czk(h);
    esc(text.strip_suffix(" Kč").unwrap_or(&text)).replace(' ', "&#8239;")
}

/// The deviation cell: z in standard deviations, red beyond ±3σ, and the rounds the mix needs
/// before a flag means anything when it has fewer.
fn deviation_cell(d: &Option<crate::deviation::Deviation>, rounds: i64, l: Language) -> String {
    match d {
        None => format!(
            "<td class=\"muted\">{}</td>",
            l.pick("bez teorie", "no theory")
        ),
        Some(d) => {
            let class = if d.flagged { "bad" } else { "ok" };
            let reliability = if d.flag_meaningful {
                String::new()
            } else {
                let (so_far, needs) = match l {
                    Language::Czech => ("dosud kol", "potřebuje kol"),
                    Language::English => ("rounds so far", "rounds needed"),
                };
                format!(
                    "<br><span class=\"muted small\" title=\"{so_far}: {}\">{needs}: {}</span>",
                    thousands(rounds),
                    thousands(d.rounds_needed)
                )
            };
            format!(
                "<td><span class=\"{class}\">{:+.2}</span>{reliability}</td>",
                d.deviation_sd
            )
        }
    }
}

/// An integer with thin spaces between thousands.
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push_str("&#8239;");
        }
        out.push(c);
    }
    out
}

/// The page in English (the nightly job's sealed copy), games named as `plans` name them.
pub fn render(report: &RtpReport, plans: &rules::PlanBook) -> String {
    render_in(report, plans, Language::English)
}

/// The page in `l`: Czech or English, games named as `plans` name them.
pub fn render_in(report: &RtpReport, plans: &rules::PlanBook, l: Language) -> String {
    let w = |cs: &'static str, en: &'static str| l.pick(cs, en);
    let name = |code: &str| plans.game_name(code).to_owned();
    let mut html = String::with_capacity(64 * 1024);
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
                report.first_day, report.through_day, report.gaming_day_start_hour,
                report.flag_sd, report.skewness_limit
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
    if let Some(note) = &report.provisional_note {
        let note = match l {
            Language::Czech => format!(
                "herní den {} končí {} (Europe/Prague); do té doby se čísla mění",
                report.through_day.format("%-d. %-m. %Y"),
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
            .map(|p| format!("{} ({})", esc(&p.package), esc(&p.state)))
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
    let month_games: Vec<&RtpRow> = report
        .rows
        .iter()
        .filter(|r| r.gaming_day.is_none() && r.table_id.is_none())
        .collect();
    if month_games.iter().all(|r| r.rounds == 0) {
        let _ = write!(
            html,
            "<p class=\"bad\">{}</p>",
            w(
                "V těchto herních dnech se nehrálo.",
                "No rounds were played in these gaming days."
            )
        );
    }
    summary_table(&mut html, &month_games, &name, l);
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
    let days: Vec<NaiveDate> = report
        .first_day
        .iter_days()
        .take_while(|d| *d <= report.through_day)
        .collect();
    let mut charted = 0;
    for game in &month_games {
        let per_day: BTreeMap<NaiveDate, &RtpRow> = report
            .rows
            .iter()
            .filter(|r| r.table_id.is_none() && r.game == game.game)
            .filter_map(|r| r.gaming_day.map(|d| (d, r)))
            .collect();
        if game.theoretical_rtp_pct.is_some() {
            charted += 1;
            rtp_chart(&mut html, &esc(&name(&game.game)), &days, &per_day, l);
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
    ggr_chart(&mut html, report, &name, l);
    findings_section(&mut html, report, &days, &name, l);
    kinds_table(&mut html, &report.kinds, &name, l);
    html.push_str("</body></html>\n");
    html
}

/// A game's name as the plan gives it.
type GameName<'a> = dyn Fn(&str) -> String + 'a;

fn summary_table(html: &mut String, games: &[&RtpRow], name: &GameName<'_>, l: Language) {
    html.push_str(l.pick(
        "<section><h2>Měsíc podle her</h2><table><tr><th class=\"l\">hra</th><th>kol</th>\
         <th>vsazeno (Kč)</th><th>vyplaceno (Kč)</th><th>GGR (Kč)</th><th>skutečné RTP</th><th>teoretické</th>\
         <th>z (σ)</th><th>nálezy (otevřené)</th></tr>",
        "<section><h2>Month by game</h2><table><tr><th class=\"l\">game</th><th>rounds</th>\
         <th>stakes (Kč)</th><th>payouts (Kč)</th><th>GGR (Kč)</th><th>actual RTP</th><th>theoretical</th>\
         <th>z (σ)</th><th>findings (open)</th></tr>",
    ));
    for r in games {
        let flagged = r.deviation.is_some_and(|d| d.flagged);
        let _ = write!(
            html,
            "<tr{}><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{} ({})</td></tr>",
            if flagged { " class=\"flag\"" } else { "" },
            esc(&name(&r.game)),
            thousands(r.rounds),
            money(r.stakes_h),
            money(r.payouts_h),
            money(r.ggr_h),
            pct_cell(r.actual_rtp_pct),
            pct_cell(r.theoretical_rtp_pct),
            deviation_cell(&r.deviation, r.rounds, l),
            r.findings.count,
            r.findings.open,
        );
    }
    html.push_str("</table></section>");
}

/// Chart geometry: a plot area inside margins, in SVG user units.
const W: f64 = 720.0;
const H: f64 = 230.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 30.0;

/// `game`: the game's name, escaped.
fn rtp_chart(
    html: &mut String,
    game: &str,
    days: &[NaiveDate],
    per_day: &BTreeMap<NaiveDate, &RtpRow>,
    l: Language,
) {
    // The y range covers the actual RTPs and the theory, and the band as far as 0 – 200 %.
    let mut low = f64::MAX;
    let mut high = f64::MIN;
    for r in per_day.values() {
        for v in [r.actual_rtp_pct, r.theoretical_rtp_pct]
            .into_iter()
            .flatten()
        {
            low = low.min(v);
            high = high.max(v);
        }
        if let (Some(t), Some(d)) = (r.theoretical_rtp_pct, r.deviation) {
            low = low.min((t - d.band_3sd_pct).max(0.0));
            high = high.max((t + d.band_3sd_pct).min(200.0));
        }
    }
    if low > high {
        (low, high) = (90.0, 100.0);
    }
    let step = nice_step((high - low).max(1.0) / 5.0);
    let low = (low / step).floor() * step;
    let high = ((high / step).ceil() * step).max(low + step);
    let n = days.len().max(1) as f64;
    let x = |i: usize| LEFT + (W - LEFT - RIGHT) * (i as f64 + 0.5) / n;
    let y = |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - (v.clamp(low, high) - low) / (high - low));
    let _ =
        write!(
        html,
        "<section><h3>{game}</h3><svg class=\"rtp-chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" \
         aria-label=\"{} {game} {}\">",
        l.pick("skutečné a teoretické RTP hry", "actual and theoretical RTP of"),
        l.pick("po herních dnech", "per gaming day"),
    );
    axes(html, (low, high, step), days, (&x, &y), "%", l);
    // The band and the theory, day by day (each day's bet mix has its own).
    let mut upper = Vec::new();
    let mut lower = Vec::new();
    let mut theory = Vec::new();
    for (i, day) in days.iter().enumerate() {
        if let Some((t, d)) = per_day
            .get(day)
            .and_then(|r| Some((r.theoretical_rtp_pct?, r.deviation?)))
        {
            upper.push((x(i), y(t + d.band_3sd_pct)));
            lower.push((x(i), y(t - d.band_3sd_pct)));
            theory.push((x(i), y(t)));
        }
    }
    if !upper.is_empty() {
        let points: Vec<String> = upper
            .iter()
            .chain(lower.iter().rev())
            .map(|(a, b)| format!("{a:.1},{b:.1}"))
            .collect();
        let _ = write!(
            html,
            "<polygon class=\"band\" points=\"{}\" fill=\"#cfe0f3\" stroke=\"none\"/>",
            points.join(" ")
        );
        let _ = write!(
            html,
            "<polyline class=\"theory\" points=\"{}\" fill=\"none\" stroke=\"#444\" stroke-dasharray=\"4 3\"/>",
            polyline(&theory)
        );
    }
    let mut actual = Vec::new();
    let mut dots = String::new();
    for (i, day) in days.iter().enumerate() {
        let Some(r) = per_day.get(day) else { continue };
        let Some(v) = r.actual_rtp_pct else { continue };
        actual.push((x(i), y(v)));
        let flagged = r.deviation.is_some_and(|d| d.flagged);
        let _ = write!(
            dots,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{}\"><title>{day}: {v:.2} %{}</title></circle>",
            x(i),
            y(v),
            if flagged { 4.0 } else { 2.5 },
            if flagged { "#b3261e" } else { "#1f5fa8" },
            r.deviation
                .map(|d| format!(", z = {:+.2}", d.deviation_sd))
                .unwrap_or_default()
        );
    }
    let _ = write!(
        html,
        "<polyline class=\"actual\" points=\"{}\" fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.5\"/>{dots}</svg></section>",
        polyline(&actual)
    );
}

fn polyline(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|(a, b)| format!("{a:.1},{b:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power)
}

/// The chart's grid: values `(low, high, step)` up the side in `unit`, the gaming days along
/// the bottom, placed by `(x, y)`.
fn axes(
    html: &mut String,
    (low, high, step): (f64, f64, f64),
    days: &[NaiveDate],
    (x, y): (&dyn Fn(usize) -> f64, &dyn Fn(f64) -> f64),
    unit: &str,
    l: Language,
) {
    let mut v = low;
    while v <= high + step / 2.0 {
        let _ = write!(
            html,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#e1e6ec\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\" fill=\"#4d5b6a\">{}{unit}</text>",
            W - RIGHT,
            y(v),
            y(v),
            LEFT - 4.0,
            y(v) + 3.5,
            trim_number(v),
        );
        v += step;
    }
    for (i, day) in days.iter().enumerate() {
        // Every day ticked, every other one labelled when the month is long.
        if days.len() <= 16 || i % 2 == 0 {
            let _ = write!(
                html,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#4d5b6a\">{}</text>",
                x(i),
                H - BOTTOM + 13.0,
                chrono::Datelike::day(day)
            );
        }
    }
    let _ = write!(
        html,
        "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#8796a5\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#4d5b6a\">{}</text>",
        W - RIGHT,
        H - BOTTOM,
        H - BOTTOM,
        (LEFT + W - RIGHT) / 2.0,
        H - 4.0,
        l.pick("herní den", "gaming day"),
    );
}

/// At most `chars` characters of `text`, an ellipsis marking what was cut.
fn shortened(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn trim_number(v: f64) -> String {
    let text = format!("{v:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Horizontal bars of each table's GGR for the month, losses to the left of zero.
fn ggr_chart(html: &mut String, report: &RtpReport, name: &GameName<'_>, l: Language) {
    let tables: Vec<&RtpRow> = report
        .rows
        .iter()
        .filter(|r| r.gaming_day.is_none() && r.table_id.is_some())
        .collect();
    html.push_str(l.pick(
        "<section><h2>GGR podle stolů</h2>",
        "<section><h2>GGR per table</h2>",
    ));
    if tables.is_empty() {
        html.push_str(l.pick(
            "<p class=\"muted\">Žádné stoly.</p></section>",
            "<p class=\"muted\">No tables.</p></section>",
        ));
        return;
    }
    let max = tables
        .iter()
        .map(|r| r.ggr_h.unsigned_abs())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let any_loss = tables.iter().any(|r| r.ggr_h < 0);
    let row_h = 18.0;
    let height = row_h * tables.len() as f64 + 10.0;
    let (label_w, value_w) = (250.0, 110.0);
    let plot = W - label_w - value_w;
    let zero = if any_loss {
        label_w + plot / 2.0
    } else {
        label_w
    };
    let scale = if any_loss { plot / 2.0 } else { plot } / max;
    let _ = write!(
        html,
        "<svg class=\"ggr-chart\" viewBox=\"0 0 {W} {height:.0}\" role=\"img\" aria-label=\"{}\">",
        l.pick("GGR podle stolů", "GGR per table"),
    );
    for (i, r) in tables.iter().enumerate() {
        let top = 5.0 + row_h * i as f64;
        let width = r.ggr_h.unsigned_abs() as f64 * scale;
        let left = if r.ggr_h < 0 { zero - width } else { zero };
        let _ = write!(
            html,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\" fill=\"#1d2733\">{} · {}</text>\
             <rect x=\"{left:.1}\" y=\"{:.1}\" width=\"{width:.1}\" height=\"{:.1}\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#1d2733\">{}</text>",
            label_w - 6.0,
            top + 12.0,
            esc(r.table_id.as_deref().unwrap_or_default()),
            esc(&shortened(&name(&r.game), 30)),
            top + 2.0,
            row_h - 5.0,
            if r.ggr_h < 0 { "#b3261e" } else { "#1f7a3a" },
            W - value_w + 6.0,
            top + 12.0,
            money(r.ggr_h)
        );
    }
    let _ = write!(
        html,
        "<line x1=\"{zero:.1}\" x2=\"{zero:.1}\" y1=\"0\" y2=\"{height:.0}\" stroke=\"#8796a5\"/></svg></section>"
    );
}

/// Findings per day (all games) as bars, and by kind: count, amount, open.
fn findings_section(
    html: &mut String,
    report: &RtpReport,
    days: &[NaiveDate],
    name: &GameName<'_>,
    l: Language,
) {
    html.push_str(l.pick("<section><h2>Nálezy</h2>", "<section><h2>Findings</h2>"));
    let mut per_day: BTreeMap<NaiveDate, (i64, i64)> = BTreeMap::new();
    for r in report.rows.iter().filter(|r| r.table_id.is_none()) {
        if let Some(day) = r.gaming_day {
            let e = per_day.entry(day).or_default();
            e.0 += r.findings.count;
            e.1 += r.findings.open;
        }
    }
    let max = per_day.values().map(|v| v.0).max().unwrap_or(0);
    if max == 0 {
        html.push_str(l.pick(
            "<p class=\"ok\">V těchto herních dnech žádné nálezy.</p></section>",
            "<p class=\"ok\">No findings in these gaming days.</p></section>",
        ));
        return;
    }
    let step = nice_step((max as f64 / 4.0).max(1.0));
    let high = (max as f64 / step).ceil() * step;
    let n = days.len().max(1) as f64;
    let x = |i: usize| LEFT + (W - LEFT - RIGHT) * (i as f64 + 0.5) / n;
    let y = |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - v / high);
    let bar = (W - LEFT - RIGHT) / n * 0.7;
    let _ = write!(
        html,
        "<svg class=\"findings-chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{}\">",
        l.pick("nálezy po herních dnech", "findings per gaming day"),
    );
    axes(html, (0.0, high, step), days, (&x, &y), "", l);
    for (i, day) in days.iter().enumerate() {
        let Some((count, open)) = per_day.get(day) else {
            continue;
        };
        if *count == 0 {
            continue;
        }
        let _ = write!(
            html,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"#e8a33d\"><title>{day}: {count} {}, {open} {}</title></rect>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"#b3261e\"/>",
            x(i) - bar / 2.0,
            y(*count as f64),
            y(0.0) - y(*count as f64),
            l.pick("nálezů", "findings"),
            l.pick("otevřených", "open"),
            x(i) - bar / 2.0,
            y(*open as f64),
            y(0.0) - y(*open as f64),
        );
    }
    html.push_str(l.pick(
        "</svg><p class=\"legend\"><span><i class=\"swatch\" style=\"background:#e8a33d\"></i>nálezy</span>\
         <span><i class=\"swatch\" style=\"background:#b3261e\"></i>z nich otevřené</span></p>\
         <table><tr><th class=\"l\">hra</th><th class=\"l\">druh</th><th>počet</th><th>částka (Kč)</th><th>otevřené</th></tr>",
        "</svg><p class=\"legend\"><span><i class=\"swatch\" style=\"background:#e8a33d\"></i>findings</span>\
         <span><i class=\"swatch\" style=\"background:#b3261e\"></i>of them open</span></p>\
         <table><tr><th class=\"l\">game</th><th class=\"l\">kind</th><th>count</th><th>amount (Kč)</th><th>open</th></tr>",
    ));
    for r in report
        .rows
        .iter()
        .filter(|r| r.gaming_day.is_none() && r.table_id.is_none())
    {
        for (kind, k) in &r.findings.by_kind {
            let _ = write!(
                html,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&name(&r.game)),
                esc(&crate::words::finding_kind_code(kind, l)),
                k.count,
                money(k.amount_h),
                k.open
            );
        }
    }
    html.push_str("</table></section>");
}

fn kinds_table(html: &mut String, kinds: &[KindRow], name: &GameName<'_>, l: Language) {
    html.push_str(l.pick(
        "<section><h2>Podle druhu sázky (všechny stoly)</h2><table><tr><th class=\"l\">hra</th>\
         <th class=\"l\">druh sázky</th><th>kol</th><th>sázek</th><th>vsazeno (Kč)</th><th>vyplaceno (Kč)</th>\
         <th>skutečné RTP</th><th>teoretické</th><th>z (σ)</th></tr>",
        "<section><h2>By bet kind (all tables)</h2><table><tr><th class=\"l\">game</th>\
         <th class=\"l\">bet kind</th><th>rounds</th><th>bets</th><th>stakes (Kč)</th><th>payouts (Kč)</th>\
         <th>actual RTP</th><th>theoretical</th><th>z (σ)</th></tr>",
    ));
    for k in kinds.iter().filter(|k| k.table_id.is_none()) {
        let flagged = k.deviation.is_some_and(|d| d.flagged);
        let _ = write!(
            html,
            "<tr{}><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
            if flagged { " class=\"flag\"" } else { "" },
            esc(&name(&k.game)),
            esc(&k.bet_kind),
            k.rounds,
            k.bets,
            money(k.stakes_h),
            money(k.payouts_h),
            pct_cell(k.actual_rtp_pct),
            pct_cell(k.theoretical_rtp_pct),
            deviation_cell(&k.deviation, k.rounds, l),
        );
    }
    html.push_str("</table></section>");
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
