//! Whether JSON text is already in canonical form ([`crate::canonical`]), decided in one pass over
//! the bytes without building a tree: the verifier's hot path over millions of entries.
//!
//! `is_canonical(t)` holds exactly when `t` parses and canonicalizing it gives `t` back.

use std::borrow::Cow;

use crate::canonical::MAX_SAFE_INTEGER;

/// serde_json's nesting limit: deeper text does not parse, so it is not canonical either.
const MAX_DEPTH: usize = 128;

pub fn is_canonical(text: &str) -> bool {
    canonical_members(text, 0).is_some()
}

/// A member of an object: the object's nesting depth (1 for the outermost value), the key as
/// written between its quotes, and the value's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member<'a> {
    pub depth: usize,
    pub key: &'a str,
    pub value: &'a str,
}

/// When `text` is canonical, the members of its objects nested at most `max_depth` deep (in
/// the order their values end); `None` otherwise. One pass both checks the form and finds the
/// fields a reader needs, without building a tree.
pub fn canonical_members(text: &str, max_depth: usize) -> Option<Vec<Member<'_>>> {
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        at: 0,
        max_depth,
        // Room for an entry's members down to its record's (about twenty), so that reading
        // one does not grow the vector several times.
        members: Vec::with_capacity(if max_depth > 0 { 32 } else { 0 }),
    };
    scanner.value(0)?;
    (scanner.at == scanner.bytes.len()).then_some(scanner.members)
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// Objects nested up to this depth have their members recorded.
    max_depth: usize,
    members: Vec<Member<'a>>,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(|_| ()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.value(depth)?;
            if self.eat(b']').is_some() {
                return Some(());
            }
            self.eat(b',')?;
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        let mut previous: Option<Cow<'a, str>> = None;
        loop {
            let key_start = self.at + 1;
            let key = self.string()?;
            let key_raw = &self.text[key_start..self.at - 1];
            // Strictly increasing by UTF-16 code units: sorted, and no key twice.
            if let Some(p) = &previous {
                if !utf16_less(p, &key) {
                    return None;
                }
            }
            previous = Some(key);
            self.eat(b':')?;
            let value_start = self.at;
            self.value(depth)?;
            if depth <= self.max_depth {
                self.members.push(Member {
                    depth,
                    key: key_raw,
                    value: &self.text[value_start..self.at],
                });
            }
            if self.eat(b'}').is_some() {
                return Some(());
            }
            self.eat(b',')?;
        }
    }

    /// An integer in plain decimal with |n| ≤ 2^53 − 1, no `-0`, no leading zeros.
    fn number(&mut self) -> Option<()> {
        let negative = self.eat(b'-').is_some();
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        let digits = &self.bytes[start..self.at];
        if digits.is_empty() || digits.len() > 16 || (digits[0] == b'0' && digits.len() > 1) {
            return None;
        }
        if negative && digits == b"0" {
            return None;
        }
        let magnitude = digits
            .iter()
            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        if magnitude > MAX_SAFE_INTEGER {
            return None;
        }
        // A fraction or exponent would make it another number.
        (!matches!(self.peek(), Some(b'.' | b'e' | b'E'))).then_some(())
    }

    /// A string with only the escapes canonical form uses; its decoded text.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.at;
        let mut decoded: Option<String> = None;
        loop {
            let b = self.peek()?;
            match b {
                b'"' => {
                    // Both ends are at ASCII bytes, so on character boundaries.
                    let raw = self.text.get(start..self.at)?;
                    self.at += 1;
                    return Some(match decoded {
                        None => Cow::Borrowed(raw),
                        Some(text) => Cow::Owned(text),
                    });
                }
                b'\\' => {
                    let text = decoded.get_or_insert_with(|| self.text[start..self.at].to_owned());
                    let escape = *self.bytes.get(self.at + 1)?;
                    self.at += 2;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'b' => '\u{8}',
                        b't' => '\t',
                        b'n' => '\n',
                        b'f' => '\u{c}',
                        b'r' => '\r',
                        b'u' => {
                            let hex = self.bytes.get(self.at..self.at + 4)?;
                            self.at += 4;
                            // Only control characters without a short form, in lower case.
                            if hex[0] != b'0'
                                || hex[1] != b'0'
                                || !matches!(hex[2], b'0' | b'1')
                                || !matches!(hex[3], b'0'..=b'9' | b'a'..=b'f')
                            {
                                return None;
                            }
                            let value =
                                u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                            if matches!(value, 0x8 | 0x9 | 0xa | 0xc | 0xd) {
                                return None;
                            }
                            char::from_u32(value)?
                        }
                        _ => return None,
                    };
                    text.push(c);
                }
                0x00..=0x1f => return None,
                _ => {
                    let run_start = self.at;
                    self.at += plain_run(&self.bytes[self.at..]);
                    if let Some(text) = decoded.as_mut() {
                        text.push_str(self.text.get(run_start..self.at)?);
                    }
                }
            }
        }
    }
}

