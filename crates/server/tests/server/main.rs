//! The server's integration tests: a real server on an ephemeral port and
//! real WebSocket clients, one test binary with a module per theme.

#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;

mod api;
mod game;
mod limits;
mod reconnect;
mod refusals;
mod restart;
