//! Checks a package the way the Ministry's validator does, from the schema files: the package's
//! name and files, each file's encoding, line ends, metadata line and header, and every value
//! by its type, codebook, presence and context. Errors carry the Ministry's codes, with the file,
//! the line (the file's physical line, from 1) and the field.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use chrono::{DateTime, NaiveDate, Utc};
use regex::Regex;

use super::name::PackageName;
use super::schema::{Context, FieldSpec, FieldType, Schema};
use rules::gaming_day::GamingDayClock;

/// Longest line the Ministry accepts, in bytes.
pub const MAX_LINE_BYTES: usize = 64_000;
/// A file with more errors than this is not read further.
pub const MAX_ERRORS_PER_FILE: usize = 300;
/// The metadata line's version field.
pub const FORMAT_VERSION: &str = "1.0";

/// One error, as the Ministry's validator reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MfError {
    pub code: &'static str,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for MfError {
    /// `CODE [file] [line] [field]: message`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)?;
        if let Some(file) = &self.file {
            write!(f, " {file}")?;
        }
        if let Some(line) = self.line {
            write!(f, " {line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, " {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A package's files, from its folder or its ZIP.
#[derive(Debug, Clone, Default)]
pub struct PackageSource {
    /// The folder's name (the ZIP's without `.zip`).
    pub name: String,
    pub files: Vec<(String, Vec<u8>)>,
    /// Anything in the package that is not a file (a folder).
    pub other_entries: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct SourceError {
    pub path: String,
    pub reason: String,
}

impl PackageSource {
    /// Reads a package folder, or a ZIP holding the folder.
    pub fn read(path: &Path) -> Result<PackageSource, SourceError> {
        let fail = |reason: String| SourceError {
            path: path.display().to_string(),
            reason,
        };
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| fail("has no name".into()))?;
        if path.is_dir() {
            let mut source = PackageSource {
                name: file_name.to_owned(),
                ..PackageSource::default()
            };
            let entries = std::fs::read_dir(path).map_err(|e| fail(e.to_string()))?;
            for entry in entries {
                let entry = entry.map_err(|e| fail(e.to_string()))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.path().is_file() {
                    let bytes = std::fs::read(entry.path()).map_err(|e| fail(e.to_string()))?;
                    source.files.push((name, bytes));
                } else {
                    source.other_entries.push(name);
                }
            }
            source.files.sort();
            return Ok(source);
        }
        let Some(name) = file_name.strip_suffix(".zip") else {
            return Err(fail("is neither a package folder nor its .zip".into()));
        };
        let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        PackageSource::from_zip(name, &bytes).map_err(|e| fail(e.reason))
    }

    /// Reads a package's ZIP from memory: `name` is the package's (the ZIP's without `.zip`).
    pub fn from_zip(name: &str, bytes: &[u8]) -> Result<PackageSource, SourceError> {
        let fail = |reason: String| SourceError {
            path: format!("{name}.zip"),
            reason,
        };
        let mut archive =
            zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| fail(e.to_string()))?;
        let mut source = PackageSource {
            name: name.to_owned(),
            ..PackageSource::default()
        };
        let folder = format!("{name}/");
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(|e| fail(e.to_string()))?;
            let inner = entry.name().to_owned();
            let inner = inner.strip_prefix(&folder).unwrap_or(&inner).to_owned();
            if inner.is_empty() {
                continue;
            }
            if entry.is_dir() || inner.contains('/') {
                source.other_entries.push(inner);
                continue;
            }
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(|e| fail(e.to_string()))?;
            source.files.push((inner, bytes));
        }
        source.files.sort();
        Ok(source)
    }
}

/// What the checks need besides the package.
#[derive(Debug, Clone, Copy)]
pub struct ValidationSettings {
    /// Metadata lines may not be dated later than this.
    pub now: DateTime<Utc>,
    /// The month's gaming days are the package's timespan.
    pub clock: GamingDayClock,
}

/// Every error of the package; none means it is valid.
pub fn validate(
    schema: &Schema,
    source: &PackageSource,
    settings: &ValidationSettings,
) -> Vec<MfError> {
    let mut errors = Vec::new();
    let package_error = |code, field: Option<&str>, message: String| MfError {
        code,
        file: None,
        line: None,
        field: field.map(str::to_owned),
        message,
    };
    let Some(name) = PackageName::parse(&source.name) else {
        errors.push(package_error(
            "ERR_PKG",
            None,
            format!(
                "`{}` is not a monthly package's name: {{IČO}}-M-{{YYYYMM}}-{{game type}}-{{premises}}-{{01..99}}",
                source.name
            ),
        ));
        return errors;
    };
    if !schema.in_codebook("HraDruh", &name.game_type) {
        errors.push(package_error(
            "ERR_PKG",
            None,
            format!(
                "game type `{}` is not in the codebook HraDruh",
                name.game_type
            ),
        ));
        return errors;
    }
    let mut expected: Vec<String> = schema
        .files_for(&name.model, &name.game_type)
        .into_iter()
        .map(str::to_lowercase)
        .collect();
    if expected.is_empty() {
        errors.push(package_error(
            "ERR_PKG",
            None,
            format!(
                "the schema has no files for model {} and game type {}",
                name.model, name.game_type
            ),
        ));
        return errors;
    }
    // The Ministry's validator asks for the exchange rates in the quarter's last month only,
    // and refuses them in the others.
    let rates = "mena_kurs.csv".to_owned();
    if name.month.month().is_multiple_of(3) && schema.model_file_names(&name.model).contains(&rates)
    {
        expected.push(rates);
    }
    let present: BTreeSet<String> = source.files.iter().map(|(n, _)| n.to_lowercase()).collect();
    for (file, _) in &source.files {
        if !expected.contains(&file.to_lowercase()) && !validators_own(file) {
            errors.push(package_error(
                "ERR_PKG_EXTRA_FILES",
                Some(file),
                "the package may not hold this file".into(),
            ));
        }
    }
    for other in &source.other_entries {
        errors.push(package_error(
            "ERR_PKG_EXTRA_FILES",
            Some(other),
            format!("{other}: the package holds files only, no folders"),
        ));
    }
    for file in &expected {
        if !present.contains(file) {
            errors.push(package_error(
                "ERR_PKG_MISSING_FILE",
                Some(file),
                "mandatory file is missing".into(),
            ));
        }
    }
    let mut files: Vec<&(String, Vec<u8>)> = source
        .files
        .iter()
        .filter(|(n, _)| expected.contains(&n.to_lowercase()))
        .collect();
    files.sort_by_key(|(n, _)| n.to_lowercase());
    for (file, bytes) in files {
        let mut checker = FileChecker {
            schema,
            package: &source.name,
            name: &name,
            file,
            settings,
            errors: Vec::new(),
        };
        checker.check(bytes);
        if !checker.errors.is_empty() {
            let message = format!("the file {file} is invalid");
            errors.append(&mut checker.errors);
            errors.push(MfError {
                code: "ERR_FILE",
                file: Some(file.clone()),
                line: None,
                field: None,
                message,
            });
        }
    }
    errors
}

struct FileChecker<'a> {
    schema: &'a Schema,
    package: &'a str,
    name: &'a PackageName,
    file: &'a str,
    settings: &'a ValidationSettings,
    errors: Vec<MfError>,
}

