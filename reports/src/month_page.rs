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

/// `v` with `places` decimals: a decimal comma in Czech, a point in English.
fn decimal(v: f64, places: usize, l: Language) -> String {
    comma_in_czech(format!("{v:.places$}"), l)
}

/// `v` with its sign and two decimals (a deviation in σ): `+1,23` in Czech, `+1.23` in English.
fn signed(v: f64, l: Language) -> String {
    comma_in_czech(format!("{v:+.2}"), l)
}

/// A number as Rust writes it (`0.2`, `3`), with a decimal comma in Czech.
fn number(v: f64, l: Language) -> String {
    comma_in_czech(v.to_string(), l)
}

fn comma_in_czech(text: String, l: Language) -> String {
    match l {
        Language::Czech => text.replace('.', ","),
        Language::English => text,
    }
}

/// A gaming day as people in `l` write it: `1. 10. 2026` in Czech, ISO in English.
fn day_text(day: NaiveDate, l: Language) -> String {
    match l {
        Language::Czech => day.format("%-d. %-m. %Y").to_string(),
        Language::English => day.to_string(),
    }
}

fn pct_cell(x: Option<f64>, l: Language) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{} %", decimal(v, 2, l)))
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
                "<td><span class=\"{class}\">{}</span>{reliability}</td>",
                signed(d.deviation_sd, l)
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

/// A bet kind of `game` as people in `l` name it (the report's `bet_kind` codes: roulette's
/// positions, blackjack's and UTH's bets, a wheel's boxes, the lines of games between players);
/// the code itself when it is none dozor knows.
pub fn bet_kind_name(game: &str, kind: &str, l: Language) -> String {
    let (cs, en) = match kind {
        "straight" => ("číslo (plein)", "straight up"),
        "split" => ("dvojčíslí (cheval)", "split"),
        "street" => ("trojčíslí (transversale)", "street"),
        "corner" => ("čtyřčíslí (carré)", "corner"),
        "six_line" => ("šestičíslí (sixain)", "six line"),
        "dozen_1" => ("1. tucet", "1st dozen"),
        "dozen_2" => ("2. tucet", "2nd dozen"),
        "dozen_3" => ("3. tucet", "3rd dozen"),
        "column_1" => ("1. sloupec", "1st column"),
        "column_2" => ("2. sloupec", "2nd column"),
        "column_3" => ("3. sloupec", "3rd column"),
        "red" => ("červená", "red"),
        "black" => ("černá", "black"),
        "odd" => ("lichá", "odd"),
        "even" => ("sudá", "even"),
        "low" => ("malá čísla (1–18)", "low (1–18)"),
        "high" => ("velká čísla (19–36)", "high (19–36)"),
        "neighbours" => ("sousedé", "neighbours"),
        "zero_spiel" => ("zero spiel", "zero spiel"),
        "voisins" => ("velká série", "voisins du zéro"),
        "tiers" => ("malá série", "tiers du cylindre"),
        "orphelins" => ("orphelins", "orphelins"),
        "main" => ("hlavní sázka", "main bet"),
        "perfect_pairs" => ("Perfect Pairs", "Perfect Pairs"),
        "insurance" => ("pojištění", "insurance"),
        rules::statistics::UTH_HAND => ("Ante, Blind a Play", "Ante, Blind and Play"),
        "ante" => ("Ante", "Ante"),
        "blind" => ("Blind", "Blind"),
        "play" => ("Play", "Play"),
        "trips" => ("Trips", "Trips"),
        "seat" => ("hráč u stolu", "seat"),
        "time_collection" => ("poplatek za čas (time collection)", "time collection"),
        "ofc_player" => ("hráč", "player"),
        "tournament_player" => ("hráč turnaje", "tournament player"),
        "unknown_box" => ("neznámé pole", "unknown box"),
        box_id if game.starts_with("money_wheel") => return wheel_box_name(box_id, l),
        other => return other.to_owned(),
    };
    l.pick(cs, en).to_owned()
}

/// A wheel's box (`2x`, `25x_black`): its multiple and, for the two 25x boxes, the colour.
fn wheel_box_name(box_id: &str, l: Language) -> String {
    let (multiple, colour) = box_id.split_once('_').unwrap_or((box_id, ""));
    let colour = match colour {
        "" => return format!("{} {multiple}", l.pick("pole", "box")),
        "black" => l.pick("černé", "black"),
        "pink" => l.pick("růžové", "pink"),
        _ => return box_id.to_owned(),
    };
    format!("{} {multiple} {colour}", l.pick("pole", "box"))
}

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
            pct_cell(r.actual_rtp_pct, l),
            pct_cell(r.theoretical_rtp_pct, l),
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
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{}\"><title>{}: {} %{}</title></circle>",
            x(i),
            y(v),
            if flagged { 4.0 } else { 2.5 },
            if flagged { "#b3261e" } else { "#1f5fa8" },
            day_text(*day, l),
            decimal(v, 2, l),
            r.deviation
                .map(|d| format!(", z = {}", signed(d.deviation_sd, l)))
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
            trim_number(v, l),
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

