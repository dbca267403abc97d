//! RFC 6962 / RFC 9162 Merkle tree over the ledger entries: hashes, proofs and their verification.
//!
//! Proof generation reads hashes of *perfect* subtrees (2^level leaves starting at a multiple of
//! 2^level) from a [`NodeSource`]; storage keeps exactly those, so any root, inclusion proof or
//! consistency proof for any past tree size can be built from O(log² n) stored hashes.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

pub type Hash = [u8; 32];

/// SHA-256 of the empty string: the root of the empty tree.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// A hash written as lower-case hex (64 digits), as registry events write them.
pub fn parse_lower_hex(text: &str) -> Option<Hash> {
    if text.len() != 64 || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    hex::decode(text).ok()?.try_into().ok()
}

/// Interior node: SHA-256(0x01 ‖ left ‖ right).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([1u8]);
    hasher.update(left);
    hasher.update(right);
    hasher.finalize().into()
}

/// Largest power of two strictly below `n` (n ≥ 2): where RFC 6962 splits a tree of n leaves.
fn split(n: u64) -> u64 {
    1u64 << (63 - (n - 1).leading_zeros())
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("index {index} is not below tree size {size}")]
    IndexOutOfRange { index: u64, size: u64 },
    #[error("tree size {size} is larger than the tree ({available} entries)")]
    SizeTooLarge { size: u64, available: u64 },
    #[error("consistency needs 0 < first ({first}) <= second ({second})")]
    BadRange { first: u64, second: u64 },
    #[error("node ({level}, {index}) is not available")]
    MissingNode { level: u32, index: u64 },
}

/// Hashes of perfect subtrees: `node(level, index)` covers leaves
/// `[index·2^level, (index+1)·2^level)`; level 0 is the leaf hashes.
pub trait NodeSource {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError>;
}

/// Hash of the RFC 6962 subtree over leaves `[start, end)`.
pub fn subtree_hash(src: &impl NodeSource, start: u64, end: u64) -> Result<Hash, ProofError> {
    let size = end - start;
    if size.is_power_of_two() && start.is_multiple_of(size) {
        return src.node(size.trailing_zeros(), start / size);
    }
    let k = split(size);
    Ok(node_hash(
        &subtree_hash(src, start, start + k)?,
        &subtree_hash(src, start + k, end)?,
    ))
}

/// Root of the tree of the first `size` leaves.
pub fn root(src: &impl NodeSource, size: u64) -> Result<Hash, ProofError> {
    if size == 0 {
        return Ok(empty_root());
    }
    subtree_hash(src, 0, size)
}

/// RFC 6962 audit path PATH(index, D[0:size]).
pub fn inclusion_proof(
    src: &impl NodeSource,
    index: u64,
    size: u64,
) -> Result<Vec<Hash>, ProofError> {
    if index >= size {
        return Err(ProofError::IndexOutOfRange { index, size });
    }
    let mut proof = Vec::new();
    let (mut start, mut end) = (0u64, size);
    // Walk down from the root, collecting the sibling subtrees; the path is leaf-to-root.
    let mut siblings = Vec::new();
    while end - start > 1 {
        let k = split(end - start);
        if index < start + k {
            siblings.push((start + k, end));
            end = start + k;
        } else {
            siblings.push((start, start + k));
            start += k;
        }
    }
    for (s, e) in siblings.into_iter().rev() {
        proof.push(subtree_hash(src, s, e)?);
    }
    Ok(proof)
}

/// RFC 6962 consistency proof PROOF(first, D[0:second]).
pub fn consistency_proof(
    src: &impl NodeSource,
    first: u64,
    second: u64,
) -> Result<Vec<Hash>, ProofError> {
    if first == 0 || first > second {
        return Err(ProofError::BadRange { first, second });
    }
    if first == second {
        return Ok(Vec::new());
    }
    // SUBPROOF(m, D[start:end], b), iteratively; the proof is built leaf-side first.
    let mut nodes = Vec::new();
    let (mut m, mut start, mut end, mut complete) = (first, 0u64, second, true);
    loop {
        let size = end - start;
        if m == size {
            if !complete {
                nodes.push((start, end));
            }
            break;
        }
        let k = split(size);
        if m <= k {
            nodes.push((start + k, end));
            end = start + k;
        } else {
            nodes.push((start, start + k));
            m -= k;
            start += k;
            complete = false;
        }
    }
    nodes
        .into_iter()
        .rev()
        .map(|(s, e)| subtree_hash(src, s, e))
        .collect()
}

