//! What a list or a report is answered as: JSON, CSV for programs, CSV for people in a Czech
//! office, or an XLSX workbook, as the `format` (and `lang`) parameters ask.

use actix_web::HttpResponse;
use reports::sheet::{Language, Sheet};

use crate::error::ApiError;

/// The `format` parameter's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    /// `,`, amounts in haléře, codes: for programs.
    Csv,
    /// `;`, koruny with a decimal comma, names and words: for a spreadsheet in a Czech office.
    CsvCz,
    Xlsx,
}

pub const FORMATS: &str = "json, csv, csv-cz or xlsx";

impl Format {
    pub fn parse(text: Option<&str>) -> Result<Format, ApiError> {
        match text {
            None | Some("json") => Ok(Format::Json),
            Some("csv") => Ok(Format::Csv),
            Some("csv-cz") => Ok(Format::CsvCz),
            Some("xlsx") => Ok(Format::Xlsx),
            Some(other) => Err(ApiError::bad_request(
                "invalid_query",
                format!("format must be {FORMATS}, not `{other}`"),
            )),
        }
    }
}

/// The `lang` parameter: `cs` (the default) or `en`.
pub fn language(text: Option<&str>) -> Result<Language, ApiError> {
    text.map_or(Ok(Language::Czech), |t| {
        Language::parse(t).ok_or_else(|| {
            ApiError::bad_request("invalid_query", format!("lang must be cs or en, not `{t}`"))
        })
    })
}

/// `sheet` as a file named `dozor-<file>.<ext>` in `format` (not JSON). The file is made on
/// the blocking pool: a workbook of 100 000 rows takes seconds of CPU, which on a server
/// worker would hold every other request of that worker (`/healthz` included) meanwhile.
pub async fn sheet_file(
    sheet: Sheet,
    format: Format,
    language: Language,
    file: &str,
) -> Result<HttpResponse, ApiError> {
    let (content_type, extension, body) =
        actix_web::web::block(move || encode(&sheet, format, language)).await??;
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"dozor-{file}.{extension}\""),
        ))
        .body(body))
}

/// The file's content type, extension and bytes.
fn encode(
    sheet: &Sheet,
    format: Format,
    language: Language,
) -> Result<(&'static str, &'static str, Vec<u8>), ApiError> {
    Ok(match format {
        Format::Json | Format::Csv => (
            "text/csv; charset=utf-8",
            "csv",
            sheet.to_machine_csv()?.into_bytes(),
        ),
        Format::CsvCz => (
            "text/csv; charset=utf-8",
            "csv",
            sheet.to_people_csv(language)?.into_bytes(),
        ),
        Format::Xlsx => (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "xlsx",
            sheet.to_xlsx(language)?,
        ),
    })
}
