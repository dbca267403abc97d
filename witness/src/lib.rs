//! A C2SP `tlog-witness` a regulator runs (`dozor witness serve`): it cosigns a log's checkpoint
//! (C2SP `tlog-cosignature`, Ed25519) only once shown that it extends the last one it cosigned,
//! keeps every checkpoint it cosigned, and keeps as evidence the validly signed checkpoints it
//! refused because they fork the log.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `log` only; never the ledger, a database or the
//! API, so a regulator runs it apart from the casino's server.

pub mod server;
pub mod store;
pub mod witness;

pub use store::{Evidence, Store, StoreError};
pub use witness::{Refusal, Witness};
