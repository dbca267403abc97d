//! The Merkle tree in PostgreSQL: node storage, roots and proofs for any tree size.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bytea, SmallInt};

use super::columns::hash32;
use super::position;
use super::schema::{ledger_entries, merkle_nodes};
use crate::error::LedgerError;
pub use crate::error::TreeError;
use dozor_log::merkle::{self, Frontier, Hash, NodeWishlist, ProofError};

const INSERT_CHUNK: usize = 10_000;

#[derive(QueryableByName)]
struct NodeRow {
    #[diesel(sql_type = SmallInt)]
    level: i16,
    #[diesel(sql_type = BigInt)]
    idx: i64,
    #[diesel(sql_type = Bytea)]
    hash: Vec<u8>,
}

/// Fetches the wanted nodes in two queries (leaves, interior nodes).
pub fn fetch(
    conn: &mut PgConnection,
    wanted: &[(u32, u64)],
) -> Result<HashMap<(u32, u64), Hash>, LedgerError> {
    let mut found = HashMap::with_capacity(wanted.len());
    let leaves: Vec<i64> = wanted
        .iter()
        .filter(|(l, _)| *l == 0)
        .map(|(_, i)| *i as i64)
        .collect();
    if !leaves.is_empty() {
        let rows: Vec<(i64, Vec<u8>)> = ledger_entries::table
            .filter(ledger_entries::idx.eq_any(&leaves))
            .select((ledger_entries::idx, ledger_entries::leaf_hash))
            .load(conn)?;
        insert_leaves(&mut found, rows)?;
        // Leaves of archived ranges: their hashes stay when their entries leave.
        let archived: Vec<i64> = leaves
            .iter()
            .copied()
            .filter(|i| !found.contains_key(&(0, *i as u64)))
            .collect();
        if !archived.is_empty() {
            use super::schema::archived_entries;
            let rows: Vec<(i64, Vec<u8>)> = archived_entries::table
                .filter(archived_entries::idx.eq_any(&archived))
                .select((archived_entries::idx, archived_entries::leaf_hash))
                .load(conn)?;
            insert_leaves(&mut found, rows)?;
        }
    }
    let (levels, idxs): (Vec<i16>, Vec<i64>) = wanted
        .iter()
        .filter(|(l, _)| *l > 0)
        .map(|(l, i)| (*l as i16, *i as i64))
        .unzip();
    if !levels.is_empty() {
        let rows: Vec<NodeRow> = diesel::sql_query(
            "SELECT n.level, n.idx, n.hash FROM merkle_nodes n \
             JOIN unnest($1::smallint[], $2::bigint[]) AS w(level, idx) \
               ON n.level = w.level AND n.idx = w.idx",
        )
        .bind::<Array<SmallInt>, _>(levels)
        .bind::<Array<BigInt>, _>(idxs)
        .load(conn)?;
        for r in rows {
            found.insert(
                (r.level as u32, r.idx as u64),
                hash32(&r.hash, "node hash")?,
            );
        }
    }
    Ok(found)
}

/// Adds the leaves `(index, hash)` of `rows` to `found`.
fn insert_leaves(
    found: &mut HashMap<(u32, u64), Hash>,
    rows: Vec<(i64, Vec<u8>)>,
) -> Result<(), LedgerError> {
    for (idx, hash) in rows {
        found.insert((0, idx as u64), hash32(&hash, "leaf hash")?);
    }
    Ok(())
}

/// The interior nodes whose last leaf is one of `leaves`: those the leaves complete when pushed
/// in order (one index range per level, read as ranges), into `found` (emptied first; its
/// memory is reused, a page's nodes being thousands).
pub fn fetch_completed_by(
    conn: &mut PgConnection,
    leaves: std::ops::Range<u64>,
    found: &mut foldhash::HashMap<(u32, u64), Hash>,
) -> Result<(), LedgerError> {
    // One index range per level, OR-ed: the planner scans each range of the primary key (a
    // join against the list of ranges was planned as a scan of the whole table).
    let mut query = merkle_nodes::table
        .select((merkle_nodes::level, merkle_nodes::idx, merkle_nodes::hash))
        // Matches no node (levels start at 1): each level's range is OR-ed onto it.
        .filter(merkle_nodes::level.lt(0))
        .into_boxed();
    for level in 1..64u32 {
        let width = 1u64 << level;
        if width > leaves.end {
            break;
        }
        // Node i covers leaves i·w ..= (i+1)·w − 1: its last leaf is in `leaves` for these i.
        let (first, end) = ((leaves.start + 1).div_ceil(width) - 1, leaves.end / width);
        if first < end {
            query = query.or_filter(
                merkle_nodes::level
                    .eq(level as i16)
                    .and(merkle_nodes::idx.ge(first as i64))
                    .and(merkle_nodes::idx.lt(end as i64)),
            );
        }
    }
    let rows: Vec<(i16, i64, Vec<u8>)> = query.load(conn)?;
    found.clear();
    found.reserve(rows.len());
    for (level, idx, hash) in rows {
        found.insert((level as u32, idx as u64), hash32(&hash, "node hash")?);
    }
    Ok(())
}

