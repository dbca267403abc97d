//! A small real log for the tests: entry 0 registers roulette table R1 (signed by the operator
//! key), the others are its spins (signed by the table's key); the tiles, checkpoints and the
//! casino's verdict lines are made from them as a casino publishes them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use dozor_log::checkpoint::{Checkpoint, NoteSigner};
use dozor_log::cosignature::CosignatureSigner;
use dozor_log::entry::{format_time, Entry};
use dozor_log::merkle::{Hash, MemoryTree};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::RegistryHistory;
use dozor_log::tiles::{self, Tile, TileKind};
use dozor_log::Envelope;
use ed25519_dalek::SigningKey;
use serde_json::{json, Value};

pub const PLAN: &str = "69games-ziva-hra";
pub const ORIGIN: &str = "casino.example/ledger";

pub struct TestLog {
    pub operator: NoteSigner,
    pub witness: CosignatureSigner,
    table_key: SigningKey,
    history: RegistryHistory,
    plans: rules::PlanBook,
    pub entries: Vec<Vec<u8>>,
    pub leaves: Vec<Hash>,
    /// The casino's verdict of each entry (none: not a round).
    pub verdicts: Vec<Option<Value>>,
}

pub fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

impl TestLog {
    /// Entry 0: table R1 registered with its key.
    pub fn new() -> TestLog {
        let operator = NoteSigner::new(ORIGIN, SigningKey::from_bytes(&[5; 32])).unwrap();
        let witness =
            CosignatureSigner::new("witness.example", SigningKey::from_bytes(&[6; 32])).unwrap();
        let table_key = SigningKey::from_bytes(&[1; 32]);
        let mut log = TestLog {
            operator,
            witness,
            table_key,
            history: RegistryHistory::default(),
            plans: rules::PlanBook::builtin().unwrap(),
            entries: Vec::new(),
            leaves: Vec::new(),
            verdicts: Vec::new(),
        };
        let event = RegistryEvent::TableRegistered {
            actor: Some("cli:root".into()),
            table_id: "R1".into(),
            previous: None,
            game: "roulette".into(),
            location: "Praha".into(),
            plan_id: PLAN.into(),
            wheel_layout: None,
            limits: None,
            key_id: dozor_log::keys::key_id(&log.table_key.verifying_key()),
            public_key: dozor_log::keys::encode_public_key(&log.table_key.verifying_key()),
            valid_from: format_time(start()),
        };
        let envelope = Envelope::sign(
            serde_json::to_value(&event).unwrap(),
            log.operator.signing_key(),
        )
        .unwrap();
        let entry = log.append(&envelope);
        let signer = dozor_log::keys::key_id(&log.operator.signing_key().verifying_key());
        log.history
            .apply(0, entry.received_at, &signer, &event)
            .unwrap();
        log.verdicts.push(None);
        log
    }

    fn received_at(index: u64) -> DateTime<Utc> {
        start() + Duration::minutes(index as i64)
    }

    fn append(&mut self, envelope: &Envelope) -> Entry {
        let index = self.entries.len() as u64;
        let prev = self
            .leaves
            .last()
            .copied()
            .unwrap_or(dozor_log::GENESIS_PREV_HASH);
        let entry = Entry::build(index, Self::received_at(index), prev, envelope).unwrap();
        self.entries.push(entry.bytes.clone());
        self.leaves.push(entry.hash);
        entry
    }

    /// A spin of R1 landing on `number`, a straight bet of 10 000 h on 17 paid `paid_h`.
    pub fn spin(&mut self, number: u8, paid_h: i64) {
        self.spin_of(json!({"number": number, "result": "number"}), paid_h);
    }

    /// A no-spin of R1 (too few revolutions): the straight bet's 10 000 h handed back.
    pub fn void_spin(&mut self) {
        self.spin_of(
            json!({"result": "void", "reason": "too_few_revolutions"}),
            10_000,
        );
    }

