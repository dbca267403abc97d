//! Checks a package the way the Ministry's validator does, from the schema files: the package's
//! name and files, each file's encoding, line ends, metadata line and header, and every value
//! by its type, codebook, presence and context. Errors carry the Ministry's codes, with the file,
//! the line (the file's physical line, from 1) and the field.

mod fields;
mod file;
mod outcome;
mod source;
#[cfg(test)]
mod tests;
mod value;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::name::PackageName;
use super::schema::Schema;
use file::FileChecker;

pub use file::{FORMAT_VERSION, MAX_ERRORS_PER_FILE, MAX_LINE_BYTES};
pub use outcome::{MfError, ValidationSettings};
pub use source::{PackageSource, SourceError};

/// Every error of the package; none means it is valid.
pub fn validate(
    schema: &Schema,
    source: &PackageSource,
    settings: &ValidationSettings,
) -> Vec<MfError> {
    let (name, expected) = match expected_files(schema, source) {
        Ok(found) => found,
        Err(refused) => return vec![refused],
    };
    let mut errors = file_set_errors(source, &expected);
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

/// An error of the package as a whole.
fn package_error(code: &'static str, field: Option<&str>, message: String) -> MfError {
    MfError {
        code,
        file: None,
        line: None,
        field: field.map(str::to_owned),
        message,
    }
}

/// The package's name read, and the files (lower case) its model and game type must hold; or
/// why the package cannot be read further.
fn expected_files(
    schema: &Schema,
    source: &PackageSource,
) -> Result<(PackageName, Vec<String>), MfError> {
    let Some(name) = PackageName::parse(&source.name) else {
        return Err(package_error(
            "ERR_PKG",
            None,
            format!(
                "`{}` is not a monthly package's name: {{IČO}}-M-{{YYYYMM}}-{{game type}}-{{premises}}-{{01..99}}",
                source.name
            ),
        ));
    };
    if !schema.in_codebook("HraDruh", &name.game_type) {
        return Err(package_error(
            "ERR_PKG",
            None,
            format!(
                "game type `{}` is not in the codebook HraDruh",
                name.game_type
            ),
        ));
    }
    let mut expected: Vec<String> = schema
        .files_for(&name.model, &name.game_type)
        .into_iter()
        .map(str::to_lowercase)
        .collect();
    if expected.is_empty() {
        return Err(package_error(
            "ERR_PKG",
            None,
            format!(
                "the schema has no files for model {} and game type {}",
                name.model, name.game_type
            ),
        ));
    }
    // The Ministry's validator asks for the exchange rates in the quarter's last month only,
    // and refuses them in the others.
    let rates = "mena_kurs.csv".to_owned();
    if name.month.month().is_multiple_of(3) && schema.model_file_names(&name.model).contains(&rates)
    {
        expected.push(rates);
    }
    Ok((name, expected))
}

/// The files the package holds that it may not (and its folders), and those it lacks.
fn file_set_errors(source: &PackageSource, expected: &[String]) -> Vec<MfError> {
    let mut errors = Vec::new();
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
    for file in expected {
        if !present.contains(file) {
            errors.push(package_error(
                "ERR_PKG_MISSING_FILE",
                Some(file),
                "mandatory file is missing".into(),
            ));
        }
    }
    errors
}

/// Files the Ministry's validator writes into a package folder itself (`validation-report.csv`,
/// `validation-errors.csv`, …, and `file-validation-error.txt`); it passes over them, and so
/// does this one.
fn validators_own(file: &str) -> bool {
    file.starts_with("validation-") || file == "file-validation-error.txt"
}

/// The line printed for a valid package: `OK: YYYYMMDD-HHMMSS` (Prague time).
pub fn ok_line(now: DateTime<Utc>) -> String {
    format!(
        "OK: {}",
        now.with_timezone(&chrono_tz::Europe::Prague)
            .format("%Y%m%d-%H%M%S")
    )
}
