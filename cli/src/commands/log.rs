//! `dozor log rotate|keys|accept-rollback|archive|publish-tiles`: the log's operator key (and
//! origin) handed over by a recorded rotation, the keys that held it, a restore to an earlier
//! point accepted on the record, old entries archived as a verified export, on the record, and
//! the ledger published as tiles to a folder.

use reports::inspection::ExportRequest;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use dozor_log::checkpoint::NoteSigner;
use ledger::storage::{connect, PgConnection};
use serde_json::json;

use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    #[command(subcommand)]
    command: LogCommand,
    /// The operator key that holds the log (as for `serve`); default
    /// `<data dir>/operator.key`.
    #[arg(long, env = "DOZOR_OPERATOR_KEY", global = true)]
    operator_key: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum LogCommand {
    /// Hand the log to a new operator key: a `log_rotated` ledger entry signed by the key that
    /// holds the log, and the checkpoint ending with it, signed by that key and naming the new
    /// one for the witnesses. The new key then takes the old one's place (the key file every
    /// command reads: `--operator-key`, `DOZOR_OPERATOR_KEY` or `<data dir>/operator.key`); the
    /// old one is kept beside it as `<file>.retired-<key id>`. Stop the server first; start it
    /// again after.
    Rotate {
        /// The new key, from `dozor keygen --operator`; default, one made here.
        #[arg(long)]
        new_key: Option<PathBuf>,
        /// The name (log origin) of the key made here; default, the log's own.
        #[arg(long, conflicts_with = "new_key")]
        name: Option<String>,
        /// Why, for the record.
        #[arg(long)]
        reason: String,
    },
    /// The operator keys that held the log, oldest first, with the size each held it from:
    /// what `dozor verify --operator-key` is given for an export across a rotation.
    Keys,
    /// Accept that the ledger was restored to an earlier point (a backup, a point-in-time
    /// recovery): the witnessed checkpoints it no longer reaches are recorded as lost in a
    /// `rollback_accepted` ledger entry signed by the operator key, with the reason; `serve` then
    /// starts on it and `verify` reports the loss. Run with the server stopped.
    AcceptRollback {
        /// The checkpoint witness file the server keeps (`serve --checkpoint-witness`).
        #[arg(long, env = "DOZOR_CHECKPOINT_WITNESS")]
        witness: PathBuf,
        /// Why, for the record (e.g. the incident and the backup restored).
        #[arg(long)]
        reason: String,
    },
    /// Archive the entries below `--to` (a boundary of the database's ranges): the gaming days
    /// that hold them are exported into DIR and the export verified offline; then, in one
    /// transaction, what stays of each entry (its leaf hash, record hash and receipt time) and
    /// their registry events are kept, a `range_archived` ledger entry signed by the operator
    /// key names the range and the export's MANIFEST digest, and the range's partitions are
    /// detached from the tables (the operator keeps or drops them). Proofs, the registry and
    /// `verify` go on as before.
    Archive {
        /// Where the archived range ends: a multiple of the database's range size, covered by
        /// a signed checkpoint.
        #[arg(long)]
        to: u64,
        /// Why, for the record.
        #[arg(long)]
        reason: String,
        /// Directory to write the export into (created; must be empty). Keep it: it is the
        /// archived entries.
        dir: PathBuf,
        #[command(flatten)]
        clock: super::clock::ClockArgs,
    },
    /// Publish the ledger as C2SP tlog-tiles to a folder (docs/TILES.md), up to its latest
    /// signed checkpoint, as `serve` does with `[tiles] publish_dir`: from the size the
    /// folder's checkpoint holds (an empty folder from the start), tiles first and the
    /// checkpoint last. Fills or refills a folder without the server; safe beside it.
    PublishTiles {
        /// The folder (created if missing).
        #[arg(long)]
        dir: PathBuf,
    },
}

