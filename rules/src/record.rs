//! Round records as tables submit them. Parsing is strict: unknown fields are rejected.

use serde::{Deserialize, Serialize};

pub use crate::round_header::{validate_identifier, GameCode, RoundType, MAX_SEQ_NO};
use serde_json::Value;

use crate::blackjack::record::BlackjackRound;
use crate::error::RecordError;
use crate::game::{Game, GameRecord};
use crate::money_wheel::WheelRound;
use crate::ofc::record::OfcHand;
use crate::poker_cash::record::PokerHand;
use crate::poker_cash::time_collection::TimeCollection;
use crate::roulette::record::RouletteRound;
use crate::tournament::record::TournamentRecord;
use crate::uth::UthRound;

/// The fields every record has, read before the game-specific parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHeader {
    pub record_type: String,
    pub table_id: String,
    pub seq_no: u64,
    pub plan_id: String,
    pub game: Option<String>,
}

/// The content of a JSON string literal without escapes (the usual case), read without a
/// parser; `None` for anything else.
fn unescaped_string(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)).then_some(inner)
}

/// The header fields of a record's JSON text, each as a small value; everything else skipped.
#[derive(Deserialize)]
struct HeaderFields {
    #[serde(rename = "type")]
    record_type: Option<Value>,
    table_id: Option<Value>,
    seq_no: Option<Value>,
    plan_id: Option<Value>,
    game: Option<Value>,
}

impl RecordHeader {
    /// [`RecordHeader::read`] straight from JSON text, without building the whole record.
    pub fn read_json(text: &str) -> Result<RecordHeader, RecordError> {
        let fields: HeaderFields = serde_json::from_str(text)
            .map_err(|e| RecordError::Malformed(format!("record must be a JSON object: {e}")))?;
        let mut header = serde_json::Map::new();
        for (name, value) in [
            ("type", fields.record_type),
            ("table_id", fields.table_id),
            ("seq_no", fields.seq_no),
            ("plan_id", fields.plan_id),
            ("game", fields.game),
        ] {
            if let Some(v) = value {
                header.insert(name.to_owned(), v);
            }
        }
        RecordHeader::read(&Value::Object(header))
    }

    /// [`RecordHeader::read`] from the JSON text of each member of the record, as `member`
    /// gives it by name (`None` when absent) — for a reader that has located the members already.
    pub fn from_member_texts<'a>(
        member: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<RecordHeader, RecordError> {
        let string = |name: &str| -> Result<Option<String>, RecordError> {
            member(name)
                .map(|text| match unescaped_string(text) {
                    Some(plain) => Ok(plain.to_owned()),
                    None => serde_json::from_str::<String>(text)
                        .map_err(|_| RecordError::invalid(name, "must be a string")),
                })
                .transpose()
        };
        let required =
            |name: &str| string(name)?.ok_or_else(|| RecordError::invalid(name, "is required"));
        let record_type = required("type")?;
        let table_id = required("table_id")?;
        validate_identifier("table_id", &table_id)?;
        let seq_no = match member("seq_no") {
            Some(text) => serde_json::from_str::<u64>(text)
                .ok()
                .filter(|n| *n <= MAX_SEQ_NO)
                .ok_or_else(|| {
                    RecordError::invalid("seq_no", "must be an integer from 0 to 2^53-1")
                })?,
            None => return Err(RecordError::invalid("seq_no", "is required")),
        };
        let plan_id = required("plan_id")?;
        let game = string("game")?;
        Ok(RecordHeader {
            record_type,
            table_id,
            seq_no,
            plan_id,
            game,
        })
    }

    /// The header of a parsed record (one reader for both: [`RecordHeader::from_member_texts`]).
    pub fn read(record: &Value) -> Result<RecordHeader, RecordError> {
        let Value::Object(members) = record else {
            return Err(RecordError::Malformed(
                "record must be a JSON object".into(),
            ));
        };
        let texts: Vec<(&str, String)> = ["type", "table_id", "seq_no", "plan_id", "game"]
            .into_iter()
            .filter_map(|name| members.get(name).map(|v| (name, v.to_string())))
            .collect();
        RecordHeader::from_member_texts(|name| {
            texts
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, text)| text.as_str())
        })
    }
}

