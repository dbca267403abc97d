//! A record's canonical bytes and header, read once from the text a table sent.

use rules::RecordHeader;
use serde_json::json;

use super::error::IngestError;

/// A record's canonical bytes and header from one reading of its text: a canonical record (as
/// tables send them) is checked and its header found in the same pass; any other is parsed,
/// canonicalized and read from the parsed value.
pub fn read_record(text: &str) -> Result<(String, RecordHeader), IngestError> {
    let invalid = |m: String| IngestError::refused("invalid_record", m, json!({}));
    let members = text
        .starts_with('{')
        .then(|| dozor_log::canonical_scan::canonical_members(text, 1))
        .flatten();
    if let Some(members) = members {
        let member = |name: &str| members.iter().find(|m| m.key == name).map(|m| m.value);
        let header = RecordHeader::from_member_texts(member)?;
        return Ok((text.to_owned(), header));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("record is not JSON: {e}")))?;
    let header = RecordHeader::read(&value)?;
    let canonical = dozor_log::canonical::canonical_text(&value).map_err(|e| match e {
        dozor_log::LogError::Canonical(m) => invalid(m),
        other => invalid(other.to_string()),
    })?;
    Ok((canonical, header))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_the_same_whether_it_arrives_canonical_or_not() {
        let canonical = r#"{"plan_id":"p","seq_no":7,"table_id":"R01","type":"round","x":[1,{"a":null,"b":"é"}]}"#;
        let inner_out_of_order = r#"{"plan_id":"p","seq_no":7,"table_id":"R01","type":"round","x":[1,{"b":"é","a":null}]}"#;
        let written_otherwise = r#"{ "type": "round", "table_id": "R01", "seq_no": 7,
            "x": [1, {"a": null, "b": "\u00e9"}], "plan_id": "p" }"#;
        for text in [canonical, inner_out_of_order, written_otherwise] {
            let (bytes, header) = read_record(text).unwrap();
            assert_eq!(bytes, canonical, "{text}");
            assert_eq!(
                (header.record_type.as_str(), header.table_id.as_str()),
                ("round", "R01")
            );
            assert_eq!((header.seq_no, header.plan_id.as_str()), (7, "p"));
        }
    }

    #[test]
    fn a_record_without_a_canonical_form_or_a_header_is_refused() {
        for (text, field) in [
            (
                r#"{"plan_id":"p","seq_no":7,"table_id":"R01","type":"round","stake":1.5}"#,
                None,
            ),
            (
                r#"{"plan_id":"p","seq_no":-1,"table_id":"R01","type":"round"}"#,
                Some("seq_no"),
            ),
            (
                r#"{"plan_id":"p","seq_no":7,"type":"round"}"#,
                Some("table_id"),
            ),
            (
                r#"{"plan_id":"p", "seq_no":7, "type":"round"}"#,
                Some("table_id"),
            ),
            (r#"[1,2]"#, None),
        ] {
            let Err(IngestError::Refused { code, details, .. }) = read_record(text) else {
                panic!("{text} was not refused");
            };
            assert_eq!(code, "invalid_record", "{text}");
            if let Some(field) = field {
                assert_eq!(details["field"], field, "{text}");
            }
        }
    }
}
