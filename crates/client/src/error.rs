//! What can go wrong talking to the server.

use std::time::Duration;

use oxo_protocol::ErrorCode;

/// What went wrong talking to the server.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The server could not be reached or the WebSocket handshake failed.
    #[error("cannot connect to {url}: {reason}")]
    Connect {
        /// The URL tried.
        url: String,
        /// Why, as the network said.
        reason: String,
    },
    /// The server answered but cannot take a connection now (HTTP `503`:
    /// it is shutting down, or a cluster is between leaders); trying
    /// again in a moment is the cure.
    #[error("{url} cannot take connections right now: {reason}")]
    Unavailable {
        /// The URL tried.
        url: String,
        /// The server's words, or the HTTP status.
        reason: String,
    },
    /// The server refused the request; nothing changed.
    #[error("{message} ({code})")]
    Refused {
        /// The stable code.
        code: ErrorCode,
        /// What was wrong, for people.
        message: String,
    },
    /// The connection is closed (with the server's code and reason, if it
    /// sent them).
    #[error("the connection closed{}", match .0 { Some((code, reason)) => format!(" ({code}: {reason})"), None => String::new() })]
    Closed(Option<(u16, String)>),
    /// No reply came in time.
    #[error("no reply from the server within {0:?}")]
    Timeout(Duration),
    /// A frame that is not a message of this protocol version.
    #[error("unreadable message: {0}")]
    BadMessage(String),
    /// A reply of the wrong kind (a server speaking another protocol).
    #[error("unexpected reply: {0}")]
    Unexpected(String),
}

impl Error {
    /// A short, stable label of the kind of failure, for counting failures
    /// in reports and metrics: `connect`, `unavailable`, `disconnect`, `timeout`,
    /// `bad_message`, `unexpected_reply`, or `refused:CODE`.
    ///
    /// ```
    /// use oxo_client::Error;
    /// use oxo_protocol::ErrorCode;
    ///
    /// let e = Error::Refused { code: ErrorCode::CellTaken, message: "b2 is taken".into() };
    /// assert_eq!(e.kind(), "refused:cell_taken");
    /// assert_eq!(Error::Closed(None).kind(), "disconnect");
    /// ```
    #[must_use]
    pub fn kind(&self) -> String {
        match self {
            Error::Connect { .. } => "connect".to_owned(),
            Error::Unavailable { .. } => "unavailable".to_owned(),
            Error::Closed(_) => "disconnect".to_owned(),
            Error::Timeout(_) => "timeout".to_owned(),
            Error::BadMessage(_) => "bad_message".to_owned(),
            Error::Refused { code, .. } => format!("refused:{code}"),
            Error::Unexpected(_) => "unexpected_reply".to_owned(),
        }
    }
}
