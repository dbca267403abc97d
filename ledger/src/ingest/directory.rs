//! Registered tables and their keys, as the ingest path looks them up.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;

use super::error::IngestError;
use crate::storage::connection::PgPool;
use crate::storage::models::GamingTableRow;
use crate::storage::registry::{self, KeyValidity};
use dozor_log::registry_history::{HistoricApiKey, RegistryHistory};
use dozor_log::strict_signature::StrictKey;

/// Registered tables, and the table keys as the ledger's operator-signed registry events give
/// them (never the `table_keys` rows, which the database's writer role could add to). Events
/// are read as a key is not found, or after this server recorded a revocation; revocations are
/// checked again inside the append transaction.
pub struct Directory {
    tables: RwLock<HashMap<String, GamingTableRow>>,
    registry: RwLock<RegistryHistory>,
    /// Operator keys that sign registry events, by key id.
    operators: HashMap<String, VerifyingKey>,
    stale: AtomicBool,
    /// Each table key's precomputed multiples, built at its first record (registered keys only,
    /// so as many as the registry holds).
    strict_keys: RwLock<HashMap<[u8; 32], Arc<StrictKey>>>,
}

impl Directory {
    pub fn new(operators: impl IntoIterator<Item = VerifyingKey>) -> Directory {
        Directory {
            tables: RwLock::default(),
            registry: RwLock::default(),
            operators: operators
                .into_iter()
                .map(|k| (dozor_log::keys::key_id(&k), k))
                .collect(),
            stale: AtomicBool::new(true),
            strict_keys: RwLock::default(),
        }
    }

    /// `key` ready for ingest's signature check.
    pub fn strict_key(&self, key: &VerifyingKey) -> Result<Arc<StrictKey>, IngestError> {
        if let Some(found) = self.strict_keys.read()?.get(key.as_bytes()) {
            return Ok(Arc::clone(found));
        }
        let made = Arc::new(StrictKey::new(key));
        self.strict_keys
            .write()?
            .insert(key.to_bytes(), Arc::clone(&made));
        Ok(made)
    }

    pub fn table(
        &self,
        pool: &PgPool,
        table_id: &str,
    ) -> Result<Option<GamingTableRow>, IngestError> {
        if let Some(t) = self.tables.read()?.get(table_id) {
            return Ok(Some(t.clone()));
        }
        let found = registry::find_table(&mut *pool.get()?, table_id)?;
        Ok(found.map(|t| {
            self.remember_table(&t.table);
            t.table
        }))
    }

    pub fn key(&self, pool: &PgPool, key_id: &str) -> Result<Option<KeyValidity>, IngestError> {
        if !self.stale.load(Ordering::Acquire) {
            if let Some(found) = self.known_key(key_id)? {
                return Ok(Some(found));
            }
        }
        self.follow(pool)?;
        self.known_key(key_id)
    }

    fn known_key(&self, key_id: &str) -> Result<Option<KeyValidity>, IngestError> {
        let registry = self.registry.read()?;
        Ok(registry.table_key(key_id).map(|k| KeyValidity {
            key_id: k.key_id.clone(),
            table_id: k.table_id.clone(),
            public_key: k.key,
            valid_from: k.valid_from,
            revoked_at: k.revocation.as_ref().map(|r| r.revoked_at),
        }))
    }

    /// The API key whose token hashes to `token_sha256`, as the ledger's operator-signed
    /// registry events give it (never the `api_keys` rows, which any writer of the database
    /// could add to), after reading the events appended since the last read: a revocation made
    /// from the command line counts from the next lookup.
    pub fn api_key(
        &self,
        pool: &PgPool,
        token_sha256: &[u8; 32],
    ) -> Result<Option<HistoricApiKey>, IngestError> {
        self.follow(pool)?;
        let registry = self.registry.read()?;
        Ok(registry.api_keys().by_token(token_sha256).cloned())
    }

    /// Every API key ever created, oldest first, as the ledger's registry events give them.
    pub fn api_keys(&self, pool: &PgPool) -> Result<Vec<HistoricApiKey>, IngestError> {
        self.follow(pool)?;
        let registry = self.registry.read()?;
        Ok(registry.api_keys().all().into_iter().cloned().collect())
    }