/// Declares every record type tables submit, one line each: the [`Round`] enum over them and
/// the table of readers that picks one by the record's `type` and `game`.
macro_rules! record_types {
    ($($variant:ident($record:ty)),* $(,)?) => {
        /// A round of any supported game, fully parsed and structurally valid.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Round {
            $($variant($record)),*
        }

        impl Round {
            /// The game behind the record: checks, adjudication, statistics.
            pub fn as_game(&self) -> &dyn Game {
                match self {
                    $(Round::$variant(r) => r),*
                }
            }
        }

        $(impl From<$record> for Round {
            fn from(r: $record) -> Round {
                Round::$variant(r)
            }
        })*

        /// How each record type is recognised and read.
        const READERS: &[Reader] = &[$(Reader::of::<$record>()),*];
    };
}

record_types! {
    Roulette(RouletteRound),
    Blackjack(BlackjackRound),
    UltimateTexasHoldem(UthRound),
    MoneyWheel(WheelRound),
    PokerCash(PokerHand),
    TimeCollection(TimeCollection),
    OpenFaceChinese(OfcHand),
    Tournament(TournamentRecord),
}

/// One record type: its `type`, its game codes, and how it is parsed and checked.
struct Reader {
    record_type: &'static str,
    codes: &'static [GameCode],
    from_text: fn(&str) -> Result<Round, RecordError>,
    from_value: fn(&Value) -> Result<Round, RecordError>,
}

impl Reader {
    const fn of<R: GameRecord + Into<Round>>() -> Reader {
        Reader {
            record_type: R::RECORD_TYPE,
            codes: R::CODES,
            from_text: read_text::<R>,
            from_value: read_value::<R>,
        }
    }

    /// The reader of the record `header` describes. A round names its game; other record types
    /// are read by their `type` alone.
    fn for_header(header: &RecordHeader) -> Result<&'static Reader, RecordError> {
        let game = match header.record_type.as_str() {
            "round" => Some(round_game(header)?),
            _ => None,
        };
        READERS
            .iter()
            .find(|r| {
                r.record_type == header.record_type && game.is_none_or(|g| r.codes.contains(&g))
            })
            .ok_or_else(|| RecordError::UnsupportedType(header.record_type.clone()))
    }
}

fn read_text<R: GameRecord + Into<Round>>(text: &str) -> Result<Round, RecordError> {
    let mut record: R =
        serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))?;
    record.validate()?;
    record.examine();
    Ok(record.into())
}

fn read_value<R: GameRecord + Into<Round>>(value: &Value) -> Result<Round, RecordError> {
    let mut record = R::deserialize(value).map_err(|e| RecordError::Malformed(e.to_string()))?;
    record.validate_header(R::CODES)?;
    record.validate()?;
    record.examine();
    Ok(record.into())
}

/// Whether records of this type are adjudicated (and so have a verdict): game rounds, and the
/// time collection of a poker table.
pub fn is_adjudicated(record_type: &str) -> bool {
    READERS.iter().any(|r| r.record_type == record_type)
}

fn round_game(header: &RecordHeader) -> Result<GameCode, RecordError> {
    let code = header
        .game
        .as_deref()
        .ok_or_else(|| RecordError::invalid("game", "is required for a round"))?;
    GameCode::parse(code)
        .ok_or_else(|| RecordError::invalid("game", format!("unknown game code `{code}`")))
}

impl Round {
    /// Parses and structurally validates a record. Plan-level checks (limits, payouts)
    /// are not errors here: they become findings of the verdict.
    pub fn parse(record: &Value) -> Result<Round, RecordError> {
        let header = RecordHeader::read(record)?;
        (Reader::for_header(&header)?.from_value)(record)
    }

