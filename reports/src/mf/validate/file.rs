//! One file of a package checked line by line: its encoding, its line ends, its metadata line
//! and header; each record's values are checked by [`super::value`].

use chrono::{DateTime, Utc};

use super::outcome::{MfError, ValidationSettings};
use crate::mf::name::PackageName;
use crate::mf::schema::{FieldSpec, Schema};

/// Longest line the Ministry accepts, in bytes.
pub const MAX_LINE_BYTES: usize = 64_000;
/// A file with more errors than this is not read further.
pub const MAX_ERRORS_PER_FILE: usize = 300;
/// The metadata line's version field.
pub const FORMAT_VERSION: &str = "1.0";

pub(super) struct FileChecker<'a> {
    pub schema: &'a Schema,
    pub package: &'a str,
    pub name: &'a PackageName,
    pub file: &'a str,
    pub settings: &'a ValidationSettings,
    pub errors: Vec<MfError>,
}

/// Why a file is not read further.
pub(super) struct Stop;

impl FileChecker<'_> {
    /// An error of line `line` after which the file is not read on.
    fn stop_at(&mut self, code: &'static str, line: usize, message: String) -> Stop {
        self.error(code, Some(line), None, message);
        Stop
    }

    /// An error of field `field` of the metadata line.
    fn meta_error(&mut self, code: &'static str, field: &str, message: String) {
        self.error(code, Some(1), Some(field), message);
    }

    pub(super) fn error(
        &mut self,
        code: &'static str,
        line: Option<usize>,
        field: Option<&str>,
        message: String,
    ) {
        self.errors.push(MfError {
            code,
            file: Some(self.file.to_owned()),
            line,
            field: field.map(str::to_owned),
            message,
        });
    }

    pub(super) fn check(&mut self, bytes: &[u8]) {
        let _ = self.check_all(bytes);
    }

    fn check_all(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let line = bytes[..e.valid_up_to()]
                    .iter()
                    .filter(|b| **b == b'\n')
                    .count()
                    + 1;
                return Err(self.stop_at(
                    "ERR_LINE_BAD_UTF8",
                    line,
                    "the file is not UTF-8".into(),
                ));
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines = self.lines(text)?;
        let Some(meta) = lines.first() else {
            return Err(self.stop_at("ERR_LINE_META", 1, "the file is empty".into()));
        };
        self.check_metadata(meta)?;
        let fields = self.schema.file_fields(&self.name.model, self.file);
        let Some(header) = lines.get(1) else {
            return Err(self.stop_at(
                "ERR_LINE_BAD_HEADER",
                2,
                "the header line is missing".into(),
            ));
        };
        self.check_header(header, &fields)?;
        let records = lines.len() - 2;
        for (i, line) in lines.iter().enumerate().skip(2) {
            self.check_line(i + 1, line, &fields);
            if self.errors.len() > MAX_ERRORS_PER_FILE {
                self.error(
                    "ERR_FILE_TOO_MANY_ERRORS",
                    None,
                    None,
                    format!("more than {MAX_ERRORS_PER_FILE} errors: not read further"),
                );
                return Err(Stop);
            }
        }
        // The Ministry's validator requires one operator and one premises per package.
        let file = self.file.to_lowercase();
        if (file == "provozovatel.csv" || file == "misto.csv") && records != 1 {
            self.error(
                "ERR_FILE_BAD_RECORD_COUNT",
                None,
                None,
                format!("{records} records; the file must hold exactly one"),
            );
        }
        Ok(())
    }

    /// The file's lines without their CRLF; every line must end with CRLF.
    fn lines<'t>(&mut self, text: &'t str) -> Result<Vec<&'t str>, Stop> {
        let mut lines = Vec::new();
        let mut rest = text;
        let mut number = 0;
        while !rest.is_empty() {
            number += 1;
            let (line, next) = match rest.find('\n') {
                Some(end) => (&rest[..end], &rest[end + 1..]),
                None => {
                    return Err(self.stop_at(
                        "ERR_LINE_INVALID_CSV",
                        number,
                        "the last line does not end with CRLF".into(),
                    ));
                }
            };
            let Some(line) = line.strip_suffix('\r') else {
                return Err(self.stop_at(
                    "ERR_LINE_INVALID_CSV",
                    number,
                    "the line ends with LF alone; lines end with CRLF".into(),
                ));
            };
            if line.contains('\r') {
                return Err(self.stop_at(
                    "ERR_LINE_INVALID_CSV",
                    number,
                    "a CR inside the line".into(),
                ));
            }
            if line.len() + 2 > MAX_LINE_BYTES {
                self.error(
                    "ERR_LINE_TOO_LONG",
                    Some(number),
                    None,
                    format!("{} bytes; at most {MAX_LINE_BYTES}", line.len() + 2),
                );
            }
            lines.push(line);
            rest = next;
        }
        Ok(lines)
    }

    fn check_metadata(&mut self, meta: &str) -> Result<(), Stop> {
        if meta.len() < 4 {
            return Err(self.stop_at("ERR_LINE_META", 1, "the metadata line is too short".into()));
        }
        let Some(meta) = meta.strip_prefix('#') else {
            return Err(self.stop_at(
                "ERR_LINE_INVALID_HASH",
                1,
                "the metadata line must start with `#`".into(),
            ));
        };
        let parts: Vec<&str> = meta.split(';').collect();
        let [package, file, created, version] = parts.as_slice() else {
            return Err(self.stop_at(
                "ERR_LINE_SPLIT_META",
                1,
                format!("{} fields in the metadata line; it has 4", parts.len()),
            ));
        };
        let before = self.errors.len();
        if !package.eq_ignore_ascii_case(self.package) {
            self.meta_error(
                "ERR_META_FIELD_BAD_PACKAGE",
                "PackageNumber",
                format!("`{package}` is not the package's name `{}`", self.package),
            );
        }
        if !file.eq_ignore_ascii_case(self.file) {
            self.meta_error(
                "ERR_META_FIELD_BAD_PACKAGE",
                "FileName",
                format!("`{file}` is not the file's name `{}`", self.file),
            );
        }
        match DateTime::parse_from_rfc3339(created) {
            Ok(t) if t.with_timezone(&Utc) <= self.settings.now => {}
            Ok(_) => self.meta_error(
                "ERR_META_FIELD_DATETIME",
                "CreatedAt",
                format!("`{created}` is in the future"),
            ),
            Err(_) => self.meta_error(
                "ERR_META_FIELD_DATETIME",
                "CreatedAt",
                format!("`{created}` is not an RFC 3339 date-time with an offset"),
            ),
        }
        if *version != FORMAT_VERSION {
            self.meta_error(
                "ERR_META_FIELD_VERSION",
                "PackageVersion",
                format!("`{version}`; the format version is `{FORMAT_VERSION}`"),
            );
        }
        if self.errors.len() > before {
            return Err(Stop);
        }
        Ok(())
    }

    fn check_header(&mut self, header: &str, fields: &[&FieldSpec]) -> Result<(), Stop> {
        let names: Vec<&str> = header.split(';').collect();
        let expected: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        let same = names.len() == expected.len()
            && names
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.eq_ignore_ascii_case(b));
        if !same {
            return Err(self.stop_at(
                "ERR_LINE_BAD_HEADER",
                2,
                format!(
                    "the header is `{header}`; it must be `{}`",
                    expected.join(";")
                ),
            ));
        }
        Ok(())
    }
}
