//! Round records as tables submit them. Parsing is strict: unknown fields are rejected.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::blackjack::BlackjackRound;
use crate::money_wheel::WheelRound;
use crate::ofc::OfcHand;
use crate::poker_cash::{PokerHand, TimeCollection};
use crate::roulette::RouletteRound;
use crate::tournament::TournamentRecord;
use crate::uth::UthRound;
use crate::RecordError;

/// Games of the plan. Codes are short stable strings used in records, tables and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameCode {
    Roulette,
    Blackjack,
    UltimateTexasHoldem,
    #[serde(rename = "money_wheel_1")]
    MoneyWheel1,
    #[serde(rename = "money_wheel_2")]
    MoneyWheel2,
    PokerCash,
    OpenFaceChinese,
    PokerTournament,
}

impl GameCode {
    pub const ALL: [GameCode; 8] = [
        GameCode::Roulette,
        GameCode::Blackjack,
        GameCode::UltimateTexasHoldem,
        GameCode::MoneyWheel1,
        GameCode::MoneyWheel2,
        GameCode::PokerCash,
        GameCode::OpenFaceChinese,
        GameCode::PokerTournament,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GameCode::Roulette => "roulette",
            GameCode::Blackjack => "blackjack",
            GameCode::UltimateTexasHoldem => "ultimate_texas_holdem",
            GameCode::MoneyWheel1 => "money_wheel_1",
            GameCode::MoneyWheel2 => "money_wheel_2",
            GameCode::PokerCash => "poker_cash",
            GameCode::OpenFaceChinese => "open_face_chinese",
            GameCode::PokerTournament => "poker_tournament",
        }
    }

    pub fn parse(code: &str) -> Option<GameCode> {
        GameCode::ALL.into_iter().find(|g| g.as_str() == code)
    }
}

impl std::fmt::Display for GameCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The record type every game's round has: `"type": "round"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundType {
    Round,
}

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

/// Largest sequence number accepted: 2^53 − 1, so every JSON implementation reads it exactly.
pub const MAX_SEQ_NO: u64 = (1 << 53) - 1;

fn required_str<'a>(record: &'a Value, field: &str) -> Result<&'a str, RecordError> {
    match record.get(field) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(RecordError::invalid(field, "must be a string")),
        None => Err(RecordError::invalid(field, "is required")),
    }
}

/// Checks a short stable identifier: 1–64 characters of `A-Z a-z 0-9 _ - .`.
pub fn validate_identifier(field: &str, value: &str) -> Result<(), RecordError> {
    let ok = !value.is_empty()
        && value.len() <= 64
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(RecordError::invalid(
            field,
            format!("`{value}` must be 1-64 characters of letters, digits, '_', '-' or '.'"),
        ))
    }
}

/// The identifiers and sequence number every round carries.
pub(crate) fn validate_round_identity(
    table_id: &str,
    plan_id: &str,
    seq_no: u64,
) -> Result<(), RecordError> {
    validate_identifier("table_id", table_id)?;
    validate_identifier("plan_id", plan_id)?;
    if seq_no > MAX_SEQ_NO {
        return Err(RecordError::invalid("seq_no", "must be at most 2^53-1"));
    }
    Ok(())
}

/// Checks the numbers of a round's layout positions (`boxes` by `box`, `spots` by `spot`):
/// 1 to `max`, left to right, each once.
pub(crate) fn validate_positions(
    numbers: impl Iterator<Item = u8>,
    max: u8,
    list: &str,
    field: &str,
) -> Result<(), RecordError> {
    let mut previous = 0u8;
    for (i, number) in numbers.enumerate() {
        if number <= previous || number > max {
            return Err(RecordError::invalid(
                field,
                format!("{list} are numbered 1 to {max}, left to right, each once"),
            )
            .within(format_args!("{list}[{i}]")));
        }
        previous = number;
    }
    Ok(())
}

