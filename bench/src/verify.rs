//! `dozor bench verify`: offline verification of a large inspection export, against bare
//! ed25519-dalek batch verification of the same signatures; and `dozor verify` of the same
//! ledger in the database.

use reports::inspection::ExportRequest;
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use crate::database::KeptDatabase;
use crate::direct::SpinningTables;
use anyhow::{anyhow, Context as _};
use chrono::Utc;
use diesel::PgConnection;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::entry_check::SignatureCheck;
use dozor_log::parallel::par_map;
use dozor_verify::{verify_export, VerifyOptions, SIGNATURE_BATCH};
use ed25519_dalek::{Signature, VerifyingKey};
use ledger::storage::verify::verify_ledger;
use ledger::storage::{checkpoints, reads};
use rules::gaming_day::GamingDayClock;
use serde_json::json;

use ledger::storage::database::DatabaseChoice as Global;

const DATABASE: &str = "dozor_bench_verify";
pub(crate) const TABLES: usize = 16;

fn table_id(t: usize) -> String {
    format!("BENCH-{t:02}")
}

/// Registers the tables and appends `rounds` signed, adjudicated spins straight into the ledger
/// (no HTTP: this benchmark measures verification, not ingest).
fn fill(conn: &mut PgConnection, operator: &NoteSigner, rounds: u64) -> anyhow::Result<()> {
    let mut tables = SpinningTables::new(11, (0..TABLES).map(table_id).collect(), |_| 1)?;
    tables.register(conn, operator)?;
    tables.append(conn, rounds)?;
    let size = reads::size(conn)?;
    checkpoints::create(conn, operator, size, Utc::now())
        .map_err(|e| anyhow!("checkpoint: {e}"))?;
    Ok(())
}

/// Signed bytes, signatures and keys, in entry order.
type SignedItems = (Vec<Vec<u8>>, Vec<Signature>, Vec<VerifyingKey>);

/// Signature, key and signed bytes of every entry of an export, read without verifying anything.
fn signatures_of(dir: &Path) -> anyhow::Result<SignedItems> {
    #[derive(serde::Deserialize)]
    struct Entry<'a> {
        #[serde(borrow)]
        envelope: EnvelopeRaw<'a>,
    }
    #[derive(serde::Deserialize)]
    struct EnvelopeRaw<'a> {
        key_id: String,
        #[serde(borrow)]
        record: &'a serde_json::value::RawValue,
        signature: String,
    }
    let keys: Vec<dozor_verify::format::KeyRecord> =
        serde_json::from_slice(&std::fs::read(dir.join(dozor_verify::format::KEYS))?)?;
    let mut by_id: HashMap<String, VerifyingKey> = keys
        .iter()
        .map(|k| {
            Ok((
                k.key_id.clone(),
                dozor_log::keys::parse_public_key(&k.public_key)?,
            ))
        })
        .collect::<anyhow::Result<_>>()?;
    let operator = crate::direct::operator(0x5e)?.verifier().key;
    by_id.insert(dozor_log::keys::key_id(&operator), operator);
    let text = std::fs::read_to_string(dir.join(dozor_verify::format::ENTRIES))?;
    let (mut messages, mut signatures, mut verifying) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        let entry: Entry<'_> = serde_json::from_str(line)?;
        let signature = dozor_log::envelope::decode_signature(&entry.envelope.signature)?;
        messages.push(entry.envelope.record.get().as_bytes().to_vec());
        signatures.push(signature);
        verifying.push(
            *by_id
                .get(&entry.envelope.key_id)
                .ok_or_else(|| anyhow!("key {} not in keys.json", entry.envelope.key_id))?,
        );
    }
    Ok((messages, signatures, verifying))
}

fn signatures(strict: bool) -> SignatureCheck {
    if strict {
        SignatureCheck::Strict
    } else {
        SignatureCheck::Batch
    }
}

/// The database of the benchmark, filled with `rounds` spins (once; kept for later runs) and
/// open.
pub(crate) fn filled_database(
    global: &Global,
    operator: &NoteSigner,
    rounds: u64,
) -> anyhow::Result<(KeptDatabase, PgConnection)> {
    let (database, mut conn) = KeptDatabase::open(global, DATABASE)?;
    let expected_size = rounds + TABLES as u64;
    let size = reads::size(&mut conn)?;
    // Exports seal their reports into the ledger: entries after the filled ones are those.
    let filled = size >= expected_size && {
        use diesel::prelude::*;
        use ledger::storage::schema::ledger_entries as e;
        let others: i64 = e::table
            .filter(e::idx.ge(expected_size as i64))
            .filter(e::record_type.ne("report_published"))
            .count()
            .get_result(&mut conn)?;
        // Verdicts of another rules version are not re-judged by verify: a database filled
        // before the rules changed would measure less than it claims.
        use ledger::storage::schema::adjudications as a;
        let stale: i64 = a::table
            .filter(a::rules_version.ne(rules::RULES_VERSION))
            .count()
            .get_result(&mut conn)?;
        others == 0 && stale == 0
    };
    if !filled {
        conn = database.start_over(conn, size == 0, || {
            format!("the database holds {size} entries, not {expected_size}")
        })?;
        eprintln!("filling the ledger with {rounds} signed spins (once; kept for later runs)");
        fill(&mut conn, operator, rounds)?;
    }
    Ok((database, conn))
}

