//! Simulated tables of every game (seeded, signed like real tables, with a configurable share of
//! dealer errors) and the `simulate` command that sends them to a running server, as a client:
//! it knows the record format (`dozor-log`), the rules it deals by (`rules`) and HTTP, and no
//! server, database or report crate. The benchmarks that drive a server are `dozor-bench`.
//!
//! Place in the map (docs/ARCHITECTURE.md): a client beside the CLI, over `log` and `rules`.

pub mod games;
pub mod month;
mod resume;
pub mod simulate;
pub mod submit;

/// A progress bar on standard error for long command-line work (verify, simulate, benchmark
/// set-up), counting `what`; drawn only when standard error is a terminal.
pub fn progress_bar(total: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total);
    let template = format!("[{{bar:40}}] {{pos}}/{{len}} {what}, {{per_sec}}, {{eta}} left");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("#>-"));
    }
    bar
}
