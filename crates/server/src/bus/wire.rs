//! What the nodes of a cluster say to each other on the bus: the subjects,
//! and the messages on them.
//!
//! Commands for a table travel as JSON ([`ToTable`]): they are small and
//! rare next to the frames that come back. A table's frames for a client
//! on another node travel as the frame's own bytes behind a fixed binary
//! header ([`FrameHeader`]), so that a node relays them to the socket
//! without parsing them.

use std::sync::Arc;

use oxo_protocol::LobbyTable;
use serde::{Deserialize, Serialize};

use crate::handle::TableReq;
use crate::ids::TokenHash;

/// Commands for the tables that node `node` runs.
pub(crate) fn tables_subject(node: u16) -> String {
    format!("oxo.node.{node}.tables")
}

/// Frames for the clients connected to node `node`.
pub(crate) fn frames_subject(node: u16) -> String {
    format!("oxo.node.{node}.frames")
}

/// Every node's heartbeat ([`Alive`]).
pub(crate) const ALIVE: &str = "oxo.alive";

/// Every node's public tables ([`LobbyNews`]).
pub(crate) const LOBBY: &str = "oxo.lobby";

/// Tables a node has just taken over ([`Taken`]).
pub(crate) const TAKEN: &str = "oxo.taken";

/// The player behind a forwarded command, as the origin node knows them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Who {
    pub(crate) id: Arc<str>,
    pub(crate) token_hash: TokenHash,
    pub(crate) name: Arc<str>,
}

/// What a client on another node asks of a table.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum RemoteCmd {
    /// A request, and its id (the reply comes back as a frame).
    Request { id: Option<u64>, req: TableReq },
    /// A returning player's connection attaches.
    Attach,
    /// The connection closed.
    Detach,
    /// The player changed their name.
    Renamed,
}

/// A command for a table, from a client connected to another node.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ToTable {
    /// The table.
    pub(crate) table: Arc<str>,
    /// The node the client is connected to, and that node's run.
    pub(crate) origin: u16,
    pub(crate) origin_run: u64,
    /// The connection there.
    pub(crate) conn: u64,
    /// The player (not needed to detach).
    pub(crate) who: Option<Who>,
    pub(crate) cmd: RemoteCmd,
}

/// The answer to a [`ToTable`] that asks for one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ack {
    /// The table runs here and has the command.
    Queued,
    /// The table does not run here.
    NotHere,
}

impl Ack {
    pub(crate) fn to_bytes(self) -> &'static [u8] {
        match self {
            Ack::Queued => b"q",
            Ack::NotHere => b"n",
        }
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Ack {
        if bytes == b"q" {
            Ack::Queued
        } else {
            Ack::NotHere
        }
    }
}

/// What a relayed frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// A message the table sends on its own (state, chat).
    Event,
    /// The reply to a forwarded request.
    Reply,
    /// The table closes the connection: the body is the close code (two
    /// bytes) and the reason.
    Close,
}

/// The header of a frame relayed to a client on another node.
///
/// Each stream (one table's frames for one connection) numbers its frames
/// from 1; the receiving node checks that none is missing. The bus may
/// drop a message (a restart, a slow consumer): a gap then closes the
/// client's connection, and the client comes back and re-syncs, rather
/// than showing a state that missed a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameHeader {
    /// The connection on the receiving node.
    pub(crate) conn: u64,
    /// The node that sends, and its stream.
    pub(crate) owner: u16,
    pub(crate) stream: u64,
    /// The frame's number in its stream, from 1.
    pub(crate) seq: u64,
    pub(crate) kind: FrameKind,
}

/// The header's length in bytes.
pub(crate) const HEADER_LEN: usize = 8 + 2 + 8 + 8 + 1;

impl FrameHeader {
    /// The header followed by `body`.
    pub(crate) fn encode(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + body.len());
        out.extend_from_slice(&self.conn.to_be_bytes());
        out.extend_from_slice(&self.owner.to_be_bytes());
        out.extend_from_slice(&self.stream.to_be_bytes());
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.push(match self.kind {
            FrameKind::Event => 0,
            FrameKind::Reply => 1,
            FrameKind::Close => 2,
        });
        out.extend_from_slice(body);
        out
    }

    /// The header of `bytes` and the body after it; `None` if `bytes` is
    /// not a frame.
    pub(crate) fn decode(bytes: &[u8]) -> Option<(FrameHeader, &[u8])> {
        let (head, body) = bytes.split_at_checked(HEADER_LEN)?;
        let u64_at = |at: usize| {
            head.get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_be_bytes)
        };
        let owner = head
            .get(8..10)
            .and_then(|b| b.try_into().ok())
            .map(u16::from_be_bytes)?;
        let kind = match head.get(HEADER_LEN - 1)? {
            0 => FrameKind::Event,
            1 => FrameKind::Reply,
            2 => FrameKind::Close,
            _ => return None,
        };
        Some((
            FrameHeader {
                conn: u64_at(0)?,
                owner,
                stream: u64_at(10)?,
                seq: u64_at(18)?,
                kind,
            },
            body,
        ))
    }
}

/// A node's heartbeat: it is alive, in its run `run` (a node that restarts
/// starts a new run, and what the old one held for its clients goes).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Alive {
    pub(crate) node: u16,
    pub(crate) run: u64,
}

/// A node's public tables, sent now and then and after changes.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct LobbyNews {
    pub(crate) node: u16,
    pub(crate) tables: Vec<LobbyTable>,
}

/// Tables node `node` has just taken over.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Taken {
    pub(crate) node: u16,
    pub(crate) tables: Vec<Arc<str>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_header_reads_back_as_written() {
        let header = FrameHeader {
            conn: 0x0102_0304_0506_0708,
            owner: 513,
            stream: 77,
            seq: u64::MAX,
            kind: FrameKind::Reply,
        };
        let bytes = header.encode(b"{\"type\":\"ok\"}");
        let (back, body) = FrameHeader::decode(&bytes).expect("a frame");
        assert_eq!(back, header);
        assert_eq!(body, b"{\"type\":\"ok\"}");
        assert!(FrameHeader::decode(&bytes[..HEADER_LEN - 1]).is_none());
        let mut bad = bytes.clone();
        bad[HEADER_LEN - 1] = 9;
        assert!(FrameHeader::decode(&bad).is_none());
    }
}