    /// [`Round::parse`] straight from JSON text.
    pub fn parse_json(text: &str) -> Result<Round, RecordError> {
        Round::parse_json_with_header(&RecordHeader::read_json(text)?, text)
    }

    /// [`Round::parse_json`] when the header has been read already.
    pub fn parse_json_with_header(header: &RecordHeader, text: &str) -> Result<Round, RecordError> {
        (Reader::for_header(header)?.from_text)(text)
    }

    pub fn game(&self) -> GameCode {
        self.as_game().identity().game
    }

    pub fn table_id(&self) -> &str {
        self.as_game().identity().table_id
    }

    pub fn plan_id(&self) -> &str {
        self.as_game().identity().plan_id
    }

    pub fn played_at(&self) -> chrono::DateTime<chrono::Utc> {
        self.as_game().identity().played_at
    }

    /// The table's own id for the round, if the record gives one (a blank id is none: it
    /// names no round, so it cannot make two rounds one).
    pub fn round_id(&self) -> Option<&str> {
        self.as_game()
            .identity()
            .round_id
            .filter(|id| !id.trim().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_game_code_reads_and_writes_as_its_name() {
        for code in GameCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, json!(code.as_str()));
            assert_eq!(serde_json::from_value::<GameCode>(json).unwrap(), code);
        }
    }

    #[test]
    fn only_string_literals_without_escapes_are_read_without_the_parser() {
        assert_eq!(unescaped_string(r#""R01""#), Some("R01"));
        assert_eq!(unescaped_string(r#""""#), Some(""));
        assert_eq!(unescaped_string("\"plán\""), Some("plán"));
        for text in [
            r#"""#,
            r#""a\"b""#,
            r#""a"b""#,
            r#""a\nb""#,
            "\"a\tb\"",
            "R01",
            "7",
            r#""a"#,
            r#"a""#,
        ] {
            assert_eq!(unescaped_string(text), None, "{text}");
        }
    }

    /// Both readers give the same header, or the same error, for every record.
    #[test]
    fn headers_from_member_texts_agree_with_headers_from_values() {
        let good = json!({"type": "round", "game": "roulette", "table_id": "R01",
                          "seq_no": 7, "plan_id": "p", "bets": []});
        let mut cases = vec![good.clone()];
        for (field, bad) in [
            ("type", json!(3)),
            ("table_id", json!("no spaces")),
            ("seq_no", json!(-1)),
            ("seq_no", json!(9_007_199_254_740_992u64)),
            ("seq_no", json!("7")),
            ("plan_id", Value::Null),
            ("game", json!(["roulette"])),
            // Escaped strings are read by the parser, plain ones without it: same result.
            ("plan_id", json!("plán \"2\" \\ \u{1}\n")),
            ("plan_id", json!("")),
            ("type", json!("round\t")),
        ] {
            let mut record = good.clone();
            record[field] = bad;
            cases.push(record);
        }
        for field in ["type", "table_id", "seq_no", "plan_id", "game"] {
            let mut record = good.clone();
            record.as_object_mut().unwrap().remove(field);
            cases.push(record);
        }
        for record in cases {
            let texts: std::collections::HashMap<String, String> = record
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect();
            let from_texts =
                RecordHeader::from_member_texts(|name| texts.get(name).map(String::as_str));
            assert_eq!(
                format!("{from_texts:?}"),
                format!("{:?}", RecordHeader::read(&record)),
                "{record}"
            );
        }
    }
}

#[cfg(test)]
mod size {
    /// Rounds are kept in memory by the thousand (benchmarks, audits): the largest game's record
    /// sets the size of every one.
    #[test]
    fn a_round_stays_small() {
        // The tournament record (384 bytes, with what reading it found impossible) is the
        // largest; the others must not outgrow it.
        let size = std::mem::size_of::<super::Round>();
        assert!(size <= 384, "a round takes {size} bytes");
    }
}
