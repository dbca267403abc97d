//! Every casino as the monitor holds it, for one month of gaming days: its state, the entries
//! followed, the checkpoint held and its witnesses, the alerts; per game the month's rounds,
//! money, RTP against theory with z, and the findings with where the casino's resolutions
//! (recorded in its own log) left them; the rounds whose verdict differs from the casino's.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use serde::Serialize;

use dozor_log::access::FindingState;

use super::figures::{rounded, Month};
use crate::alerts::readings::month_figures;
use crate::checkpoint_check::{open_checkpoint, Trust};
use crate::config::{CasinoConfig, MonitorConfig};
use crate::error::MonitorError;
use crate::store::alert_reads::summed_by_game;
use crate::store::state;
use crate::store::status::{self, CasinoStatus};
use crate::store::view_reads;

/// The whole view.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    /// `2026-11`.
    pub month: String,
    pub generated_at: DateTime<Utc>,
    pub casinos: Vec<CasinoView>,
}

/// One casino.
#[derive(Debug, Clone, Serialize)]
pub struct CasinoView {
    pub casino: String,
    /// `following`, `failing`, `halted`, `waiting_for_witnesses`, `not_followed_yet`.
    pub state: &'static str,
    /// Why it fails, halted or waits.
    pub state_detail: Option<String>,
    pub entries_followed: i64,
    pub checkpoint_size: Option<i64>,
    pub checkpoint_root: Option<String>,
    pub checkpoint_verified_at: Option<DateTime<Utc>>,
    pub checkpoint_age_seconds: Option<i64>,
    pub witnesses: WitnessView,
    /// Every alert raised for the casino (the monitor keeps no acknowledgement yet).
    pub alerts_open: i64,
    /// The latest alerts, newest first (at most [`LATEST_ALERTS`]).
    pub latest_alerts: Vec<AlertView>,
    pub games: Vec<GameView>,
    /// Rounds (ledger indexes) whose verdict differs from the casino's, all the log.
    pub mismatched_rounds: Vec<i64>,
}

/// How many of a casino's latest alerts the view lists.
pub const LATEST_ALERTS: usize = 10;

/// An alert as the view lists it.
#[derive(Debug, Clone, Serialize)]
pub struct AlertView {
    pub kind: String,
    pub raised_at: DateTime<Utc>,
    /// The monitor's message (English, as kept with the alert's evidence).
    pub message: String,
}

/// The witnesses of the checkpoint held.
#[derive(Debug, Clone, Serialize)]
pub struct WitnessView {
    pub configured: usize,
    pub quorum: usize,
    /// The witnesses whose cosignatures on the checkpoint held verify.
    pub cosigners: Vec<String>,
    pub quorum_met: bool,
}

/// One game of a casino: the month's figures and the findings' states.
#[derive(Debug, Clone, Serialize)]
pub struct GameView {
    pub game: String,
    pub game_name: String,
    pub rounds: i64,
    pub unjudged_rounds: i64,
    pub void_rounds: i64,
    /// Every stake placed, void rounds' included.
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    pub returned_h: i64,
    /// Everything paid, void rounds' returns included, against what the plan says is due.
    pub paid_h: i64,
    pub expected_paid_h: i64,
    /// What played rounds paid (`paid_h` − `returned_h`): the payouts RTP and z are over.
    pub payouts_h: i64,
    pub rtp_stakes_h: i64,
    /// payouts / (stakes − returned), as the casino's month page (`alerts::readings::month_figures`).
    pub actual_rtp_pct: Option<f64>,
    pub theoretical_rtp_pct: Option<f64>,
    /// (paid − expected payout) / standard deviation.
    pub deviation_sd: Option<f64>,
    pub flagged: bool,
    /// Rounds of this mix a flag needs before it means something (the payouts' skewness), and
    /// whether the month has them: an RTP alert is raised only then.
    pub rounds_needed: Option<i64>,
    pub flag_meaningful: bool,
    /// The monitor's own findings in the month's rounds, and their amounts.
    pub findings: i64,
    pub findings_amount_h: i64,
    /// Of the monitor's findings of the month's rounds: those the casino's log records as
    /// confirmed or dismissed, and the others (open or escalated).
    pub findings_resolved: i64,
    pub findings_open: i64,
}

/// The state in a word, and why.
fn state_of(status: &CasinoStatus, waiting: Option<String>) -> (&'static str, Option<String>) {
    match (&status.halted, &status.last_error) {
        (Some(why), _) => ("halted", Some(why.clone())),
        (None, Some(error)) => ("failing", Some(format!("{}× {error}", status.failures))),
        _ if waiting.is_some() => ("waiting_for_witnesses", waiting),
        (None, None) if status.last_success_at.is_some() => ("following", None),
        _ => ("not_followed_yet", None),
    }
}

/// The witnesses' cosignatures on the held note that verify.
fn witnesses(
    casino: &CasinoConfig,
    note: Option<&str>,
    keys: &[dozor_log::checkpoint::NoteVerifier],
) -> WitnessView {
    let cosigners = note
        .and_then(|note| {
            open_checkpoint(
                note,
                Trust {
                    operator_keys: keys,
                    witnesses: &casino.witnesses,
                    quorum: 0,
                },
            )
            .ok()
        })
        .map(|opened| opened.cosigned_by)
        .unwrap_or_default();
    WitnessView {
        configured: casino.witnesses.len(),
        quorum: casino.quorum,
        quorum_met: cosigners.len() >= casino.quorum,
        cosigners,
    }
}

