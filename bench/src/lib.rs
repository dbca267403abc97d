//! dozor's benchmarks, run as `dozor bench …` so that the figures in docs/PERFORMANCE.md can be
//! reproduced: each starts what it measures (a server, a database, witnesses) and loads it with
//! the simulated tables of `dozor-simulator`. The server does not depend on this crate.
//!
//! Place in the map (docs/ARCHITECTURE.md): at the top, beside the CLI; it may use every crate.
//! Inside, `command` dispatches to one module per benchmark; `outcome`, `database` and
//! `cpu_time` are the pieces they share, below them.

mod adjudicate;
pub mod command;
mod cpu_time;
mod database;
mod direct;
mod ingest;
mod memory;
mod mf;
mod monitor;
mod nightly;
mod outcome;
mod proofs;
mod rtp;
mod verify;
mod walk;