/// The two node positions a proof's verification walks up the tree with (RFC 9162's `fn` and
/// `sn`): the first tree's or the leaf's, and the last node's.
struct Walk {
    fnode: u64,
    snode: u64,
}

impl Walk {
    /// The next proof hash is a left sibling: `fn` is a right child or the last node of its level.
    #[inline]
    fn hashes_from_the_left(&self) -> bool {
        self.fnode & 1 == 1 || self.fnode == self.snode
    }

    /// Up past the levels where `fn` is a left child (no proof hash on them), short of the root.
    #[inline]
    fn climb_left_children(&mut self) {
        while self.fnode & 1 == 0 && self.fnode != 0 {
            self.up();
        }
    }

    /// One level up.
    #[inline]
    fn up(&mut self) {
        self.fnode >>= 1;
        self.snode >>= 1;
    }
}

/// RFC 9162 §2.1.3.2: does `proof` show `leaf` at `index` in the tree of `size` with `root`?
pub fn verify_inclusion(index: u64, size: u64, leaf: &Hash, proof: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let mut walk = Walk {
        fnode: index,
        snode: size - 1,
    };
    let mut r = *leaf;
    for p in proof {
        if walk.snode == 0 {
            return false;
        }
        if walk.hashes_from_the_left() {
            r = node_hash(p, &r);
            walk.climb_left_children();
        } else {
            r = node_hash(&r, p);
        }
        walk.up();
    }
    walk.snode == 0 && r == *root
}

/// RFC 9162 §2.1.4.2: is the tree of `second` leaves with `second_root` an extension of the tree
/// of `first` leaves with `first_root`?
pub fn verify_consistency(
    first: u64,
    second: u64,
    proof: &[Hash],
    first_root: &Hash,
    second_root: &Hash,
) -> bool {
    if first == 0 || first > second {
        return false;
    }
    if first == second {
        return proof.is_empty() && first_root == second_root;
    }
    let mut path: Vec<Hash> = Vec::with_capacity(proof.len() + 1);
    if first.is_power_of_two() {
        path.push(*first_root);
    }
    path.extend_from_slice(proof);
    let Some((start, rest)) = path.split_first() else {
        return false;
    };
    let mut walk = Walk {
        fnode: first - 1,
        snode: second - 1,
    };
    while walk.fnode & 1 == 1 {
        walk.up();
    }
    let (mut fr, mut sr) = (*start, *start);
    for c in rest {
        if walk.snode == 0 {
            return false;
        }
        if walk.hashes_from_the_left() {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            walk.climb_left_children();
        } else {
            sr = node_hash(&sr, c);
        }
        walk.up();
    }
    walk.snode == 0 && fr == *first_root && sr == *second_root
}

/// Perfect-subtree nodes that become complete when leaves are appended, kept as the "right
/// frontier" of the tree (one pending left sibling per level).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// `pending[level]`: the complete left subtree at that level waiting for its right sibling.
    pending: Vec<Option<Hash>>,
}

