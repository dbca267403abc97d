//! Inspection exports in one place: the format ([`format`]), the writer ([`write_export`]) and
//! the offline verifier ([`verify_export`]) a regulator runs without a database or network.

pub mod format;
mod verify;
mod write;
pub mod zip;

pub use format::*;
pub use verify::{
    show_round, verify_export, Chunking, InspectionError, InspectionReport, SealedPackage,
    ShownRound, VerifyOptions, WhichRound, SIGNATURE_BATCH,
};
pub use write::{write_export, ExportError, ExportSummary};
