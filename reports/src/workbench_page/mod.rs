//! The compliance officer's workbench as pages: the findings with filters, sorting, paging and
//! files to download, and each finding with its round laid out, where it stands in the ledger
//! and the form that resolves it. Self-contained HTML (inline CSS, no script, nothing fetched),
//! in Czech or English.

mod finding;
mod frame;
mod list;
mod refusal;
#[cfg(test)]
mod tests;

pub use crate::html::esc;
pub use finding::{finding_facts, render_finding, FindingPageView, ResolveForm, Typed};
pub use frame::query;
pub use list::{parse_czech_day, parse_koruny, render_list, ListView};
pub use refusal::{refusal, REFUSALS};