/// Runs a tree computation in two passes: note the nodes it reads, fetch them, compute.
fn with_nodes<T>(
    conn: &mut PgConnection,
    compute: impl Fn(&dyn Fn(u32, u64) -> Result<Hash, ProofError>) -> Result<T, ProofError>,
) -> Result<T, TreeError> {
    let wishlist = NodeWishlist::default();
    compute(&|l, i| merkle::NodeSource::node(&wishlist, l, i))?;
    let nodes = fetch(conn, &wishlist.into_wanted())?;
    Ok(compute(&|l, i| merkle::NodeSource::node(&nodes, l, i))?)
}

/// Adapter so closures can serve as node sources.
struct Lookup<'a>(&'a dyn Fn(u32, u64) -> Result<Hash, ProofError>);

impl merkle::NodeSource for Lookup<'_> {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError> {
        (self.0)(level, index)
    }
}

fn check_size(conn: &mut PgConnection, size: u64) -> Result<(), TreeError> {
    let available = position::size(conn)?;
    if size > available {
        return Err(ProofError::SizeTooLarge { size, available }.into());
    }
    Ok(())
}

pub fn root(conn: &mut PgConnection, size: u64) -> Result<Hash, TreeError> {
    check_size(conn, size)?;
    with_nodes(conn, |get| merkle::root(&Lookup(get), size))
}

pub fn inclusion_proof(
    conn: &mut PgConnection,
    index: u64,
    size: u64,
) -> Result<(Hash, Vec<Hash>), TreeError> {
    check_size(conn, size)?;
    with_nodes(conn, |get| {
        let src = Lookup(get);
        Ok((
            merkle::root(&src, size)?,
            merkle::inclusion_proof(&src, index, size)?,
        ))
    })
}

pub fn consistency_proof(
    conn: &mut PgConnection,
    first: u64,
    second: u64,
) -> Result<(Hash, Hash, Vec<Hash>), TreeError> {
    check_size(conn, second)?;
    with_nodes(conn, |get| {
        let src = Lookup(get);
        Ok((
            merkle::root(&src, first)?,
            merkle::root(&src, second)?,
            merkle::consistency_proof(&src, first, second)?,
        ))
    })
}

/// The frontier of the stored tree of `size` entries.
pub fn frontier(conn: &mut PgConnection, size: u64) -> Result<Frontier, TreeError> {
    with_nodes(conn, |get| Frontier::at(&Lookup(get), size))
}

#[derive(Insertable)]
#[diesel(table_name = merkle_nodes)]
#[diesel(treat_none_as_default_value = false)]
struct NewNode {
    level: i16,
    idx: i64,
    hash: Vec<u8>,
}

fn node_rows(nodes: &[(u32, u64, Hash)]) -> Vec<NewNode> {
    nodes
        .iter()
        .map(|(l, i, h)| NewNode {
            level: *l as i16,
            idx: *i as i64,
            hash: h.to_vec(),
        })
        .collect()
}

/// Appends the interior nodes `(level, index, hash)` completed by newly appended entries. They
/// cannot exist yet; if one did, the statement fails and so does the append.
pub fn append_nodes(
    conn: &mut PgConnection,
    nodes: &[(u32, u64, Hash)],
) -> Result<(), LedgerError> {
    if !nodes.is_empty() {
        diesel::copy_from(merkle_nodes::table)
            .from_insertable(&node_rows(nodes))
            .execute(conn)?;
    }
    Ok(())
}

/// Inserts interior nodes `(level, index, hash)`, skipping those already stored.
fn insert_missing_nodes(
    conn: &mut PgConnection,
    nodes: &[(u32, u64, Hash)],
) -> Result<(), LedgerError> {
    for chunk in node_rows(nodes).chunks(INSERT_CHUNK) {
        diesel::insert_into(merkle_nodes::table)
            .values(chunk)
            .on_conflict_do_nothing()
            .execute(conn)?;
    }
    Ok(())
}

/// Builds the tree of a ledger written before the tree existed (entries, no interior nodes).
/// Returns how many nodes were added. A tree that is there but incomplete is never repaired:
/// nodes missing from it are a sign of tampering that `verify` must be able to name.
pub fn catch_up(conn: &mut PgConnection) -> Result<u64, TreeError> {
    let size = position::size(conn)?;
    let expected = size - u64::from(size.count_ones());
    let stored: i64 = merkle_nodes::table.count().get_result(conn)?;
    if stored as u64 == expected {
        return Ok(0);
    }
    if stored != 0 {
        return Err(TreeError::Incomplete {
            stored: stored as u64,
            size,
            expected,
        });
    }
    let mut frontier = Frontier::default();
    let mut added = 0u64;
    let mut next = 0i64;
    loop {
        let page: Vec<Vec<u8>> = ledger_entries::table
            .filter(ledger_entries::idx.ge(next))
            .order(ledger_entries::idx.asc())
            .limit(50_000)
            .select(ledger_entries::leaf_hash)
            .load(conn)?;
        if page.is_empty() {
            break;
        }
        let mut nodes = Vec::new();
        for leaf in &page {
            nodes.extend(frontier.push(hash32(leaf, "leaf hash")?));
        }
        added += nodes.len() as u64;
        insert_missing_nodes(conn, &nodes)?;
        next += page.len() as i64;
    }
    Ok(added)
}
