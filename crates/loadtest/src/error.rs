//! Why a run could not start or finish.
//!
//! Trouble during a run (a refused request, a dropped connection, a timeout)
//! is not an [`Error`]: it is counted by kind in the report, and the run goes
//! on. An [`Error`] means there is no run to report.

/// Why a load or crash run could not be carried out.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The URL is not a `ws://` URL.
    #[error("bad URL {url:?}: {reason}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The host did not resolve.
    #[error("cannot resolve {host}: {reason}")]
    Resolve {
        /// The host.
        host: String,
        /// The resolver's answer.
        reason: String,
    },
    /// The target is outside the loopback range and `--allow-remote` was not
    /// given.
    #[error(
        "refusing to load {host} ({addr}): it is not a loopback address \
         (127.0.0.0/8, ::1, localhost); pass --allow-remote to load a server on another host"
    )]
    NotLoopback {
        /// The host.
        host: String,
        /// The non-loopback address it resolved to.
        addr: String,
    },
    /// The arguments make no sense together.
    #[error("{0}")]
    Config(String),
    /// No connection to the server could be made at all.
    #[error("cannot reach the server at {url}: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// The first connection's error.
        reason: String,
    },
    /// The server process (crash test) did not start or misbehaved.
    #[error("server process: {0}")]
    Server(String),
    /// An I/O error of the tool itself.
    #[error("{context}: {source}")]
    Io {
        /// What the tool was doing.
        context: String,
        /// The error.
        source: std::io::Error,
    },
}

impl Error {
    /// Wraps an I/O error with what the tool was doing.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}
