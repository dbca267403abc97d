//! dozor's HTTP API and server wiring. The `dozor` binary (src/main.rs) adds the command line.

pub mod access;
pub mod auth;
pub mod database;
pub mod error;
pub mod openapi;
pub mod routes;
pub mod server;
pub mod simulation;
pub mod state;
