//! How a report is written, and where: CSV for programs, JSON, CSV for a Czech office, XLSX, or
//! (the month's RTP) a page.

use std::path::PathBuf;

use anyhow::Context as _;
use reports::sheet::{Language, Sheet};
use rules::gaming_day::{GamingDayClock, Month};

use super::clock::{month_arg, ClockArgs};

#[derive(Debug, clap::Args)]
pub struct Output {
    /// `csv` (for programs: `,`, haléře), `json`, `csv-cz` (for a spreadsheet in a Czech
    /// office: `;`, koruny with a decimal comma, the plan's game names) or `xlsx` (with
    /// `--out`); `report rtp` also `html`. Default: `csv` (`report periods`: `json`).
    #[arg(long)]
    format: Option<String>,
    /// Headings and words of `csv-cz`, `xlsx` and `html`: `cs` or `en`.
    #[arg(long, default_value = "cs")]
    lang: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// What is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
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

    /// The format asked for (`default` without `--format`), checked before any work; `html`
    /// only where the report has a page.
    pub fn format(&self, default: &str, html: bool) -> anyhow::Result<Format> {
        let language = || {
            Language::parse(&self.lang)
                .ok_or_else(|| anyhow::anyhow!("--lang is cs or en, not `{}`", self.lang))
        };
        let text = self.format.as_deref().unwrap_or(default);
        Ok(match text {
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
                anyhow::bail!("--format must be csv, json, csv-cz{html}, not `{other}`")
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
