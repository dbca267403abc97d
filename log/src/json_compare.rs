//! Whether a value serializes to given bytes: the verifier asks this of every re-adjudicated
//! verdict. The value is written into a buffer kept per thread and compared in one go, which
//! costs far less than comparing each of serde_json's many small writes as it makes them.

use std::cell::RefCell;

thread_local! {
    /// The last serialization of this thread, kept for its capacity.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Whether `serde_json::to_vec(value)` would give exactly `expected`. A value that serde_json
/// cannot serialize gives `false`.
pub fn serializes_to<T: serde::Serialize + ?Sized>(value: &T, expected: &[u8]) -> bool {
    BUFFER.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut bytes) => {
            bytes.clear();
            serde_json::to_writer(&mut *bytes, value).is_ok() && bytes.as_slice() == expected
        }
        // Only a value whose serialization asks this again gets here: it is not kept.
        Err(_) => serde_json::to_vec(value).is_ok_and(|bytes| bytes == expected),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_exact_bytes_compare_equal() {
        let value = json!({"a": [1, 2.5, "ž\"\n"], "b": null, "c": {"d": true}});
        let bytes = serde_json::to_vec(&value).unwrap();
        assert!(serializes_to(&value, &bytes));
        // One byte changed, one missing, one more.
        let mut changed = bytes.clone();
        changed[3] ^= 1;
        assert!(!serializes_to(&value, &changed));
        assert!(!serializes_to(&value, &bytes[..bytes.len() - 1]));
        let mut longer = bytes.clone();
        longer.push(b' ');
        assert!(!serializes_to(&value, &longer));
        assert!(!serializes_to(&value, b""));
        // A value serde_json refuses (a map with non-string keys) never compares equal.
        let refused: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        assert!(!serializes_to(&refused, b"{}"));
    }

    /// A value whose serialization compares another value (the thread's buffer is then in
    /// use) is still compared exactly.
    #[test]
    fn a_comparison_inside_a_serialization_is_exact_too() {
        struct Nested;
        impl serde::Serialize for Nested {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let inner = serializes_to(&json!({"x": 1}), br#"{"x":1}"#);
                let other = serializes_to(&json!({"x": 1}), br#"{"x":2}"#);
                serializer.serialize_str(&format!("{inner} {other}"))
            }
        }
        assert!(serializes_to(&Nested, br#""true false""#));
        assert!(!serializes_to(&Nested, br#""true true""#));
    }
}
