//! Limits on the strings of a record: ids stay short, free text bounded, so a record within the
//! size limit cannot carry a megabyte-long `round_id`; and an id shows what it is, so it holds
//! no control character and none of the invisible characters that reorder or hide text
//! (`R-1\u{202E}9-0` would read `R-10-9` on a page).

use crate::error::RecordError;

/// Longest member name.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest value of an id-like member (`round_id`, `bet_id`, `shoe_id`, `player`, …).
pub const MAX_ID_CHARS: usize = 128;
/// Longest any other string (reasons, notes).
pub const MAX_TEXT_CHARS: usize = 1_000;

fn is_id_like(name: &str) -> bool {
    name == "id" || name.ends_with("_id") || name.ends_with("_ref") || name == "player"
}

/// Whether `c` reorders, joins or hides text without being seen: the bidirectional controls
/// (Unicode's Bidi_Control), zero-width characters and the byte-order mark.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// An id-like value (`content` as written in canonical JSON) holds no control character,
/// escaped (`\n`, `\u0007`) or not (C1), and no invisible formatting character.
fn check_id_shows_itself(field: &str, content: &str) -> Result<(), RecordError> {
    let mut chars = content.chars();
    while let Some(c) = chars.next() {
        let hidden = match c {
            '\\' => chars.next().filter(|e| !matches!(e, '"' | '\\' | '/')),
            c if c.is_control() || is_invisible_format(c) => Some(c),
            _ => None,
        };
        if let Some(c) = hidden {
            let shown = if c == '\\' || c.is_ascii_alphabetic() {
                "a control character".to_owned()
            } else {
                format!("U+{:04X}", u32::from(c))
            };
            return Err(RecordError::invalid(
                field,
                format!(
                    "an id holds {shown}; ids may not hold control characters or invisible formatting (bidirectional controls, zero-width characters)"
                ),
            ));
        }
    }
    Ok(())
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
            if is_id_like(field) {
                check_id_shows_itself(field, content)?;
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

    #[test]
    fn an_id_holds_no_control_or_invisible_formatting_character() {
        // Formula-like text is an id like any other: the spreadsheet writers neutralise it.
        let ok = r#"{"round_id":"=HYPERLINK(\"x\")","bets":[{"bet_id":"-A1-A1"}],"reason":"a\nb"}"#;
        assert_eq!(check_string_lengths(ok), Ok(()));
        for id in [
            "R-1\u{202E}9-0", // right-to-left override
            "R-1\u{2067}9",   // right-to-left isolate
            "R-1\u{200B}9",   // zero-width space
            "R-1\u{061C}9",   // Arabic letter mark
            "R-1\u{0085}9",   // a C1 control, not escaped by JCS
            "R-1\\u00079",    // BEL, as canonical JSON writes it
            "R-1\\n9",        // a line break, as canonical JSON writes it
        ] {
            let text = format!(r#"{{"round_id":"{id}"}}"#);
            let refused = check_string_lengths(&text).unwrap_err();
            assert!(
                refused.to_string().contains("round_id"),
                "{id:?}: {refused}"
            );
        }
        // Free text keeps its line breaks; an escaped quote or backslash in an id is readable.
        assert_eq!(check_string_lengths(r#"{"note":"a\u202Eb"}"#), Ok(()));
        assert_eq!(check_string_lengths(r#"{"bet_id":"a\"b\\c"}"#), Ok(()));
    }
}
