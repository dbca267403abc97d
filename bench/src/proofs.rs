//! `bench proofs`: inclusion-proof latency on a large tree.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::anyhow;
use ledger::storage::database::DatabaseChoice;
use serde_json::json;

use crate::database::KeptDatabase;
use crate::outcome::{expect_result, percentile};

/// Fills `dozor_bench_tree` with `entries` synthetic leaves and their tree, level by level, in SQL.
/// The entries are not signed records (the chain is not valid): only the tree is measured.
fn generate_tree(conn: &mut diesel::PgConnection, entries: u64) -> anyhow::Result<()> {
    use diesel::RunQueryDsl as _;
    let started = Instant::now();
    diesel::sql_query(
        "INSERT INTO gaming_tables VALUES ('BENCH', 'roulette', 'benchmark', 'none', now())",
    )
    .execute(conn)?;
    diesel::sql_query(
        "INSERT INTO table_keys VALUES ('bench', 'BENCH', decode(repeat('00', 32), 'hex'), now(), now())",
    )
    .execute(conn)?;
    diesel::sql_query(format!(
        "INSERT INTO ledger_entries \
         SELECT i, now(), decode(repeat('00', 32), 'hex'), \
                sha256('\\x00'::bytea || convert_to('entry ' || i, 'UTF8')), \
                convert_to('entry ' || i, 'UTF8'), 'round', 'BENCH', i, 'bench', \
                sha256(convert_to('entry ' || i, 'UTF8')) \
         FROM generate_series(0, {}) AS i",
        entries - 1
    ))
    .execute(conn)?;
    eprintln!(
        "{entries} leaves in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    diesel::sql_query(
        "INSERT INTO merkle_nodes SELECT 1, a.idx / 2, sha256('\\x01'::bytea || a.leaf_hash || b.leaf_hash) \
         FROM ledger_entries a JOIN ledger_entries b ON b.idx = a.idx + 1 WHERE a.idx % 2 = 0",
    )
    .execute(conn)?;
    for level in 2..64 {
        let added = diesel::sql_query(format!(
            "INSERT INTO merkle_nodes SELECT {level}, a.idx / 2, sha256('\\x01'::bytea || a.hash || b.hash) \
             FROM merkle_nodes a JOIN merkle_nodes b ON b.level = {prev} AND b.idx = a.idx + 1 \
             WHERE a.level = {prev} AND a.idx % 2 = 0",
            prev = level - 1
        ))
        .execute(conn)?;
        if added == 0 {
            break;
        }
    }
    diesel::sql_query("ANALYZE").execute(conn)?;
    eprintln!("tree built in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

pub fn proofs(global: &DatabaseChoice, entries: u64, samples: usize) -> anyhow::Result<ExitCode> {
    use rand::{Rng as _, SeedableRng as _};
    anyhow::ensure!(entries >= 2, "--entries must be at least 2");
    let (database, mut conn) = KeptDatabase::open(global, "dozor_bench_tree")?;
    let mut size = ledger::storage::reads::size(&mut conn)?;
    if size != entries && size != 0 {
        // A tree of another size: start over (only in dozor's own cluster).
        conn = database.start_over(conn, false, || {
            format!("the database holds {size} entries, not {entries}")
        })?;
        size = 0;
    }
    if size == 0 {
        generate_tree(&mut conn, entries)?;
    }
    let root = ledger::storage::tree::root(&mut conn, entries)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9162);
    let mut latencies = Vec::with_capacity(samples);
    for _ in 0..samples {
        let index = rng.gen_range(0..entries);
        let t = Instant::now();
        let (proof_root, proof) =
            ledger::storage::tree::inclusion_proof(&mut conn, index, entries)?;
        latencies.push(t.elapsed());
        let leaf = ledger::storage::reads::entry(&mut conn, index)?
            .map(|r| r.leaf_hash)
            .ok_or_else(|| anyhow!("entry {index} missing"))?;
        let leaf: [u8; 32] = leaf.try_into().map_err(|_| anyhow!("bad leaf"))?;
        expect_result(
            proof_root == root
                && dozor_log::merkle::verify_inclusion(index, entries, &leaf, &proof, &root),
            || {
                format!(
                    "the inclusion proof of entry {index} in the tree of {entries} does not verify"
                )
            },
        )?;
    }
    drop(conn);
    database.stop()?;
    latencies.sort_unstable();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "inclusion proof from PostgreSQL (two queries per proof), one connection",
            "entries": entries,
            "samples": samples,
            "all_verified": true,
            "latency_ms": {
                "p50": (percentile(&latencies, 50.0) * 1000.0).round() / 1000.0,
                "p99": (percentile(&latencies, 99.0) * 1000.0).round() / 1000.0,
                "max": (percentile(&latencies, 100.0) * 1000.0).round() / 1000.0,
            },
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
