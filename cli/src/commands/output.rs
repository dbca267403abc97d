//! How a report is written, and where: a table for a person at a terminal, CSV for programs,
//! JSON, CSV for a Czech office, XLSX, or (the month's RTP) a page.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use anyhow::Context as _;
use chrono::Datelike as _;
use reports::sheet::{Cell, Language, Sheet};
use rules::gaming_day::{GamingDayClock, Month};

use super::clock::{month_arg, ClockArgs};

#[derive(Debug, clap::Args)]
pub struct Output {
    /// `table` (for a person: Czech headings, koruny as `1 234,50`, days as `1. 10. 2026`),
    /// `csv` (for programs: `,`, haléře), `json`, `csv-cz` (for a spreadsheet in a Czech
    /// office: `;`, koruny with a decimal comma, the plan's game names) or `xlsx` (with
    /// `--out`); `report rtp` also `html`. Default: `table` on a terminal, else `csv`
    /// (`report periods`: `json`).
    #[arg(long)]
    format: Option<String>,
    /// Headings and words of `table`, `csv-cz`, `xlsx` and `html`: `cs` or `en`.
    #[arg(long, default_value = "cs")]
    lang: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// What is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A table for a person reading a terminal.
    Table(Language),
    Csv,
    Json,
    PeopleCsv(Language),
    Xlsx(Language),
    Html(Language),
}

/// A report's writers: CSV for programs and the sheet for people.
pub struct Writers<'a, R> {
    pub csv: fn(&R) -> Result<String, reports::ReportError>,
    pub sheet: fn(&R, &rules::PlanBook, Language) -> Sheet,
    pub plans: &'a rules::PlanBook,
}

/// What a month's report starts from: the gaming-day clock, the month, the format and the plans.
pub type MonthReport = (GamingDayClock, Month, Format, rules::PlanBook);

impl Output {
    /// A month's report as asked: the gaming-day clock of `clock`, the month `month` names
    /// under it, the format ([`Output::format`]) and the bundled plans, each checked in turn.
    pub fn month(
        &self,
        clock: &ClockArgs,
        month: &str,
        default: &str,
        html: bool,
    ) -> anyhow::Result<MonthReport> {
        let clock = clock.clock()?;
        let month = month_arg(month, &clock)?;
        let format = self.format(default, html)?;
        Ok((clock, month, format, rules::PlanBook::builtin()?))
    }

    /// The format asked for, checked before any work; `html` only where the report has a
    /// page. Without `--format`: a table for a person when it goes to a terminal, `default`
    /// when it goes to a file or a program.
    pub fn format(&self, default: &str, html: bool) -> anyhow::Result<Format> {
        let language = || {
            Language::parse(&self.lang)
                .ok_or_else(|| anyhow::anyhow!("--lang is cs or en, not `{}`", self.lang))
        };
        let to_a_person = self.out.is_none() && std::io::stdout().is_terminal();
        let text = match self.format.as_deref() {
            Some(text) => text,
            None if to_a_person => "table",
            None => default,
        };
        Ok(match text {
            "table" => Format::Table(language()?),
            "csv" => Format::Csv,
            "json" => Format::Json,
            "csv-cz" => Format::PeopleCsv(language()?),
            "xlsx" => {
                anyhow::ensure!(
                    self.out.is_some(),
                    "--format xlsx writes a workbook: give --out FILE"
                );
                Format::Xlsx(language()?)
            }
            "html" if html => Format::Html(language()?),
            other => {
                let html = if html { ", xlsx or html" } else { " or xlsx" };
                anyhow::bail!("--format must be table, csv, json, csv-cz{html}, not `{other}`")
            }
        })
    }

    /// `report` in `format` (not `html`: the caller renders its page and writes it with
    /// [`Output::write_bytes`]).
    pub fn write<R: serde::Serialize>(
        &self,
        format: Format,
        report: &R,
        writers: Writers<'_, R>,
    ) -> anyhow::Result<()> {
        let bytes = match format {
            Format::Table(language) => {
                table_text(&(writers.sheet)(report, writers.plans, language), language).into_bytes()
            }
            Format::Csv => (writers.csv)(report)?.into_bytes(),
            Format::Json => (serde_json::to_string_pretty(report)? + "\n").into_bytes(),
            Format::PeopleCsv(language) => (writers.sheet)(report, writers.plans, language)
                .to_people_csv(language)?
                .into_bytes(),
            Format::Xlsx(language) => {
                (writers.sheet)(report, writers.plans, language).to_xlsx(language)?
            }
            Format::Html(_) => anyhow::bail!("this report has no page"),
        };
        self.write_bytes(&bytes)
    }

