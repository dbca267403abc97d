//! The wheel's direction from spin to spin (Ruleta, 3. HRA): "Směr kola a směr kuličky se při
//! dalším roztočení bude střídat. Jestliže se kolo netočilo v opačném směru než při předchozí
//! rotaci … je toto roztočení neplatné." A spin the wheel reports turning the rotor the same way
//! as the table's previous spin is void; settled, it is a finding. After a no-spin the plan
//! keeps the direction instead: "Pokud se roztočení označí za chybné, Krupiér zahlásí Hráčům
//! „No-spin“ … Ruletové kolo následně otočí ve stejném směru a do protisměru vhodí kuličku." So
//! the spin after one declared void must turn the wheel as the void spin did (whatever the
//! no-spin's reason: the sentence makes no exception); reversed and settled, it is a finding.
//!
//! Only spins that carry the wheel's evidence are compared, and only with the record right
//! before them in the table's sequence (`seq_no` one less) played less than [`SAME_SESSION`]
//! earlier: a missing record, a spin without evidence or a long pause leaves nothing certain to
//! compare with.

use chrono::Duration;

use super::finding::{AuditFinding, AuditFindingKind, AuditedRound};
use crate::roulette::record::{Direction, RouletteRound, SpinOutcome};

/// Spins further apart are not compared (the wheel stood; a day's report, which looks one
/// gaming day back, and an export see the same pairs).
pub const SAME_SESSION: Duration = Duration::hours(12);

/// A spin with the wheel's evidence, as the audit needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spin {
    /// The spin: its table, sequence number and when it was played.
    pub round: AuditedRound,
    pub rotor: Direction,
    /// The spin was settled (not declared void).
    pub settled: bool,
}

impl Spin {
    /// The spin, if the wheel reported its directions.
    pub fn of(round: &RouletteRound) -> Option<Spin> {
        Some(Spin {
            round: AuditedRound::of(round),
            rotor: round.spin?.rotor,
            settled: matches!(round.outcome, SpinOutcome::Number { .. }),
        })
    }
}

fn name(direction: Direction) -> &'static str {
    match direction {
        Direction::Clockwise => "clockwise",
        Direction::Counterclockwise => "counterclockwise",
    }
}

/// The finding for `current` against the table's spin before it, if any: a settled spin must
/// have turned the wheel against the spin before it, unless that spin was a no-spin, after
/// which the wheel turns the same way ("Ruletové kolo následně otočí ve stejném směru").
pub fn compare(previous: &Spin, current: &Spin) -> Option<AuditFinding> {
    if !(current.round.follows(&previous.round, SAME_SESSION) && current.settled) {
        return None;
    }
    let after_no_spin = !previous.settled;
    let (kind, message) = match (after_no_spin, previous.rotor == current.rotor) {
        (false, true) => (
            AuditFindingKind::RotorNotReversed,
            format!(
                "spin {} turned the wheel {} as spin {} did: the plan makes a spin whose wheel was not reversed void (chybné roztočení), yet it was settled",
                current.round.seq_no,
                name(current.rotor),
                previous.round.seq_no
            ),
        ),
        (true, false) => (
            AuditFindingKind::RotorReversedAfterNoSpin,
            format!(
                "spin {} turned the wheel {} after no-spin {} had turned it {}: after a no-spin the plan turns the wheel the same way („Ruletové kolo následně otočí ve stejném směru a do protisměru vhodí kuličku“), yet it was reversed and settled",
                current.round.seq_no,
                name(current.rotor),
                previous.round.seq_no,
                name(previous.rotor)
            ),
        ),
        _ => return None,
    };
    Some(AuditFinding::after(
        kind,
        &current.round,
        &previous.round,
        message,
    ))
}
