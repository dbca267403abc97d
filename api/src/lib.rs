//! dozor's HTTP API and server wiring: routes, access control and the error body. The `dozor`
//! binary (the `cli` crate) adds the command line.

pub mod access;
pub mod auth;
pub mod error;
pub mod nightly;
pub mod openapi;
pub mod routes;
pub mod server;
pub mod state;
