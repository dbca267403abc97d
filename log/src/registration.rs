//! What a table registration must satisfy before the operator signs it into the ledger: a
//! valid id, a game the plan has rules for (or `cage`: a cage station, which submits the
//! cage's records and no rounds), where the table stands, and for a money wheel the order of
//! its segments.

use rules::record::validate_identifier;
use rules::{GameCode, PlanBook};

/// A registration as asked for.
#[derive(Debug, Clone, Copy)]
pub struct Registration<'a> {
    pub table_id: &'a str,
    pub game: &'a str,
    pub location: &'a str,
    /// The server's default plan if `None`.
    pub plan_id: Option<&'a str>,
    pub wheel_layout: Option<&'a [String]>,
    /// The limits the table posts; `None`: it posts none and is judged by the plan's.
    pub limits: Option<&'a rules::TableLimits>,
}

/// The `game` of a cage station's registration.
pub const CAGE: &str = "cage";

/// What a registered station is: a gaming table of a game, or a cage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StationKind {
    Table(GameCode),
    Cage,
}

impl StationKind {
    /// A registration's `game`.
    pub fn parse(game: &str) -> Option<StationKind> {
        match game {
            CAGE => Some(StationKind::Cage),
            _ => GameCode::parse(game).map(StationKind::Table),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StationKind::Table(game) => game.as_str(),
            StationKind::Cage => CAGE,
        }
    }
}

/// Whether a station registered with `game` submits records of `station`'s kind: a cage the
/// cage's records, a gaming table its operating periods'.
pub fn submits(game: &str, station: rules::operations::Station) -> bool {
    (game == CAGE) == (station == rules::operations::Station::Cage)
}

/// A registration that may be signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedRegistration {
    pub game: StationKind,
    /// Trimmed.
    pub location: String,
    pub plan_id: String,
}

/// Why a registration is refused, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RegistrationError {
    pub field: &'static str,
    pub message: String,
}

fn refuse(field: &'static str, message: impl Into<String>) -> RegistrationError {
    RegistrationError {
        field,
        message: message.into(),
    }
}

/// Checks `r` against the plans dozor knows.
/// Longest location of a table, in characters.
pub const MAX_LOCATION_CHARS: usize = 200;

pub fn check(
    plans: &PlanBook,
    default_plan: &str,
    r: &Registration<'_>,
) -> Result<CheckedRegistration, RegistrationError> {
    validate_identifier("table_id", r.table_id).map_err(|e| refuse("table_id", e.to_string()))?;
    let station = StationKind::parse(r.game)
        .ok_or_else(|| refuse("game", format!("unknown game `{}`", r.game)))?;
    let location = r.location.trim().to_owned();
    if location.is_empty()
        || location.chars().count() > MAX_LOCATION_CHARS
        || crate::access::has_control_characters(&location)
    {
        return Err(refuse(
            "location",
            "location must be 1-200 characters without control characters",
        ));
    }
    let plan_id = r.plan_id.unwrap_or(default_plan).to_owned();
    let plan = plans
        .get(&plan_id)
        .ok_or_else(|| refuse("plan_id", format!("unknown plan `{plan_id}`")))?;
    let game = match station {
        StationKind::Table(game) => game,
        StationKind::Cage if r.wheel_layout.is_some() => {
            return Err(refuse("wheel_layout", "a cage has no wheel_layout"))
        }
        StationKind::Cage if r.limits.is_some() => {
            return Err(refuse("limits", "a cage posts no bet limits"))
        }
        StationKind::Cage => {
            return Ok(CheckedRegistration {
                game: station,
                location,
                plan_id,
            })
        }
    };
    let adjudicated = match game {
        GameCode::Roulette => plan.roulette.is_some(),
        GameCode::Blackjack => plan.blackjack.is_some(),
        GameCode::UltimateTexasHoldem => plan.ultimate_texas_holdem.is_some(),
        GameCode::MoneyWheel1 | GameCode::MoneyWheel2 => plan.wheel(game).is_ok(),
        GameCode::PokerCash => plan.poker_cash.is_some(),
        GameCode::OpenFaceChinese => plan.open_face_chinese.is_some(),
        GameCode::PokerTournament => plan.poker_tournament.is_some(),
    };
    if !adjudicated {
        return Err(refuse(
            "game",
            format!("plan `{plan_id}` has no rules for `{game}` in this version of dozor"),
        ));
    }
    match (plan.wheel(game), r.wheel_layout) {
        (Ok(wheel), Some(layout)) => {
            rules::money_wheel::WheelLayout::new(wheel, layout.to_vec())
                .map_err(|e| refuse("wheel_layout", e.to_string()))?;
        }
        (Ok(_), None) => {
            return Err(refuse(
                "wheel_layout",
                "a money wheel table needs its segment order (`wheel_layout`)",
            ))
        }
        (Err(_), Some(_)) => {
            return Err(refuse(
                "wheel_layout",
                format!("only money wheel tables have a wheel_layout, not `{game}`"),
            ))
        }
        (Err(_), None) => {}
    }
    if let Some(limits) = r.limits {
        check_limits(plan, game, limits)?;
    }
    Ok(CheckedRegistration {
        game: station,
        location,
        plan_id,
    })
}

