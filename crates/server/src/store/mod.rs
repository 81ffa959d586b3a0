//! Storage: the [`Store`] trait and its implementations.
//!
//! Everything that matters is written through a store before clients hear
//! of it, so a restart loses nothing that was acknowledged. The rest of the
//! server sees only the trait and the rows:
//!
//! - `contract`: the [`Store`] trait, and what every store promises;
//! - `rows`: the changes ([`Write`]) and the rows read back, named, and
//!   who may see which game;
//! - `replay`: a stored game replayed by the rules (recovery, game logs);
//! - `sqlite`: the server's store, SQLite with one writer thread and group
//!   commit ([`Sqlite`]);
//! - `postgres`: the cluster's store, PostgreSQL shared by every node, with
//!   table leases and fencing ([`Postgres`]);
//! - `memory`: plain maps behind a lock, for tests (`Memory`);
//! - `text`: how values are spelled in text columns, for every engine.
//!
//! Nothing outside this folder names an engine.

mod contract;
#[cfg(test)]
mod memory;
mod postgres;
mod replay;
mod rows;
mod sqlite;
mod text;

#[cfg(test)]
mod conformance;

pub(crate) use contract::Store;
#[cfg(test)]
pub(crate) use memory::Memory;
pub(crate) use postgres::{CLAIM_BATCH, Postgres};
pub(crate) use replay::replay;
pub(crate) use rows::{
    ChatRow, GameEnd, GamePlayer, GameStart, GamesQuery, NewMove, PlayerRow, SavedTable, TableRow,
    Write,
};
pub(crate) use sqlite::Sqlite;
#[cfg(test)]
pub(crate) use sqlite::temp::TempDb;
