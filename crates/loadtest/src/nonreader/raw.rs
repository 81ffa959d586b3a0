//! Client frames written straight to a non-reader's socket, so that the
//! WebSocket library never reads on the way.

use std::io;

use oxo_client::tungstenite::protocol::frame::Frame;
use oxo_client::tungstenite::protocol::frame::coding::{Data, OpCode};
use oxo_core::Rng;
use oxo_protocol::{ClientMsg, Request};
use tokio::net::TcpStream;

/// Bytes of unsent frames a non-reader keeps before it stops adding pings
/// (the server is not reading them either).
const MAX_UNSENT: usize = 64 * 1024;

/// Client frames written straight to the socket, never waiting: what the
/// socket does not take now stays queued for the next try.
#[derive(Debug)]
pub(super) struct RawSender {
    unsent: Vec<u8>,
    next_id: u64,
    rng: Rng,
}

impl RawSender {
    pub(super) fn new(seed: u64) -> RawSender {
        RawSender {
            unsent: Vec::new(),
            // The `hello` went through the WebSocket library with id 1.
            next_id: 2,
            rng: Rng::new(seed),
        }
    }

    /// Queues `msg` as one masked text frame, unless [`MAX_UNSENT`] bytes
    /// are already waiting. Returns whether it was queued.
    pub(super) fn queue(&mut self, msg: ClientMsg) -> bool {
        if self.unsent.len() >= MAX_UNSENT {
            return false;
        }
        let req = Request {
            id: Some(self.next_id),
            msg,
        };
        self.next_id += 1;
        let text = serde_json::to_string(&req).expect("requests always serialize");
        let mut frame = Frame::message(text, OpCode::Data(Data::Text), true);
        let [a, b, c, d, ..] = self.rng.next_u64().to_le_bytes();
        frame.header_mut().mask = Some([a, b, c, d]);
        frame
            .format(&mut self.unsent)
            .expect("writing to a Vec cannot fail");
        true
    }

    /// Writes as much as the socket takes now.
    ///
    /// # Errors
    ///
    /// Any write error but "would block".
    pub(super) fn flush(&mut self, tcp: &TcpStream) -> io::Result<()> {
        while !self.unsent.is_empty() {
            match tcp.try_write(&self.unsent) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.unsent.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Writes everything queued, waiting for the socket as needed.
    pub(super) async fn finish(&mut self, tcp: &TcpStream) -> io::Result<()> {
        loop {
            self.flush(tcp)?;
            if self.unsent.is_empty() {
                return Ok(());
            }
            tcp.writable().await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_masked_text_and_bounded() {
        let mut out = RawSender::new(7);
        assert!(out.queue(ClientMsg::Ping));
        let text = r#"{"id":2,"type":"ping"}"#;
        // FIN + text, mask bit + length, 4 mask bytes, masked payload.
        assert_eq!(out.unsent[0], 0x81);
        assert_eq!(out.unsent[1], 0x80 | text.len() as u8);
        let mask = [out.unsent[2], out.unsent[3], out.unsent[4], out.unsent[5]];
        let payload: Vec<u8> = out.unsent[6..]
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ mask[i % 4])
            .collect();
        assert_eq!(payload, text.as_bytes());
        while out.queue(ClientMsg::Ping) {}
        assert!(out.unsent.len() >= MAX_UNSENT && out.unsent.len() < MAX_UNSENT + 64);
    }
}
