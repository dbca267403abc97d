//! What every workbench page shares: its frame (style, language switch), query strings, and
//! how a state and a time read.

use std::fmt::Write as _;

use crate::html::esc;
use crate::sheet::Language;
use crate::words;

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

pub(super) fn with(pairs: &[(String, String)], key: &str, value: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = pairs.iter().filter(|(k, _)| k != key).cloned().collect();
    out.push((key.to_owned(), value.to_owned()));
    out
}

pub(super) fn page(title: &str, language: Language, switch: &str, body: &str) -> String {
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

pub(super) fn state_cell(state: &str, language: Language) -> String {
    format!(
        "<span class=\"state-{}\">{}</span>",
        esc(state),
        esc(&words::finding_state_code(state, language))
    )
}

/// A moment in Prague time, as `language` writes it: `1. 10. 2026 20:16:03` (Czech),
/// `2026-10-01 20:16:03` (English).
pub(super) fn prague(t: chrono::DateTime<chrono::Utc>, language: Language) -> String {
    let at = t.with_timezone(&chrono_tz::Europe::Prague);
    format!(
        "{} {}",
        day(at.date_naive(), language),
        at.format("%H:%M:%S")
    )
}

/// A count as `language` writes it: `1 251` (a no-break space) in Czech, `1,251` in English.
pub(super) fn count(n: i64, language: Language) -> String {
    rules::money::group_thousands(n, language.pick("\u{a0}", ","))
}

/// A day as `language` writes it: `1. 10. 2026`, `2026-10-01`.
pub(super) fn day(d: chrono::NaiveDate, language: Language) -> String {
    match language {
        Language::Czech => d.format("%-d. %-m. %Y").to_string(),
        Language::English => d.format("%Y-%m-%d").to_string(),
    }
}

pub(super) fn value_of<'a>(pairs: &'a [(String, String)], key: &str) -> &'a str {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

pub(super) fn select(
    name: &str,
    label: &str,
    options: &[(String, String)],
    chosen: &str,
) -> String {
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