    fn spin_of(&mut self, outcome: Value, paid_h: i64) {
        let index = self.entries.len() as u64;
        let seq_no = index;
        let played_at = format_time(Self::received_at(index) - Duration::seconds(30));
        let record = json!({"type": "round", "game": "roulette", "table_id": "R1",
            "seq_no": seq_no, "plan_id": PLAN, "played_at": played_at,
            "outcome": outcome,
            "bets": [{"bet_id": "b1", "kind": "straight", "numbers": [17], "paid_h": paid_h,
                      "player": "seat-1", "stake_h": 10_000}]});
        let text = String::from_utf8(dozor_log::canonical::canonicalize(&record).unwrap()).unwrap();
        let header = rules::RecordHeader::read_json(&text).unwrap();
        let round = dozor_log::judge::read_round(&header, &text).unwrap();
        let verdict = dozor_log::judge::judge(
            &round,
            index,
            |p| self.plans.get(p),
            &self.history,
            |j| {
                let findings: Vec<Value> = j
                    .verdict
                    .findings
                    .iter()
                    .map(|f| {
                        json!({"kind": f.kind.as_str(), "amount_h": f.amount_h,
                        "bet_id": f.bet_ids.as_ref().and_then(|b| b.first())})
                    })
                    .collect();
                json!({"plan_id": j.verdict.plan_id, "rules_version": j.verdict.rules_version,
                    "void": j.verdict.void, "stakes_h": j.verdict.stakes_h,
                    "expected_paid_h": j.verdict.expected_paid_h, "paid_h": j.verdict.paid_h,
                    "findings": findings})
            },
        )
        .unwrap();
        let envelope = Envelope::sign(record, &self.table_key).unwrap();
        self.append(&envelope);
        self.verdicts.push(Some(verdict));
    }

    /// Entry `len`: the log handed to `new` by the key holding it (the last registry event being
    /// entry 0); `new` signs the checkpoints from then on. The checkpoint of the tree ending with
    /// the rotation, as the old key signs it (naming the new key), cosigned.
    pub fn rotate(&mut self, new: NoteSigner) -> String {
        let index = self.entries.len() as u64;
        let event = RegistryEvent::LogRotated {
            previous: Some(0),
            from_key: self.operator.verifier().to_string(),
            to_key: new.verifier().to_string(),
            reason: "the key's holder left".into(),
            actor: "cli:root".into(),
        };
        let envelope = Envelope::sign(
            serde_json::to_value(&event).unwrap(),
            self.operator.signing_key(),
        )
        .unwrap();
        let entry = self.append(&envelope);
        let signer = dozor_log::keys::key_id(&self.operator.signing_key().verifying_key());
        self.history
            .apply(index, entry.received_at, &signer, &event)
            .unwrap();
        self.verdicts.push(None);
        let body = Checkpoint {
            origin: self.operator.name().into(),
            size: index + 1,
            root: self.root(index + 1),
        };
        let text = body.rotation_text(&new.verifier());
        let mut note = self.operator.sign(&text).unwrap();
        note.push_str(&self.witness.cosign(&text, 1_700_000_000));
        self.operator = new;
        note
    }

    /// Entry `len`: `event`, signed by the operator key; its index.
    pub fn registry_event(&mut self, event: &RegistryEvent) -> u64 {
        let index = self.entries.len() as u64;
        let envelope = Envelope::sign(
            serde_json::to_value(event).unwrap(),
            self.operator.signing_key(),
        )
        .unwrap();
        let entry = self.append(&envelope);
        let signer = dozor_log::keys::key_id(&self.operator.signing_key().verifying_key());
        self.history
            .apply(index, entry.received_at, &signer, event)
            .unwrap();
        self.verdicts.push(None);
        index
    }

    /// From now on R1's records are signed by the key made from `seed`, whether the log added it
    /// or not.
    pub fn sign_with(&mut self, seed: u8) {
        self.table_key = SigningKey::from_bytes(&[seed; 32]);
    }

