//! The limits the server enforces, written into the document's parameters and bodies: the
//! enums come from the code's own lists (games, finding kinds and states, roles, plans), the
//! patterns and lengths from the checks the server makes. A client that keeps to the document
//! is not refused for the shape of its request.

use dozor_log::access::{FindingState, Role, MAX_COMMENT_CHARS, MAX_REASON_CHARS};
use rules::{FindingKind, GameCode};
use serde_json::{json, Map, Value};

/// Characters a free text may not hold: control characters other than tab and line breaks.
const NO_CONTROL: &str = r"\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F";

/// Free text of 1 to `max` characters, not blank, without control characters other than tab
/// and line breaks (what `dozor_log::access::reason_problem` and its kin check).
fn free_text(max: usize) -> Value {
    json!({
        "minLength": 1,
        "maxLength": max,
        "pattern": format!("^[^{NO_CONTROL}]*[^\\s{NO_CONTROL}][^{NO_CONTROL}]*$"),
    })
}

/// A table's or station's id (`rules::round_header::validate_identifier`).
const IDENTIFIER: &str = "^[A-Za-z0-9_.-]{1,64}$";
/// An ed25519 public key: 32 bytes in standard base64 (the last character before `=` carries
/// 4 bits, so only these 16 are canonical).
const PUBLIC_KEY: &str = "^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$";
/// A month as the month parameters read it (`GamingDayClock::parse_month`): `month_page`'s
/// path takes the same.
const MONTH: &str = "^([0-9]{4}-(0[1-9]|1[0-2])|this|last)$";
const QUARTER: &str = "^([0-9]{4}[Qq][1-4]|this|last)$";
/// A gaming day: a date, or a word relative to today (`GamingDayClock::parse_day`).
fn day() -> Value {
    json!({"anyOf": [{"format": "date"}, {"enum": ["today", "yesterday", "last"]}]})
}

/// A page's form field: empty (not given), or one of `values`.
fn field_of(values: Value) -> Value {
    let mut all = values.as_array().cloned().unwrap_or_default();
    all.push(Value::from(""));
    json!({ "enum": all })
}
const FINDING_ID: &str = "^[0-9]{1,18}\\.[0-9]{1,9}$";
/// A tile's index as tlog-tiles writes it (`dozor_log::tiles::Tile::path`): groups of three
/// digits, each but the last after `x`, the first not `x000`; at most six groups (below 10^18).
const TILE_INDEX: &str = "(x(00[1-9]|0[1-9][0-9]|[1-9][0-9]{2})(/x[0-9]{3}){0,4}/)?[0-9]{3}";
/// A partial tile's width, 1 to 255.
const PARTIAL_SUFFIX: &str = "(\\.p/([1-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5]))?";
/// A tile after `tile/`: a hash tile of level 0 to 63, or an entry bundle.
fn tile_path() -> String {
    format!("^([0-9]|[1-5][0-9]|6[0-3]|entries)/{TILE_INDEX}{PARTIAL_SUFFIX}$")
}

fn strings(values: impl IntoIterator<Item = &'static str>) -> Value {
    Value::Array(values.into_iter().map(Value::from).collect())
}

fn games() -> Value {
    strings(GameCode::ALL.iter().map(|g| g.as_str()))
}

/// The reports that also come as a sheet for people.
const SHEET_REPORTS: &[&str] = &[
    "daily_report",
    "rtp_report",
    "tax_report",
    "shoe_audit",
    "fantasy_audit",
    "time_collection_audit",
    "table_audit",
    "wheel_statistics",
    "period_audit",
];
/// The audits of one gaming day.
const DAY_AUDITS: &[&str] = &[
    "daily_report",
    "shoe_audit",
    "fantasy_audit",
    "time_collection_audit",
    "table_audit",
];
const WORKBENCH_LIST: &[&str] = &["workbench_findings"];
const FINDINGS_LIST: &[&str] = &["list_findings"];

/// The document being constrained, one constraint a call.
struct Constrained<'a>(&'a mut Value);

impl Constrained<'_> {
    /// The parameter `name` of each of `operations` takes `constraints`.
    fn parameter(&mut self, operations: &[&str], name: &str, constraints: Value) {
        for operation_id in operations {
            parameter(self.0, operation_id, name, &constraints);
        }
    }

    /// The property `name` of the body schema `schema` takes `constraints`.
    fn property(&mut self, schema: &str, name: &str, constraints: Value) {
        property(self.0, schema, name, &constraints);
    }
}

