//! `dozor bench monitor …`: what following casinos' tiles costs the regulator's monitor, and what
//! publishing them costs a casino. `catch-up` times one monitor following a large ledger from
//! nothing beside `dozor verify` of the same ledger's export; `casinos` measures the delay from a
//! checkpoint's publication to the monitor having committed it, and the monitor's memory, while
//! many casinos grow; `ingest` alternates `bench ingest` with and without `--tiles`.
//!
//! Every monitor is `dozor monitor` as the regulator runs it (a child process of this binary,
//! with its state in a throwaway PostgreSQL cluster), following folders served by Debian's nginx.

mod casinos;
mod catch_up;
mod ingest_ab;
mod nginx;
mod process;

use std::process::ExitCode;

use ledger::storage::database::DatabaseChoice as Global;

pub use casinos::CasinosArgs;
pub use catch_up::CatchUpArgs;
pub use ingest_ab::IngestAbArgs;

#[derive(Debug, clap::Subcommand)]
pub enum MonitorBench {
    /// One monitor following a ledger (filled once, kept; that of `bench verify`) from nothing,
    /// served by nginx as tiles, against `dozor verify` of its inspection export: entries/s of
    /// each and their ratio.
    CatchUp(CatchUpArgs),
    /// Many casinos, each its own ledger published to its own folder, growing while one monitor
    /// follows them all: the delay from a checkpoint's publication to the monitor having
    /// committed it, and the monitor's peak memory.
    Casinos(CasinosArgs),
    /// `bench ingest` without and with `--tiles`, alternated: the cost of publishing tiles.
    Ingest(IngestAbArgs),
}

pub fn run(global: &Global, bench: MonitorBench) -> anyhow::Result<ExitCode> {
    match bench {
        MonitorBench::CatchUp(args) => catch_up::catch_up(global, &args),
        MonitorBench::Casinos(args) => casinos::casinos(&args),
        MonitorBench::Ingest(args) => ingest_ab::ingest_ab(&args),
    }
}

/// A configuration of `dozor monitor` following `casinos` (name, tiles URL, operator key; no
/// witness: the bench's casinos have none), with its state given by `DATABASE_URL`.
fn monitor_config(poll_seconds: u64, casinos: &[(String, String, String)]) -> String {
    let mut text = format!(
        "[follow]\npoll_seconds = {poll_seconds}\nbackoff_max_seconds = {}\n",
        poll_seconds.max(60)
    );
    for (name, url, key) in casinos {
        text.push_str(&format!(
            "\n[[casino]]\nname = \"{name}\"\ntiles_url = \"{url}\"\noperator_keys = [\"{key}\"]\n\
             allow_no_witness = true\n"
        ));
    }
    text
}

/// The median of `values` (sorted here); 0 for none.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_odd_and_an_even_count() {
        // Sorted 1, 2, 9: the middle one.
        assert_eq!(median(&mut [9.0, 1.0, 2.0]), 2.0);
        // Sorted 1, 2, 4, 9: (2 + 4) / 2 = 3.
        assert_eq!(median(&mut [4.0, 9.0, 1.0, 2.0]), 3.0);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn the_monitor_configuration_names_every_casino_and_the_poll() {
        let key = crate::direct::operator(1).map(|o| o.verifier().to_string());
        let key = key.unwrap_or_default();
        let casinos = [
            (
                "c-01".to_owned(),
                "http://127.0.0.1:1/c-01/".to_owned(),
                key.clone(),
            ),
            (
                "c-02".to_owned(),
                "http://127.0.0.1:1/c-02/".to_owned(),
                key,
            ),
        ];
        let text = monitor_config(5, &casinos);
        let config = dozor_monitor::config::MonitorConfig::parse(&text, std::path::Path::new("."));
        let config = config.map_err(|e| e.to_string());
        let names: Vec<String> = config
            .as_ref()
            .map(|c| c.casinos.iter().map(|c| c.tiles_url.clone()).collect())
            .unwrap_or_default();
        assert_eq!(
            names,
            ["http://127.0.0.1:1/c-01/", "http://127.0.0.1:1/c-02/"],
            "{config:?}"
        );
        assert_eq!(config.map(|c| c.poll.as_secs()), Ok(5));
    }
}