impl Frontier {
    /// The frontier of a tree of `size` leaves, from the perfect subtrees that decompose it.
    pub fn at(src: &impl NodeSource, size: u64) -> Result<Frontier, ProofError> {
        let mut pending = vec![None; 64];
        let mut start = 0u64;
        for level in (0..64u32).rev() {
            if size & (1u64 << level) != 0 {
                pending[level as usize] = Some(src.node(level, start >> level)?);
                start += 1u64 << level;
            }
        }
        Ok(Frontier { size, pending })
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The roots of the perfect subtrees that make up the tree, largest first.
    pub fn subtree_roots(&self) -> Vec<Hash> {
        self.pending.iter().rev().flatten().copied().collect()
    }

    /// The frontier of a tree of `size` leaves from its perfect subtrees' roots, largest first
    /// (as [`Frontier::subtree_roots`] gives them); none if their number is not `size`'s.
    pub fn from_subtree_roots(size: u64, roots: &[Hash]) -> Option<Frontier> {
        if roots.len() != size.count_ones() as usize {
            return None;
        }
        let mut pending = vec![None; 64];
        let mut next = roots.iter();
        for level in (0..64usize).rev() {
            if size & (1u64 << level) != 0 {
                pending[level] = Some(*next.next()?);
            }
        }
        Some(Frontier { size, pending })
    }

    /// Appends a leaf; returns the new complete nodes `(level, index, hash)`, level ≥ 1.
    pub fn push(&mut self, leaf: Hash) -> Vec<(u32, u64, Hash)> {
        if self.pending.len() < 64 {
            self.pending.resize(64, None);
        }
        let mut created = Vec::new();
        let mut hash = leaf;
        let mut level = 0u32;
        let mut index = self.size;
        while let Some(left) = self.pending[level as usize].take() {
            hash = node_hash(&left, &hash);
            level += 1;
            index >>= 1;
            created.push((level, index, hash));
        }
        self.pending[level as usize] = Some(hash);
        self.size += 1;
        created
    }

    /// Root of the tree so far.
    pub fn root(&self) -> Hash {
        let mut acc: Option<Hash> = None;
        for slot in self.pending.iter().flatten() {
            acc = Some(match acc {
                None => *slot,
                Some(right) => node_hash(slot, &right),
            });
        }
        acc.unwrap_or_else(empty_root)
    }
}

/// Nodes held in memory (tests, offline verification).
#[derive(Debug, Clone, Default)]
pub struct MemoryTree {
    levels: Vec<Vec<Hash>>,
}

impl MemoryTree {
    pub fn from_leaves(leaves: &[Hash]) -> MemoryTree {
        let mut levels = vec![leaves.to_vec()];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let below = levels.last().map(Vec::as_slice).unwrap_or_default();
            let above: Vec<Hash> = below
                .chunks_exact(2)
                .map(|pair| node_hash(&pair[0], &pair[1]))
                .collect();
            levels.push(above);
        }
        MemoryTree { levels }
    }

    pub fn size(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }
}

impl NodeSource for MemoryTree {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError> {
        self.levels
            .get(level as usize)
            .and_then(|l| l.get(index as usize))
            .copied()
            .ok_or(ProofError::MissingNode { level, index })
    }
}

/// Records which nodes a computation needs (first pass), so storage can fetch them in one query.
#[derive(Debug, Default)]
pub struct NodeWishlist {
    wanted: std::cell::RefCell<Vec<(u32, u64)>>,
}

impl NodeWishlist {
    pub fn into_wanted(self) -> Vec<(u32, u64)> {
        let mut wanted = self.wanted.into_inner();
        wanted.sort_unstable();
        wanted.dedup();
        wanted
    }
}

impl NodeSource for NodeWishlist {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError> {
        self.wanted.borrow_mut().push((level, index));
        Ok([0u8; 32])
    }
}

/// Nodes fetched for a computation (second pass).
impl NodeSource for HashMap<(u32, u64), Hash> {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError> {
        self.get(&(level, index))
            .copied()
            .ok_or(ProofError::MissingNode { level, index })
    }
}

/// A tree known through a contiguous run of leaves `[start, start + leaves.len())` plus the
/// hashes of the perfect subtrees outside that run. Nodes inside the run are computed from the
/// leaves, so a root checked through this source checks every leaf of the run.
pub struct RangeSource<'a, S: NodeSource> {
    pub start: u64,
    pub leaves: &'a [Hash],
    /// Hashes of subtrees outside the run.
    pub outside: &'a S,
}

impl<S: NodeSource> NodeSource for RangeSource<'_, S> {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError> {
        let first = index << level;
        let last = first + (1u64 << level); // exclusive
        let end = self.start + self.leaves.len() as u64;
        if last <= self.start || first >= end {
            return self.outside.node(level, index);
        }
        if level == 0 {
            return Ok(self.leaves[(first - self.start) as usize]);
        }
        // Inside or straddling the run: build from the two halves.
        Ok(node_hash(
            &self.node(level - 1, 2 * index)?,
            &self.node(level - 1, 2 * index + 1)?,
        ))
    }
}

/// The outside-the-run subtree hashes a [`RangeSource`] needs to compute the root of `size`.
pub fn range_nodes_needed(start: u64, len: u64, size: u64) -> Result<Vec<(u32, u64)>, ProofError> {
    let wishlist = NodeWishlist::default();
    let leaves = vec![[0u8; 32]; len as usize];
    root(
        &RangeSource {
            start,
            leaves: &leaves,
            outside: &wishlist,
        },
        size,
    )?;
    Ok(wishlist.into_wanted())
}

#[cfg(test)]
mod tests;
