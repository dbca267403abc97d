//! What every handler shares.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;
use ledger::registry_history::RegistryHistory;
use ledger::storage::models::GamingTableRow;
use ledger::storage::registry::{self, KeyValidity};
use ledger::storage::{PgPool, PooledPg};
use reports::GamingDayClock;
use rules::PlanBook;

use crate::appender::Appender;
use crate::auth::Gatekeeper;
use crate::error::ApiError;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    pub plans: Arc<PlanBook>,
    pub clock: GamingDayClock,
    pub appender: Appender,
    pub directory: Arc<Directory>,
    /// API keys, their rate limits and refused authentications.
    pub gatekeeper: Arc<Gatekeeper>,
    /// Signs registry events (and, in the appender, checkpoints).
    pub operator: Arc<ledger::checkpoint::NoteSigner>,
    /// Plan assigned to a table registered without one.
    pub default_plan: String,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
}

impl AppState {
    pub fn conn(&self) -> Result<PooledPg, ApiError> {
        Ok(self.pool.get()?)
    }
}

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
}

impl Directory {
    pub fn new(operators: impl IntoIterator<Item = VerifyingKey>) -> Directory {
        Directory {
            tables: RwLock::default(),
            registry: RwLock::default(),
            operators: operators
                .into_iter()
                .map(|k| (ledger::keys::key_id(&k), k))
                .collect(),
            stale: AtomicBool::new(true),
        }
    }

    pub fn table(
        &self,
        state: &AppState,
        table_id: &str,
    ) -> Result<Option<GamingTableRow>, ApiError> {
        if let Some(t) = self
            .tables
            .read()
            .map_err(ApiError::internal)?
            .get(table_id)
        {
            return Ok(Some(t.clone()));
        }
        let found =
            registry::find_table(&mut *state.conn()?, table_id).map_err(ApiError::internal)?;
        Ok(found.map(|t| {
            self.remember_table(&t.table);
            t.table
        }))
    }

    pub fn key(&self, state: &AppState, key_id: &str) -> Result<Option<KeyValidity>, ApiError> {
        if !self.stale.load(Ordering::Acquire) {
            if let Some(found) = self.known_key(key_id)? {
                return Ok(Some(found));
            }
        }
        self.follow(state)?;
        self.known_key(key_id)
    }

    fn known_key(&self, key_id: &str) -> Result<Option<KeyValidity>, ApiError> {
        let registry = self.registry.read().map_err(ApiError::internal)?;
        Ok(registry.table_key(key_id).map(|k| KeyValidity {
            key_id: k.key_id.clone(),
            table_id: k.table_id.clone(),
            public_key: k.key,
            valid_from: k.valid_from,
            revoked_at: k.revocation.as_ref().map(|r| r.revoked_at),
        }))
    }

    /// From when a table plays under dozor, as its registration event says (`None` if the
    /// events read so far do not register it).
    pub fn registered_from(&self, table_id: &str) -> Result<Option<DateTime<Utc>>, ApiError> {
        let registry = self.registry.read().map_err(ApiError::internal)?;
        Ok(registry.table(table_id).map(|t| t.registered_from))
    }

    /// Reads the registry events appended since the last read.
    fn follow(&self, state: &AppState) -> Result<(), ApiError> {
        let mut conn = state.conn()?;
        let mut registry = self.registry.write().map_err(ApiError::internal)?;
        self.stale.store(false, Ordering::Release);
        ledger::storage::registry_log::follow(&mut conn, &mut registry, &self.operators)?
            .map(|_| ())
            .map_err(|f| {
                tracing::error!(index = f.index, reason = %f.reason, "the ledger's registry does not verify; keys after it are not trusted");
                ApiError::internal(format!(
                    "the ledger's registry event {} does not verify: {}",
                    f.index, f.reason
                ))
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
