//! Whether a value serializes to given bytes, decided while serde_json writes it: the verifier
//! asks this of every re-adjudicated verdict, so nothing is kept and the first difference ends
//! the comparison.

use std::io;

/// Whether `serde_json::to_vec(value)` would give exactly `expected`. A value that serde_json
/// cannot serialize gives `false`.
pub fn serializes_to<T: serde::Serialize + ?Sized>(value: &T, expected: &[u8]) -> bool {
    let mut compare = Compare { expected, at: 0 };
    serde_json::to_writer(&mut compare, value).is_ok() && compare.at == expected.len()
}

/// A writer that compares what is written with the expected bytes instead of keeping it.
struct Compare<'a> {
    expected: &'a [u8],
    at: usize,
}

impl io::Write for Compare<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let end = self.at + buf.len();
        if self.expected.get(self.at..end) != Some(buf) {
            return Err(io::Error::other("differs from the expected bytes"));
        }
        self.at = end;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
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
}
