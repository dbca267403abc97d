//! The table itself: its columns, its typed cells and the language of its words; how a cell
//! reads for people.

use chrono::{DateTime, NaiveDate, Utc};

/// The language of headings and words meant for people.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Language {
    #[default]
    Czech,
    English,
}

impl Language {
    /// `cs` or `en`.
    pub fn parse(text: &str) -> Option<Language> {
        match text {
            "cs" => Some(Language::Czech),
            "en" => Some(Language::English),
            _ => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Language::Czech => "cs",
            Language::English => "en",
        }
    }

    /// The Czech or the English of a pair.
    pub fn pick<'a>(self, cs: &'a str, en: &'a str) -> &'a str {
        match self {
            Language::Czech => cs,
            Language::English => en,
        }
    }
}

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Empty,
    Text(String),
    /// A code for machines, its words for people (a game's code and its name in the plan).
    Coded {
        code: String,
        words: String,
    },
    /// Haléře: machines read the integer, people koruny with two decimals.
    Money(i64),
    Count(i64),
    Day(NaiveDate),
    /// An instant: machines read RFC 3339 UTC, people Prague's local time.
    Time(DateTime<Utc>),
    /// A percentage with two decimals.
    Percent(f64),
    /// A statistic with this many decimals (a chi-square, a p-value, a z-score).
    Decimal {
        value: f64,
        places: u8,
    },
}

impl Cell {
    /// A count kept unsigned (a record's `seq_no`, at most 2^53 − 1; a wheel's spins).
    pub fn unsigned(n: u64) -> Cell {
        Cell::Count(i64::try_from(n).unwrap_or(i64::MAX))
    }

    /// A code for machines and its words for people.
    pub fn coded(code: &str, words: impl Into<String>) -> Cell {
        Cell::Coded {
            code: code.to_owned(),
            words: words.into(),
        }
    }

    /// A game's code and its name in the plan.
    pub fn game(game: &str, plans: &rules::PlanBook) -> Cell {
        Cell::coded(game, plans.game_name(game))
    }

    /// Text.
    pub fn text(text: &str) -> Cell {
        Cell::Text(text.to_owned())
    }

    /// Text, or empty when there is none.
    pub fn text_or_empty(text: Option<&str>) -> Cell {
        text.map_or(Cell::Empty, Cell::text)
    }

    /// An amount, or empty when there is none.
    pub fn money_or_empty(h: Option<i64>) -> Cell {
        h.map_or(Cell::Empty, Cell::Money)
    }

    /// A figure with `places` decimals, or empty when there is none.
    pub fn decimal_or_empty(value: Option<f64>, places: u8) -> Cell {
        value.map_or(Cell::Empty, |value| Cell::Decimal { value, places })
    }

    /// Yes or no, in words.
    pub fn yes_no(value: bool, language: Language) -> Cell {
        Cell::Text(
            if value {
                language.pick("ano", "yes")
            } else {
                language.pick("ne", "no")
            }
            .to_owned(),
        )
    }
}

/// A column: its machine name (a CSV header as the API has always written it) and its
/// heading for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub key: &'static str,
    pub cs: &'static str,
    pub en: &'static str,
}

pub const fn column(key: &'static str, cs: &'static str, en: &'static str) -> Column {
    Column { key, cs, en }
}

/// A report's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    /// The sheet's name (a workbook tab): at most 31 characters.
    pub name: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

pub(crate) fn prague(t: DateTime<Utc>) -> String {
    t.with_timezone(&chrono_tz::Europe::Prague)
        .format("%d.%m.%Y %H:%M:%S")
        .to_string()
}