/// The inspection export of the filled entries, written anew to `out`: its summary and the
/// seconds it took.
pub(crate) fn export(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    filled: u64,
    out: &Path,
) -> anyhow::Result<(reports::inspection::ExportSummary, f64)> {
    let clock = GamingDayClock::default();
    let first = reads::entry(conn, 0)?.ok_or_else(|| anyhow!("empty ledger"))?;
    let last = reads::entry(conn, filled - 1)?.ok_or_else(|| anyhow!("no head"))?;
    let (from, to) = (
        clock.day_of(first.received_at),
        clock.day_of(last.received_at),
    );
    if out.exists() {
        std::fs::remove_dir_all(out).with_context(|| format!("removing {}", out.display()))?;
    }
    let started = Instant::now();
    let actor = dozor_log::registry_history::cli_actor();
    let request = ExportRequest::new(&clock, operator, &actor, (from, to), out, Utc::now());
    let summary = reports::inspection::write_export(conn, &request, &mut |_, _| {})?;
    Ok((summary, started.elapsed().as_secs_f64()))
}

/// `dozor verify` of the same ledger in the database, every round re-judged against its stored
/// rows (the operator's self-check, measured beside the regulator's), and reading its pages
/// alone. Both cores are busy in either, PostgreSQL's backend among them: the CPU time of each
/// process says where the time went.
struct DatabaseFigures {
    read: Measured<u64>,
    verify: Measured<ledger::storage::verify::VerifyReport>,
    /// The full walk in segments (`verify --full-walk`), without a budget.
    full_walk: Measured<ledger::storage::verify::VerifyReport>,
}

