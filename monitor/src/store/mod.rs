//! The monitor's PostgreSQL state (monitor/migrations): its own database, never a casino's. All
//! of the monitor's SQL is here.

pub mod alert_reads;
pub mod alerts;
pub mod connection;
pub mod outbox;
pub mod record_runs;
pub mod schema;
pub mod state;
pub mod status;
pub mod view_reads;

#[cfg(test)]
pub(crate) mod test_db;