    /// `bytes` to the file or standard output.
    pub fn write_bytes(&self, bytes: &[u8]) -> anyhow::Result<()> {
        match &self.out {
            Some(path) => {
                std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
            }
            None => {
                std::io::Write::write_all(&mut std::io::stdout(), bytes)?;
                Ok(())
            }
        }
    }
}

/// `sheet` as a table for a person at a terminal: its name, then the headings in `language`
/// over a rule and a line a row, columns two spaces apart, figures right-aligned. In Czech,
/// koruny as `1 234,50` (with ` Kč` where the heading does not say it), counts as `13 826`,
/// days as `1. 10. 2026`, times in Prague's time, percentages as `97,30` under a heading that
/// names the unit.
pub fn table_text(sheet: &Sheet, language: Language) -> String {
    let headings: Vec<&str> = sheet
        .columns
        .iter()
        .map(|c| language.pick(c.cs, c.en))
        .collect();
    let rows: Vec<Vec<(String, bool)>> = sheet
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .map(|(i, cell)| {
                    let in_koruny = headings
                        .get(i)
                        .is_some_and(|h| h.contains("Kč") || h.contains("CZK"));
                    (person_cell(cell, language, in_koruny), is_figure(cell))
                })
                .collect()
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .filter_map(|r| r.get(i))
            .map(|(text, _)| text.chars().count())
            .chain(headings.get(i).map(|h| h.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..headings.len()).map(width).collect();
    let figures: Vec<bool> = (0..headings.len())
        .map(|i| rows.iter().any(|r| r.get(i).is_some_and(|(_, f)| *f)))
        .collect();
    let line = |cells: Vec<(&str, bool)>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|((text, right), width)| {
                let pad = " ".repeat(width.saturating_sub(text.chars().count()));
                if *right {
                    format!("{pad}{text}")
                } else {
                    format!("{text}{pad}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_owned() + "\n"
    };
    let mut out = format!("{}\n\n", sheet.name);
    out += &line(
        headings
            .iter()
            .zip(&figures)
            .map(|(h, f)| (*h, *f))
            .collect(),
    );
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out += &(rule.join("  ") + "\n");
    for row in &rows {
        out += &line(row.iter().map(|(t, f)| (t.as_str(), *f)).collect());
    }
    if rows.is_empty() {
        out += language.pick("(žádné řádky)\n", "(no rows)\n");
    }
    out
}

fn is_figure(cell: &Cell) -> bool {
    matches!(
        cell,
        Cell::Money(_) | Cell::Count(_) | Cell::Percent(_) | Cell::Decimal { .. }
    )
}

/// A figure with `places` decimals and the language's decimal mark.
fn decimal(value: f64, places: u8, language: Language) -> String {
    let text = format!("{value:.prec$}", prec = usize::from(places));
    match language {
        Language::Czech => text.replace('.', ","),
        Language::English => text,
    }
}

/// One cell as a person reads it.
fn person_cell(cell: &Cell, language: Language, in_koruny: bool) -> String {
    let czech = language == Language::Czech;
    let separator = if czech { " " } else { "," };
    match cell {
        Cell::Empty => String::new(),
        // A terminal shows no control characters: a line break in a message is a space.
        Cell::Text(text) => text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect(),
        Cell::Coded { words, .. } => words.clone(),
        // Czech koruny as everywhere else in dozor (`rules::money::format_czk`).
        Cell::Money(h) if czech => {
            let amount = rules::money::format_czk(*h);
            if in_koruny {
                amount.trim_end_matches(" Kč").to_owned()
            } else {
                amount
            }
        }
        Cell::Money(h) => {
            let (koruny, halere) = (h / 100, (h % 100).abs());
            let sign = if *h < 0 && koruny == 0 { "-" } else { "" };
            let amount = format!(
                "{sign}{}.{halere:02}",
                rules::money::group_thousands(koruny, separator)
            );
            if in_koruny {
                amount
            } else {
                amount + " CZK"
            }
        }
        Cell::Count(n) => rules::money::group_thousands(*n, separator),
        Cell::Day(day) if czech => format!("{}. {}. {}", day.day(), day.month(), day.year()),
        Cell::Day(day) => day.to_string(),
        Cell::Time(t) => {
            let local = t.with_timezone(&chrono_tz::Europe::Prague);
            if czech {
                format!(
                    "{}. {}. {} {}",
                    local.day(),
                    local.month(),
                    local.year(),
                    local.format("%H:%M:%S")
                )
            } else {
                local.format("%Y-%m-%d %H:%M:%S").to_string()
            }
        }
        // The heading names the unit (`RTP (%)`, `Odchylka (σ)`), as in `csv-cz`.
        Cell::Percent(p) => decimal(*p, 2, language),
        Cell::Decimal { value, places } => decimal(*value, *places, language),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use chrono::{NaiveDate, TimeZone as _, Utc};
    use reports::sheet::column;

    fn sheet() -> Sheet {
        Sheet {
            name: "Měsíc 2026-10".into(),
            columns: vec![
                column("gaming_day", "Herní den", "Gaming day"),
                column("game", "Hra", "Game"),
                column("rounds", "Kol", "Rounds"),
                column("paid_h", "Vyplaceno (Kč)", "Paid (CZK)"),
                column("difference_h", "Rozdíl", "Difference"),
                column("rtp", "RTP (%)", "RTP (%)"),
                column("closed_at", "Uzavřeno", "Closed"),
            ],
            rows: vec![
                vec![
                    Cell::Day(NaiveDate::from_ymd_opt(2026, 10, 1).unwrap()),
                    Cell::coded("roulette", "Ruleta"),
                    Cell::Count(13_826),
                    Cell::Money(37_377_550),
                    Cell::Money(-50),
                    Cell::Percent(97.3),
                    // 1 October 2026 03:04:05 UTC is 05:04:05 in Prague (CEST, UTC+2).
                    Cell::Time(Utc.with_ymd_and_hms(2026, 10, 1, 3, 4, 5).unwrap()),
                ],
                vec![
                    Cell::Day(NaiveDate::from_ymd_opt(2026, 10, 12).unwrap()),
                    Cell::Text("Black\njack".into()),
                    Cell::Count(7),
                    Cell::Money(-123_456_789),
                    Cell::Empty,
                    Cell::Decimal {
                        value: 2.345,
                        places: 1,
                    },
                    Cell::Empty,
                ],
            ],
        }
    }

    #[test]
    fn a_czech_table_has_czech_headings_koruny_days_and_times() {
        let text = table_text(&sheet(), Language::Czech);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Měsíc 2026-10");
        assert_eq!(lines[1], "");
        // 37 377 550 h = 373 775,50 Kč (the heading says Kč); -50 h = -0,50 Kč (it does
        // not); -123 456 789 h = -1 234 567,89 Kč; 13 826 rounds with a space; 2,345 to one
        // place is 2,3 (the nearest of 2,3 and 2,4 to the binary 2.345 below it).
        // Widths: the longest of heading and cells, "12. 10. 2026", "Black jack", "13 826",
        // "Vyplaceno (Kč)", "-0,50 Kč", "RTP (%)", "1. 10. 2026 05:04:05" (12, 10, 6, 14, 8,
        // 7, 20 characters); figures right-aligned, the last column's padding trimmed.
        assert_eq!(
            lines[2],
            "Herní den     Hra            Kol  Vyplaceno (Kč)    Rozdíl  RTP (%)  Uzavřeno"
        );
        assert_eq!(
            lines[3],
            "------------  ----------  ------  --------------  --------  -------  --------------------"
        );
        assert_eq!(
            lines[4],
            "1. 10. 2026   Ruleta      13 826      373 775,50  -0,50 Kč    97,30  1. 10. 2026 05:04:05"
        );
        assert_eq!(
            lines[5],
            "12. 10. 2026  Black jack       7   -1 234 567,89                2,3"
        );
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn an_english_table_keeps_english_numbers() {
        let text = table_text(&sheet(), Language::English);
        assert!(text.contains("Paid (CZK)"), "{text}");
        assert!(text.contains("373,775.50"), "{text}");
        assert!(text.contains("-0.50 CZK"), "{text}");
        assert!(text.contains("2026-10-01 05:04:05"), "{text}");
    }

    #[test]
    fn an_empty_report_says_so() {
        let mut empty = sheet();
        empty.rows.clear();
        assert!(table_text(&empty, Language::Czech).ends_with("(žádné řádky)\n"));
    }
}
