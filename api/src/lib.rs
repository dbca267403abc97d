//! dozor's HTTP API and server wiring: routes, access control and the error body. The `dozor`
//! binary (the `cli` crate) adds the command line.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `reports`, `ledger`, `log`, `rules` and
//! `delivery`; only `bench` and `cli` build on it. It never depends on the simulator, the
//! benchmarks or an HTTP client.

pub mod access;
pub mod auth;
pub mod configured;
pub mod csrf;
pub mod docs;
pub mod download;
pub mod error;
pub mod error_codes;
pub mod full_walk;
pub mod gate;
pub mod in_flight;
mod json_numbers;
pub mod metrics;
pub mod nightly;
pub mod observe;
pub mod openapi;
mod openapi_answers;
mod openapi_constraints;
mod openapi_examples;
mod parameters;
pub mod paths;
pub mod publish;
pub mod request_id;
pub mod routes;
pub mod server;
pub mod state;
mod stopping;
pub mod witness_progress;
pub mod witnessing;
