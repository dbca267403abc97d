//! Inspection exports: the writer ([`write_export`]) here; the format and the offline verifier a
//! regulator runs without a database or network are the `dozor-verify` crate.

mod show;
mod write;
pub mod zip;

pub use show::{show_round, ShownRound};
pub use write::{
    write_export, write_export_reading, ExportError, ExportRequest, ExportSummary, ExportWitnesses,
};