    /// Entry `len`: the key made from `seed` added to R1, valid from the entry's time; R1's
    /// records are signed by it from then on. The entry's index.
    pub fn add_table_key(&mut self, seed: u8) -> u64 {
        self.sign_with(seed);
        let key = self.table_key.verifying_key();
        let index = self.entries.len() as u64;
        self.registry_event(&RegistryEvent::TableKeyAdded {
            table_id: "R1".into(),
            previous: Some(0),
            key_id: dozor_log::keys::key_id(&key),
            public_key: dozor_log::keys::encode_public_key(&key),
            valid_from: format_time(Self::received_at(index)),
            actor: Some("cli:root".into()),
        })
    }

    /// Entry `len`: the record of entry `index` appended again as it was signed (a table signs
    /// its record, not the record's place in the log), with the casino's verdict of it.
    pub fn replay(&mut self, index: usize) {
        let entry: Value = serde_json::from_slice(&self.entries[index]).unwrap();
        let envelope: Envelope = serde_json::from_value(entry["envelope"].clone()).unwrap();
        self.append(&envelope);
        self.verdicts.push(self.verdicts[index].clone());
    }

    /// `n` spins, one in ten overpaid by 10 000 h.
    pub fn spins(&mut self, n: usize) {
        for k in 0..n {
            if k % 10 == 3 {
                self.spin(17, 370_000);
            } else {
                self.spin((k % 37) as u8, if k % 37 == 17 { 360_000 } else { 0 });
            }
        }
    }

    pub fn root(&self, size: u64) -> Hash {
        let tree = MemoryTree::from_leaves(&self.leaves[..size as usize]);
        dozor_log::merkle::root(&tree, size).unwrap()
    }

    /// The checkpoint of the first `size` entries, signed and cosigned.
    pub fn checkpoint(&self, size: u64) -> String {
        let body = Checkpoint {
            origin: self.operator.name().into(),
            size,
            root: self.root(size),
        };
        let mut note = self.operator.sign(&body.text()).unwrap();
        note.push_str(&self.witness.cosign(&body.text(), 1_700_000_000));
        note
    }

    /// Every file a casino publishes for a tree of `size` entries, by path.
    pub fn publish(&self, size: u64) -> HashMap<String, Vec<u8>> {
        let mut files = HashMap::new();
        let tree = MemoryTree::from_leaves(&self.leaves[..size as usize]);
        for tile in tiles::tiles_between(0, size) {
            files.insert(tile.path(), self.tile_bytes(&tree, &tile));
            if tile.kind == TileKind::Entries {
                files.insert(
                    crate::tile_math::verdicts_path(&tile),
                    self.verdict_lines(&tile),
                );
            }
        }
        files.insert("checkpoint".into(), self.checkpoint(size).into_bytes());
        files
    }

    fn tile_bytes(&self, tree: &MemoryTree, tile: &Tile) -> Vec<u8> {
        use dozor_log::merkle::NodeSource as _;
        match tile.kind {
            TileKind::Entries => tiles::encode_bundle(
                tile.positions()
                    .map(|i| self.entries[i as usize].as_slice()),
            )
            .unwrap(),
            TileKind::Hashes(level) => {
                let level = u32::from(level) * tiles::TILE_HEIGHT;
                let hashes: Vec<Hash> = tile
                    .positions()
                    .map(|i| tree.node(level, i).unwrap())
                    .collect();
                tiles::encode_hashes(&hashes)
            }
        }
    }

    pub fn verdict_lines(&self, bundle: &Tile) -> Vec<u8> {
        let mut text = String::new();
        for index in bundle.positions() {
            let line = json!({"index": index, "verdict": self.verdicts[index as usize]});
            text.push_str(&line.to_string());
            text.push('\n');
        }
        text.into_bytes()
    }

    pub fn operator_keys(&self) -> Vec<dozor_log::checkpoint::NoteVerifier> {
        vec![self.operator.verifier()]
    }

    pub fn witnesses(&self) -> Vec<dozor_log::cosignature::CosignatureVerifier> {
        vec![self.witness.verifier()]
    }
}
