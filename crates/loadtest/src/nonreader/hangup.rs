//! Telling whether the server closed a non-reader's connection: without
//! reading, from the socket's readiness, and at the end by a final read of
//! what is waiting.

use std::io;
use std::time::Duration;

use futures_util::FutureExt;
use oxo_client::tungstenite::{self, Message};
use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::time::Instant;

use oxo_client::Link;

/// The final read ends when nothing has arrived for this long.
pub(super) const QUIET: Duration = Duration::from_millis(250);

/// Whether the socket shows a hang-up or an error, without reading.
pub(super) fn hung_up(tcp: &TcpStream) -> bool {
    // Tokio keeps readiness until a read finds the socket empty; this
    // client never reads, so once data has arrived `ready` returns at once,
    // with the closed and error flags of every event since.
    match tcp
        .ready(Interest::READABLE.add(Interest::ERROR))
        .now_or_never()
    {
        Some(Ok(ready)) => ready.is_read_closed() || ready.is_error(),
        Some(Err(_)) => true,
        None => false,
    }
}

/// Reads what is waiting, for at most `limit`, until nothing comes for
/// [`QUIET`]: how the connection ended (`None`: it did not, as far as could
/// be read), and the payload bytes read.
pub(super) async fn final_read(conn: &mut Link, limit: Duration) -> (Option<String>, u64) {
    let limit = Instant::now() + limit;
    let mut bytes = 0u64;
    loop {
        let deadline = limit.min(Instant::now() + QUIET);
        let next = match tokio::time::timeout_at(deadline, conn.next_frame()).await {
            Ok(next) => next,
            Err(_) => return (None, bytes),
        };
        let how = match next {
            None => "eof".to_owned(),
            Some(Ok(Message::Close(frame))) => frame.map_or_else(
                || "close".to_owned(),
                |f| format!("close:{}", u16::from(f.code)),
            ),
            Some(Ok(msg)) => {
                bytes += msg.len() as u64;
                continue;
            }
            Some(Err(e)) => how_it_failed(&e).to_owned(),
        };
        return (Some(how), bytes);
    }
}

/// A read error, by how the connection ended.
fn how_it_failed(e: &tungstenite::Error) -> &'static str {
    use tungstenite::error::ProtocolError;
    match e {
        tungstenite::Error::ConnectionClosed
        | tungstenite::Error::AlreadyClosed
        | tungstenite::Error::Protocol(ProtocolError::ResetWithoutClosingHandshake) => "eof",
        tungstenite::Error::Io(io) if io.kind() == io::ErrorKind::ConnectionReset => "reset",
        _ => "error",
    }
}
