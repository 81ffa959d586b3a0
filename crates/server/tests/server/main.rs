//! The server's integration tests: a real server on an ephemeral port and
//! real WebSocket clients, one test binary with a module per theme.

#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/table_model.rs"]
mod table_model;

mod api;
mod assets;
mod away;
mod budgets;
mod bus;
mod chat;
mod cluster;
mod explain;
mod fragments;
mod game;
mod health;
mod hostile;
mod lifetime;
mod limits;
mod modules;
mod outage;
mod privacy;
mod properties;
mod proxy;
mod raw_ws;
mod reconnect;
mod refusals;
mod restart;
mod shutdown;
mod state;
mod trust;