/// Whether `a` sorts before `b` by UTF-16 code units (RFC 8785 key order). Where the first
/// difference is between two ASCII characters (the usual case: same prefix, then ASCII), that
/// is their byte order; other differences are decided on the UTF-16 encodings.
fn utf16_less(a: &str, b: &str) -> bool {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // Keys are short: a plain loop, not a call to `memcmp` per pair of keys.
    match x.iter().zip(y).position(|(p, q)| p != q) {
        None => x.len() < y.len(),
        Some(i) if x[i].is_ascii() && y[i].is_ascii() => x[i] < y[i],
        Some(_) => a.encode_utf16().cmp(b.encode_utf16()) == std::cmp::Ordering::Less,
    }
}

/// Length of the leading run of bytes a string holds as they are: none is `"`, `\` or a
/// control character. Eight bytes at a time while none of them is special.
pub(crate) fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    // Nonzero exactly when some byte of `word` is below `n` (n ≤ 0x80).
    let any_below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGH_BITS;
    let any_equal = |word: u64, b: u8| any_below(word ^ (ONES * u64::from(b)), 1);
    let mut run = 0;
    for chunk in bytes.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let special = any_below(word, 0x20) | any_equal(word, b'"') | any_equal(word, b'\\');
        if special != 0 {
            // The lowest flag is exact (a borrow only flags bytes above a special one), so it
            // is the first special byte: little-endian, byte k is bits 8k..8k+7.
            return run + (special.trailing_zeros() / 8) as usize;
        }
        run += 8;
    }
    run + bytes[run..]
        .iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
        .unwrap_or(bytes.len() - run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonicalize;
    use rand::{Rng as _, SeedableRng as _};
    use serde_json::{json, Value};

    /// The definition: it parses and canonicalizing gives it back.
    fn by_definition(text: &str) -> bool {
        serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| canonicalize(&v).ok())
            .is_some_and(|c| c == text.as_bytes())
    }

    #[test]
    fn members_of_the_outer_objects_are_found_as_written() {
        let text = r#"{"a":{"b":[{"c":1}],"d\"":"x"},"e":2}"#;
        let members = canonical_members(text, 2).unwrap();
        let member = |depth, key, value| Member { depth, key, value };
        assert_eq!(
            members,
            [
                member(2, "b", r#"[{"c":1}]"#),
                member(2, r#"d\""#, r#""x""#),
                member(1, "a", r#"{"b":[{"c":1}],"d\"":"x"}"#),
                member(1, "e", "2"),
            ]
        );
        assert_eq!(canonical_members(text, 0), Some(vec![]));
        assert_eq!(canonical_members(r#"{"e":2,"a":1}"#, 1), None);
    }

    #[test]
    fn keys_are_ordered_by_utf16_code_units() {
        // Ordered pairs: a prefix first; ASCII by bytes; U+E000–U+FFFF after supplementary
        // characters in UTF-16 (before them in UTF-8 and by code point).
        for (less, more) in [
            ("", "a"),
            ("a", "ab"),
            ("ab", "b"),
            ("a\u{7f}", "a\u{80}"),
            ("xé", "xž"),
            ("é", "€"),
            ("😀", "\u{fb33}"),
            ("a😀", "a\u{e000}"),
            ("\r", "1"),
        ] {
            assert!(utf16_less(less, more), "{less:?} < {more:?}");
            assert!(!utf16_less(more, less), "{more:?} > {less:?}");
            assert!(!utf16_less(less, less));
        }
    }

    #[test]
    fn a_plain_run_stops_at_the_first_special_byte_wherever_it_is() {
        // 0x80 and 0xff are UTF-8 continuation/lead bytes: plain; 0x7f (DEL) is plain too.
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut bytes = [0x80u8, b'a', 0xff, 0x7f, b' '].repeat(4);
                bytes[at] = special;
                assert_eq!(plain_run(&bytes), at, "{special:#x} at {at}");
            }
        }
        assert_eq!(plain_run(&[b'x'; 19]), 19);
        assert_eq!(plain_run(&[]), 0);
        // Against a byte-by-byte reading, on random bytes with specials anywhere, often several
        // in one eight-byte word (where borrows between bytes could mislead a word-wide test).
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let bytes_from = [
            0u8, 0x1f, 0x20, b'"', b'!', b'#', b'\\', b'[', b']', 0x7f, 0x80, 0xff,
        ];
        for _ in 0..20_000 {
            let bytes: Vec<u8> = (0..rng.gen_range(0..40))
                .map(|_| {
                    if rng.gen_range(0..6) == 0 {
                        bytes_from[rng.gen_range(0..bytes_from.len())]
                    } else {
                        rng.gen()
                    }
                })
                .collect();
            let expected = bytes
                .iter()
                .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
                .unwrap_or(bytes.len());
            assert_eq!(plain_run(&bytes), expected, "{bytes:?}");
        }
    }

    #[test]
    fn agrees_with_the_definition_on_hand_picked_texts() {
        for text in [
            r#"{"a":1,"b":[true,false,null,"x"]}"#,
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":1}"#,
            r#"{"a": 1}"#,
            r#" {"a":1}"#,
            r#"{"a":1} "#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":1.0}"#,
            r#"{"a":1e3}"#,
            r#"{"a":9007199254740991}"#,
            r#"{"a":9007199254740992}"#,
            r#"{"a":-9007199254740991}"#,
            r#"{"a":"\u000f\n\"\\"}"#,
            r#"{"a":"\u000F"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\/"}"#,
            r#"{"a":"\u0041"}"#,
            "{\"a\":\"\u{7f}€😀\"}",
            "{\"a\":\"\u{1}\"}",
            r#"{"\r":1,"1":2,"€":3,"😀":4,"דּ":5}"#,
            r#"{"1":2,"\r":1}"#,
            r#"{"😀":4,"דּ":5}"#,
            r#"{"דּ":5,"😀":4}"#,
            r#"{"a\"":1,"a":2}"#,
            r#"{"a":2,"a\"":1}"#,
            r#"[]"#,
            r#"{}"#,
            r#"[1,]"#,
            r#"{"a":1,}"#,
            r#"tru"#,
            r#""x"#,
            "",
        ] {
            assert_eq!(is_canonical(text), by_definition(text), "{text:?}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(is_canonical(&deep), by_definition(&deep));
    }

    fn random_value(rng: &mut rand_chacha::ChaCha8Rng, depth: u32) -> Value {
        let alphabet = [
            "a",
            "b",
            "é",
            "€",
            "😀",
            "\"",
            "\\",
            "\n",
            "\u{1}",
            "דּ",
            "z",
            "1",
            "abcdefghijk",
            "0123456789abcdef",
            "ü€ščřž😀😀",
        ];
        let word = |rng: &mut rand_chacha::ChaCha8Rng| -> String {
            (0..rng.gen_range(0..4))
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
                .collect()
        };
        match rng.gen_range(0..if depth > 3 { 4 } else { 6 }) {
            0 => json!(rng.gen_range(-1_000_000i64..1_000_000)),
            1 => json!(word(rng)),
            2 => json!(rng.gen_bool(0.5)),
            3 => Value::Null,
            4 => Value::Array(
                (0..rng.gen_range(0..4))
                    .map(|_| random_value(rng, depth + 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..rng.gen_range(0..5))
                    .map(|_| (word(rng), random_value(rng, depth + 1)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn agrees_with_the_definition_on_random_texts_and_their_mutations() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8785);
        let tokens: [&[u8]; 10] = [b" ", b",", b"\\", b"\"", b"0", b"-", b"}", b"u", b".", b"e"];
        for _ in 0..3_000 {
            let value = random_value(&mut rng, 0);
            let text = String::from_utf8(canonicalize(&value).unwrap()).unwrap();
            assert!(is_canonical(&text), "{text}");
            for _ in 0..10 {
                let mut bytes = text.clone().into_bytes();
                let at = rng.gen_range(0..=bytes.len());
                match rng.gen_range(0..3) {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => {
                        let token = tokens[rng.gen_range(0..tokens.len())];
                        bytes.splice(at..at, token.iter().copied());
                    }
                    _ if at + 1 < bytes.len() => bytes.swap(at, at + 1),
                    _ => {}
                }
                if let Ok(mutated) = String::from_utf8(bytes) {
                    assert_eq!(
                        is_canonical(&mutated),
                        by_definition(&mutated),
                        "{mutated:?}"
                    );
                }
            }
        }
    }
}
