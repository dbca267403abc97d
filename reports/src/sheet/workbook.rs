//! A sheet as an XLSX workbook for people, written in the writer's low-memory mode: each row
//! goes to a temporary file as soon as the next one starts, and only the text shared by the
//! cells is kept, so a workbook of 100 000 findings does not hold every cell in memory twice
//! (the writer's own cell table was several times the sheet).

use chrono::NaiveDate;

use super::cell::{Cell, Language, Sheet};
use crate::ReportError;

impl Sheet {
    /// An XLSX workbook of one sheet for people: headings in `language`, amounts as numbers
    /// in koruny formatted `# ##0,00 Kč`, days and Prague times as dates, a frozen heading row
    /// with filters, columns as wide as their widest value.
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
        // The writer opens the rows' temporary file with `unwrap`: a temporary directory it
        // cannot write is an error here, not a panic of the server's thread.
        let sheet = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            workbook.add_worksheet_with_low_memory();
        }))
        .map_err(|_| {
            ReportError::Xlsx(format!(
                "no temporary file for the workbook in {}",
                std::env::temp_dir().display()
            ))
        })
        .and_then(|()| workbook.worksheet_from_index(0).map_err(fail))?;
        let name: String = self.name.chars().take(31).collect();
        sheet.set_name(name).map_err(fail)?;
        // Widths first: only the row being written is in memory, so the writer cannot fit the
        // columns to the cells afterwards.
        for (c, width) in self.column_widths(language).into_iter().enumerate() {
            let c = u16::try_from(c).map_err(|_| ReportError::Xlsx("too many columns".into()))?;
            sheet.set_column_width(c, width).map_err(fail)?;
        }
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
        workbook.save_to_buffer().map_err(fail)
    }

    /// Each column's width in characters: its heading's (with the filter's button) or its
    /// widest value's as a spreadsheet shows it, within 6 to 60.
    fn column_widths(&self, language: Language) -> Vec<f64> {
        let mut widths: Vec<usize> = self
            .columns
            .iter()
            .map(|c| language.pick(c.cs, c.en).chars().count() + 3)
            .collect();
        for row in &self.rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(shown_width(cell));
            }
        }
        widths
            .into_iter()
            .map(|w| w.clamp(6, 60) as f64 + 1.0)
            .collect()
    }
}

/// How many characters a cell takes as the workbook's formats show it.
fn shown_width(cell: &Cell) -> usize {
    let digits = |n: u64| n.checked_ilog10().map_or(1, |d| d as usize + 1);
    match cell {
        Cell::Empty => 0,
        Cell::Text(t) => t.chars().count(),
        Cell::Coded { words, .. } => words.chars().count(),
        // `-1 234 567,89 Kč`: the koruny with a space every three digits, the haléře, the unit.
        Cell::Money(h) => {
            let koruny = digits(h.unsigned_abs() / 100);
            usize::from(*h < 0) + koruny + (koruny - 1) / 3 + 3 + 3
        }
        Cell::Count(n) => usize::from(*n < 0) + digits(n.unsigned_abs()),
        Cell::Percent(p) => format!("{p:.2}").len(),
        Cell::Decimal { value, places } => format!("{value:.*}", usize::from(*places)).len(),
        Cell::Day(_) => 10,
        Cell::Time(_) => 19,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Read as _;

    use super::*;
    use crate::sheet::column;
    use crate::sheet::columns::{AMOUNT, ROUND_ID};

    fn part(xlsx: &[u8], name: &str) -> String {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(xlsx)).unwrap();
        let mut text = String::new();
        zip.by_name(name)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    #[test]
    fn every_row_is_written_in_order_and_the_columns_fit_their_widest_value() {
        let rows: Vec<Vec<Cell>> = (0..3_000)
            .map(|i| {
                vec![
                    Cell::Text(format!("R01-{i:05}")),
                    Cell::Money(-123_456_789),
                    Cell::Count(i),
                ]
            })
            .collect();
        let sheet = Sheet {
            name: "findings".into(),
            columns: vec![ROUND_ID, AMOUNT, column("n", "N", "N")],
            rows,
        };
        let xlsx = sheet.to_xlsx(Language::English).unwrap();
        let strings = part(&xlsx, "xl/sharedStrings.xml");
        assert!(strings.contains("Amount (CZK)") && strings.contains("R01-02999"));
        let cells = part(&xlsx, "xl/worksheets/sheet1.xml");
        // The heading and 3 000 rows, the last one last.
        assert!(cells.contains("<row r=\"3001\""), "the last row");
        assert!(!cells.contains("<row r=\"3002\""));
        assert!(cells.find("<row r=\"2\"").unwrap() < cells.find("<row r=\"3001\"").unwrap());
        // Widths: "R01-02999" 9 characters, the heading "Round" 5 + 3 → 9, + 1 = 10;
        // "-1 234 567,89 Kč" 16 + 1 = 17; "N" 1 + 3 = 4 → at least 6, + 1 = 7.
        assert_eq!(
            sheet.column_widths(Language::English),
            vec![10.0, 17.0, 7.0]
        );
        assert!(
            cells.contains("<cols>"),
            "{}",
            &cells[..cells.len().min(800)]
        );
        assert!(cells.contains("<autoFilter ref=\"A1:C3001\""));
    }
}