pub fn run(global: &DatabaseChoice, args: LogArgs) -> anyhow::Result<ExitCode> {
    // Publishing reads the ledger only: no operator key.
    if let LogCommand::PublishTiles { dir } = &args.command {
        return global.with_database(|url| publish_tiles(url, dir));
    }
    let key_file = args
        .operator_key
        .clone()
        .unwrap_or_else(|| ledger::operator_key::default_path(&global.data_dir));
    let operator = ledger::operator_key::load_existing(&global.data_dir, args.operator_key)?;
    global.with_database(|url| run_on(url, (&operator, &key_file), args.command, global))
}

fn run_on(
    url: &str,
    (operator, key_file): (&NoteSigner, &std::path::Path),
    command: LogCommand,
    global: &DatabaseChoice,
) -> anyhow::Result<ExitCode> {
    let mut keeper = LogKeeper {
        conn: connect(url)?,
        operator,
        key_file,
    };
    match command {
        LogCommand::Archive {
            to,
            reason,
            dir,
            clock,
        } => keeper.archive(global, (to, &reason, &dir), &clock.clock()?),
        LogCommand::Rotate {
            new_key,
            name,
            reason,
        } => keeper.rotate(new_key.as_deref(), name.as_deref(), &reason),
        LogCommand::AcceptRollback { witness, reason } => keeper.accept_rollback(&witness, &reason),
        LogCommand::Keys => keeper.list_keys(),
        LogCommand::PublishTiles { dir } => publish_tiles(url, &dir),
    }
}

/// `dozor log publish-tiles`: publications until the folder holds the latest checkpoint (a
/// long catch-up goes by steps, each on stderr), what they did on stdout as JSON.
fn publish_tiles(url: &str, dir: &std::path::Path) -> anyhow::Result<ExitCode> {
    use ledger::tile_publish::{Published, Publisher};
    let mut conn = connect(url)?;
    let mut publisher = Publisher::new(dir)?;
    let (mut start, mut written, mut kept) = (None, 0, 0);
    let report = loop {
        match publisher.publish(&mut conn)? {
            Published::Grew {
                from,
                to,
                latest,
                written: w,
                kept: k,
                ..
            } => {
                start.get_or_insert(from);
                (written, kept) = (written + w, kept + k);
                if to < latest {
                    eprintln!("published {to} of {latest} entries");
                    continue;
                }
                break json!({
                    "published": "tiles",
                    "from": start.unwrap_or(from),
                    "to": to,
                    "files_written": written,
                    "files_already_there": kept,
                });
            }
            Published::NoCheckpoint => {
                break json!({"published": "nothing", "why": "the ledger has no signed checkpoint yet"})
            }
            Published::UpToDate { size } => break json!({"published": "up_to_date", "size": size}),
            Published::Cosignatures { size } => {
                break json!({"published": "cosignatures", "size": size})
            }
        }
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}

/// What every `dozor log` command works with: a connection to the ledger and the operator key
/// that holds the log.
struct LogKeeper<'k> {
    conn: PgConnection,
    operator: &'k NoteSigner,
    /// The file the operator key was read from, which a rotation hands to the new key.
    key_file: &'k std::path::Path,
}

