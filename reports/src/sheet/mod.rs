//! A report as a table of typed cells, written for machines (CSV: `,`, amounts in haléře, codes)
//! or for people in a Czech office (CSV: `;`, decimal comma, Kč with two decimals, UTF-8 with a
//! byte-order mark so that a spreadsheet reads the diacritics; or an XLSX workbook). Every CSV
//! dozor writes goes through [`CsvWriter`], which writes a text cell a spreadsheet would run as
//! a formula as text.

mod cell;
pub mod columns;
mod csv_text;
mod csv_writer;
mod workbook;

pub use cell::{column, Cell, Column, Language, Sheet};
pub use csv_writer::{machine_csv, Audience, CsvWriter};
