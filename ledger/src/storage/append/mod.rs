//! Appending records to the ledger: a whole batch in one transaction (group commit), nothing
//! acknowledged before its transaction has committed.

pub(crate) mod batch;
mod lookups;
pub(crate) mod outcome;
pub(crate) mod rows;

pub use batch::{append_batch, append_batch_cached, append_batch_then, WriterCache};
pub use outcome::{AppendOutcome, Receipt};

// Where callers outside the ledger have always found them.
pub use super::position::{head, Head};
pub use super::registry_append::RegistryReceipt;
pub use crate::ingest::submission::{Derived, JudgeError, ReportFigures, Submission};