impl LogKeeper<'_> {
    /// `dozor log rotate`: the log handed to the new key, on the record, and the new key put
    /// where every command reads the operator key.
    fn rotate(
        &mut self,
        new_key: Option<&std::path::Path>,
        name: Option<&str>,
        reason: &str,
    ) -> anyhow::Result<ExitCode> {
        let (conn, operator) = (&mut self.conn, self.operator);
        let signer = match new_key {
            Some(file) => {
                let text = std::fs::read_to_string(file)
                    .with_context(|| format!("reading {}", file.display()))?;
                NoteSigner::from_private_key(&text)
                    .with_context(|| format!("{} is not an operator key", file.display()))?
            }
            None => NoteSigner::new(name.unwrap_or(operator.name()), dozor_log::keys::generate())?,
        };
        let next = signer.verifier();
        anyhow::ensure!(
            next.key != operator.verifier().key,
            "the new key is the one that holds the log; nothing was rotated"
        );
        let handover = ledger::operator_key::Handover::prepare(self.key_file, operator, &signer)?;
        let actor = dozor_log::registry_history::cli_actor();
        let receipt = match ledger::storage::rotation::rotate(
            conn,
            operator,
            &next,
            reason,
            &actor,
            Utc::now(),
        ) {
            Ok(receipt) => receipt,
            Err(e) => {
                handover.abandon();
                return Err(e.into());
            }
        };
        let (key_file, retired) = handover.install()?;
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "ledger_index": receipt.index,
                "checkpoint_size": receipt.checkpoint.size,
                "from_key": operator.verifier().to_string(),
                "to_key": next.to_string(),
                "origin": next.name,
                "key_file": key_file,
                "retired_key_file": retired,
            }))?
        );
        let origin = if next.name == operator.name() {
            String::new()
        } else {
            format!(
                " (a new origin: set ledger.origin = `{}` if the configuration names one)",
                next.name
            )
        };
        eprintln!(
            "the log is now {next}'s, whose key is in {} where every command reads it{origin}; the old key is kept in {} (keep it offline). Start the server again; witnesses learn of the rotation from the checkpoint of size {}",
            key_file.display(),
            retired.display(),
            receipt.checkpoint.size
        );
        Ok(ExitCode::SUCCESS)
    }

    /// `dozor log accept-rollback`: what the restored ledger keeps verified, then its loss signed
    /// for.
    fn accept_rollback(
        &mut self,
        witness: &std::path::Path,
        reason: &str,
    ) -> anyhow::Result<ExitCode> {
        let (conn, operator) = (&mut self.conn, self.operator);
        let operators = ledger::storage::rotation::operator_chain(conn, &operator.verifier())?;
        let witnessed = ledger::witness::Witness::new(witness).read(&operators)?;
        // What is kept must verify before its loss is signed for: every entry, and every
        // witnessed checkpoint it still covers.
        let size = ledger::storage::reads::size(conn)?;
        let previous = ledger::storage::rollbacks::accepted(conn, &operators)?;
        let kept: Vec<_> = ledger::storage::rollbacks::binding(witnessed.clone(), &previous)
            .into_iter()
            .filter(|c| c.size <= size)
            .collect();
        let keys: std::collections::HashMap<_, _> = operators
            .iter()
            .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
            .collect();
        let report = ledger::storage::verify::verify_ledger_witnessed(
            conn,
            &keys,
            dozor_log::entry_check::SignatureCheck::Batch,
            kept,
            |_| {},
        )?;
        if let Some(failure) = report.failure {
            anyhow::bail!(
                "the restored ledger does not verify at index {}: {}; nothing was accepted",
                failure.index,
                failure.reason
            );
        }
        let receipt = ledger::storage::rollbacks::accept(
            conn,
            operator,
            witnessed,
            reason,
            &dozor_log::registry_history::cli_actor(),
            Utc::now(),
        )?;
        let lost_size = receipt.lost.last().map_or(receipt.index, |c| c.size);
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "ledger_index": receipt.index,
                "restored_size": receipt.index,
                "lost_size": lost_size,
                "lost_checkpoints": receipt.lost,
                "received_at": receipt.received_at,
            }))?
        );
        eprintln!(
            "rollback accepted and recorded at index {}: entries {}..{} are lost; the server starts on this ledger again, and verifiers report the loss",
            receipt.index, receipt.index, lost_size
        );
        Ok(ExitCode::SUCCESS)
    }

    /// `dozor log keys`: the operator keys that held the log, oldest first.
    fn list_keys(&mut self) -> anyhow::Result<ExitCode> {
        let (conn, operator) = (&mut self.conn, self.operator);
        let rotations = ledger::storage::rotation::rotations(conn)?;
        let mut keys = Vec::new();
        if let Some(first) = rotations.first() {
            keys.push(json!({"verifier_key": first.from_key.to_string(), "from_size": 0}));
        }
        for rotation in &rotations {
            keys.push(json!({
                "verifier_key": rotation.to_key.to_string(),
                "from_size": rotation.index + 1,
                "rotation_index": rotation.index,
            }));
        }
        if keys.is_empty() {
            keys.push(json!({"verifier_key": operator.verifier().to_string(), "from_size": 0}));
        }
        println!("{}", serde_json::to_string_pretty(&keys)?);
        Ok(ExitCode::SUCCESS)
    }

    /// `dozor log archive`: export, verify offline, then archive on the record.
    fn archive(
        &mut self,
        global: &DatabaseChoice,
        (to, reason, dir): (u64, &str, &std::path::Path),
        clock: &rules::gaming_day::GamingDayClock,
    ) -> anyhow::Result<ExitCode> {
        let (conn, operator) = (&mut self.conn, self.operator);
        anyhow::ensure!(!reason.trim().is_empty(), "--reason must say why");
        // Only whole gaming days, closed and sealed: otherwise one line naming the day, and the
        // `--to` that would do.
        let now = Utc::now();
        let plan = match reports::archived::plan(conn, clock, to, now)? {
            Ok(plan) => plan,
            Err(why) => {
                let offer = match reports::archived::last_boundary(conn, clock, now)? {
                    Some((to, day)) => format!("--to {to} archives through gaming day {day}"),
                    None => "no gaming day has closed and been sealed since the last archive yet"
                        .to_owned(),
                };
                anyhow::bail!("{why}; {offer}; nothing was archived");
            }
        };
        let (from, first_day, last_day) = (plan.from, plan.first_day, plan.last_day);
        let actor = dozor_log::registry_history::cli_actor();
        let request = ExportRequest {
            nightly_from: Some(&global.data_dir),
            ..ExportRequest::new(
                clock,
                operator,
                &actor,
                (first_day, last_day),
                dir,
                Utc::now(),
            )
        };
        let summary = reports::inspection::write_export(conn, &request, &mut |_, _| {})?;
        let written = entry_lines(&dir.join(dozor_verify::format::ENTRIES))
            .with_context(|| format!("reading the export's entries in {}", dir.display()))?;
        let (covered_from, covered_to) = (summary.first_index, summary.first_index + written);
        anyhow::ensure!(
            covered_from <= from && to <= covered_to,
            "the export of {first_day} to {last_day} holds entries {covered_from}..{covered_to}, not all of {from}..{to}; nothing was archived"
        );
        // The export must verify offline, every round re-judged, before anything leaves.
        let operators = ledger::storage::rotation::operator_chain(conn, &operator.verifier())?;
        let verified = dozor_verify::verify_export(
            dir,
            &operators,
            dozor_verify::VerifyOptions::default(),
            |_, _| {},
        );
        if let Err(e) = verified {
            anyhow::bail!(
                "the export in {} does not verify: {e}; nothing was archived",
                dir.display()
            );
        }
        let manifest = std::fs::read(dir.join(dozor_verify::format::MANIFEST))
            .with_context(|| format!("reading the export's MANIFEST in {}", dir.display()))?;
        let export =
            ledger::storage::archive::ArchiveExport::of_manifest(first_day, last_day, &manifest);
        let actor = dozor_log::registry_history::cli_actor();
        let receipt = ledger::storage::archive::archive(
            conn,
            operator,
            &ledger::storage::archive::ArchiveRequest {
                to,
                export: &export,
                days: &plan.days,
                late_after: clock.late_after,
                reason,
                actor: &actor,
            },
            Utc::now(),
        )?;
        println!("{}", serde_json::to_string_pretty(&receipt)?);
        eprintln!(
            "entries {}..{} archived at index {} as the export in {} ({first_day} to {last_day}), the figures of its {} gaming days kept and sealed; the detached tables {} hold them in the database until you drop them (docs/OPERATIONS.md)",
            receipt.from,
            receipt.to,
            receipt.index,
            dir.display(),
            receipt.days_kept.len(),
            receipt.detached.join(", ")
        );
        Ok(ExitCode::SUCCESS)
    }
}

/// The lines of an export's entries file, read a block at a time (a range's export is large).
fn entry_lines(path: &std::path::Path) -> std::io::Result<u64> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(path)?;
    let mut block = vec![0u8; 1 << 20];
    let mut lines = 0u64;
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            return Ok(lines);
        }
        lines += block.iter().take(n).filter(|b| **b == b'\n').count() as u64;
    }
}
