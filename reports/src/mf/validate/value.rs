//! A record of a file checked value by value: presence, type, codebook and context.

use std::sync::OnceLock;

use chrono::{DateTime, NaiveDate, Utc};
use regex::Regex;

use super::fields::fields_of;
use super::file::FileChecker;
use crate::mf::schema::{Context, FieldSpec, FieldType, Schema};

/// Why a value is refused: the Ministry's code and the reason.
type Refusal = (&'static str, String);

impl FileChecker<'_> {
    pub(super) fn check_line(&mut self, number: usize, line: &str, fields: &[&FieldSpec]) {
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
        if let Err((code, message)) = check_type(self.schema, field, value) {
            self.error(code, Some(line), name, message);
            return;
        }
        if let Some(context) = field.context {
            if let Err((code, message)) = self.check_context(context, field, value) {
                self.error(code, Some(line), name, message);
            }
        }
    }

    fn check_context(
        &self,
        context: Context,
        field: &FieldSpec,
        value: &str,
    ) -> Result<(), Refusal> {
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
    fn within_month(&self, field: &FieldSpec, value: &str) -> Result<(), Refusal> {
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

/// A value against its field's type (its form, its range, its codebook).
fn check_type(schema: &Schema, field: &FieldSpec, value: &str) -> Result<(), Refusal> {
    match field.field_type {
        FieldType::DecimalNumber => decimal(field, value),
        FieldType::IntegerNumber => integer(value),
        FieldType::Date => date(value),
        FieldType::DateAndTime => date_time(value),
        FieldType::Identifier | FieldType::ReferenceLink => identifier(field, value),
        FieldType::IdentifierExtended | FieldType::ReferenceLinkExtended => {
            identifier_extended(value)
        }
        FieldType::Text => text(field, value),
        FieldType::Codebook => codebook(schema, field, value),
    }
}

fn pattern(cell: &'static OnceLock<Regex>, text: &str) -> &'static Regex {
    #[allow(clippy::expect_used)] // the patterns are constants, tested
    cell.get_or_init(|| Regex::new(text).expect("a valid pattern"))
}

/// A value whose form is not `what`.
fn bad_form(value: &str, what: &str) -> Refusal {
    (
        "ERR_FIELD_BAD_FORMAT_RE",
        format!("`{value}` is not {what}"),
    )
}

/// `value` matches `re`, or is refused as not `what`.
fn of_form(re: &Regex, value: &str, what: &str) -> Result<(), Refusal> {
    if re.is_match(value) {
        Ok(())
    } else {
        Err(bad_form(value, what))
    }
}

/// A value of the right form that names nothing (no such date, too large a number).
fn out_of_domain(value: &str, what: &str) -> Refusal {
    ("ERR_FIELD_DOMAIN_TYPE", format!("`{value}` {what}"))
}

fn decimal(field: &FieldSpec, value: &str) -> Result<(), Refusal> {
    static MONEY: OnceLock<Regex> = OnceLock::new();
    static COURSE: OnceLock<Regex> = OnceLock::new();
    static GPS: OnceLock<Regex> = OnceLock::new();
    static DECIMAL: OnceLock<Regex> = OnceLock::new();
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
    of_form(re, value, what)
}

fn integer(value: &str) -> Result<(), Refusal> {
    static INTEGER: OnceLock<Regex> = OnceLock::new();
    of_form(pattern(&INTEGER, r"^-?\d{1,10}$"), value, "a whole number")?;
    if value.parse::<i32>().is_err() {
        return Err(out_of_domain(value, "does not fit a 32-bit whole number"));
    }
    Ok(())
}

fn date(value: &str) -> Result<(), Refusal> {
    static DATE: OnceLock<Regex> = OnceLock::new();
    of_form(
        pattern(&DATE, r"^\d{4}-\d{2}-\d{2}$"),
        value,
        "a date YYYY-MM-DD",
    )?;
    if NaiveDate::parse_from_str(value, "%Y-%m-%d").is_err() {
        return Err(out_of_domain(value, "is no such date"));
    }
    Ok(())
}

fn date_time(value: &str) -> Result<(), Refusal> {
    static DATE_TIME: OnceLock<Regex> = OnceLock::new();
    let re = pattern(
        &DATE_TIME,
        r"^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d(Z|[+-]\d{2}:\d{2})$",
    );
    of_form(
        re,
        value,
        "a date-time YYYY-MM-DDThh:mm:ss.f with one fractional digit and an offset",
    )?;
    if DateTime::parse_from_rfc3339(value).is_err() {
        return Err(out_of_domain(value, "is no such time"));
    }
    Ok(())
}

fn identifier(field: &FieldSpec, value: &str) -> Result<(), Refusal> {
    let max = field.max_length.unwrap_or(usize::MAX);
    let ok = value.chars().count() <= max
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !ok {
        return Err(bad_form(
            value,
            &format!("an identifier of at most {max} letters, digits, `_` or `-`"),
        ));
    }
    Ok(())
}

fn identifier_extended(value: &str) -> Result<(), Refusal> {
    let (head, _) = value.split_once('-').unwrap_or((value, ""));
    if head.is_empty() || !head.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(bad_form(
            value,
            "an identifier (word characters, then `-` and anything)",
        ));
    }
    Ok(())
}

fn text(field: &FieldSpec, value: &str) -> Result<(), Refusal> {
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
    Ok(())
}

fn codebook(schema: &Schema, field: &FieldSpec, value: &str) -> Result<(), Refusal> {
    if !schema.in_codebook(&field.name, value) {
        return Err((
            "ERR_FIELD_CODEBOOK",
            format!("`{value}` is not in the codebook {}", field.name),
        ));
    }
    Ok(())
}