/// Applies every constraint; `plans` are the plan ids a table may be registered under.
pub fn apply(document: &mut Value, plans: &[String]) {
    // Every report, and the findings, also come as files for programs and for people.
    for operation in SHEET_REPORTS.iter().chain(FINDINGS_LIST) {
        also_files(document, operation);
    }
    let mut doc = Constrained(document);
    parameters(&mut doc);
    workbench_parameters(&mut doc);
    bodies(&mut doc, plans);
    readable_parameters(document);
}

/// The API's query and path parameters.
fn parameters(doc: &mut Constrained) {
    let limit = json!({"minimum": 1, "maximum": 1000});
    let formats = json!({"enum": ["json", "csv", "csv-cz", "xlsx"]});
    let languages = json!({"enum": ["cs", "en"]});
    doc.parameter(&["tiles_tile"], "path", json!({"pattern": tile_path()}));
    doc.parameter(
        &["tiles_verdicts"],
        "path",
        json!({"pattern": format!("^{TILE_INDEX}{PARTIAL_SUFFIX}$")}),
    );
    doc.parameter(SHEET_REPORTS, "format", formats.clone());
    doc.parameter(SHEET_REPORTS, "lang", languages.clone());
    doc.parameter(&["month_page"], "lang", languages.clone());
    doc.parameter(
        &[
            "wheel_statistics",
            "rtp_report",
            "mf_package",
            "mf_deliver",
            "period_audit",
            "month_page",
        ],
        "month",
        json!({"pattern": MONTH}),
    );
    // A confirmation's file: the package's name, then anything readable.
    doc.parameter(
        &["mf_confirmation"],
        "file",
        json!({"pattern": r"^[A-Za-z0-9_-]{1,100}(\.[^\u0000-\u001F\u007F-\u009F\uFFFD]*)?$"}),
    );
    doc.parameter(&["tax_report"], "quarter", json!({"pattern": QUARTER}));
    doc.parameter(DAY_AUDITS, "day", day());
    let game = json!({"enum": games()});
    doc.parameter(&["rtp_report", "month_page", "list_findings"], "game", game);
    doc.parameter(FINDINGS_LIST, "kind", json!({"enum": finding_kinds()}));
    doc.parameter(FINDINGS_LIST, "state", json!({"enum": finding_states()}));
    doc.parameter(FINDINGS_LIST, "limit", limit.clone());
    doc.parameter(FINDINGS_LIST, "format", formats);
    doc.parameter(FINDINGS_LIST, "lang", languages);
    doc.parameter(FINDINGS_LIST, "sort", json!({"enum": finding_sorts()}));
    for name in ["day", "from", "to"] {
        doc.parameter(FINDINGS_LIST, name, day());
    }
    for name in ["min_amount_h", "max_amount_h"] {
        doc.parameter(FINDINGS_LIST, name, json!({"minimum": 0}));
    }
    let table_id = json!({"pattern": IDENTIFIER});
    doc.parameter(&["table_record", "table_round"], "table_id", table_id);
    doc.parameter(&["table_record"], "seq_no", json!({"minimum": 0}));
    doc.parameter(FINDINGS_LIST, "offset", json!({"minimum": 0}));
    let kinds = json!({"enum": crate::routes::ledger::EVENT_KINDS});
    doc.parameter(&["significant_events"], "kind", kinds);
    let version = json!({"minimum": 1, "maximum": 99});
    doc.parameter(&["mf_package"], "version", version);
    doc.parameter(&["significant_events"], "limit", limit);
    let finding = json!({"pattern": FINDING_ID});
    doc.parameter(&["get_finding", "resolve_finding"], "finding_id", finding);
    for name in ["first", "second"] {
        doc.parameter(&["consistency_proof"], name, json!({"minimum": 1}));
    }
    doc.parameter(&["inclusion_proof"], "size", json!({"minimum": 1}));
}

