//! Inspection exports in one place: the format ([`format`]), the writer ([`write_export`]) and
//! the offline verifier ([`verify_export`]) a regulator runs without a database or network.

pub mod format;
mod verify;
mod write;
pub mod zip;

pub use format::*;
pub use verify::{
    verify_export, Chunking, InspectionError, InspectionReport, SealedPackage, VerifyOptions,
    SIGNATURE_BATCH,
};
pub use write::{write_export, ExportError, ExportSummary};
