//! What the wheel's own evidence says of a settled spin (Ruleta, 3. HRA): "Jestliže … se
//! kulička roztočila ve směru otáčení kola, je toto roztočení neplatné" and "Má-li roztočení
//! platit, kulička musí obvod kola rulety oběhnout nejméně pětkrát (5x)"; a spin declared
//! void "Hráči obdrží hodnotu ve výši své původní Sázky".

use super::record::{RouletteRound, SpinOutcome, VoidReason};
use crate::verdict::{Finding, FindingKind};

/// The ball must go round at least this many times (Ruleta, 3. HRA).
pub const MIN_BALL_REVOLUTIONS: u16 = 5;

/// Why a settled spin's own evidence makes it void, with a `spin_invalid` note for each
/// reason: the ball spun with the rotor, or fewer than five revolutions (which the plan leaves
/// to the inspector: judged void here, so that the finding says what settling it cost, for
/// the inspector to confirm or dismiss). `None` for a spin declared void or without evidence.
pub(super) fn void_by_evidence(
    round: &RouletteRound,
    findings: &mut Vec<Finding>,
) -> Option<VoidReason> {
    let (Some(spin), SpinOutcome::Number { .. }) = (round.spin, &round.outcome) else {
        return None;
    };
    let mut reason = None;
    if spin.ball == spin.rotor {
        findings.push(Finding::note(
            FindingKind::SpinInvalid,
            "the ball was spun in the rotor's direction: the plan makes such a spin void \
             (chybné roztočení), yet it was settled; every stake must go back"
                .into(),
        ));
        reason = Some(VoidReason::BallSpunWithWheel);
    }
    if spin.ball_revolutions < MIN_BALL_REVOLUTIONS {
        findings.push(Finding::note(
            FindingKind::SpinInvalid,
            format!(
                "the ball went round {} times, fewer than the plan's {MIN_BALL_REVOLUTIONS}: \
                 the inspector may declare such a spin void, yet it was settled; judged void, \
                 every stake must go back",
                spin.ball_revolutions
            ),
        ));
        reason = reason.or(Some(VoidReason::TooFewRevolutions));
    }
    reason
}