/// The workbench's parameters: its form's fields, empty when not filled in.
fn workbench_parameters(doc: &mut Constrained) {
    let day = json!({"anyOf": [{"format": "date"}, {"enum": ["today", "yesterday", "last", ""]}]});
    for name in ["from", "to"] {
        doc.parameter(WORKBENCH_LIST, name, day.clone());
    }
    doc.parameter(WORKBENCH_LIST, "game", field_of(games()));
    doc.parameter(WORKBENCH_LIST, "kind", field_of(finding_kinds()));
    doc.parameter(WORKBENCH_LIST, "state", field_of(finding_states()));
    doc.parameter(WORKBENCH_LIST, "sort", field_of(finding_sorts()));
    let table_id = json!({"pattern": "^([A-Za-z0-9_.-]{1,64})?$"});
    doc.parameter(WORKBENCH_LIST, "table_id", table_id);
    for name in ["min_amount", "max_amount"] {
        // Koruny with up to two decimals after a comma or a point.
        let amount = json!({"pattern": "^([0-9]{1,12}([.,][0-9]{1,2})?)?$"});
        doc.parameter(WORKBENCH_LIST, name, amount);
    }
    doc.parameter(WORKBENCH_LIST, "offset", json!({"pattern": "^[0-9]{0,9}$"}));
    let pages = [
        "workbench_findings",
        "workbench_finding",
        "workbench_resolve",
    ];
    doc.parameter(&pages, "lang", json!({"enum": ["cs", "en"]}));
    let finding_pages = ["workbench_finding", "workbench_resolve"];
    doc.parameter(&finding_pages, "finding_id", json!({"pattern": FINDING_ID}));
    let resolved = json!({"minimum": 0, "maximum": 65535});
    doc.parameter(&finding_pages, "resolved", resolved);
}

/// The request bodies' and the error body's properties.
fn bodies(doc: &mut Constrained, plans: &[String]) {
    let codes = strings(
        crate::error_codes::ERROR_CODES
            .iter()
            .map(|(code, _)| *code),
    );
    let code = json!({
        "enum": codes,
        "description": format!(
            "Stable machine-readable code:\n{}",
            crate::error_codes::describe()
        ),
    });
    doc.property("ErrorBody", "code", code);

    // 64 bytes of standard base64: the last character before `==` carries 2 bits.
    let base64_signature = json!({"pattern": "^[A-Za-z0-9+/]{85}[AQgw]==$"});
    let key_id = json!({"pattern": "^[0-9a-f]{16}$"});
    doc.property("SignedRecord", "key_id", key_id);
    doc.property("SignedRecord", "signature", base64_signature);
    closed(doc.0, "SignedRecord");
    let mut stations = games();
    if let Value::Array(list) = &mut stations {
        list.push(Value::from("cage"));
    }
    let location = free_text(dozor_log::registration::MAX_LOCATION_CHARS);
    doc.property("RegisterTable", "table_id", json!({"pattern": IDENTIFIER}));
    doc.property("RegisterTable", "game", json!({"enum": stations}));
    doc.property("RegisterTable", "location", location);
    doc.property(
        "RegisterTable",
        "public_key",
        json!({"pattern": PUBLIC_KEY}),
    );
    doc.property("RegisterTable", "plan_id", json!({"enum": plans}));
    doc.property("AddKey", "public_key", json!({"pattern": PUBLIC_KEY}));
    doc.property("RevokeKey", "reason", free_text(MAX_REASON_CHARS));
    doc.property("RevokeApiKey", "reason", free_text(MAX_REASON_CHARS));
    let name = json!({"pattern": "^[A-Za-z0-9_.@-]{1,64}$"});
    doc.property("CreateApiKey", "name", name);
    let roles = strings(Role::ALL.iter().map(|r| r.as_str()));
    doc.property("CreateApiKey", "role", json!({"enum": roles}));
    let states = json!({"enum": ["confirmed", "dismissed", "escalated"]});
    doc.property("ResolveFinding", "state", states);
    let scopes = json!({"enum": ["finding", "round"]});
    doc.property("ResolveFinding", "scope", scopes);
    doc.property("ResolveFinding", "comment", free_text(MAX_COMMENT_CHARS));
    doc.property("ResolveFinding", "reason", free_text(MAX_REASON_CHARS));
}

fn finding_kinds() -> Value {
    strings(FindingKind::ALL.iter().map(|k| k.as_str()))
}

fn finding_states() -> Value {
    strings(FindingState::ALL.iter().map(|s| s.as_str()))
}

fn finding_sorts() -> Value {
    strings(
        ledger::storage::report_reads::findings::FindingSort::ALL
            .iter()
            .map(|s| s.as_str()),
    )
}

/// No path or query parameter may hold a control character or U+FFFD (what bytes that are not
/// UTF-8 are read as): the server answers 400 for them (`api::parameters`). Parameters with a
/// pattern, enum or format of their own say more already.
fn readable_parameters(document: &mut Value) {
    let readable = json!({"pattern": r"^[^\u0000-\u001F\u007F-\u009F\uFFFD]*$"});
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    let parameters = paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(|operation| operation.get_mut("parameters"))
        .filter_map(Value::as_array_mut)
        .flatten();
    for parameter in parameters {
        let schema = &mut parameter["schema"];
        let string = match &schema["type"] {
            Value::String(t) => t == "string",
            Value::Array(types) => types.iter().any(|t| t == "string"),
            _ => false,
        };
        let free_string = string
            && ["pattern", "enum", "format"]
                .iter()
                .all(|key| schema.get(key).is_none());
        if free_string {
            merge(schema, &readable);
        }
    }
}

