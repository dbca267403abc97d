//! Published RFC 6962 vectors (the Certificate Transparency / transparency-dev test data) and
//! property tests over random trees.

use rand::{Rng as _, SeedableRng as _};

use super::*;
use crate::entry::leaf_hash;

fn h(hex_str: &str) -> Hash {
    hex::decode(hex_str).unwrap().try_into().unwrap()
}

/// The eight reference leaves.
fn leaves() -> Vec<Hash> {
    [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
    .iter()
    .map(|d| leaf_hash(&hex::decode(d).unwrap()))
    .collect()
}

const ROOTS: [&str; 9] = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

#[test]
fn roots_match_the_reference_for_every_size() {
    let all = leaves();
    for size in 0..=8u64 {
        let tree = MemoryTree::from_leaves(&all[..size as usize]);
        assert_eq!(
            root(&tree, size).unwrap(),
            h(ROOTS[size as usize]),
            "size {size}"
        );
        let mut frontier = Frontier::default();
        for leaf in &all[..size as usize] {
            frontier.push(*leaf);
        }
        assert_eq!(
            frontier.root(),
            h(ROOTS[size as usize]),
            "incremental size {size}"
        );
    }
}

#[test]
fn inclusion_proofs_match_the_reference() {
    // (index, size, proof) — indexes 0-based.
    let vectors: [(u64, u64, &[&str]); 4] = [
        (
            0,
            8,
            &[
                "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
            ],
        ),
        (
            5,
            8,
            &[
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            ],
        ),
        (
            2,
            3,
            &["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"],
        ),
        (
            1,
            5,
            &[
                "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            ],
        ),
    ];
    let all = leaves();
    let tree = MemoryTree::from_leaves(&all);
    for (index, size, expected) in vectors {
        let proof = inclusion_proof(&tree, index, size).unwrap();
        let expected: Vec<Hash> = expected.iter().map(|x| h(x)).collect();
        assert_eq!(proof, expected, "inclusion {index} in {size}");
        assert!(verify_inclusion(
            index,
            size,
            &all[index as usize],
            &proof,
            &h(ROOTS[size as usize])
        ));
        assert!(!verify_inclusion(
            index,
            size,
            &all[index as usize],
            &proof,
            &h(ROOTS[0])
        ));
    }
}

#[test]
fn consistency_proofs_match_the_reference() {
    let vectors: [(u64, u64, &[&str]); 4] = [
        (1, 1, &[]),
        (
            1,
            8,
            &[
                "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
            ],
        ),
        (
            6,
            8,
            &[
                "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            ],
        ),
        (
            2,
            5,
            &[
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            ],
        ),
    ];
    let tree = MemoryTree::from_leaves(&leaves());
    for (first, second, expected) in vectors {
        let proof = consistency_proof(&tree, first, second).unwrap();
        let expected: Vec<Hash> = expected.iter().map(|x| h(x)).collect();
        assert_eq!(proof, expected, "consistency {first} -> {second}");
        let (r1, r2) = (h(ROOTS[first as usize]), h(ROOTS[second as usize]));
        assert!(verify_consistency(first, second, &proof, &r1, &r2));
        if first != second {
            assert!(!verify_consistency(first, second, &proof, &r2, &r1));
        }
    }
}

fn flip(hash: &Hash, bit: usize) -> Hash {
    let mut out = *hash;
    out[bit / 8] ^= 1 << (bit % 8);
    out
}

#[test]
fn every_proof_of_random_trees_verifies_and_no_flipped_bit_does() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6962);
    for _ in 0..25 {
        let n = rng.gen_range(1..=70u64);
        let all: Vec<Hash> = (0..n).map(|i| leaf_hash(&[i as u8, rng.gen()])).collect();
        let tree = MemoryTree::from_leaves(&all);
        let roots: Vec<Hash> = (0..=n).map(|s| root(&tree, s).unwrap()).collect();
        for size in 1..=n {
            for index in 0..size {
                let proof = inclusion_proof(&tree, index, size).unwrap();
                let leaf = &all[index as usize];
                assert!(verify_inclusion(
                    index,
                    size,
                    leaf,
                    &proof,
                    &roots[size as usize]
                ));
                let bit = rng.gen_range(0..256);
                assert!(!verify_inclusion(
                    index,
                    size,
                    &flip(leaf, bit),
                    &proof,
                    &roots[size as usize]
                ));
                if let Some(i) = (!proof.is_empty()).then(|| rng.gen_range(0..proof.len())) {
                    let mut bad = proof.clone();
                    bad[i] = flip(&bad[i], bit);
                    assert!(!verify_inclusion(
                        index,
                        size,
                        leaf,
                        &bad,
                        &roots[size as usize]
                    ));
                }
                if size > 1 {
                    assert!(
                        !verify_inclusion(
                            (index + 1) % size,
                            size,
                            leaf,
                            &proof,
                            &roots[size as usize]
                        ) || all[((index + 1) % size) as usize] == *leaf
                    );
                }
            }
            for first in 1..=size {
                let proof = consistency_proof(&tree, first, size).unwrap();
                let (r1, r2) = (&roots[first as usize], &roots[size as usize]);
                assert!(
                    verify_consistency(first, size, &proof, r1, r2),
                    "{first} -> {size}"
                );
                if first < size {
                    let bit = rng.gen_range(0..256);
                    assert!(!verify_consistency(first, size, &proof, &flip(r1, bit), r2));
                    assert!(!verify_consistency(first, size, &proof, r1, &flip(r2, bit)));
                    let i = rng.gen_range(0..proof.len());
                    let mut bad = proof.clone();
                    bad[i] = flip(&bad[i], bit);
                    assert!(!verify_consistency(first, size, &bad, r1, r2));
                }
            }
        }
    }
}

#[test]
fn frontier_emits_every_perfect_node_and_restarts_from_storage() {
    let all: Vec<Hash> = (0..37u8).map(|i| leaf_hash(&[i])).collect();
    let tree = MemoryTree::from_leaves(&all);
    let mut frontier = Frontier::default();
    let mut created = Vec::new();
    for leaf in &all[..20] {
        created.extend(frontier.push(*leaf));
    }
    // n − popcount(n) interior perfect nodes: 20 − 2 = 18.
    assert_eq!(created.len(), 18);
    for (level, index, hash) in &created {
        assert_eq!(tree.node(*level, *index).unwrap(), *hash);
    }
    let mut resumed = Frontier::at(&tree, 20).unwrap();
    // 20 = 16 + 4: the roots of leaves 0..16 and 16..20, largest first; from them alone the
    // tree goes on as from storage.
    let roots = resumed.subtree_roots();
    assert_eq!(roots, [tree.node(4, 0).unwrap(), tree.node(2, 4).unwrap()]);
    let mut from_roots = Frontier::from_subtree_roots(20, &roots).unwrap();
    assert!(Frontier::from_subtree_roots(21, &roots).is_none());
    for leaf in &all[20..] {
        resumed.push(*leaf);
        from_roots.push(*leaf);
    }
    assert_eq!(resumed.root(), root(&tree, 37).unwrap());
    assert_eq!(from_roots.root(), resumed.root());
}

#[test]
fn bad_requests_are_errors() {
    let tree = MemoryTree::from_leaves(&leaves());
    // Each request with the error it is refused with (the variant; its fields are not compared).
    let bad_range = ProofError::BadRange {
        first: 0,
        second: 0,
    };
    let cases = [
        (
            inclusion_proof(&tree, 8, 8),
            ProofError::IndexOutOfRange { index: 0, size: 0 },
        ),
        (consistency_proof(&tree, 0, 8), bad_range.clone()),
        (consistency_proof(&tree, 5, 4), bad_range),
        (
            inclusion_proof(&tree, 3, 9),
            ProofError::MissingNode { level: 0, index: 0 },
        ),
    ];
    for (found, expected) in cases {
        let error = found.unwrap_err();
        assert_eq!(
            std::mem::discriminant(&error),
            std::mem::discriminant(&expected),
            "{error}"
        );
    }
}

#[test]
fn a_range_and_its_outside_nodes_give_the_root_and_any_changed_leaf_does_not() {
    let all: Vec<Hash> = (0..53u8).map(|i| leaf_hash(&[i, 1])).collect();
    let tree = MemoryTree::from_leaves(&all);
    for (start, len, size) in [
        (0u64, 53u64, 53u64),
        (10, 20, 53),
        (17, 1, 40),
        (0, 0, 8),
        (31, 9, 40),
        (40, 0, 53),
    ] {
        let wanted = range_nodes_needed(start, len, size).unwrap();
        let outside: HashMap<(u32, u64), Hash> = wanted
            .iter()
            .map(|(l, i)| ((*l, *i), tree.node(*l, *i).unwrap()))
            .collect();
        // Nothing inside the run is asked for: every leaf of the run is checked.
        assert!(wanted
            .iter()
            .all(|(l, i)| (i + 1) << l <= start || i << l >= start + len));
        let run = &all[start as usize..(start + len) as usize];
        let src = RangeSource {
            start,
            leaves: run,
            outside: &outside,
        };
        assert_eq!(
            root(&src, size).unwrap(),
            root(&tree, size).unwrap(),
            "{start}+{len} of {size}"
        );
        if len > 0 {
            let mut bad = run.to_vec();
            bad[(len / 2) as usize] = flip(&bad[(len / 2) as usize], 3);
            let src = RangeSource {
                start,
                leaves: &bad,
                outside: &outside,
            };
            assert_ne!(root(&src, size).unwrap(), root(&tree, size).unwrap());
        }
    }
}
