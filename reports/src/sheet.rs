//! A report as a table of typed cells, written for machines (CSV: `,`, amounts in haléře, codes)
//! or for people in a Czech office (CSV: `;`, decimal comma, Kč with two decimals, UTF-8 with a
//! byte-order mark so that a spreadsheet reads the diacritics; or an XLSX workbook).

use chrono::{DateTime, NaiveDate, Utc};

use crate::ReportError;

/// The language of headings and words meant for people.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Language {
    #[default]
    Czech,
    English,
}

impl Language {
    /// `cs` or `en`.
    pub fn parse(text: &str) -> Option<Language> {
        match text {
            "cs" => Some(Language::Czech),
            "en" => Some(Language::English),
            _ => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Language::Czech => "cs",
            Language::English => "en",
        }
    }

    /// The Czech or the English of a pair.
    pub fn pick<'a>(self, cs: &'a str, en: &'a str) -> &'a str {
        match self {
            Language::Czech => cs,
            Language::English => en,
        }
    }
}

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Empty,
    Text(String),
    /// A code for machines, its words for people (a game's code and its name in the plan).
    Coded {
        code: String,
        words: String,
    },
    /// Haléře: machines read the integer, people koruny with two decimals.
    Money(i64),
    Count(i64),
    Day(NaiveDate),
    /// An instant: machines read RFC 3339 UTC, people Prague's local time.
    Time(DateTime<Utc>),
    /// A percentage with two decimals.
    Percent(f64),
    /// A statistic with this many decimals (a chi-square, a p-value, a z-score).
    Decimal {
        value: f64,
        places: u8,
    },
}

impl Cell {
    /// Yes or no, in words.
    pub fn yes_no(value: bool, language: Language) -> Cell {
        Cell::Text(
            if value {
                language.pick("ano", "yes")
            } else {
                language.pick("ne", "no")
            }
            .to_owned(),
        )
    }
}

/// A column: its machine name (a CSV header as the API has always written it) and its
/// heading for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub key: &'static str,
    pub cs: &'static str,
    pub en: &'static str,
}

pub const fn column(key: &'static str, cs: &'static str, en: &'static str) -> Column {
    Column { key, cs, en }
}

/// A report's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    /// The sheet's name (a workbook tab): at most 31 characters.
    pub name: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

fn csv_error(e: impl std::fmt::Display) -> ReportError {
    ReportError::Csv(e.to_string())
}

/// Koruny with two decimals and a decimal comma, no grouping: `373775,00`, `-0,50`.
pub fn czech_amount(h: i64) -> String {
    let sign = if h < 0 { "-" } else { "" };
    let abs = h.unsigned_abs();
    format!("{sign}{},{:02}", abs / 100, abs % 100)
}

fn prague(t: DateTime<Utc>) -> String {
    t.with_timezone(&chrono_tz::Europe::Prague)
        .format("%d.%m.%Y %H:%M:%S")
        .to_string()
}

