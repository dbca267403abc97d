//! Load for dozor: simulated tables of every game (seeded, signed like real tables, with a
//! configurable share of dealer errors), the `simulate` command that sends them to a running
//! server, and the benchmarks. The server does not depend on this crate.

pub mod bench;
mod bench_db;
mod bench_memory;
mod bench_mf;
mod bench_rtp;
mod bench_verify;
mod cpu_time;
pub mod games;
pub mod month;
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
