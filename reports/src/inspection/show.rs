//! One round of an export, proven and re-judged by the verifier, laid out as a person reads it.

use std::path::Path;

use dozor_log::checkpoint::NoteVerifier;
use dozor_verify::{find_round, FoundRound, InspectionError, WhichRound};
use serde::Serialize;

use crate::round_layout::{lay_out, Layout};
use crate::sheet::Language;

/// A round of an export, proven, with its layout.
#[derive(Debug, Clone, Serialize)]
pub struct ShownRound {
    #[serde(flatten)]
    pub round: FoundRound,
    pub layout: Layout,
}

/// Finds `table_id`'s round `which` in the export at `dir` (see [`find_round`]) and lays it out
/// in `language`.
pub fn show_round(
    dir: &Path,
    operator_keys: &[NoteVerifier],
    table_id: &str,
    which: &WhichRound,
    language: Language,
) -> Result<ShownRound, InspectionError> {
    let round = find_round(dir, operator_keys, table_id, which)?;
    let layout = lay_out(
        &round.record,
        Some(&round.verdict),
        round.flagged_bets.clone(),
        &round.plans,
        language,
    );
    Ok(ShownRound { round, layout })
}