/// `dozor verify --full-walk --cores 0` of the database: the walk in segments of 8 pages, each
/// in a snapshot of its own, every core checking; recorded nowhere (the fill stays as it is).
fn full_walk(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    operators: &HashMap<String, VerifyingKey>,
    strict: bool,
) -> anyhow::Result<ledger::storage::verify::VerifyReport> {
    let progress = tempfile::tempdir()?;
    let walk = ledger::storage::full_walk::FullWalk {
        operator,
        operators,
        signatures: signatures(strict),
        witnessed: Vec::new(),
        progress_file: &progress.path().join("full-walk.progress"),
        budget: ledger::throttle::Budget::UNLIMITED,
        paging: ledger::storage::verify::Paging::default(),
        segment_pages: ledger::storage::full_walk::SEGMENT_PAGES,
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    match walk.run(conn, &stop, |_, _| {})? {
        ledger::storage::full_walk::WalkOutcome::Finished(finished) => Ok(finished.report),
        other => Err(anyhow!("the full walk did not end: {other:?}")),
    }
}

fn verify_database(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    strict: bool,
    rounds: u64,
) -> anyhow::Result<DatabaseFigures> {
    let verifier = operator.verifier();
    let operators = HashMap::from([(dozor_log::keys::key_id(&verifier.key), verifier.key)]);
    let ledger_size = reads::size(conn)?;
    let backend = backend_pid(conn);
    let read = Measured::of(backend, || ledger::storage::verify::read_entry_pages(conn))?;
    crate::outcome::expect_result(read.value == ledger_size, || {
        format!(
            "reading the pages gave {} of {ledger_size} entries",
            read.value
        )
    })?;
    let verify = Measured::of(backend, || {
        verify_ledger(conn, &operators, signatures(strict), |_| {})
    })?;
    let report = &verify.value;
    if let Some(failure) = &report.failure {
        return Err(crate::outcome::NotMeasured(format!(
            "the database does not verify: entry {}: {}",
            failure.index, failure.reason
        ))
        .into());
    }
    crate::outcome::expect_result(
        report.entries_checked == ledger_size && report.rounds_readjudicated == rounds,
        || {
            format!(
                "the database verify checked {} of {ledger_size} entries and re-judged {} of the {rounds} rounds",
                report.entries_checked, report.rounds_readjudicated
            )
        },
    )?;
    let full_walk = Measured::of(backend, || full_walk(conn, operator, &operators, strict))?;
    crate::outcome::expect_result(
        full_walk.value.failure.is_none()
            && full_walk.value.entries_checked == report.entries_checked
            && full_walk.value.rounds_readjudicated == rounds,
        || format!("the full walk found otherwise: {:?}", full_walk.value),
    )?;
    Ok(DatabaseFigures {
        read,
        verify,
        full_walk,
    })
}

/// `dozor verify` of the export: with every check, and the integrity pass alone
/// (`--skip-readjudication`), in seconds.
pub(crate) fn verify_offline(
    out: &Path,
    operator: &NoteSigner,
    strict: bool,
    rounds: u64,
    exported: u64,
) -> anyhow::Result<(Measured<dozor_verify::InspectionReport>, f64)> {
    let signatures = signatures(strict);
    let timed = |readjudicate: bool| -> anyhow::Result<Measured<dozor_verify::InspectionReport>> {
        Measured::of(None, || {
            verify_export(
                out,
                &[operator.verifier()],
                VerifyOptions {
                    signatures,
                    readjudicate,
                    ..VerifyOptions::default()
                },
                |_, _| {},
            )
            .map_err(|e| crate::outcome::NotMeasured(format!("the export does not verify: {e}")))
        })
    };
    let offline = timed(true)?;
    let report = &offline.value;
    crate::outcome::expect_result(report.rounds_readjudicated == rounds, || {
        format!(
            "verify re-judged {} of the {rounds} rounds: no figure is given for a verification that did not do what it measures",
            report.rounds_readjudicated
        )
    })?;
    crate::outcome::expect_result(report.signatures_checked == exported, || {
        format!(
            "verify checked {} of the export's {} entries",
            report.signatures_checked, exported
        )
    })?;
    let integrity_seconds = timed(false)?.seconds;
    Ok((offline, integrity_seconds))
}

/// The export's signatures, nothing else, in batches of the verifier's size on every core:
/// ed25519-dalek's verify_batch, and the key-grouped batch the verifier uses. The signatures
/// and the seconds of each.
fn bare_batches(out: &Path) -> anyhow::Result<(usize, f64, f64)> {
    let (messages, sigs, keys) = signatures_of(out)?;
    let chunks: Vec<usize> = (0..messages.len()).step_by(SIGNATURE_BATCH).collect();
    let bare = |grouped: bool| -> anyhow::Result<f64> {
        let started = Instant::now();
        let results = par_map(&chunks, |_, start| {
            let end = (start + SIGNATURE_BATCH).min(messages.len());
            let m: Vec<&[u8]> = messages[*start..end].iter().map(Vec::as_slice).collect();
            if grouped {
                dozor_log::signature_batch::verify(&m, &sigs[*start..end], &keys[*start..end])
            } else {
                ed25519_dalek::verify_batch(&m, &sigs[*start..end], &keys[*start..end]).is_ok()
            }
        })
        .map_err(|e| anyhow!("{e}"))?;
        crate::outcome::expect_result(results.iter().all(|ok| *ok), || {
            "bare batch verification of the export's signatures failed".to_owned()
        })?;
        Ok(started.elapsed().as_secs_f64())
    };
    Ok((messages.len(), bare(false)?, bare(true)?))
}

pub fn verify(global: &Global, entries: u64, strict: bool) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(entries > 0, "--entries must be positive");
    let rounds = entries;
    let operator = crate::direct::operator(0x5e)?;
    let (database, mut conn) = filled_database(global, &operator, rounds)?;
    let out = global.data_dir.join("bench-verify-export");
    let (summary, export_seconds) = export(&mut conn, &operator, rounds + TABLES as u64, &out)?;
    let in_database = verify_database(&mut conn, &operator, strict, rounds)?;
    drop(conn);
    database.stop()?;
    eprintln!(
        "exported {} entries in {export_seconds:.1} s; verifying",
        summary.period_entries
    );
    let (offline, integrity_seconds) =
        verify_offline(&out, &operator, strict, rounds, summary.period_entries)?;
    let (signature_count, bare_seconds, grouped_seconds) = bare_batches(&out)?;

    let (report, verify_seconds) = (&offline.value, offline.seconds);
    let (database_report, database_seconds) =
        (&in_database.verify.value, in_database.verify.seconds);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let checked = report.signatures_checked as f64;
    let per_core = checked / verify_seconds / cores as f64;
    let bare_per_core = signature_count as f64 / bare_seconds / cores as f64;
    let grouped_per_core = signature_count as f64 / grouped_seconds / cores as f64;
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "dozor verify of an inspection export (every check, rounds re-adjudicated; and --skip-readjudication) vs bare ed25519-dalek verify_batch of the same signatures; and dozor verify of the same ledger in the database",
            "entries": report.signatures_checked,
            "rounds_readjudicated": report.rounds_readjudicated,
            "signature_check": if strict { "verify_strict, one by one".to_owned() } else { format!("batches of {SIGNATURE_BATCH} grouped by key") },
            "cores": cores,
            "verify_seconds": (verify_seconds * 100.0).round() / 100.0,
            "verify_entries_per_second": (checked / verify_seconds).round(),
            "verify_entries_per_second_per_core": per_core.round(),
            "bare_batch_seconds": (bare_seconds * 100.0).round() / 100.0,
            "bare_batch_signatures_per_second_per_core": bare_per_core.round(),
            "verify_vs_bare_batch": (per_core / bare_per_core * 1000.0).round() / 1000.0,
            "bare_grouped_batch_seconds": (grouped_seconds * 100.0).round() / 100.0,
            "bare_grouped_batch_signatures_per_second_per_core": grouped_per_core.round(),
            "integrity_only_seconds": (integrity_seconds * 100.0).round() / 100.0,
            "integrity_only_entries_per_second_per_core": (checked / integrity_seconds / cores as f64).round(),
            "integrity_only_vs_bare_batch": (bare_seconds / integrity_seconds * checked / signature_count as f64 * 1000.0).round() / 1000.0,
            "export_seconds": (export_seconds * 10.0).round() / 10.0,
            "database_verify_entries": database_report.entries_checked,
            "database_verify_seconds": (database_seconds * 100.0).round() / 100.0,
            "database_verify_entries_per_second": (database_report.entries_checked as f64 / database_seconds).round(),
            "database_vs_offline_verify": (database_seconds / verify_seconds * 100.0).round() / 100.0,
            "database_read_only_seconds": (in_database.read.seconds * 100.0).round() / 100.0,
            "database_full_walk_seconds": (in_database.full_walk.seconds * 100.0).round() / 100.0,
            "full_walk_vs_offline_verify": (in_database.full_walk.seconds / verify_seconds * 100.0).round() / 100.0,
            "cpu_seconds": {
                "verify": offline.cpu_seconds(),
                "database_verify": in_database.verify.cpu_seconds(),
                "database_read_only": in_database.read.cpu_seconds(),
                "database_full_walk": in_database.full_walk.cpu_seconds(),
            },
            "export": out.display().to_string(),
            "operator_key": operator.verifier().to_string(),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}