/// Checks a bet's id: an identifier, not used by an earlier bet of the round (`earlier`, to
/// which it is added).
pub(crate) fn validate_bet_id<'r>(
    earlier: &mut Vec<&'r str>,
    bet_id: &'r str,
) -> Result<(), RecordError> {
    validate_identifier("bet_id", bet_id)?;
    if earlier.contains(&bet_id) {
        return Err(RecordError::invalid(
            "bet_id",
            format!("`{bet_id}` is used twice in this round"),
        ));
    }
    earlier.push(bet_id);
    Ok(())
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

    pub fn read(record: &Value) -> Result<RecordHeader, RecordError> {
        if !record.is_object() {
            return Err(RecordError::Malformed(
                "record must be a JSON object".into(),
            ));
        }
        let record_type = required_str(record, "type")?.to_owned();
        let table_id = required_str(record, "table_id")?.to_owned();
        validate_identifier("table_id", &table_id)?;
        let seq_no = match record.get("seq_no") {
            Some(v) => v.as_u64().filter(|n| *n <= MAX_SEQ_NO).ok_or_else(|| {
                RecordError::invalid("seq_no", "must be an integer from 0 to 2^53-1")
            })?,
            None => return Err(RecordError::invalid("seq_no", "is required")),
        };
        let plan_id = required_str(record, "plan_id")?.to_owned();
        let game = match record.get("game") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(RecordError::invalid("game", "must be a string")),
            None => None,
        };
        Ok(RecordHeader {
            record_type,
            table_id,
            seq_no,
            plan_id,
            game,
        })
    }
}

/// The game of a `round` record.
/// Record types that are adjudicated (and so have a verdict): game rounds, and the time
/// collection of a poker table.
pub const ADJUDICATED_TYPES: [&str; 2] = ["round", "time_collection"];

pub fn is_adjudicated(record_type: &str) -> bool {
    ADJUDICATED_TYPES.contains(&record_type)
}

fn round_game(header: &RecordHeader) -> Result<GameCode, RecordError> {
    if header.record_type != "round" {
        return Err(RecordError::UnsupportedType(header.record_type.clone()));
    }
    let code = header
        .game
        .as_deref()
        .ok_or_else(|| RecordError::invalid("game", "is required for a round"))?;
    GameCode::parse(code)
        .ok_or_else(|| RecordError::invalid("game", format!("unknown game code `{code}`")))
}

/// A round of any supported game, fully parsed and structurally valid.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Round {
    Roulette(RouletteRound),
    Blackjack(BlackjackRound),
    UltimateTexasHoldem(UthRound),
    MoneyWheel(WheelRound),
    PokerCash(PokerHand),
    TimeCollection(TimeCollection),
    OpenFaceChinese(OfcHand),
    Tournament(TournamentRecord),
}

