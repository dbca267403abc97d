//! A sheet as an XLSX workbook for people.

use chrono::NaiveDate;

use super::{Cell, Language, Sheet};
use crate::ReportError;

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
