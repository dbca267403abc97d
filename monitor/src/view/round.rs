//! One round, proven from the casino's published tiles: its entry fetched from the entry bundle
//! of the checkpoint the monitor holds, its leaf hash, its inclusion proof computed from the
//! casino's hash tiles and verified against the held root; its record read and judged again by
//! the one judge, beside the casino's own verdict line and what the monitor kept of it.

use diesel::PgConnection;
use serde::Serialize;
use serde_json::Value;

use dozor_log::entry_check::{check_entry, Signers, Subject};
use dozor_log::merkle::{inclusion_proof, verify_inclusion, NodeWishlist};
use dozor_log::tiles::{
    decode_bundle, decode_hashes, tile_of_node, Tile, TileKind, TileSet, TILE_WIDTH,
};

use crate::config::CasinoConfig;
use crate::error::MonitorError;
use crate::fetch::get_tile;
use crate::fetch::{TileSource, BUNDLE_LIMIT, HASH_TILE_LIMIT, VERDICTS_LIMIT};
use crate::store::state;
use crate::store::view_reads;
use crate::verdict_lines::parse_verdict_lines;

/// Why a round cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    /// No such casino, or the entry is beyond the checkpoint held.
    #[error("{0}")]
    NotFound(String),
    /// The casino's files do not give the entry or its proof.
    #[error("{0}")]
    Casino(String),
    #[error(transparent)]
    Monitor(#[from] MonitorError),
}

/// The inclusion of the entry in the checkpoint held.
#[derive(Debug, Clone, Serialize)]
pub struct Proof {
    pub index: u64,
    pub checkpoint_size: u64,
    pub checkpoint_root: String,
    pub leaf_hash: String,
    /// The audit path, leaf to root, hex.
    pub path: Vec<String>,
    /// The hash tiles the path was computed from.
    pub tiles: Vec<String>,
    pub bundle: String,
    pub verified: bool,
}

/// A finding as the monitor's judge gives it now, and as kept.
#[derive(Debug, Clone, Serialize)]
pub struct RoundFinding {
    pub kind: String,
    pub amount_h: i64,
    pub bet_ids: Vec<String>,
    pub expected_h: Option<i64>,
    pub actual_h: Option<i64>,
    /// The rules' message (English, as the ledger keeps it).
    pub message: String,
}

/// A bet as judged.
#[derive(Debug, Clone, Serialize)]
pub struct RoundBet {
    pub bet_id: String,
    pub kind: String,
    /// The kind as people name it in Czech (`rules::bet_kinds`).
    pub kind_name: String,
    pub player: String,
    pub stake_h: i64,
    pub paid_h: i64,
    pub expected_paid_h: i64,
}

/// A mismatch kept for the round.
#[derive(Debug, Clone, Serialize)]
pub struct RoundMismatch {
    pub field: String,
    pub casino: Value,
    pub monitor: Value,
}

/// What the round page shows.
#[derive(Debug, Clone, Serialize)]
pub struct RoundView {
    pub casino: String,
    pub index: u64,
    pub received_at: String,
    pub key_id: String,
    /// The signed record, as JSON.
    pub record: Value,
    pub game: Option<String>,
    pub game_name: Option<String>,
    pub table_id: Option<String>,
    pub seq_no: Option<u64>,
    pub played_at: Option<String>,
    pub outcome: Option<Value>,
    /// The outcome as the casino's workbench says it: `17 (černá)`, a wheel's segment and box,
    /// a void spin and why.
    pub outcome_words: Option<String>,
    pub bets: Vec<RoundBet>,
    pub stakes_h: Option<i64>,
    pub paid_h: Option<i64>,
    pub expected_paid_h: Option<i64>,
    pub void: Option<bool>,
    /// The monitor's judgement now (the one judge on the log's registry).
    pub findings: Vec<RoundFinding>,
    /// Why the round was not judged (not a round, a plan not held…).
    pub not_judged: Option<String>,
    /// The casino's own verdict line, as published.
    pub casino_verdict: Option<Value>,
    /// Where the casino's verdict differs from the monitor's, as kept when followed.
    pub mismatches: Vec<RoundMismatch>,
    /// The monitor's findings as kept when followed (their messages).
    pub kept_findings: Vec<String>,
    pub proof: Proof,
}

fn fetched(
    source: &dyn TileSource,
    tile: &Tile,
    verdicts: bool,
    limit: u64,
) -> Result<Vec<u8>, RoundError> {
    let path = tile.path();
    get_tile(source, tile, verdicts, limit)
        .map_err(|e| RoundError::Casino(e.to_string()))?
        .ok_or_else(|| RoundError::Casino(format!("{path}: not published")))
}