impl Sheet {
    /// CSV for programs: `,`, amounts as integer haléře, times in RFC 3339 UTC.
    pub fn to_machine_csv(&self) -> Result<String, ReportError> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::new());
        writer
            .write_record(self.columns.iter().map(|c| c.key))
            .map_err(csv_error)?;
        for row in &self.rows {
            writer
                .write_record(row.iter().map(|cell| match cell {
                    Cell::Empty => String::new(),
                    Cell::Text(t) => t.clone(),
                    Cell::Coded { code, .. } => code.clone(),
                    Cell::Money(h) | Cell::Count(h) => h.to_string(),
                    Cell::Day(d) => d.to_string(),
                    Cell::Time(t) => t.to_rfc3339(),
                    Cell::Percent(p) => format!("{p:.4}"),
                    Cell::Decimal { value, places } => {
                        format!("{value:.prec$}", prec = usize::from(*places))
                    }
                }))
                .map_err(csv_error)?;
        }
        let bytes = writer.into_inner().map_err(csv_error)?;
        String::from_utf8(bytes).map_err(csv_error)
    }

    /// CSV for people in a Czech office: a byte-order mark, `;` between fields, amounts in
    /// koruny with a decimal comma, days and times as `d.m.yyyy` in Prague's time, headings in
    /// `language`.
    pub fn to_people_csv(&self, language: Language) -> Result<String, ReportError> {
        let mut writer = csv::WriterBuilder::new()
            .delimiter(b';')
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::new());
        writer
            .write_record(self.columns.iter().map(|c| language.pick(c.cs, c.en)))
            .map_err(csv_error)?;
        for row in &self.rows {
            writer
                .write_record(row.iter().map(|cell| match cell {
                    Cell::Empty => String::new(),
                    Cell::Text(t) => t.clone(),
                    Cell::Coded { words, .. } => words.clone(),
                    Cell::Money(h) => czech_amount(*h),
                    Cell::Count(n) => n.to_string(),
                    Cell::Day(d) => d.format("%d.%m.%Y").to_string(),
                    Cell::Time(t) => prague(*t),
                    Cell::Percent(p) => format!("{p:.2}").replace('.', ","),
                    Cell::Decimal { value, places } => {
                        format!("{value:.prec$}", prec = usize::from(*places)).replace('.', ",")
                    }
                }))
                .map_err(csv_error)?;
        }
        let bytes = writer.into_inner().map_err(csv_error)?;
        let text = String::from_utf8(bytes).map_err(csv_error)?;
        Ok(format!("\u{feff}{text}"))
    }
}

