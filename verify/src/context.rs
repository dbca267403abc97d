//! What the checks of an entry need besides the entry itself (stage 4).

use std::collections::HashMap;

use dozor_log::entry_check::{SignatureCheck, Signers};
use dozor_log::merkle::Hash;

use crate::format::ExportInfo;
use crate::lines::Verdicts;

/// What verification needs besides the entries themselves.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub(crate) info: &'a ExportInfo,
    pub(crate) has_link: bool,
    pub(crate) lines: usize,
    pub(crate) signers: Signers<'a>,
    pub(crate) registry: &'a HashMap<u64, Hash>,
    pub(crate) verdicts: &'a Verdicts,
    pub(crate) plans: &'a HashMap<String, rules::Plan>,
    pub(crate) signatures: SignatureCheck,
    pub(crate) readjudicate: bool,
    /// Finds `"rules_version":"<this version>"`, as a verdict made by these rules contains it
    /// (a SIMD searcher, built once).
    pub(crate) rules_version_marker: &'a memchr::memmem::Finder<'a>,
}