/// The inclusion proof of entry `index` in a tree of `size` from the casino's hash tiles.
fn prove(
    source: &dyn TileSource,
    index: u64,
    size: u64,
) -> Result<(Vec<dozor_log::merkle::Hash>, Vec<String>), RoundError> {
    let wishlist = NodeWishlist::default();
    inclusion_proof(&wishlist, index, size).map_err(|e| RoundError::NotFound(e.to_string()))?;
    let mut tiles: Vec<Tile> = wishlist
        .into_wanted()
        .into_iter()
        .map(|(level, node)| tile_of_node(level, node, size))
        .collect();
    tiles.sort_unstable();
    tiles.dedup();
    let mut set = TileSet::default();
    for tile in &tiles {
        let bytes = fetched(source, tile, false, HASH_TILE_LIMIT)?;
        let hashes = decode_hashes(tile, &bytes)
            .map_err(|e| RoundError::Casino(format!("{}: {e}", tile.path())))?;
        set.insert(tile, hashes);
    }
    let path = inclusion_proof(&set, index, size).map_err(|e| RoundError::Casino(e.to_string()))?;
    Ok((path, tiles.iter().map(Tile::path).collect()))
}

/// Round `index` of `casino`, proven against the checkpoint the monitor holds.
pub fn round_view(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &dyn TileSource,
    index: u64,
) -> Result<RoundView, RoundError> {
    let name = casino.name.as_str();
    let held = state::load(conn, name, &casino.operator_keys)?;
    let Some(checkpoint) = held.checkpoint.as_ref().map(|c| c.held) else {
        return Err(RoundError::NotFound(format!(
            "no checkpoint of {name} is held yet"
        )));
    };
    if index >= held.followed.size {
        return Err(RoundError::NotFound(format!(
            "entry {index} is beyond the {} entries of {name} followed",
            held.followed.size
        )));
    }
    let size = checkpoint.size;
    let level0 = tile_of_node(0, index, size);
    let bundle = Tile {
        kind: TileKind::Entries,
        ..level0
    };
    let bytes = fetched(source, &bundle, false, BUNDLE_LIMIT)?;
    let entries = decode_bundle(&bundle, &bytes)
        .map_err(|e| RoundError::Casino(format!("{}: {e}", bundle.path())))?;
    let offset = (index - bundle.index * TILE_WIDTH) as usize;
    let entry = *entries
        .get(offset)
        .ok_or_else(|| RoundError::Casino(format!("{}: no entry {index}", bundle.path())))?;
    let leaf = dozor_log::leaf_hash(entry);
    let (path, tiles) = prove(source, index, size)?;
    let verified = verify_inclusion(index, size, &leaf, &path, &checkpoint.root);
    let proof = Proof {
        index,
        checkpoint_size: size,
        checkpoint_root: hex::encode(checkpoint.root),
        leaf_hash: hex::encode(leaf),
        path: path.iter().map(hex::encode).collect(),
        tiles,
        bundle: bundle.path(),
        verified,
    };
    let casino_verdict = fetched(source, &bundle, true, VERDICTS_LIMIT)
        .ok()
        .and_then(|b| {
            parse_verdict_lines(&b, bundle.index * TILE_WIDTH, u64::from(bundle.width)).ok()
        })
        .and_then(|lines| lines.into_iter().nth(offset))
        .and_then(|line| line.verdict_value());
    let history = &held.followed.history;
    let signers = Signers {
        operators: &held.followed.operators,
        tables: history,
    };
    let checked = check_entry(entry, index, signers)
        .map_err(|e| RoundError::Casino(format!("entry {index}: {e}")))?;
    let record: Value = serde_json::from_str(checked.record).unwrap_or(Value::Null);
    let mut view = RoundView {
        casino: name.to_owned(),
        index,
        received_at: crate::view::figures::prague(checked.received_at),
        key_id: checked.key_id.to_owned(),
        game: None,
        game_name: None,
        table_id: None,
        seq_no: None,
        played_at: None,
        outcome: record.get("outcome").cloned(),
        outcome_words: None,
        bets: Vec::new(),
        stakes_h: None,
        paid_h: None,
        expected_paid_h: None,
        void: None,
        findings: Vec::new(),
        not_judged: None,
        casino_verdict,
        mismatches: Vec::new(),
        kept_findings: Vec::new(),
        proof,
        record,
    };
    match &checked.subject {
        Subject::Record(header) if rules::is_adjudicated(&header.record_type) => {
            judge_into(&mut view, casino, header, checked.record, history, index);
        }
        Subject::Record(_) => view.not_judged = Some("záznam není herní kolo".into()),
        Subject::Registry(_) => view.not_judged = Some("událost registru, ne herní kolo".into()),
    }
    kept(conn, &mut view)?;
    Ok(view)
}

