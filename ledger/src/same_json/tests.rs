use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rules::verdict::{BetVerdict, FantasyEntitlement, TournamentFigures};
use rules::{Finding, FindingKind, GameCode, Verdict};
use serde_json::{json, Map, Value};

use super::{serializes_to, to_vec};

/// Characters strings are made of: plain ASCII, every kind serde_json escapes (quote,
/// backslash, the short escapes, other control characters), DEL, and UTF-8 of 2, 3 and 4 bytes.
const ALPHABET: &[char] = &[
    'a', 'Z', '0', ' ', '_', '"', '\\', '/', '\u{8}', '\t', '\n', '\u{c}', '\r', '\u{0}', '\u{1f}',
    '\u{7f}', 'é', 'ř', '€', '\u{2028}', '😀',
];

fn random_string(rng: &mut ChaCha8Rng) -> String {
    let len = rng.gen_range(0..12);
    (0..len)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())])
        .collect()
}

/// A random JSON value without floating-point numbers.
fn random_value(rng: &mut ChaCha8Rng, depth: u32) -> Value {
    let kinds = if depth == 0 { 5 } else { 7 };
    match rng.gen_range(0..kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.gen()),
        2 => json!(rng.gen::<i64>() >> rng.gen_range(0..64)),
        3 => json!(rng.gen::<u64>()),
        4 => Value::String(random_string(rng)),
        5 => Value::Array(
            (0..rng.gen_range(0..4))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.gen_range(0..4))
                .map(|_| (random_string(rng), random_value(rng, depth - 1)))
                .collect::<Map<_, _>>(),
        ),
    }
}

#[test]
fn writes_exactly_what_serde_json_writes_for_any_json_value() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..3000 {
        let value = random_value(&mut rng, 4);
        let expected = serde_json::to_vec(&value).unwrap();
        assert_eq!(to_vec(&value), Some(expected.clone()), "{value}");
        assert!(serializes_to(&value, &expected), "{value}");
    }
}

#[test]
fn any_other_bytes_are_found_to_differ() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for _ in 0..1000 {
        let value = random_value(&mut rng, 3);
        let expected = serde_json::to_vec(&value).unwrap();
        let mut changed = expected.clone();
        let at = rng.gen_range(0..changed.len());
        changed[at] ^= 1 << rng.gen_range(0..8);
        assert!(!serializes_to(&value, &changed), "{value}, byte {at}");
        assert!(!serializes_to(&value, &expected[..expected.len() - 1]));
        let mut longer = expected.clone();
        longer.push(b' ');
        assert!(!serializes_to(&value, &longer));
        assert!(!serializes_to(&value, b""));
    }
}

