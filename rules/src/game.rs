//! One shape for every game: a game's record type implements [`Game`] (how it is checked,
//! judged and described) and [`GameRecord`] (how it is recognised), in the game's own module;
//! `record.rs` lists the record types, one line each.

use serde::de::DeserializeOwned;

use crate::error::RecordError;
use crate::examined::Examined;
use crate::money_wheel::layout::WheelLayout;
use crate::plan::document::Plan;
use crate::round_header::{GameCode, Identified};
use crate::statistics::RoundStatistics;
use crate::table_limits::{Posted, TableLimits};
use crate::verdict::Verdict;

/// A round's verdict, or why it cannot be judged.
pub type Judged<'a> = Result<Verdict<'a>, RecordError>;
/// A round's theoretical statistics, or why they cannot be computed.
pub type Statistics = Result<RoundStatistics, RecordError>;

/// A game's round, parsed: structural checks, adjudication and theoretical statistics.
pub trait Game: Identified {
    /// Structural checks beyond what parsing enforces (ids, positions, cards, amounts).
    /// Plan-level checks (limits, payouts) are not errors: they become findings.
    fn validate(&self) -> Result<(), RecordError>;

    /// What the record says that cannot have happened, as [`RecordError::Impossible`]: the
    /// round is then kept with a `record_impossible` finding instead of a judged settlement.
    /// Checked before adjudication, which may rely on it (one deck holds each card once).
    ///
    /// By default, [`Game::find_impossible`] as it was found when the record was read, for a
    /// record that keeps it ([`Identified::examined`]); found now otherwise.
    fn check_possible(&self) -> Result<(), RecordError> {
        match self.examined() {
            Some(examined) => examined.or_find(|| self.find_impossible()),
            None => self.find_impossible(),
        }
    }

    /// What the record says that cannot have happened, worked out from the record itself.
    fn find_impossible(&self) -> Result<(), RecordError> {
        Ok(())
    }

    /// Works out once, as the record is read, what [`Game::check_possible`] then reports (a
    /// round is read once and may be judged many times), for a record that keeps it.
    fn examine(&mut self) {
        // A record that keeps nothing is checked when judged: working it out here too would
        // be done twice.
        if self.examined().is_none() {
            return;
        }
        let found = self.find_impossible();
        if let Some(examined) = self.examined_mut() {
            *examined = Examined::of(found);
        }
    }

    /// The stakes and the payouts as the record reports them, for the verdict of a round that
    /// cannot be judged (its money still moved as the table says).
    fn reported_totals(&self) -> (i64, i64) {
        (0, 0)
    }

    /// The verdict of the round under `plan` on a table set up as `setup`.
    fn adjudicate<'a>(&'a self, plan: &'a Plan, setup: &'a TableSetup) -> Judged<'a>;

    /// Theoretical expectation and variance of what the round pays out, for RTP reports. Games
    /// where players play each other have none: the casino's revenue is the rake.
    fn statistics(
        &self,
        _plan: &Plan,
        _setup: &TableSetup,
    ) -> Result<RoundStatistics, RecordError> {
        Ok(RoundStatistics::default())
    }

    /// [`Game::statistics`] of the round as a whole: `by_kind` may be left empty, the other
    /// figures are the same. Games whose figures per kind cost much compute less here.
    fn round_totals(
        &self,
        plan: &Plan,
        setup: &TableSetup,
    ) -> Result<RoundStatistics, RecordError> {
        self.statistics(plan, setup)
    }
}

/// The stakes and payouts of a record's bets as reported: `(stake, paid)` of each, summed.
pub fn reported_totals(bets: impl IntoIterator<Item = (i64, i64)>) -> (i64, i64) {
    bets.into_iter()
        .fold((0i64, 0i64), |(stakes, paid), (stake, handed)| {
            (stakes.saturating_add(stake), paid.saturating_add(handed))
        })
}

/// A record type tables submit: which `type` and game codes it is read for.
pub trait GameRecord: Game + DeserializeOwned {
    /// The record's `type` member.
    const RECORD_TYPE: &'static str;
    /// The `game` codes it is read for.
    const CODES: &'static [GameCode];
}

/// What adjudication needs from a table's registration besides the plan: a money wheel's
/// segment order (the plan gives only the counts) and the limits the table posted when the round
/// was played.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableSetup {
    pub wheel_layout: Option<WheelLayout>,
    /// The table's posted limits in force for the round; `None`: the table posts none, and its
    /// bets are judged by the plan's limits alone.
    pub limits: Option<TableLimits>,
}

impl TableSetup {
    /// Nothing beyond the plan: enough for every game but the money wheels.
    pub const NONE: TableSetup = TableSetup {
        wheel_layout: None,
        limits: None,
    };

    /// The setup of a table playing `game` under `plan` from its registration: a money wheel's
    /// layout and the posted limits are checked against the plan again (the plan may have
    /// changed since).
    pub fn for_table(
        plan: &Plan,
        game: GameCode,
        wheel_layout: Option<&[String]>,
        limits: Option<&TableLimits>,
    ) -> Result<TableSetup, RecordError> {
        let wheel_layout = match (plan.wheel(game), wheel_layout) {
            (Ok(wheel), Some(labels)) => Some(WheelLayout::new(wheel, labels.to_vec())?),
            _ => None,
        };
        if let Some(limits) = limits {
            limits
                .validate(plan, game)
                .map_err(|e| e.within("limits"))?;
        }
        Ok(TableSetup {
            wheel_layout,
            limits: limits.cloned(),
        })
    }

    /// The posted range of a main bet group (see [`TableLimits::range`]).
    pub fn posted_range(&self, max_field: &str) -> Option<Posted> {
        self.limits.as_ref()?.range(max_field)
    }

    /// The posted maximum of a side bet (see [`TableLimits::cap`]).
    pub fn posted_cap(&self, max_field: &str) -> Option<Posted> {
        self.limits.as_ref()?.cap(max_field)
    }

    pub fn wheel_layout(&self) -> Result<&WheelLayout, RecordError> {
        self.wheel_layout.as_ref().ok_or_else(|| {
            RecordError::invalid(
                "table",
                "the wheel's segment layout is not known for this table",
            )
        })
    }
}