/// Builds the view of `month` from the monitor's state.
pub fn overview(
    conn: &mut PgConnection,
    config: &MonitorConfig,
    month: Month,
    now: DateTime<Utc>,
) -> Result<Overview, MonitorError> {
    for casino in &config.casinos {
        state::ensure(conn, &casino.name)?;
    }
    let statuses = status::status(conn)?;
    let mut casinos = Vec::new();
    for casino in &config.casinos {
        let Some(row) = statuses.iter().find(|s| s.casino == casino.name) else {
            continue;
        };
        casinos.push(casino_view(conn, casino, row, month, now)?);
    }
    Ok(Overview {
        month: month.to_string(),
        generated_at: now,
        casinos,
    })
}

fn casino_view(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    row: &CasinoStatus,
    month: Month,
    now: DateTime<Utc>,
) -> Result<CasinoView, MonitorError> {
    let name = casino.name.as_str();
    let held = state::load(conn, name, &casino.operator_keys)?;
    let history = &held.followed.history;
    let keys = crate::checkpoint_check::known_operator_keys(&casino.operator_keys, history);
    let note = held.checkpoint.as_ref().map(|c| c.note.as_str());
    let alert_keys = view_reads::alert_keys(conn, name)?;
    let held_size = row.checkpoint_size.unwrap_or(0);
    // A checkpoint larger than the one held waiting for its witnesses past the grace.
    let waiting = alert_keys
        .iter()
        .filter_map(|k| k.strip_prefix("quorum:")?.parse::<i64>().ok())
        .filter(|size| *size > held_size)
        .max()
        .map(|size| format!("kontrolní bod velikosti {size} čeká na kosignace svědků"));
    let (state, state_detail) = state_of(row, waiting);
    let mut games = match (month.first_day(), month.last_day()) {
        (Some(first), Some(last)) => summed_by_game(conn, name, first, last)?,
        _ => BTreeMap::new(),
    };
    let states = finding_states(conn, casino, history, month)?;
    for game in states.keys() {
        games.entry(game.clone()).or_default();
    }
    let games = games
        .into_iter()
        .map(|(game, s)| {
            let (all, resolved) = states.get(&game).copied().unwrap_or_default();
            // The figures the RTP alert is raised on, counted as the casino's month page.
            let figures = month_figures(&s);
            let deviation = figures.deviation();
            GameView {
                game_name: casino.plans.game_name(&game).to_owned(),
                rounds: s.rounds,
                unjudged_rounds: s.unjudged_rounds,
                void_rounds: s.void_rounds,
                stakes_h: s.stakes_h,
                returned_h: s.returned_h,
                paid_h: s.paid_h.saturating_add(s.returned_h),
                expected_paid_h: s.expected_paid_h,
                payouts_h: s.paid_h,
                rtp_stakes_h: s.rtp_stakes_h,
                actual_rtp_pct: deviation.map(|d| rounded(d.actual_rtp_pct, 4)),
                theoretical_rtp_pct: deviation.map(|d| rounded(d.theoretical_rtp_pct, 4)),
                deviation_sd: deviation.map(|d| rounded(d.z, 2)),
                flagged: deviation.is_some_and(|d| d.flagged()),
                rounds_needed: deviation.map(|d| d.rounds_needed),
                flag_meaningful: deviation.is_some_and(|d| d.meaningful(figures.theory_rounds)),
                findings: s.findings,
                findings_amount_h: s.findings_amount_h,
                findings_resolved: resolved,
                findings_open: all - resolved,
                game,
            }
        })
        .collect();
    let mismatched_rounds = view_reads::mismatched_indexes(conn, name)?;
    let latest_alerts = crate::store::alerts::alerts(conn, Some(name))?
        .into_iter()
        .rev()
        .take(LATEST_ALERTS)
        .map(|a| AlertView {
            kind: a.kind,
            raised_at: a.raised_at,
            message: a.message,
        })
        .collect();
    Ok(CasinoView {
        latest_alerts,
        casino: name.to_owned(),
        state,
        state_detail,
        entries_followed: row.size,
        checkpoint_size: row.checkpoint_size,
        checkpoint_root: held.checkpoint.as_ref().map(|c| hex::encode(c.held.root)),
        checkpoint_verified_at: row.checkpoint_at,
        checkpoint_age_seconds: row.checkpoint_at.map(|at| (now - at).num_seconds().max(0)),
        witnesses: witnesses(casino, note, &keys),
        alerts_open: row.alerts,
        games,
        mismatched_rounds,
    })
}

/// Per game: the monitor's findings of rounds played in the month's gaming days (by their
/// tables' game), and those of them the casino's log records as confirmed or dismissed.
/// Findings kept before their round's time was (`played_at` empty) are in no month.
fn finding_states(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    history: &dozor_log::registry_history::RegistryHistory,
    month: Month,
) -> Result<BTreeMap<String, (i64, i64)>, MonitorError> {
    let (Some(first), Some(last)) = (month.first_day(), month.last_day()) else {
        return Ok(BTreeMap::new());
    };
    let from = casino.clock.start_of(first);
    let until = casino.clock.bounds(last).1;
    let found = view_reads::findings_played_between(conn, &casino.name, from, until)?;
    let resolutions = history.resolutions();
    let mut states: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for finding in found {
        let Some(game) = history.table(&finding.table_id).map(|t| t.game.clone()) else {
            continue;
        };
        let at = (
            u64::try_from(finding.ledger_index).unwrap_or(u64::MAX),
            u32::try_from(finding.position).unwrap_or(u32::MAX),
        );
        let resolved = matches!(
            resolutions.state_of(at),
            FindingState::Confirmed | FindingState::Dismissed
        );
        let entry = states.entry(game).or_default();
        entry.0 += 1;
        entry.1 += i64::from(resolved);
    }
    Ok(states)
}
