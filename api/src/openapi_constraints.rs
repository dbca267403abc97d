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

fn strings(values: impl IntoIterator<Item = &'static str>) -> Value {
    Value::Array(values.into_iter().map(Value::from).collect())
}

fn games() -> Value {
    strings(GameCode::ALL.iter().map(|g| g.as_str()))
}

/// Applies every constraint; `plans` are the plan ids a table may be registered under.
pub fn apply(document: &mut Value, plans: &[String]) {
    let limit = json!({"minimum": 1, "maximum": 1000});
    // Every report also comes as a sheet for people.
    for operation in [
        "daily_report",
        "rtp_report",
        "tax_report",
        "shoe_audit",
        "fantasy_audit",
        "time_collection_audit",
        "table_audit",
        "wheel_statistics",
        "period_audit",
    ] {
        parameter(
            document,
            operation,
            "format",
            &json!({"enum": ["json", "csv", "csv-cz", "xlsx"]}),
        );
        also_csv(document, operation);
        also_xlsx(document, operation);
    }
    for operation in [
        "daily_report",
        "shoe_audit",
        "fantasy_audit",
        "time_collection_audit",
        "table_audit",
        "rtp_report",
        "tax_report",
        "month_page",
        "wheel_statistics",
        "period_audit",
    ] {
        parameter(document, operation, "lang", &json!({"enum": ["cs", "en"]}));
    }
    for operation in [
        "wheel_statistics",
        "rtp_report",
        "mf_package",
        "mf_deliver",
        "period_audit",
        "month_page",
    ] {
        parameter(document, operation, "month", &json!({"pattern": MONTH}));
    }
    // A confirmation's file: the package's name, then anything readable.
    parameter(
        document,
        "mf_confirmation",
        "file",
        &json!({"pattern": r"^[A-Za-z0-9_-]{1,100}(\.[^\u0000-\u001F\u007F-\u009F\uFFFD]*)?$"}),
    );
    parameter(
        document,
        "tax_report",
        "quarter",
        &json!({"pattern": QUARTER}),
    );
    for operation in [
        "daily_report",
        "shoe_audit",
        "fantasy_audit",
        "time_collection_audit",
        "table_audit",
    ] {
        parameter(document, operation, "day", &day());
    }
    for operation in ["rtp_report", "month_page", "list_findings"] {
        parameter(document, operation, "game", &json!({"enum": games()}));
    }
    parameter(
        document,
        "list_findings",
        "kind",
        &json!({"enum": strings(FindingKind::ALL.iter().map(|k| k.as_str()))}),
    );
    parameter(
        document,
        "list_findings",
        "state",
        &json!({"enum": strings(FindingState::ALL.iter().map(|s| s.as_str()))}),
    );
    parameter(document, "list_findings", "limit", &limit);
    parameter(
        document,
        "list_findings",
        "format",
        &json!({"enum": ["json", "csv", "csv-cz", "xlsx"]}),
    );
    also_csv(document, "list_findings");
    also_xlsx(document, "list_findings");
    parameter(
        document,
        "list_findings",
        "lang",
        &json!({"enum": ["cs", "en"]}),
    );
    parameter(
        document,
        "list_findings",
        "sort",
        &json!({"enum": strings(ledger::storage::report_reads::findings::FindingSort::ALL.iter().map(|s| s.as_str()))}),
    );
    for name in ["day", "from", "to"] {
        parameter(document, "list_findings", name, &day());
    }
    // The workbench's list: its form's fields, empty when not filled in.
    for name in ["from", "to"] {
        parameter(
            document,
            "workbench_findings",
            name,
            &json!({"anyOf": [{"format": "date"}, {"enum": ["today", "yesterday", "last", ""]}]}),
        );
    }
    parameter(document, "workbench_findings", "game", &field_of(games()));
    parameter(
        document,
        "workbench_findings",
        "kind",
        &field_of(strings(FindingKind::ALL.iter().map(|k| k.as_str()))),
    );
    parameter(
        document,
        "workbench_findings",
        "state",
        &field_of(strings(FindingState::ALL.iter().map(|s| s.as_str()))),
    );
    parameter(
        document,
        "workbench_findings",
        "sort",
        &field_of(strings(
            ledger::storage::report_reads::findings::FindingSort::ALL
                .iter()
                .map(|s| s.as_str()),
        )),
    );
    parameter(
        document,
        "workbench_findings",
        "table_id",
        &json!({"pattern": "^([A-Za-z0-9_.-]{1,64})?$"}),
    );
    for name in ["min_amount", "max_amount"] {
        // Koruny with up to two decimals after a comma or a point.
        parameter(
            document,
            "workbench_findings",
            name,
            &json!({"pattern": "^([0-9]{1,12}([.,][0-9]{1,2})?)?$"}),
        );
    }
    parameter(
        document,
        "workbench_findings",
        "offset",
        &json!({"pattern": "^[0-9]{0,9}$"}),
    );
    for operation in [
        "workbench_findings",
        "workbench_finding",
        "workbench_resolve",
    ] {
        parameter(document, operation, "lang", &json!({"enum": ["cs", "en"]}));
    }
    for operation in ["workbench_finding", "workbench_resolve"] {
        parameter(
            document,
            operation,
            "finding_id",
            &json!({"pattern": FINDING_ID}),
        );
        parameter(
            document,
            operation,
            "resolved",
            &json!({"minimum": 0, "maximum": 65535}),
        );
    }
    for name in ["min_amount_h", "max_amount_h"] {
        parameter(document, "list_findings", name, &json!({"minimum": 0}));
    }
    for operation in ["table_record", "table_round"] {
        parameter(
            document,
            operation,
            "table_id",
            &json!({"pattern": IDENTIFIER}),
        );
    }
    parameter(document, "table_record", "seq_no", &json!({"minimum": 0}));
    parameter(document, "list_findings", "offset", &json!({"minimum": 0}));
    parameter(
        document,
        "significant_events",
        "kind",
        &json!({"enum": crate::routes::ledger::EVENT_KINDS}),
    );
    parameter(
        document,
        "mf_package",
        "version",
        &json!({"minimum": 1, "maximum": 99}),
    );
    parameter(document, "significant_events", "limit", &limit);
    for operation in ["get_finding", "resolve_finding"] {
        parameter(
            document,
            operation,
            "finding_id",
            &json!({"pattern": FINDING_ID}),
        );
    }
    parameter(
        document,
        "consistency_proof",
        "first",
        &json!({"minimum": 1}),
    );
    parameter(
        document,
        "consistency_proof",
        "second",
        &json!({"minimum": 1}),
    );
    parameter(document, "inclusion_proof", "size", &json!({"minimum": 1}));

    property(
        document,
        "ErrorBody",
        "code",
        &json!({
            "enum": strings(crate::error_codes::ERROR_CODES.iter().map(|(code, _)| *code)),
            "description": format!(
                "Stable machine-readable code:\n{}",
                crate::error_codes::describe()
            ),
        }),
    );

    // 64 bytes of standard base64: the last character before `==` carries 2 bits.
    let base64_signature = json!({"pattern": "^[A-Za-z0-9+/]{85}[AQgw]==$"});
    property(
        document,
        "SignedRecord",
        "key_id",
        &json!({"pattern": "^[0-9a-f]{16}$"}),
    );
    property(document, "SignedRecord", "signature", &base64_signature);
    closed(document, "SignedRecord");
    let mut stations = games();
    if let Value::Array(list) = &mut stations {
        list.push(Value::from("cage"));
    }
    property(
        document,
        "RegisterTable",
        "table_id",
        &json!({"pattern": IDENTIFIER}),
    );
    property(
        document,
        "RegisterTable",
        "game",
        &json!({"enum": stations}),
    );
    property(
        document,
        "RegisterTable",
        "location",
        &free_text(dozor_log::registration::MAX_LOCATION_CHARS),
    );
    property(
        document,
        "RegisterTable",
        "public_key",
        &json!({"pattern": PUBLIC_KEY}),
    );
    property(
        document,
        "RegisterTable",
        "plan_id",
        &json!({"enum": plans}),
    );
    property(
        document,
        "AddKey",
        "public_key",
        &json!({"pattern": PUBLIC_KEY}),
    );
    property(
        document,
        "RevokeKey",
        "reason",
        &free_text(MAX_REASON_CHARS),
    );
    property(
        document,
        "RevokeApiKey",
        "reason",
        &free_text(MAX_REASON_CHARS),
    );
    property(
        document,
        "CreateApiKey",
        "name",
        &json!({"pattern": "^[A-Za-z0-9_.@-]{1,64}$"}),
    );
    property(
        document,
        "CreateApiKey",
        "role",
        &json!({"enum": strings(Role::ALL.iter().map(|r| r.as_str()))}),
    );
    property(
        document,
        "ResolveFinding",
        "state",
        &json!({"enum": ["confirmed", "dismissed", "escalated"]}),
    );
    property(
        document,
        "ResolveFinding",
        "scope",
        &json!({"enum": ["finding", "round"]}),
    );
    property(
        document,
        "ResolveFinding",
        "comment",
        &free_text(MAX_COMMENT_CHARS),
    );
    property(
        document,
        "ResolveFinding",
        "reason",
        &free_text(MAX_REASON_CHARS),
    );
    readable_parameters(document);
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

/// `format=csv` answers RFC 4180 text: the 200 lists it beside the JSON.
fn also_csv(document: &mut Value, operation_id: &str) {
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
        }
    }
}

fn also_xlsx(document: &mut Value, operation_id: &str) {
    for operation in operation(document, operation_id) {
        if let Some(Value::Object(content)) = operation
            .get_mut("responses")
            .and_then(|r| r.get_mut("200"))
            .and_then(|r| r.get_mut("content"))
        {
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
