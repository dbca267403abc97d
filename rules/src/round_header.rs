//! What every round record shares: its game code, its `type`, the header fields every game's
//! record starts with, and the checks of identifiers. A leaf module: the game modules, the plan
//! and the record registry all build on it, and it imports none of them.

use serde::{Deserialize, Serialize};

use crate::error::RecordError;

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

    /// The game's name in the plan (and in the Ministry's game register).
    pub fn plan_name(self) -> &'static str {
        match self {
            GameCode::Roulette => "Ruleta",
            GameCode::Blackjack => "Black Jack",
            GameCode::UltimateTexasHoldem => "Ultimate Texas Hold'em",
            GameCode::MoneyWheel1 => "Šťastné kolo",
            GameCode::MoneyWheel2 => "Šťastné kolo II",
            GameCode::PokerCash => "Cash game – Texas Hold´em, Omaha Hold´em",
            GameCode::OpenFaceChinese => "Pineapple Open Face Chinese poker",
            GameCode::PokerTournament => "Pokerový turnaj",
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

/// Largest sequence number accepted: 2^53 − 1, so every JSON implementation reads it exactly.
pub const MAX_SEQ_NO: u64 = (1 << 53) - 1;

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
pub fn validate_round_identity(
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
pub fn validate_positions(
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
pub fn validate_bet_id<'r>(earlier: &mut Vec<&'r str>, bet_id: &'r str) -> Result<(), RecordError> {
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

/// A spin carries at most `max` bets.
pub fn validate_bet_count(bets: usize, max: usize) -> Result<(), RecordError> {
    if bets > max {
        return Err(RecordError::invalid(
            "bets",
            format!("at most {max} bets per spin"),
        ));
    }
    Ok(())
}

/// The record's `game` is one of `codes` (the codes its record type is read for).
pub fn validate_game(game: GameCode, codes: &[GameCode]) -> Result<(), RecordError> {
    if codes.contains(&game) {
        return Ok(());
    }
    let names: Vec<String> = codes.iter().map(|c| format!("`{c}`")).collect();
    Err(RecordError::invalid(
        "game",
        format!("must be {}", names.join(" or ")),
    ))
}

/// The header fields of a round, borrowed from the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundIdentity<'a> {
    pub game: GameCode,
    pub table_id: &'a str,
    pub seq_no: u64,
    pub plan_id: &'a str,
    /// The table's own id for the round, if it gives one: a second round under it is refused.
    pub round_id: Option<&'a str>,
    pub played_at: chrono::DateTime<chrono::Utc>,
}

/// A record that carries the round header.
pub trait Identified {
    fn identity(&self) -> RoundIdentity<'_>;

    /// The header is well formed: the game one of `codes` (those its record type is read
    /// for), the identifiers and the sequence number valid.
    fn validate_header(&self, codes: &[GameCode]) -> Result<(), RecordError> {
        let header = self.identity();
        validate_game(header.game, codes)?;
        validate_round_identity(header.table_id, header.plan_id, header.seq_no)
    }

    /// What the record keeps of what cannot have happened, found as it was read; `None` for a
    /// record that keeps nothing (a `round_record!` declared `examined` keeps it in its
    /// `examined` field).
    fn examined(&self) -> Option<&crate::examined::Examined> {
        None
    }

    fn examined_mut(&mut self) -> Option<&mut crate::examined::Examined> {
        None
    }
}

/// Declares a game's round record: the header every round shares (`type`, `game`, `table_id`,
/// `seq_no`, `plan_id`, `round_id`, `played_at`), then the game's own fields; read strictly. The header is
/// declared here once; the record stays one flat struct, so serde reads it strictly
/// (`deny_unknown_fields`) and as fast as any other struct.
macro_rules! round_record {
    (@record $(#[$meta:meta])* $vis:vis struct $name:ident { $($fields:tt)* } $($keeps:tt)*) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        $vis struct $name {
            #[serde(rename = "type")]
            pub record_type: $crate::round_header::RoundType,
            pub game: $crate::round_header::GameCode,
            pub table_id: String,
            pub seq_no: u64,
            pub plan_id: String,
            /// The table's own id for the round, if it has one.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub round_id: Option<String>,
            /// When the round was settled (or declared void), UTC.
            pub played_at: chrono::DateTime<chrono::Utc>,
            $($fields)*
        }

        impl $crate::round_header::Identified for $name {
            fn identity(&self) -> $crate::round_header::RoundIdentity<'_> {
                $crate::round_header::RoundIdentity {
                    game: self.game,
                    table_id: &self.table_id,
                    seq_no: self.seq_no,
                    plan_id: &self.plan_id,
                    round_id: self.round_id.as_deref(),
                    played_at: self.played_at,
                }
            }

            $($keeps)*
        }
    };
    // `examined`: the record keeps what cannot have happened, found once as it is read, in its
    // `examined` field.
    ($(#[$meta:meta])* $vis:vis struct $name:ident examined { $($fields:tt)* }) => {
        $crate::round_header::round_record! {
            @record $(#[$meta])* $vis struct $name { $($fields)* }
            fn examined(&self) -> Option<&$crate::examined::Examined> {
                Some(&self.examined)
            }

            fn examined_mut(&mut self) -> Option<&mut $crate::examined::Examined> {
                Some(&mut self.examined)
            }
        }
    };
    ($(#[$meta:meta])* $vis:vis struct $name:ident { $($fields:tt)* }) => {
        $crate::round_header::round_record! { @record $(#[$meta])* $vis struct $name { $($fields)* } }
    };
}
pub(crate) use round_record;