    /// From when a table plays under dozor, as its registration event says (`None` if the
    /// events read so far do not register it).
    pub fn registered_from(&self, table_id: &str) -> Result<Option<DateTime<Utc>>, IngestError> {
        let registry = self.registry.read()?;
        Ok(registry.table(table_id).map(|t| t.registered_from))
    }

    /// The table `round` is judged on, as the registry events read so far give it (read again
    /// first if they do not know the table), and the last of those events: the writer judges
    /// the round again if the table's limits changed after it.
    pub fn table_setup(
        &self,
        pool: &PgPool,
        plan: &rules::Plan,
        round: &rules::Round,
    ) -> Result<(rules::TableSetup, Option<u64>), IngestError> {
        if self.registry.read()?.table(round.table_id()).is_none() {
            self.follow(pool)?;
        }
        let registry = self.registry.read()?;
        let setup = registry.table_setup(plan, round, u64::MAX)?;
        Ok((setup, registry.last_event()))
    }

    /// A table as the ledger's registry events give it, after reading those appended since.
    pub fn registered_table(
        &self,
        pool: &PgPool,
        table_id: &str,
    ) -> Result<Option<dozor_log::registry_history::RegisteredTable>, IngestError> {
        self.follow(pool)?;
        Ok(self.registry.read()?.table(table_id).cloned())
    }

    /// Reads the registry events appended since the last read, now.
    pub fn read_registry(&self, pool: &PgPool) -> Result<(), IngestError> {
        self.follow(pool)
    }

    /// Reads the registry events appended since the last read. The database is read without
    /// holding the registry's lock, so lookups of known keys (every record's) never wait for it.
    fn follow(&self, pool: &PgPool) -> Result<(), IngestError> {
        // Cleared before the read: a change recorded while it runs marks it stale again.
        self.stale.store(false, Ordering::Release);
        let after = self.registry.read()?.last_event();
        let read = pool.get().map_err(IngestError::from).and_then(|mut conn| {
            Ok(crate::storage::registry_log::events_after(
                &mut conn, after,
            )?)
        });
        let rows = read.inspect_err(|_| self.stale.store(true, Ordering::Release))?;
        if rows.is_empty() {
            return Ok(());
        }
        let mut registry = self.registry.write()?;
        crate::storage::registry_log::apply(&mut registry, &rows, &self.operators)
            .map(|_| ())
            .map_err(|f| {
                tracing::error!(index = f.index, reason = %f.reason, "the ledger's registry does not verify; keys after it are not trusted");
                IngestError::Registry {
                    index: f.index,
                    reason: f.reason.to_string(),
                }
            })
    }

    pub fn remember_table(&self, table: &GamingTableRow) {
        if let Ok(mut tables) = self.tables.write() {
            tables.insert(table.table_id.clone(), table.clone());
        }
    }

    /// After a revocation: the next lookup reads the registry again.
    pub fn registry_changed(&self) {
        self.stale.store(true, Ordering::Release);
    }
}

/// The tables as the registry gives them now, for judging a round being ingested; remembers the
/// last registry event the setup reflects.
pub struct RegistryNow<'a> {
    directory: &'a Directory,
    pool: &'a PgPool,
    judged_as_of: std::cell::Cell<Option<u64>>,
}

impl<'a> RegistryNow<'a> {
    pub fn new(directory: &'a Directory, pool: &'a PgPool) -> Self {
        RegistryNow {
            directory,
            pool,
            judged_as_of: std::cell::Cell::new(None),
        }
    }

    /// The last registry event the setup handed out reflected.
    pub fn judged_as_of(&self) -> Option<u64> {
        self.judged_as_of.get()
    }
}

impl dozor_log::judge::TableSetups for RegistryNow<'_> {
    type Error = IngestError;
    fn table_setup(
        &self,
        plan: &rules::Plan,
        round: &rules::Round,
        _index: u64,
    ) -> Result<rules::TableSetup, IngestError> {
        let (setup, as_of) = self.directory.table_setup(self.pool, plan, round)?;
        self.judged_as_of.set(as_of);
        Ok(setup)
    }
}
