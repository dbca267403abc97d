//! What every handler shares.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

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

/// Cache of registered tables and keys. Registrations are append-only, so a cached row never
/// goes stale; revocations are re-checked inside the append transaction.
#[derive(Default)]
pub struct Directory {
    tables: RwLock<HashMap<String, GamingTableRow>>,
    keys: RwLock<HashMap<String, KeyValidity>>,
}

impl Directory {
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
        if let Some(k) = self.keys.read().map_err(ApiError::internal)?.get(key_id) {
            return Ok(Some(k.clone()));
        }
        let found = registry::keys_by_id(&mut *state.conn()?, &[key_id])?;
        Ok(found.into_iter().next().inspect(|k| self.remember_key(k)))
    }

    pub fn remember_table(&self, table: &GamingTableRow) {
        if let Ok(mut tables) = self.tables.write() {
            tables.insert(table.table_id.clone(), table.clone());
        }
    }

    pub fn remember_key(&self, key: &KeyValidity) {
        if let Ok(mut keys) = self.keys.write() {
            keys.insert(key.key_id.clone(), key.clone());
        }
    }

    /// Drops a key from the cache (after a revocation) so the next lookup reads it again.
    pub fn forget_key(&self, key_id: &str) {
        if let Ok(mut keys) = self.keys.write() {
            keys.remove(key_id);
        }
    }
}
