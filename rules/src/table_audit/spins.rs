//! The wheel's direction from spin to spin (Ruleta, 3. HRA): "Směr kola a směr kuličky se při
//! dalším roztočení bude střídat. Jestliže se kolo netočilo v opačném směru než při předchozí
//! rotaci … je toto roztočení neplatné." A spin the wheel reports turning the rotor the same way
//! as the table's previous spin is void; settled, it is a finding. Only spins that carry the
//! wheel's evidence are compared; a spin without it breaks the comparison.

use chrono::{DateTime, Utc};

use super::{AuditFinding, AuditFindingKind};
use crate::roulette::{Direction, RouletteRound, SpinOutcome};

/// A spin as the audit needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spin {
    pub table_id: String,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
    /// The rotor's direction, when the wheel reported it.
    pub rotor: Option<Direction>,
    /// The spin was settled (not declared void).
    pub settled: bool,
}

impl Spin {
    /// A spin without the wheel's evidence, known by its place alone: it breaks the comparison
    /// (its time and outcome do not matter then).
    pub fn gap(table_id: &str, seq_no: u64) -> Spin {
        Spin {
            table_id: table_id.to_owned(),
            seq_no,
            played_at: DateTime::<Utc>::MIN_UTC,
            rotor: None,
            settled: false,
        }
    }

    pub fn of(round: &RouletteRound) -> Spin {
        Spin {
            table_id: round.table_id.clone(),
            seq_no: round.seq_no,
            played_at: round.played_at,
            rotor: round.spin.map(|s| s.rotor),
            settled: matches!(round.outcome, SpinOutcome::Number { .. }),
        }
    }
}

fn name(direction: Direction) -> &'static str {
    match direction {
        Direction::Clockwise => "clockwise",
        Direction::Counterclockwise => "counterclockwise",
    }
}

/// The finding for `current` against the table's spin before it, if any.
pub fn compare(previous: &Spin, current: &Spin) -> Option<AuditFinding> {
    let (Some(before), Some(now)) = (previous.rotor, current.rotor) else {
        return None;
    };
    (before == now && current.settled).then(|| AuditFinding {
        kind: AuditFindingKind::RotorNotReversed,
        table_id: current.table_id.clone(),
        seq_no: current.seq_no,
        played_at: current.played_at,
        previous_seq_no: Some(previous.seq_no),
        message: format!(
            "spin {} turned the wheel {} as spin {} did: the plan makes a spin whose wheel was not reversed void (chybné roztočení), yet it was settled",
            current.seq_no,
            name(now),
            previous.seq_no
        ),
    })
}
