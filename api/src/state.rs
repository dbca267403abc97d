//! What every handler shares.

use std::sync::Arc;

use ledger::ingest::Ingest;
use ledger::storage::read_cut::ReadSource;
use ledger::storage::{PgPool, PooledPg};
use rules::gaming_day::GamingDayClock;
use rules::PlanBook;

use crate::auth::Gatekeeper;
use crate::error::ApiError;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    /// A streaming replica that reports, exports and lists read from; none: the primary.
    pub replica: Option<PgPool>,
    pub plans: Arc<PlanBook>,
    pub clock: GamingDayClock,
    /// Signed records from envelope to receipt, and the ledger's single writer.
    pub ingest: Arc<Ingest>,
    /// API keys, their rate limits and refused authentications.
    pub gatekeeper: Arc<Gatekeeper>,
    /// Signs registry events (and, in the appender, checkpoints).
    pub operator: Arc<dozor_log::checkpoint::NoteSigner>,
    /// Plan assigned to a table registered without one.
    pub default_plan: String,
    /// Largest accepted request body, in bytes.
    pub body_limit: usize,
    /// What all requests in flight may hold at once: bodies' bytes, files being made.
    pub in_flight: Arc<crate::in_flight::InFlight>,
    /// The operator and its premises, the delivery's keys and the tax rates: re-read on SIGHUP.
    pub configured: Arc<crate::configured::Reloadable>,
    /// Where the nightly job keeps its sealed reports.
    pub data_dir: Option<std::path::PathBuf>,
    /// Prometheus series (`/metrics`).
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The witnesses the checkpoints are shown to, and how far each has cosigned.
    pub witnesses: Arc<crate::witnessing::Witnesses>,
    /// The secret of the pages' form tokens.
    pub form_secret: Arc<crate::csrf::FormSecret>,
}

impl AppState {
    pub fn conn(&self) -> Result<PooledPg, ApiError> {
        Ok(self.pool.get()?)
    }

    /// A connection for reports, exports and lists, and where it reads: the replica's when one
    /// is configured and answers (its reads are cut at the largest checkpoint it holds), the
    /// primary's otherwise.
    pub fn read_conn(&self) -> Result<(PooledPg, ReadSource), ApiError> {
        if let Some(replica) = &self.replica {
            match replica.get() {
                Ok(conn) => return Ok((conn, ReadSource::Replica)),
                Err(cause) => {
                    tracing::warn!(%cause, "the replica does not answer; reading from the primary");
                }
            }
        }
        Ok((self.pool.get()?, ReadSource::Primary))
    }
}