/// The round judged again: its bets and findings.
fn judge_into(
    view: &mut RoundView,
    casino: &CasinoConfig,
    header: &rules::RecordHeader,
    record: &str,
    history: &dozor_log::registry_history::RegistryHistory,
    index: u64,
) {
    view.table_id = Some(header.table_id.clone());
    view.seq_no = Some(header.seq_no);
    view.game = header.game.clone();
    view.game_name = header
        .game
        .as_deref()
        .map(|g| casino.plans.game_name(g).to_owned());
    let round = match dozor_log::judge::read_round(header, record) {
        Ok(round) => round,
        Err(e) => {
            view.not_judged = Some(e.to_string());
            return;
        }
    };
    view.played_at = Some(crate::view::figures::prague(round.played_at()));
    let judged = dozor_log::judge::judge(
        &round,
        index,
        |p| casino.plans.get(p),
        history,
        |j| {
            let v = &j.verdict;
            view.stakes_h = Some(v.stakes_h);
            view.paid_h = Some(v.paid_h);
            view.expected_paid_h = Some(v.expected_paid_h);
            view.void = Some(v.void);
            view.outcome_words = view
                .outcome
                .as_ref()
                .map(|o| outcome_words(view.game.as_deref(), o, v.segment_label, v.void_reason));
            let game = view.game.clone().unwrap_or_default();
            view.bets = v
                .bets
                .iter()
                .map(|b| RoundBet {
                    bet_id: b.bet_id.to_owned(),
                    kind: b.kind.to_owned(),
                    kind_name: rules::bet_kinds::czech_bet_kind(&game, b.kind),
                    player: b.player.to_owned(),
                    stake_h: b.stake_h,
                    paid_h: b.paid_h,
                    expected_paid_h: b.expected_paid_h,
                })
                .collect();
            view.findings = v
                .findings
                .iter()
                .map(|f| RoundFinding {
                    kind: f.kind.as_str().to_owned(),
                    amount_h: f.amount_h,
                    bet_ids: f.bet_ids.clone().unwrap_or_default(),
                    expected_h: f.expected_h,
                    actual_h: f.actual_h,
                    message: f.message.clone(),
                })
                .collect();
        },
    );
    if let Err(e) = judged {
        view.not_judged = Some(e.to_string());
    }
}

/// What the monitor kept of the round when it followed it.
fn kept(conn: &mut PgConnection, view: &mut RoundView) -> Result<(), MonitorError> {
    let index = i64::try_from(view.index).unwrap_or(i64::MAX);
    view.kept_findings = view_reads::round_finding_messages(conn, &view.casino, index)?;
    view.mismatches = view_reads::round_mismatches(conn, &view.casino, index)?
        .into_iter()
        .map(|m| RoundMismatch {
            field: m.field,
            casino: m.casino_value,
            monitor: m.monitor_value,
        })
        .collect();
    Ok(())
}

/// An outcome in Czech, as the casino's workbench lays it out: where the ball stopped and its
/// colour, the wheel's segment and the box it pays, a void spin and why; for the other games
/// the outcome's fields as recorded.
pub fn outcome_words(
    game: Option<&str>,
    outcome: &Value,
    segment_label: Option<&str>,
    void_reason: Option<&str>,
) -> String {
    let void = || {
        let why = void_reason
            .or_else(|| outcome.get("reason").and_then(Value::as_str))
            .map(|code| rules::messages::word(code).unwrap_or(code));
        match why {
            Some(why) => format!("neplatné roztočení ({why})"),
            None => "neplatné roztočení".to_owned(),
        }
    };
    match game.unwrap_or_default() {
        "roulette" => match outcome
            .get("number")
            .and_then(Value::as_u64)
            .and_then(|n| u8::try_from(n).ok())
        {
            Some(n) => match rules::bet_kinds::pocket_colour(n) {
                Some(colour) => format!("padlo {n} ({})", colour.cs),
                None => format!("padlo {n}"),
            },
            None => void(),
        },
        g if g.starts_with("money_wheel") => match segment_label.filter(|l| !l.is_empty()) {
            Some(label) => {
                let segment = outcome.get("segment").map(Value::to_string);
                let name = rules::bet_kinds::czech_bet_kind("money_wheel", label);
                match segment {
                    Some(segment) => format!("kolo zastavilo na segmentu {segment}: {name}"),
                    None => format!("kolo zastavilo: {name}"),
                }
            }
            None => void(),
        },
        _ => match outcome.as_object() {
            Some(map) => map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{k}: {}",
                        v.as_str().map_or_else(|| v.to_string(), str::to_owned)
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
            None => outcome.to_string(),
        },
    }
}