/// Why a file is not read further.
struct Stop;

/// Files the Ministry's validator writes into a package folder itself (`validation-report.csv`,
/// `validation-errors.csv`, …, and `file-validation-error.txt`); it passes over them, and so
/// does this one.
fn validators_own(file: &str) -> bool {
    file.starts_with("validation-") || file == "file-validation-error.txt"
}

/// A line's fields as the Ministry's validator reads them (CsvHelper): `;` between fields; a
/// field that starts with `"` is quoted, `""` inside it is one `"` and `;` is text, and the
/// closing quote ends the field; a `"` anywhere else in a field makes the line unreadable.
fn fields_of(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => {
                        return Err(format!(
                            "field {}: a quote that is not closed",
                            fields.len() + 1
                        ))
                    }
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Ok(fields);
                }
                Some(';') => fields.push(field),
                Some(c) => {
                    return Err(format!(
                        "field {}: `{c}` after the closing quote",
                        fields.len() + 1
                    ))
                }
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Ok(fields);
                    }
                    Some(';') => {
                        fields.push(field);
                        break;
                    }
                    Some('"') => {
                        return Err(format!(
                            "field {}: a quote inside a field that is not quoted",
                            fields.len() + 1
                        ))
                    }
                    Some(c) => field.push(c),
                }
            }
        }
    }
}