/// Checks a table's posted limits against its game and plan: the game's full set, inside the
/// plan's range.
pub fn check_limits(
    plan: &rules::Plan,
    game: GameCode,
    limits: &rules::TableLimits,
) -> Result<(), RegistrationError> {
    limits
        .validate(plan, game)
        .map_err(|e| refuse("limits", format!("limits.{e}")))
}

/// Checks new posted limits of a registered table against its game and plan.
pub fn check_table_limits(
    plans: &PlanBook,
    table: &crate::registry_history::tables::RegisteredTable,
    limits: &rules::TableLimits,
) -> Result<(), RegistrationError> {
    let plan = plans.get(&table.plan_id).ok_or_else(|| {
        refuse(
            "limits",
            format!("plan `{}` is not known here", table.plan_id),
        )
    })?;
    let game = GameCode::parse(&table.game).ok_or_else(|| {
        refuse(
            "limits",
            format!("a `{}` station posts no bet limits", table.game),
        )
    })?;
    check_limits(plan, game, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registration<'a>(game: &'a str, layout: Option<&'a [String]>) -> Registration<'a> {
        Registration {
            table_id: "R01",
            game,
            location: "  Praha, sál 1 ",
            plan_id: None,
            wheel_layout: layout,
            limits: None,
        }
    }

    #[test]
    fn each_refusal_names_its_field() {
        let plans = PlanBook::builtin().unwrap();
        let plan = "69games-ziva-hra";
        let ok = check(&plans, plan, &registration("roulette", None)).unwrap();
        assert_eq!(ok.location, "Praha, sál 1");
        assert_eq!(ok.plan_id, plan);
        let field = |r: Registration<'_>| check(&plans, plan, &r).unwrap_err().field;
        assert_eq!(field(registration("bingo", None)), "game");
        assert_eq!(
            field(Registration {
                table_id: "R 01",
                ..registration("roulette", None)
            }),
            "table_id"
        );
        assert_eq!(
            field(Registration {
                location: " ",
                ..registration("roulette", None)
            }),
            "location"
        );
        assert_eq!(
            field(Registration {
                plan_id: Some("other"),
                ..registration("roulette", None)
            }),
            "plan_id"
        );
        assert_eq!(field(registration("money_wheel_1", None)), "wheel_layout");
        let layout = vec!["1x".to_owned()];
        assert_eq!(
            field(registration("roulette", Some(&layout))),
            "wheel_layout"
        );
        assert_eq!(
            field(registration("money_wheel_1", Some(&layout))),
            "wheel_layout"
        );
        assert_eq!(field(registration(CAGE, Some(&layout))), "wheel_layout");
    }

    #[test]
    fn a_cage_registers_as_a_station_without_a_game() {
        let plans = PlanBook::builtin().unwrap();
        let ok = check(&plans, "69games-ziva-hra", &registration("cage", None)).unwrap();
        assert_eq!(ok.game, StationKind::Cage);
        assert_eq!(ok.game.as_str(), "cage");
        assert_eq!(
            StationKind::parse("roulette"),
            Some(StationKind::Table(GameCode::Roulette))
        );
    }
}