#[test]
fn what_it_does_not_write_itself_is_compared_through_serde_json() {
    // Floating-point numbers and maps with non-string keys.
    let float = json!({"a": [1.5, -0.0, 1e300]});
    let expected = serde_json::to_vec(&float).unwrap();
    assert_eq!(to_vec(&float), None);
    assert!(serializes_to(&float, &expected));
    assert!(!serializes_to(&float, br#"{"a":[1.5,-0.0,1e301]}"#));
    let numbered: std::collections::BTreeMap<u32, bool> = [(2, true), (10, false)].into();
    assert_eq!(to_vec(&numbered), None);
    // In the map's order, which is not canonical order.
    assert!(serializes_to(&numbered, br#"{"2":true,"10":false}"#));
    assert!(!serializes_to(&numbered, br#"{"10":false,"2":true}"#));
    // serde_json's own tokens.
    let raw = serde_json::value::RawValue::from_string("[1, 2]".to_owned()).unwrap();
    assert!(serializes_to(&raw, b"[1, 2]"));
    assert!(!serializes_to(&raw, b"[1,2]"));
}

#[test]
fn rust_types_are_written_as_serde_json_writes_them() {
    #[derive(serde::Serialize)]
    enum Shape {
        Unit,
        Newtype(i8),
        Tuple(u8, char),
        Struct { side: u16 },
    }
    #[derive(serde::Serialize)]
    struct Newtype(&'static str);
    #[derive(serde::Serialize)]
    struct Unit;
    #[derive(serde::Serialize)]
    struct Pair(i32, u32);
    let check = |value: &dyn erased::Check| value.check();
    check(&vec![
        Shape::Unit,
        Shape::Newtype(-128),
        Shape::Tuple(255, '"'),
        Shape::Struct { side: 65535 },
    ]);
    check(&(Newtype("a\u{1}"), Unit, Pair(i32::MIN, u32::MAX), ()));
    check(&(i64::MIN, i64::MAX, u64::MAX, 0u64, -1i64));
    check(&(i128::MIN, u128::MAX));
    check(&serde_bytes_like::Bytes(&[0, 9, 255]));
    check(&(Some(1u8), None::<u8>, 'ř', "😀"));
    #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Key {
        First,
        #[serde(rename = "se\"cond")]
        Second,
    }
    check(&std::collections::BTreeMap::from([
        (Key::First, 1),
        (Key::Second, 2),
    ]));
    check(&std::collections::BTreeMap::from([("b\"", 1), ("a", 2)]));
}

/// `check` for values of different types in one list.
mod erased {
    pub trait Check {
        fn check(&self);
    }

    impl<T: serde::Serialize> Check for T {
        fn check(&self) {
            let expected = serde_json::to_vec(self).unwrap();
            assert_eq!(
                super::to_vec(self).map(String::from_utf8),
                Some(Ok(String::from_utf8(expected.clone()).unwrap()))
            );
            assert!(super::serializes_to(self, &expected));
        }
    }
}

/// A byte string serialized with `serialize_bytes`.
mod serde_bytes_like {
    pub struct Bytes<'a>(pub &'a [u8]);

    impl serde::Serialize for Bytes<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(self.0)
        }
    }
}

#[test]
fn verdicts_of_every_shape_are_written_as_serde_json_writes_them() {
    let finding = |kind, bet: Option<&str>, expected_h, actual_h| {
        Finding::new(
            kind,
            bet,
            expected_h,
            actual_h,
            "paid \"1 000 Kč\"\n".into(),
        )
    };
    for game in GameCode::ALL {
        let mut verdict = Verdict::new("plan-1", game, "T\\1", u64::MAX);
        assert!(erased_equal(&verdict));
        verdict.bets = vec![
            BetVerdict {
                bet_id: "b1",
                expected_paid_h: 10_000,
                kind: "straight",
                paid_h: 9_000,
                player: "seat-1",
                stake_h: -1,
            },
            BetVerdict {
                bet_id: "b\u{7}",
                expected_paid_h: i64::MIN,
                kind: "six_line",
                paid_h: i64::MAX,
                player: "hráč",
                stake_h: 0,
            },
        ];
        verdict.findings = vec![
            finding(FindingKind::Overpaid, Some("b1"), Some(1), Some(2)),
            finding(FindingKind::StakeAboveMaximum, None, None, None),
        ];
        verdict.fantasy_next = Some(vec![FantasyEntitlement {
            cards: 14,
            player: "p",
        }]);
        verdict.segment = Some(53);
        verdict.segment_label = Some("x40");
        verdict.tournament = Some(TournamentFigures {
            entries: u32::MAX,
            fee_h: 1,
            moneypool_h: 2,
            overlay_h: 3,
            prize_pool_h: 4,
        });
        verdict.void = true;
        verdict.void_reason = Some("no_spin");
        verdict.winning_number = Some(0);
        assert!(erased_equal(&verdict));
    }
}

fn erased_equal(value: &impl serde::Serialize) -> bool {
    let expected = serde_json::to_vec(value).unwrap();
    to_vec(value).as_ref() == Some(&expected) && serializes_to(value, &expected)
}