impl Round {
    /// Parses and structurally validates a `round` record. Plan-level checks (limits, payouts)
    /// are not errors here: they become findings of the verdict.
    pub fn parse(record: &Value) -> Result<Round, RecordError> {
        let header = RecordHeader::read(record)?;
        if header.record_type == "time_collection" {
            let collection = TimeCollection::deserialize(record)
                .map_err(|e| RecordError::Malformed(e.to_string()))?;
            collection.validate()?;
            return Ok(Round::TimeCollection(collection));
        }
        match round_game(&header)? {
            GameCode::Roulette => {
                let round = RouletteRound::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::Roulette(round))
            }
            GameCode::Blackjack => {
                let round = BlackjackRound::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::Blackjack(round))
            }
            GameCode::UltimateTexasHoldem => {
                let round = UthRound::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::UltimateTexasHoldem(round))
            }
            GameCode::MoneyWheel1 | GameCode::MoneyWheel2 => {
                let round = WheelRound::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::MoneyWheel(round))
            }
            GameCode::PokerCash => {
                let hand = PokerHand::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                hand.validate()?;
                Ok(Round::PokerCash(hand))
            }
            GameCode::OpenFaceChinese => {
                let hand = OfcHand::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                hand.validate()?;
                Ok(Round::OpenFaceChinese(hand))
            }
            GameCode::PokerTournament => {
                let t = TournamentRecord::deserialize(record)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                t.validate()?;
                Ok(Round::Tournament(t))
            }
        }
    }

    /// [`Round::parse`] straight from JSON text.
    pub fn parse_json(text: &str) -> Result<Round, RecordError> {
        Round::parse_json_with_header(&RecordHeader::read_json(text)?, text)
    }

    /// [`Round::parse_json`] when the header has been read already.
    pub fn parse_json_with_header(header: &RecordHeader, text: &str) -> Result<Round, RecordError> {
        if header.record_type == "time_collection" {
            let collection: TimeCollection =
                serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))?;
            collection.validate()?;
            return Ok(Round::TimeCollection(collection));
        }
        match round_game(header)? {
            GameCode::Roulette => {
                let round: RouletteRound = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::Roulette(round))
            }
            GameCode::Blackjack => {
                let round: BlackjackRound = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::Blackjack(round))
            }
            GameCode::UltimateTexasHoldem => {
                let round: UthRound = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::UltimateTexasHoldem(round))
            }
            GameCode::MoneyWheel1 | GameCode::MoneyWheel2 => {
                let round: WheelRound = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                round.validate()?;
                Ok(Round::MoneyWheel(round))
            }
            GameCode::PokerCash => {
                let hand: PokerHand = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                hand.validate()?;
                Ok(Round::PokerCash(hand))
            }
            GameCode::OpenFaceChinese => {
                let hand: OfcHand = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                hand.validate()?;
                Ok(Round::OpenFaceChinese(hand))
            }
            GameCode::PokerTournament => {
                let t: TournamentRecord = serde_json::from_str(text)
                    .map_err(|e| RecordError::Malformed(e.to_string()))?;
                t.validate()?;
                Ok(Round::Tournament(t))
            }
        }
    }

    pub fn game(&self) -> GameCode {
        match self {
            Round::Roulette(_) => GameCode::Roulette,
            Round::Blackjack(_) => GameCode::Blackjack,
            Round::UltimateTexasHoldem(_) => GameCode::UltimateTexasHoldem,
            Round::MoneyWheel(r) => r.game,
            Round::PokerCash(_) | Round::TimeCollection(_) => GameCode::PokerCash,
            Round::OpenFaceChinese(_) => GameCode::OpenFaceChinese,
            Round::Tournament(_) => GameCode::PokerTournament,
        }
    }

    pub fn table_id(&self) -> &str {
        match self {
            Round::Roulette(r) => &r.table_id,
            Round::Blackjack(r) => &r.table_id,
            Round::UltimateTexasHoldem(r) => &r.table_id,
            Round::MoneyWheel(r) => &r.table_id,
            Round::PokerCash(r) => &r.table_id,
            Round::TimeCollection(r) => &r.table_id,
            Round::OpenFaceChinese(r) => &r.table_id,
            Round::Tournament(r) => &r.table_id,
        }
    }

    pub fn plan_id(&self) -> &str {
        match self {
            Round::Roulette(r) => &r.plan_id,
            Round::Blackjack(r) => &r.plan_id,
            Round::UltimateTexasHoldem(r) => &r.plan_id,
            Round::MoneyWheel(r) => &r.plan_id,
            Round::PokerCash(r) => &r.plan_id,
            Round::TimeCollection(r) => &r.plan_id,
            Round::OpenFaceChinese(r) => &r.plan_id,
            Round::Tournament(r) => &r.plan_id,
        }
    }

    pub fn played_at(&self) -> chrono::DateTime<chrono::Utc> {
        match self {
            Round::Roulette(r) => r.played_at,
            Round::Blackjack(r) => r.played_at,
            Round::UltimateTexasHoldem(r) => r.played_at,
            Round::MoneyWheel(r) => r.played_at,
            Round::PokerCash(r) => r.played_at,
            Round::TimeCollection(r) => r.played_at,
            Round::OpenFaceChinese(r) => r.played_at,
            Round::Tournament(r) => r.played_at,
        }
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
