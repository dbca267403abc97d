//! Numbers, amounts and days as the page writes them in each language.

use chrono::NaiveDate;
use rules::money::format_czk;

use crate::html::esc;
use crate::sheet::Language;

/// `v` with `places` decimals: a decimal comma in Czech, a point in English.
pub(super) fn decimal(v: f64, places: usize, l: Language) -> String {
    comma_in_czech(format!("{v:.places$}"), l)
}

/// `v` with its sign and two decimals (a deviation in σ): `+1,23` in Czech, `+1.23` in English.
pub(super) fn signed(v: f64, l: Language) -> String {
    comma_in_czech(format!("{v:+.2}"), l)
}

/// A number as Rust writes it (`0.2`, `3`), with a decimal comma in Czech.
pub(super) fn number(v: f64, l: Language) -> String {
    comma_in_czech(v.to_string(), l)
}

fn comma_in_czech(text: String, l: Language) -> String {
    match l {
        Language::Czech => text.replace('.', ","),
        Language::English => text,
    }
}

/// A gaming day as people in `l` write it: `1. 10. 2026` in Czech, ISO in English.
pub(super) fn day_text(day: NaiveDate, l: Language) -> String {
    match l {
        Language::Czech => day.format("%-d. %-m. %Y").to_string(),
        Language::English => day.to_string(),
    }
}

pub(super) fn pct_cell(x: Option<f64>, l: Language) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{} %", decimal(v, 2, l)))
}

/// An amount in koruny with its haléře, for a column whose heading says Kč.
pub(super) fn money(h: i64) -> String {
    let text = format_czk(h);
    esc(text.strip_suffix(" Kč").unwrap_or(&text)).replace(' ', "&#8239;")
}

/// The deviation cell: z in standard deviations, red beyond ±3σ, and the rounds the mix needs
/// before a flag means anything when it has fewer.
pub(super) fn deviation_cell(
    d: &Option<crate::deviation::Deviation>,
    rounds: i64,
    l: Language,
) -> String {
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
pub(super) fn thousands(n: i64) -> String {
    rules::money::group_thousands(n, "&#8239;")
}

/// At most `chars` characters of `text`, an ellipsis marking what was cut.
pub(super) fn shortened(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// An axis value with at most two decimals, trailing zeros dropped (a comma in Czech).
pub(super) fn trim_number(v: f64, l: Language) -> String {
    let text = format!("{v:.2}");
    comma_in_czech(
        text.trim_end_matches('0').trim_end_matches('.').to_owned(),
        l,
    )
}