/// The process id of the PostgreSQL backend serving `conn`, when it runs on this machine (a
/// server elsewhere has its own process ids: the process here with that id is not it).
pub(crate) fn backend_pid(conn: &mut PgConnection) -> Option<u32> {
    use diesel::prelude::*;
    let pid = diesel::select(diesel::dsl::sql::<diesel::sql_types::Integer>(
        "pg_backend_pid()",
    ))
    .get_result::<i32>(conn)
    .ok()
    .and_then(|pid| u32::try_from(pid).ok())?;
    ledger::cpu_time::is_postgres(pid).then_some(pid)
}

/// A timed step: its result, wall time, and the CPU time this process and the PostgreSQL
/// backend (if any) spent in it.
pub(crate) struct Measured<T> {
    pub value: T,
    pub seconds: f64,
    cpu: Option<std::time::Duration>,
    backend: Option<u32>,
    backend_cpu: Option<std::time::Duration>,
}

impl<T> Measured<T> {
    pub(crate) fn of<E: Into<anyhow::Error>>(
        backend: Option<u32>,
        step: impl FnOnce() -> Result<T, E>,
    ) -> anyhow::Result<Measured<T>> {
        let (cpu, backend_cpu) = (
            ledger::cpu_time::of_process(None),
            backend.and_then(|pid| ledger::cpu_time::of_process(Some(pid))),
        );
        let started = Instant::now();
        let value = step().map_err(Into::into)?;
        let seconds = started.elapsed().as_secs_f64();
        let spent = |before: Option<std::time::Duration>, pid: Option<u32>| {
            ledger::cpu_time::of_process(pid)
                .zip(before)
                .map(|(after, before)| after.saturating_sub(before))
        };
        Ok(Measured {
            value,
            seconds,
            cpu: spent(cpu, None),
            backend,
            backend_cpu: backend.and_then(|pid| spent(backend_cpu, Some(pid))),
        })
    }

    /// `{"dozor": s, "postgresql": s}` (PostgreSQL only where a backend served the step).
    pub fn cpu_seconds(&self) -> serde_json::Value {
        let mut spent = json!({ "dozor": crate::cpu_time::seconds(self.cpu) });
        if self.backend.is_some() {
            spent["postgresql"] = json!(crate::cpu_time::seconds(self.backend_cpu));
        }
        spent
    }
}