impl Sheet {
    /// An XLSX workbook of one sheet for people: headings in `language`, amounts as numbers
    /// in koruny formatted `# ##0,00 Kč`, days and Prague times as dates, a frozen heading row
    /// with filters.
    pub fn to_xlsx(&self, language: Language) -> Result<Vec<u8>, ReportError> {
        use chrono::{Datelike as _, Timelike as _};
        use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};
        let fail = |e: rust_xlsxwriter::XlsxError| ReportError::Xlsx(e.to_string());
        let heading = Format::new().set_bold();
        let money = Format::new().set_num_format("#,##0.00\\ \"Kč\"");
        let count = Format::new().set_num_format("0");
        let day = Format::new().set_num_format("d.m.yyyy");
        let time = Format::new().set_num_format("d.m.yyyy h:mm:ss");
        let percent = Format::new().set_num_format("0.00");
        let mut workbook = Workbook::new();
        let sheet = workbook.add_worksheet();
        let name: String = self.name.chars().take(31).collect();
        sheet.set_name(name).map_err(fail)?;
        for (c, column) in self.columns.iter().enumerate() {
            let c = u16::try_from(c).map_err(|_| ReportError::Xlsx("too many columns".into()))?;
            sheet
                .write_string_with_format(0, c, language.pick(column.cs, column.en), &heading)
                .map_err(fail)?;
        }
        let excel_day = |d: NaiveDate| -> Result<ExcelDateTime, ReportError> {
            let year =
                u16::try_from(d.year()).map_err(|_| ReportError::Xlsx(format!("year of {d}")))?;
            ExcelDateTime::from_ymd(year, d.month() as u8, d.day() as u8).map_err(fail)
        };
        for (r, row) in self.rows.iter().enumerate() {
            let r = u32::try_from(r + 1).map_err(|_| ReportError::Xlsx("too many rows".into()))?;
            for (c, cell) in row.iter().enumerate() {
                let c =
                    u16::try_from(c).map_err(|_| ReportError::Xlsx("too many columns".into()))?;
                match cell {
                    Cell::Empty => {}
                    Cell::Text(t) => {
                        sheet.write_string(r, c, t).map_err(fail)?;
                    }
                    Cell::Coded { words, .. } => {
                        sheet.write_string(r, c, words).map_err(fail)?;
                    }
                    // A spreadsheet holds every number as a double: koruny with two decimals
                    // are exact there far beyond any amount dozor keeps (2^53 haléřů).
                    Cell::Money(h) => {
                        sheet
                            .write_number_with_format(r, c, *h as f64 / 100.0, &money)
                            .map_err(fail)?;
                    }
                    Cell::Count(n) => {
                        sheet
                            .write_number_with_format(r, c, *n as f64, &count)
                            .map_err(fail)?;
                    }
                    Cell::Percent(p) => {
                        sheet
                            .write_number_with_format(r, c, *p, &percent)
                            .map_err(fail)?;
                    }
                    Cell::Decimal { value, places } => {
                        let pattern = match places {
                            0 => "0".to_owned(),
                            n => format!("0.{}", "0".repeat(usize::from(*n))),
                        };
                        let format = Format::new().set_num_format(pattern);
                        sheet
                            .write_number_with_format(r, c, *value, &format)
                            .map_err(fail)?;
                    }
                    Cell::Day(d) => {
                        sheet
                            .write_datetime_with_format(r, c, excel_day(*d)?, &day)
                            .map_err(fail)?;
                    }
                    Cell::Time(t) => {
                        let local = t.with_timezone(&chrono_tz::Europe::Prague);
                        let at = excel_day(local.date_naive())?
                            .and_hms(local.hour() as u16, local.minute() as u8, local.second())
                            .map_err(fail)?;
                        sheet
                            .write_datetime_with_format(r, c, at, &time)
                            .map_err(fail)?;
                    }
                }
            }
        }
        let last_row = u32::try_from(self.rows.len())
            .map_err(|_| ReportError::Xlsx("too many rows".into()))?;
        let last_column = u16::try_from(self.columns.len().saturating_sub(1))
            .map_err(|_| ReportError::Xlsx("too many columns".into()))?;
        sheet.set_freeze_panes(1, 0).map_err(fail)?;
        sheet
            .autofilter(0, 0, last_row, last_column)
            .map_err(fail)?;
        sheet.autofit();
        workbook.save_to_buffer().map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn sheet() -> Sheet {
        Sheet {
            name: "test".into(),
            columns: vec![
                column("game", "Hra", "Game"),
                column("paid_h", "Vyplaceno (Kč)", "Paid (CZK)"),
                column("rounds", "Kol", "Rounds"),
                column("gaming_day", "Herní den", "Gaming day"),
            ],
            rows: vec![
                vec![
                    Cell::Text("Ruleta; francouzská".into()),
                    Cell::Money(37_377_500),
                    Cell::Count(1_204),
                    Cell::Day(NaiveDate::from_ymd_opt(2026, 10, 5).unwrap()),
                ],
                vec![
                    Cell::Text("Black Jack".into()),
                    Cell::Money(-50),
                    Cell::Count(0),
                    Cell::Empty,
                ],
            ],
        }
    }

    #[test]
    fn people_read_koruny_with_a_decimal_comma_between_semicolons() {
        let text = sheet().to_people_csv(Language::Czech).unwrap();
        // 37 377 500 h = 373 775,00 Kč; −50 h = −0,50 Kč; a `;` inside a name is quoted.
        assert_eq!(
            text,
            "\u{feff}Hra;Vyplaceno (Kč);Kol;Herní den\r\n\
             \"Ruleta; francouzská\";373775,00;1204;05.10.2026\r\n\
             Black Jack;-0,50;0;\r\n"
        );
        let english = sheet().to_people_csv(Language::English).unwrap();
        assert!(english.starts_with("\u{feff}Game;Paid (CZK);Rounds;Gaming day\r\n"));
    }

    #[test]
    fn machines_read_haleru_and_codes_between_commas() {
        let text = sheet().to_machine_csv().unwrap();
        assert_eq!(
            text,
            "game,paid_h,rounds,gaming_day\r\n\
             Ruleta; francouzská,37377500,1204,2026-10-05\r\n\
             Black Jack,-50,0,\r\n"
        );
    }
}
