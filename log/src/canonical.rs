//! RFC 8785 JSON Canonicalization Scheme (JCS), for the integer-only JSON dozor records use.
//!
//! Records carry money as integer haléře, so numbers are restricted to integers with
//! |n| ≤ 2^53 − 1 (I-JSON); for those, JCS's ECMAScript number form is the plain decimal.
//! Anything else is refused rather than canonicalized differently from other implementations.

use std::fmt::Write as _;

use serde_json::Value;

use crate::error::LogError;

/// Largest integer magnitude every JSON implementation reads exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Canonical bytes of `value`.
pub fn canonicalize(value: &Value) -> Result<Vec<u8>, LogError> {
    canonical_text(value).map(String::into_bytes)
}

/// Canonical text of `value` (the same bytes as [`canonicalize`], as a string).
pub fn canonical_text(value: &Value) -> Result<String, LogError> {
    let mut out = String::with_capacity(256);
    write_value(value, &mut out)?;
    Ok(out)
}

fn write_value(value: &Value, out: &mut String) -> Result<(), LogError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                check_safe(u)?;
                let _ = write!(out, "{u}");
            } else if let Some(i) = n.as_i64() {
                check_safe(i.unsigned_abs())?;
                let _ = write!(out, "{i}");
            } else {
                return Err(LogError::Canonical(format!(
                    "number {n} is not an integer; amounts are integer haléře"
                )));
            }
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Keys sort by their UTF-16 code units (RFC 8785 §3.2.3), not by UTF-8 bytes.
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                if let Some(v) = map.get(*key) {
                    write_value(v, out)?;
                }
            }
            out.push('}');
        }
    }
    Ok(())
}

fn check_safe(magnitude: u64) -> Result<(), LogError> {
    if magnitude > MAX_SAFE_INTEGER {
        return Err(LogError::Canonical(format!(
            "integer of magnitude {magnitude} is above 2^53-1"
        )));
    }
    Ok(())
}

/// Appends `s` as a canonical JSON string.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jcs(text: &str) -> String {
        let value: Value = serde_json::from_str(text).unwrap();
        String::from_utf8(canonicalize(&value).unwrap()).unwrap()
    }

    #[test]
    fn rfc8785_sorting_example() {
        // RFC 8785 §3.2.3: keys sort by UTF-16 code units; the emoji (a surrogate pair,
        // 0xD83D…) sorts before U+FB33 even though its UTF-8 bytes are larger.
        let input = r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#;
        let out = jcs(input);
        let order: Vec<&str> = vec![
            "Carriage Return",
            "One",
            "Control",
            "Latin Small Letter O With Diaeresis",
            "Euro Sign",
            "Emoji: Grinning Face",
            "Hebrew Letter Dalet With Dagesh",
        ];
        let mut last = 0;
        for name in order {
            let at = out.find(name).unwrap();
            assert!(at > last, "{name} out of order in {out}");
            last = at;
        }
    }

    #[test]
    fn rfc8785_string_escapes() {
        // RFC 8785 §3.2.2.2: only " \ and control characters are escaped; \u00xx in lower case.
        assert_eq!(
            jcs(r#"{"s":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/"}"#),
            "{\"s\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
        );
    }

    #[test]
    fn nested_structures_lose_whitespace_and_sort() {
        assert_eq!(
            jcs(r#" { "b" : [ 3 , { "z":null, "a":true } ], "a" : -12 } "#),
            r#"{"a":-12,"b":[3,{"a":true,"z":null}]}"#
        );
    }

    #[test]
    fn refuses_fractions_and_unsafe_integers() {
        assert!(canonicalize(&json!({"x": 1.5})).is_err());
        assert!(canonicalize(&json!({"x": 9_007_199_254_740_992u64})).is_err());
        assert!(canonicalize(&json!({"x": 9_007_199_254_740_991u64})).is_ok());
    }
}