/// `format=csv` answers RFC 4180 text and `format=xlsx` a workbook: the 200 lists both beside
/// the JSON.
fn also_files(document: &mut Value, operation_id: &str) {
    for operation in operation(document, operation_id) {
        if let Some(Value::Object(content)) = operation
            .get_mut("responses")
            .and_then(|r| r.get_mut("200"))
            .and_then(|r| r.get_mut("content"))
        {
            content.insert(
                "text/csv".into(),
                json!({"schema": {"type": "string", "description": "RFC 4180 CSV with a header line"}}),
            );
            content.insert(
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet".into(),
                json!({"schema": {"type": "string", "format": "binary", "description": "an XLSX workbook"}}),
            );
        }
    }
}

/// Merges `constraints` into a schema; an enum of a nullable schema keeps `null` allowed.
fn merge(schema: &mut Value, constraints: &Value) {
    let nullable = schema["type"]
        .as_array()
        .is_some_and(|types| types.iter().any(|t| t == "null"));
    let (Value::Object(target), Value::Object(add)) = (schema, constraints) else {
        return;
    };
    for (key, value) in add {
        let mut value = value.clone();
        if key == "enum" && nullable {
            if let Value::Array(list) = &mut value {
                list.push(Value::Null);
            }
        }
        target.insert(key.clone(), value);
    }
}

/// The operation of this id (an iterator of one, or none).
fn operation<'a>(
    document: &'a mut Value,
    operation_id: &'a str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    document["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(Value::as_object_mut)
        .filter(move |o| o.get("operationId").and_then(Value::as_str) == Some(operation_id))
}

fn parameter(document: &mut Value, operation_id: &str, name: &str, constraints: &Value) {
    for operation in operation(document, operation_id) {
        let Some(Value::Array(parameters)) = operation.get_mut("parameters") else {
            continue;
        };
        for parameter in parameters {
            if parameter["name"] == name {
                merge(&mut parameter["schema"], constraints);
            }
        }
    }
}

fn property(document: &mut Value, schema: &str, name: &str, constraints: &Value) {
    if let Some(property) = document["components"]["schemas"][schema]["properties"].get_mut(name) {
        merge(property, constraints);
    }
}

/// The body may hold no other members (the server refuses unknown fields).
fn closed(document: &mut Value, schema: &str) {
    if let Some(Value::Object(object)) = document["components"]["schemas"].get_mut(schema) {
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use dozor_log::tiles::{Tile, TileKind};

    #[test]
    fn the_tile_patterns_take_every_tile_path_and_refuse_other_spellings() {
        let tile = regex::Regex::new(&tile_path()).unwrap();
        let bundle = regex::Regex::new(&format!("^{TILE_INDEX}{PARTIAL_SUFFIX}$")).unwrap();
        for kind in [TileKind::Hashes(0), TileKind::Hashes(63), TileKind::Entries] {
            for index in [0, 7, 999, 1000, 1_234_067, 999_999_999_999_999_999] {
                for width in [1, 9, 10, 99, 100, 199, 249, 255, 256] {
                    let path = Tile { kind, index, width }.path();
                    let tail = path.strip_prefix("tile/").unwrap();
                    assert!(tile.is_match(tail), "{tail}");
                    // The pattern is the spelling; an index past any tree's end (entries
                    // beyond 2^64) is spelled right but refused when read.
                    let levels = 8 * (u32::from(Tile { kind, index, width }.level()) + 1);
                    if index <= u64::MAX.checked_shr(levels).unwrap_or(0) {
                        assert_eq!(Tile::parse(&path).unwrap(), Tile { kind, index, width });
                    } else {
                        assert!(Tile::parse(&path).is_err(), "{path}");
                    }
                    if let Some(tail) = tail.strip_prefix("entries/") {
                        assert!(bundle.is_match(tail), "{tail}");
                    }
                }
            }
        }
        for bad in [
            "64/000",
            "00/000",
            "0/0",
            "0/x000/001",
            "0/001/x002",
            "0/000.p/0",
            "0/000.p/256",
            "0/000.p/07",
            "entries/x001/x002/x003/x004/x005/x006/007",
            "0/000/",
            "verdicts/000",
        ] {
            assert!(!tile.is_match(bad), "{bad}");
        }
        assert!(!bundle.is_match("entries/000"));
    }
}