fn pattern(cell: &'static OnceLock<Regex>, text: &str) -> &'static Regex {
    #[allow(clippy::expect_used)] // the patterns are constants, tested
    cell.get_or_init(|| Regex::new(text).expect("a valid pattern"))
}

impl FileChecker<'_> {
    fn error(
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

    fn check(&mut self, bytes: &[u8]) {
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
                self.error(
                    "ERR_LINE_BAD_UTF8",
                    Some(line),
                    None,
                    "the file is not UTF-8".into(),
                );
                return Err(Stop);
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines = self.lines(text)?;
        let Some(meta) = lines.first() else {
            self.error("ERR_LINE_META", Some(1), None, "the file is empty".into());
            return Err(Stop);
        };
        self.check_metadata(meta)?;
        let fields = self.schema.file_fields(&self.name.model, self.file);
        let Some(header) = lines.get(1) else {
            self.error(
                "ERR_LINE_BAD_HEADER",
                Some(2),
                None,
                "the header line is missing".into(),
            );
            return Err(Stop);
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
                    self.error(
                        "ERR_LINE_INVALID_CSV",
                        Some(number),
                        None,
                        "the last line does not end with CRLF".into(),
                    );
                    return Err(Stop);
                }
            };
            let Some(line) = line.strip_suffix('\r') else {
                self.error(
                    "ERR_LINE_INVALID_CSV",
                    Some(number),
                    None,
                    "the line ends with LF alone; lines end with CRLF".into(),
                );
                return Err(Stop);
            };
            if line.contains('\r') {
                self.error(
                    "ERR_LINE_INVALID_CSV",
                    Some(number),
                    None,
                    "a CR inside the line".into(),
                );
                return Err(Stop);
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
            self.error(
                "ERR_LINE_META",
                Some(1),
                None,
                "the metadata line is too short".into(),
            );
            return Err(Stop);
        }
        let Some(meta) = meta.strip_prefix('#') else {
            self.error(
                "ERR_LINE_INVALID_HASH",
                Some(1),
                None,
                "the metadata line must start with `#`".into(),
            );
            return Err(Stop);
        };
        let parts: Vec<&str> = meta.split(';').collect();
        let [package, file, created, version] = parts.as_slice() else {
            self.error(
                "ERR_LINE_SPLIT_META",
                Some(1),
                None,
                format!("{} fields in the metadata line; it has 4", parts.len()),
            );
            return Err(Stop);
        };
        let before = self.errors.len();
        if !package.eq_ignore_ascii_case(self.package) {
            self.error(
                "ERR_META_FIELD_BAD_PACKAGE",
                Some(1),
                Some("PackageNumber"),
                format!("`{package}` is not the package's name `{}`", self.package),
            );
        }
        if !file.eq_ignore_ascii_case(self.file) {
            self.error(
                "ERR_META_FIELD_BAD_PACKAGE",
                Some(1),
                Some("FileName"),
                format!("`{file}` is not the file's name `{}`", self.file),
            );
        }
        match DateTime::parse_from_rfc3339(created) {
            Ok(t) if t.with_timezone(&Utc) <= self.settings.now => {}
            Ok(_) => self.error(
                "ERR_META_FIELD_DATETIME",
                Some(1),
                Some("CreatedAt"),
                format!("`{created}` is in the future"),
            ),
            Err(_) => self.error(
                "ERR_META_FIELD_DATETIME",
                Some(1),
                Some("CreatedAt"),
                format!("`{created}` is not an RFC 3339 date-time with an offset"),
            ),
        }
        if *version != FORMAT_VERSION {
            self.error(
                "ERR_META_FIELD_VERSION",
                Some(1),
                Some("PackageVersion"),
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
            self.error(
                "ERR_LINE_BAD_HEADER",
                Some(2),
                None,
                format!(
                    "the header is `{header}`; it must be `{}`",
                    expected.join(";")
                ),
            );
            return Err(Stop);
        }
        Ok(())
    }

    fn check_line(&mut self, number: usize, line: &str, fields: &[&FieldSpec]) {
        let record = match fields_of(line) {
            Ok(record) => record,
            Err(e) => {
                self.error("ERR_LINE_INVALID_CSV", Some(number), None, e);
                return;
            }
        };
        if record.len() != fields.len() {
            self.error(
                "ERR_LINE_BAD_FIELD_COUNT",
                Some(number),
                None,
                format!("{} fields; the header has {}", record.len(), fields.len()),
            );
            return;
        }
        let values: Vec<&str> = record.iter().map(String::as_str).collect();
        let value_of = |name: &str| {
            fields
                .iter()
                .position(|f| f.name == name)
                .and_then(|i| values.get(i))
                .map(|v| v.trim())
        };
        for (field, raw) in fields.iter().zip(&values) {
            self.check_value(number, field, raw, &value_of);
        }
    }

    fn check_value<'v>(
        &mut self,
        line: usize,
        field: &FieldSpec,
        raw: &str,
        value_of: &impl Fn(&str) -> Option<&'v str>,
    ) {
        let name = Some(field.name.as_str());
        if let Some(at) = raw.chars().position(char::is_control) {
            self.error(
                "ERR_FIELD_BAD_FORMAT_RE",
                Some(line),
                name,
                format!("a control character at position {at}"),
            );
            return;
        }
        let value = raw.trim();
        if value.is_empty() {
            if field.required(value_of) {
                let (code, why) = match &field.condition {
                    Some(_) => ("ERR_FIELD_MANDATORY", "is required on this line"),
                    None => ("ERR_FIELD_NOT_NULL", "may not be empty"),
                };
                self.error(code, Some(line), name, format!("{} {why}", field.name));
            }
            return;
        }
        if let Err((code, message)) = self.check_type(field, value) {
            self.error(code, Some(line), name, message);
            return;
        }
        if let Some(context) = field.context {
            if let Err((code, message)) = self.check_context(context, field, value) {
                self.error(code, Some(line), name, message);
            }
        }
    }

    fn check_type(&self, field: &FieldSpec, value: &str) -> Result<(), (&'static str, String)> {
        static MONEY: OnceLock<Regex> = OnceLock::new();
        static COURSE: OnceLock<Regex> = OnceLock::new();
        static GPS: OnceLock<Regex> = OnceLock::new();
        static DECIMAL: OnceLock<Regex> = OnceLock::new();
        static INTEGER: OnceLock<Regex> = OnceLock::new();
        static DATE: OnceLock<Regex> = OnceLock::new();
        static DATE_TIME: OnceLock<Regex> = OnceLock::new();
        let bad = |what: &str| {
            (
                "ERR_FIELD_BAD_FORMAT_RE",
                format!("`{value}` is not {what}"),
            )
        };
        let matches = |re: &Regex| re.is_match(value);
        match field.field_type {
            FieldType::DecimalNumber => {
                let (re, what) = match field.domain.as_str() {
                    "D_MONEY" | "D_DECIMAL" => (
                        pattern(&MONEY, r"^-?\d{1,13}(,\d{0,2})?$"),
                        "an amount with a decimal comma and at most 2 places",
                    ),
                    "D_COURSE" => (
                        pattern(&COURSE, r"^-?\d{1,18}(,\d{0,3})?$"),
                        "a rate with a decimal comma and at most 3 places",
                    ),
                    "D_GPS" => (
                        pattern(&GPS, r"^-?\d{1,4},\d{4,7}$"),
                        "a coordinate with a decimal comma and 4 to 7 places",
                    ),
                    _ => (
                        pattern(&DECIMAL, r"^-?\d+(,\d*)?$"),
                        "a number with a decimal comma",
                    ),
                };
                if !matches(re) {
                    return Err(bad(what));
                }
            }
            FieldType::IntegerNumber => {
                if !matches(pattern(&INTEGER, r"^-?\d{1,10}$")) {
                    return Err(bad("a whole number"));
                }
                if value.parse::<i32>().is_err() {
                    return Err((
                        "ERR_FIELD_DOMAIN_TYPE",
                        format!("`{value}` does not fit a 32-bit whole number"),
                    ));
                }
            }
            FieldType::Date => {
                if !matches(pattern(&DATE, r"^\d{4}-\d{2}-\d{2}$")) {
                    return Err(bad("a date YYYY-MM-DD"));
                }
                if NaiveDate::parse_from_str(value, "%Y-%m-%d").is_err() {
                    return Err((
                        "ERR_FIELD_DOMAIN_TYPE",
                        format!("`{value}` is no such date"),
                    ));
                }
            }
            FieldType::DateAndTime => {
                let re = pattern(
                    &DATE_TIME,
                    r"^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d(Z|[+-]\d{2}:\d{2})$",
                );
                if !matches(re) {
                    return Err(bad(
                        "a date-time YYYY-MM-DDThh:mm:ss.f with one fractional digit and an offset",
                    ));
                }
                if DateTime::parse_from_rfc3339(value).is_err() {
                    return Err((
                        "ERR_FIELD_DOMAIN_TYPE",
                        format!("`{value}` is no such time"),
                    ));
                }
            }
            FieldType::Identifier | FieldType::ReferenceLink => {
                let max = field.max_length.unwrap_or(usize::MAX);
                let ok = value.chars().count() <= max
                    && value
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
                if !ok {
                    return Err(bad(&format!(
                        "an identifier of at most {max} letters, digits, `_` or `-`"
                    )));
                }
            }
            FieldType::IdentifierExtended | FieldType::ReferenceLinkExtended => {
                let (head, _) = value.split_once('-').unwrap_or((value, ""));
                if head.is_empty() || !head.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return Err(bad(
                        "an identifier (word characters, then `-` and anything)",
                    ));
                }
            }
            FieldType::Text => {
                let length = value.chars().count();
                if let Some(min) = field.min_length.filter(|min| length < *min) {
                    return Err((
                        "ERR_FIELD_TOO_SHORT",
                        format!("{length} characters; at least {min}"),
                    ));
                }
                if let Some(max) = field.max_length.filter(|max| length > *max) {
                    return Err((
                        "ERR_FIELD_TOO_LONG",
                        format!("{length} characters; at most {max}"),
                    ));
                }
            }
            FieldType::Codebook => {
                if !self.schema.in_codebook(&field.name, value) {
                    return Err((
                        "ERR_FIELD_CODEBOOK",
                        format!("`{value}` is not in the codebook {}", field.name),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_context(
        &self,
        context: Context,
        field: &FieldSpec,
        value: &str,
    ) -> Result<(), (&'static str, String)> {
        let operator = &self.name.operator;
        match context {
            Context::EqualsGameType if !value.eq_ignore_ascii_case(&self.name.game_type) => Err((
                "ERR_FIELD_CTX_GAMETYPE",
                format!(
                    "`{value}` is not the package's game type `{}`",
                    self.name.game_type
                ),
            )),
            Context::EqualsOperatorId if !value.eq_ignore_ascii_case(operator) => Err((
                "ERR_FIELD_CTX_OPERTORID",
                format!("`{value}` is not the package's operator `{operator}`"),
            )),
            Context::StartsWithOperatorId
                if !value.to_lowercase().starts_with(&operator.to_lowercase()) =>
            {
                Err((
                    "ERR_FIELD_CTX_OPERATORID_PREFIX",
                    format!("`{value}` does not start with the operator's id `{operator}`"),
                ))
            }
            Context::WithinPackageTimespan => self.within_month(field, value),
            _ => Ok(()),
        }
    }

    /// Inside the month's gaming days: a date-time from the first day's start to the next
    /// month's first; a date on one of the month's days.
    fn within_month(&self, field: &FieldSpec, value: &str) -> Result<(), (&'static str, String)> {
        let month = self.name.month;
        let inside = match field.field_type {
            FieldType::DateAndTime => {
                let (start, end) = self.settings.clock.month_bounds(month);
                DateTime::parse_from_rfc3339(value)
                    .map(|t| t.with_timezone(&Utc))
                    .is_ok_and(|t| start <= t && t < end)
            }
            FieldType::Date => NaiveDate::parse_from_str(value, "%Y-%m-%d")
                .is_ok_and(|d| month.first_day() <= d && d < month.next_first_day()),
            _ => true,
        };
        if inside {
            Ok(())
        } else {
            Err((
                "ERR_FIELD_CTX_PKG_TIMESPAN",
                format!("`{value}` is outside the package's month {month}"),
            ))
        }
    }
}

/// The line printed for a valid package: `OK: YYYYMMDD-HHMMSS` (Prague time).
pub fn ok_line(now: DateTime<Utc>) -> String {
    format!(
        "OK: {}",
        now.with_timezone(&chrono_tz::Europe::Prague)
            .format("%Y%m%d-%H%M%S")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mf::package::render;
    use rules::gaming_day::Month;

    const PACKAGE: &str = "12345679-M-202610-Z-kasino_1-01";
    const CREATED: &str = "2026-11-02T10:00:00.0+01:00";

    fn settings() -> ValidationSettings {
        ValidationSettings {
            now: "2026-11-25T00:00:00Z".parse().unwrap(),
            clock: GamingDayClock::default(),
        }
    }

    fn rows(file: &str) -> Vec<Vec<(&'static str, String)>> {
        let row = |pairs: &[(&'static str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (*k, (*v).to_owned()))
                .collect::<Vec<_>>()
        };
        let record = [
            ("IDZaznamPSTB", "12345679-S-R01-0"),
            ("IDPSTB", "12345679-R01"),
        ];
        let with = |extra: &[(&'static str, &str)]| {
            let mut all = record.to_vec();
            all.extend_from_slice(extra);
            row(&all)
        };
        match file {
            "provozovatel.csv" => vec![row(&[
                ("IDProvozovatel", "12345679"),
                ("ProvozovatelNazev", "Kasino a.s."),
            ])],
            "misto.csv" => vec![row(&[
                ("IDMisto", "12345679-kasino_1"),
                ("MistoNazev", "Kasino Praha"),
                ("IDProvozovatel", "12345679"),
                ("PSC", "11000"),
                ("Obec", "Praha"),
                ("Kraj", "PHA"),
                ("SidloKodRuian", "21723265"),
            ])],
            "evidence_her.csv" => vec![row(&[
                ("IDHra", "12345679-roulette"),
                ("IDProvozovatel", "12345679"),
                ("HraNazev", "Ruleta"),
                ("HraDruh", "Z"),
            ])],
            "pokladna_stul_turnaj_bingo.csv" => vec![with(&[
                ("PokladnaStulTurnajBingo", "S"),
                ("IDMisto", "12345679-kasino_1"),
                ("IDHra", "12345679-roulette"),
                ("CistyHerniVysledek", "-32500,00"),
                ("MenaKod", "CZK"),
                ("ProvozOd", "2026-10-01T18:00:00.0+02:00"),
                ("ProvozDo", "2026-10-02T04:00:00.0+02:00"),
            ])],
            "prostredek.csv" => vec![with(&[
                ("IDZaznamProstredek", "12345679-S-R01-0-1"),
                ("Prostredek", "1"),
                ("MenaKod", "CZK"),
                ("StavVysePocatek", "100000,00"),
                ("StavVyseKonec", "62500,00"),
            ])],
            "pstb_transakce.csv" => vec![with(&[
                ("IDTransakce", "12345679-S-R01-0-J2"),
                ("TransakceTyp", "J2"),
                ("TransakceVyse", "20000,00"),
                ("MenaKod", "CZK"),
                ("TransakceZpusob", "1"),
            ])],
            "hra_turnaj_bingo.csv" => vec![with(&[
                ("IDJednaHraCastTurnaje", "12345679-S-R01-0-roulette"),
                ("ZahajeniCas", "2026-10-01T18:00:00.0+02:00"),
                ("UhrnSazkyVyse", "3500,00"),
                ("UhrnVyhryVyse", "36000,00"),
                ("MenaKod", "CZK"),
            ])],
            "mozna_vyhra_stul_bingo.csv" => vec![with(&[
                ("IDMoznaVyhra", "12345679-S-R01-0-MV"),
                ("MoznaVyhraNazev", "Ruleta"),
                ("MoznaVyhraVyseKonec", "900000,00"),
                ("MenaKod", "CZK"),
            ])],
            "mozna_vyhra_pro_hru.csv" => vec![row(&[
                ("IDMoznaVyhraProHru", "12345679-roulette-2026-10-01"),
                ("IDHra", "12345679-roulette"),
                ("IDMisto", "12345679-kasino_1"),
                ("MoznaVyhraProHruVysePocatek", "900000,00"),
                ("MoznaVyhruProHruVyseKonec", "900000,00"),
                ("MenaKod", "CZK"),
                ("Datum", "2026-10-01"),
            ])],
            _ => vec![],
        }
    }

    /// A valid October package with one row in each file.
    fn package() -> PackageSource {
        let schema = Schema::embedded().unwrap();
        let name = PackageName::parse(PACKAGE).unwrap();
        assert_eq!(name.month, Month::parse("2026-10").unwrap());
        let files = schema
            .files_for("M", "Z")
            .into_iter()
            .map(|file| {
                let bytes = render(schema, &name, file, CREATED, &rows(file)).unwrap();
                (file.to_owned(), bytes)
            })
            .collect();
        PackageSource {
            name: PACKAGE.into(),
            files,
            other_entries: vec![],
        }
    }

    fn errors(source: &PackageSource) -> Vec<MfError> {
        validate(Schema::embedded().unwrap(), source, &settings())
    }

    fn codes(source: &PackageSource) -> Vec<&'static str> {
        errors(source).iter().map(|e| e.code).collect()
    }

    /// The package with `file`'s text changed by `edit`.
    fn edited(file: &str, edit: impl FnOnce(String) -> String) -> PackageSource {
        let mut source = package();
        let entry = source.files.iter_mut().find(|(n, _)| n == file).unwrap();
        entry.1 = edit(String::from_utf8(entry.1.clone()).unwrap()).into_bytes();
        source
    }

    /// The one error of a broken package (besides the file's own `ERR_FILE`).
    fn the_error(source: &PackageSource) -> MfError {
        let mut errors: Vec<MfError> = errors(source)
            .into_iter()
            .filter(|e| e.code != "ERR_FILE")
            .collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors.remove(0)
    }

    #[test]
    fn a_well_formed_package_is_valid() {
        assert_eq!(errors(&package()), vec![]);
        assert_eq!(
            ok_line("2026-11-02T09:03:04Z".parse().unwrap()),
            "OK: 20261102-100304"
        );
    }

    #[test]
    fn lf_line_ends_are_refused() {
        let e = the_error(&edited("misto.csv", |t| t.replace("\r\n", "\n")));
        assert_eq!((e.code, e.line), ("ERR_LINE_INVALID_CSV", Some(1)));
        assert_eq!(e.file.as_deref(), Some("misto.csv"));
        // One line with LF alone among CRLF lines is found at its line.
        let e = the_error(&edited("evidence_her.csv", |t| {
            let mut lines: Vec<&str> = t.split("\r\n").collect();
            let last = lines.len() - 2;
            let joined = format!("{}\n{}", lines[last - 1], lines[last]);
            lines.splice(last - 1..=last, [joined.as_str()]);
            lines.join("\r\n")
        }));
        assert_eq!((e.code, e.line), ("ERR_LINE_INVALID_CSV", Some(2)));
    }

    #[test]
    fn fields_are_read_as_the_ministrys_validator_reads_them() {
        assert_eq!(fields_of("a;b;").unwrap(), ["a", "b", ""]);
        assert_eq!(
            fields_of("\"a;b\";\"say \"\"hi\"\"\"").unwrap(),
            ["a;b", "say \"hi\""]
        );
        assert_eq!(fields_of("").unwrap(), [""]);
        for bad in ["a;b\"c;d", "\"x;y", "\"x\"y;z", "ab\""] {
            assert!(fields_of(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_stray_quote_makes_the_line_unreadable() {
        let e = the_error(&edited("misto.csv", |t| {
            t.replacen(";Praha", ";Pra\"ha", 1)
        }));
        assert_eq!((e.code, e.line), ("ERR_LINE_INVALID_CSV", Some(3)), "{e:?}");
    }

    #[test]
    fn missing_and_extra_files_are_named() {
        let mut source = package();
        source.files.retain(|(n, _)| n != "prostredek.csv");
        let e = the_error(&source);
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_PKG_MISSING_FILE", Some("prostredek.csv"))
        );
        let mut source = package();
        source.files.push(("notes.txt".into(), b"x".to_vec()));
        let e = the_error(&source);
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_PKG_EXTRA_FILES", Some("notes.txt"))
        );
        // What the Ministry's validator writes into a package folder is passed over.
        let mut source = package();
        for own in [
            "validation-report.csv",
            "validation-errors.csv",
            "file-validation-error.txt",
        ] {
            source.files.push((own.into(), b"x".to_vec()));
        }
        assert_eq!(errors(&source), vec![]);
        // The exchange rates are for the quarter's last month only.
        let mut source = package();
        source.files.push(("mena_kurs.csv".into(), vec![]));
        assert_eq!(the_error(&source).code, "ERR_PKG_EXTRA_FILES");
    }

    #[test]
    fn a_wrong_header_is_refused() {
        let e = the_error(&edited("pstb_transakce.csv", |t| {
            t.replace("TransakceTyp", "TypTransakce")
        }));
        assert_eq!((e.code, e.line), ("ERR_LINE_BAD_HEADER", Some(2)));
        // Case does not matter, as for the Ministry.
        assert_eq!(
            errors(&edited("pstb_transakce.csv", |t| t
                .replace("TransakceTyp", "transakcetyp"))),
            vec![]
        );
    }

    #[test]
    fn a_decimal_point_is_refused() {
        let e = the_error(&edited("pstb_transakce.csv", |t| {
            t.replace("20000,00", "20000.00")
        }));
        assert_eq!(e.code, "ERR_FIELD_BAD_FORMAT_RE");
        assert_eq!(
            (e.line, e.field.as_deref()),
            (Some(3), Some("TransakceVyse"))
        );
    }

    #[test]
    fn a_value_outside_its_codebook_is_refused() {
        let e = the_error(&edited("pstb_transakce.csv", |t| t.replace(";J2;", ";X9;")));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_CODEBOOK", Some("TransakceTyp"))
        );
        let e = the_error(&edited("misto.csv", |t| t.replace(";PHA;", ";PRG;")));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_CODEBOOK", Some("Kraj"))
        );
    }

    #[test]
    fn an_id_without_the_operators_prefix_is_refused() {
        let e = the_error(&edited("evidence_her.csv", |t| {
            t.replace("12345679-roulette", "roulette")
        }));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_CTX_OPERATORID_PREFIX", Some("IDHra"))
        );
        let e = the_error(&edited("provozovatel.csv", |t| {
            t.replace("\r\n12345679;", "\r\n87654321;")
        }));
        assert_eq!(e.code, "ERR_FIELD_CTX_OPERTORID");
    }

    #[test]
    fn a_time_outside_the_month_is_refused() {
        // Before the month's first gaming day starts (06:00 on 1 October).
        let e = the_error(&edited("pokladna_stul_turnaj_bingo.csv", |t| {
            t.replace("2026-10-01T18:00:00.0+02:00", "2026-10-01T05:59:59.9+02:00")
        }));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_CTX_PKG_TIMESPAN", Some("ProvozOd"))
        );
        let e = the_error(&edited("mozna_vyhra_pro_hru.csv", |t| {
            t.replace(";2026-10-01", ";2026-11-01")
        }));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_CTX_PKG_TIMESPAN", Some("Datum"))
        );
        // Without its one fractional digit a time is malformed, not outside.
        let e = the_error(&edited("pokladna_stul_turnaj_bingo.csv", |t| {
            t.replace("2026-10-02T04:00:00.0+02:00", "2026-10-02T04:00:00+02:00")
        }));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_BAD_FORMAT_RE", Some("ProvozDo"))
        );
    }

    #[test]
    fn a_wrong_package_name_is_refused() {
        for name in [
            "12345679-M-202613-Z-kasino_1-01",
            "12345679-M-202610-Z-kasino-1-01",
            "package",
        ] {
            let mut source = package();
            source.name = name.into();
            assert_eq!(codes(&source), ["ERR_PKG"], "{name}");
        }
        // A game type outside the codebook.
        let mut source = package();
        source.name = "12345679-M-202610-Q-kasino_1-01".into();
        assert_eq!(codes(&source), ["ERR_PKG"]);
    }

    #[test]
    fn metadata_lines_are_checked_field_by_field() {
        for (from, to, code) in [
            ("#12345679", "12345679", "ERR_LINE_INVALID_HASH"),
            (";1.0\r\n", ";1.1\r\n", "ERR_META_FIELD_VERSION"),
            (";1.0\r\n", "\r\n", "ERR_LINE_SPLIT_META"),
            ("kasino_1-01;", "kasino_2-01;", "ERR_META_FIELD_BAD_PACKAGE"),
            (
                CREATED,
                "2026-12-01T00:00:00.0+01:00",
                "ERR_META_FIELD_DATETIME",
            ),
        ] {
            let e = the_error(&edited("provozovatel.csv", |t| t.replacen(from, to, 1)));
            assert_eq!((e.code, e.line), (code, Some(1)), "{from} → {to}");
        }
    }

    #[test]
    fn values_are_checked_by_presence_count_and_condition() {
        // A mandatory field left empty.
        let e = the_error(&edited("misto.csv", |t| t.replace(";Praha;", ";;")));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_NOT_NULL", Some("Obec"))
        );
        // A table's period needs its game; a cage's does not.
        let e = the_error(&edited("pokladna_stul_turnaj_bingo.csv", |t| {
            t.replace(";12345679-roulette;", ";;")
        }));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_MANDATORY", Some("IDHra"))
        );
        // A chip purchase states whether it was cash.
        let e = the_error(&edited("pstb_transakce.csv", |t| {
            t.replace(";CZK;1\r\n", ";CZK;\r\n")
        }));
        assert_eq!(
            (e.code, e.field.as_deref()),
            ("ERR_FIELD_MANDATORY", Some("TransakceZpusob"))
        );
        // Two premises in one package.
        let e = the_error(&edited("misto.csv", |t| {
            let line = t.lines().nth(2).unwrap().to_owned();
            format!("{t}{line}\r\n")
        }));
        assert_eq!(e.code, "ERR_FILE_BAD_RECORD_COUNT");
        let e = the_error(&edited("evidence_her.csv", |t| {
            t.replace(";Z\r\n", ";Z;extra\r\n")
        }));
        assert_eq!(e.code, "ERR_LINE_BAD_FIELD_COUNT");
    }
}