/// An axis value with at most two decimals, trailing zeros dropped (a comma in Czech).
fn trim_number(v: f64, l: Language) -> String {
    let text = format!("{v:.2}");
    comma_in_czech(
        text.trim_end_matches('0').trim_end_matches('.').to_owned(),
        l,
    )
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
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"#e8a33d\"><title>{}: {count} {}, {open} {}</title></rect>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"#b3261e\"/>",
            x(i) - bar / 2.0,
            y(*count as f64),
            y(0.0) - y(*count as f64),
            day_text(*day, l),
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
            esc(&bet_kind_name(&k.game, &k.bet_kind, l)),
            k.rounds,
            k.bets,
            money(k.stakes_h),
            money(k.payouts_h),
            pct_cell(k.actual_rtp_pct, l),
            pct_cell(k.theoretical_rtp_pct, l),
            deviation_cell(&k.deviation, k.rounds, l),
        );
    }
    html.push_str("</table></section>");
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::coverage::{Coverage, ReadFrom};
    use crate::deviation::Deviation;
    use crate::monthly::{FindingSummary, KindFindings};

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

    #[test]
    fn the_czech_page_names_bet_kinds_with_decimal_commas_and_czech_dates() {
        let plans = rules::PlanBook::builtin().unwrap();
        let page = render_in(&october_first(), &plans, Language::Czech);
        // The kinds table: the straight up by its Czech name, not its code.
        assert!(
            page.contains("<td class=\"l\">Ruleta</td><td class=\"l\">číslo (plein)</td>"),
            "{page}"
        );
        assert!(!page.contains(">straight<"), "{page}");
        // 96.5 % and 97.297297 % to two places, z = +1.234 to two.
        assert!(page.contains("<td>96,50 %</td><td>97,30 %</td>"), "{page}");
        assert!(page.contains("<span class=\"ok\">+1,23</span>"), "{page}");
        // The tooltips: the day as Czech write it.
        assert!(
            page.contains("<title>1. 10. 2026: 96,50 %, z = +1,23</title>"),
            "{page}"
        );
        assert!(
            page.contains("<title>1. 10. 2026: 2 nálezů, 1 otevřených</title>"),
            "{page}"
        );
        assert!(
            page.contains("Herní dny 1. 10. 2026 až 1. 10. 2026")
                && page.contains("za ±3σ")
                && page.contains("klesne na 0,2:"),
            "{page}"
        );
        // No number anywhere with a decimal point, the axes' included; no ISO date.
        assert_eq!(decimal_points(&page), Vec::<&str>::new());
        assert!(!page.contains("2026-10-01"), "{page}");
    }

    #[test]
    fn the_english_page_keeps_decimal_points_and_iso_dates() {
        let plans = rules::PlanBook::builtin().unwrap();
        let page = render_in(&october_first(), &plans, Language::English);
        assert!(
            page.contains("<td class=\"l\">Ruleta</td><td class=\"l\">straight up</td>"),
            "{page}"
        );
        assert!(page.contains("<td>96.50 %</td><td>97.30 %</td>"), "{page}");
        assert!(page.contains("<span class=\"ok\">+1.23</span>"), "{page}");
        assert!(
            page.contains("<title>2026-10-01: 96.50 %, z = +1.23</title>"),
            "{page}"
        );
        assert!(
            page.contains("<title>2026-10-01: 2 findings, 1 open</title>"),
            "{page}"
        );
        assert!(
            page.contains("Gaming days 2026-10-01 to 2026-10-01") && page.contains("at most 0.2:"),
            "{page}"
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
    fn every_bet_kind_has_a_name_in_both_languages() {
        let kinds = [
            ("roulette", "straight"),
            ("roulette", "split"),
            ("roulette", "street"),
            ("roulette", "corner"),
            ("roulette", "six_line"),
            ("roulette", "dozen_1"),
            ("roulette", "dozen_2"),
            ("roulette", "dozen_3"),
            ("roulette", "column_1"),
            ("roulette", "column_2"),
            ("roulette", "column_3"),
            ("roulette", "red"),
            ("roulette", "black"),
            ("roulette", "odd"),
            ("roulette", "even"),
            ("roulette", "low"),
            ("roulette", "high"),
            ("roulette", "neighbours"),
            ("roulette", "zero_spiel"),
            ("roulette", "voisins"),
            ("roulette", "tiers"),
            ("roulette", "orphelins"),
            ("blackjack", "main"),
            ("blackjack", "perfect_pairs"),
            ("blackjack", "insurance"),
            ("ultimate_texas_holdem", "ante_blind_play"),
            ("ultimate_texas_holdem", "trips"),
            ("money_wheel_1", "1x"),
            ("money_wheel_1", "25x_black"),
            ("money_wheel_1", "25x_pink"),
            ("poker_cash", "seat"),
            ("poker_cash", "time_collection"),
            ("open_face_chinese", "ofc_player"),
            ("poker_tournament", "tournament_player"),
        ];
        for l in [Language::Czech, Language::English] {
            let names: std::collections::BTreeSet<String> = kinds
                .iter()
                .map(|(game, kind)| bet_kind_name(game, kind, l))
                .collect();
            // Each kind its own name (roulette's and the wheel's colours apart).
            assert_eq!(names.len(), kinds.len(), "{names:?}");
        }
        for (game, kind) in kinds {
            let cs = bet_kind_name(game, kind, Language::Czech);
            assert!(!cs.contains('_'), "{kind}: {cs}");
        }
        assert_eq!(
            bet_kind_name("roulette", "dozen_2", Language::Czech),
            "2. tucet"
        );
        assert_eq!(
            bet_kind_name("roulette", "voisins", Language::Czech),
            "velká série"
        );
        assert_eq!(
            bet_kind_name("ultimate_texas_holdem", "ante_blind_play", Language::Czech),
            "Ante, Blind a Play"
        );
        assert_eq!(
            bet_kind_name("money_wheel_1", "25x_pink", Language::Czech),
            "pole 25x růžové"
        );
        assert_eq!(
            bet_kind_name("money_wheel_2", "15x", Language::English),
            "box 15x"
        );
        assert_eq!(
            bet_kind_name("roulette", "no_such_kind", Language::Czech),
            "no_such_kind"
        );
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
}
