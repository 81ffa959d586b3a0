//! oxo-client: a client of the oxo protocol (`docs/protocol.md`) on the
//! [`oxo_protocol`] types, for the terminal game, tests and tools.
//!
//! [`Address`] turns what people type or copy (`http://host:port`, a
//! table's link `http://host:port/t/ID`) into where to connect;
//! [`Connection`] says `hello`, sends requests numbered by the client and
//! waits for their replies, and hands over the server's events (`table`,
//! `chat`, `lobby`, ...) in order, read by a task of its own; [`Link`] is
//! the same protocol driven by one task with nothing in between, for
//! programs that hold many connections (the load tool) or must see every
//! frame (the server's tests).
//!
//! # Examples
//!
//! ```no_run
//! use oxo_client::{Address, Connection, Event};
//! use oxo_protocol::{ClientMsg, ServerMsg, TableOptions};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let address: Address = "http://127.0.0.1:8080".parse()?;
//! let mut conn = Connection::connect(&address).await?;
//! let welcome = conn.hello(None, Some("Ada")).await?;
//! println!("keep this token to come back: {}", welcome.token);
//! let reply = conn
//!     .request(ClientMsg::CreateTable { options: TableOptions::default() })
//!     .await?;
//! if let ServerMsg::Ok { table_id: Some(table), .. } = reply {
//!     println!("give a friend {}", address.table_link(&table));
//! }
//! while let Some(Event::Message(msg)) = conn.next_event().await {
//!     if let ServerMsg::Table { table } = *msg {
//!         println!("{} {:?}", table.board, table.status);
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod address;
mod connection;
mod decode;
mod error;
mod link;
mod silence;

use std::time::Duration;

pub use address::{Address, AddressError};
pub use connection::{Connection, Event, Welcome};
pub use decode::{decode, reply_id};
pub use error::Error;
pub use link::{Link, LinkOptions};
/// The WebSocket library under [`Link`], for code that handles its frames
/// directly ([`Link::next_frame`], [`Link::websocket`]).
pub use tokio_tungstenite::tungstenite;

/// How long a request waits for its reply, and a connection for its
/// handshake, by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
