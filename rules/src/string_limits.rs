//! Length limits on the strings of a record: ids stay short, free text bounded, so a record
//! within the size limit cannot carry a megabyte-long `round_id`.

use crate::RecordError;

/// Longest member name.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest value of an id-like member (`round_id`, `bet_id`, `shoe_id`, `player`, …).
pub const MAX_ID_CHARS: usize = 128;
/// Longest any other string (reasons, notes).
pub const MAX_TEXT_CHARS: usize = 1_000;

fn is_id_like(name: &str) -> bool {
    name == "id" || name.ends_with("_id") || name.ends_with("_ref") || name == "player"
}

/// Checks every string of the JSON `text` (which must be valid JSON): member names, id-like
/// values and other values against their limits, counted in characters of the JSON text.
pub fn check_string_lengths(text: &str) -> Result<(), RecordError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    // The last member name read, for the error and for id-like limits.
    let mut name: Option<&str> = None;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        let end = end.min(bytes.len());
        let content = text.get(start..end).unwrap_or("");
        let chars = content.chars().count();
        let after = bytes[(end + 1).min(bytes.len())..]
            .iter()
            .find(|b| !b.is_ascii_whitespace());
        if after == Some(&b':') {
            if chars > MAX_NAME_CHARS {
                return Err(RecordError::invalid(
                    "record",
                    format!("a member name is {chars} characters; at most {MAX_NAME_CHARS}"),
                ));
            }
            name = Some(content);
        } else {
            let field = name.unwrap_or("record");
            let limit = if is_id_like(field) {
                MAX_ID_CHARS
            } else {
                MAX_TEXT_CHARS
            };
            if chars > limit {
                return Err(RecordError::invalid(
                    field,
                    format!("is {chars} characters long; at most {limit}"),
                ));
            }
        }
        i = end + 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_text_are_held_to_their_limits() {
        let ok = r#"{"round_id":"R-2026-11-20-000123","bets":[{"bet_id":"b1","player":"seat-1"}],"void":{"reason":"ball left the wheel"}}"#;
        assert_eq!(check_string_lengths(ok), Ok(()));
        let round_id = format!(r#"{{"round_id":"{}","bets":[]}}"#, "x".repeat(129));
        assert_eq!(
            check_string_lengths(&round_id),
            Err(RecordError::invalid(
                "round_id",
                "is 129 characters long; at most 128"
            ))
        );
        // Escapes count as written: 128 characters of `\"` pairs are 256 characters.
        let escaped = format!(r#"{{"bet_id":"{}"}}"#, r#"\""#.repeat(64));
        assert_eq!(check_string_lengths(&escaped), Ok(()));
        let escaped = format!(r#"{{"bet_id":"{}"}}"#, r#"\""#.repeat(65));
        assert!(check_string_lengths(&escaped).is_err());
        let reason = format!(r#"{{"reason":"{}"}}"#, "ž".repeat(1_001));
        assert_eq!(
            check_string_lengths(&reason),
            Err(RecordError::invalid(
                "reason",
                "is 1001 characters long; at most 1000"
            ))
        );
        let name = format!(r#"{{"{}":1}}"#, "k".repeat(65));
        assert!(check_string_lengths(&name).is_err());
        // Strings inside arrays are held to the limit of the member that holds the array.
        let cards = format!(r#"{{"cards":["{}"]}}"#, "A".repeat(1_001));
        assert!(check_string_lengths(&cards).is_err());
    }
}
