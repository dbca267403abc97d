//! The page's charts, inline SVG: a game's RTP day by day against its theory, the tables' GGR,
//! and the findings day by day (with their table by kind).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::NaiveDate;

use super::format::{day_text, decimal, money, shortened, signed, thousands, trim_number};
use super::names::GameName;
use crate::html::esc;
use crate::monthly::{RtpReport, RtpRow};
use crate::sheet::Language;

/// Chart geometry: a plot area inside margins, in SVG user units.
const W: f64 = 720.0;
const H: f64 = 230.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 30.0;

/// `game`: the game's name, escaped.
pub(super) fn rtp_chart(
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
pub(super) fn nice_step(raw: f64) -> f64 {
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

/// Horizontal bars of each table's GGR for the month, losses to the left of zero.
pub(super) fn ggr_chart(html: &mut String, report: &RtpReport, name: &GameName<'_>, l: Language) {
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
pub(super) fn findings_section(
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
                thousands(k.count),
                money(k.amount_h),
                thousands(k.open)
            );
        }
    }
    html.push_str("</table></section>");
}
