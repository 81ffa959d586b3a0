//! A WebSocket client on a bare TCP socket, for the frames and floods no
//! WebSocket library will send.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{Server, WAIT};

/// A WebSocket client on a bare TCP socket, for frames no WebSocket
/// library will send.
pub(crate) struct RawWs {
    pub(crate) tcp: TcpStream,
}

impl RawWs {
    pub(crate) async fn connect(server: &Server) -> RawWs {
        let mut tcp = TcpStream::connect(server.addr).await.unwrap();
        tcp.write_all(
            b"GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
              Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        )
        .await
        .unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0];
            tokio::time::timeout(WAIT, tcp.read_exact(&mut byte))
                .await
                .expect("a handshake reply in time")
                .unwrap();
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        RawWs { tcp }
    }

    /// Sends one masked frame.
    pub(crate) async fn frame(&mut self, fin: bool, opcode: u8, payload: &[u8]) {
        assert!(payload.len() < 126);
        let mask = [0x37, 0xfa, 0x21, 0x3d];
        let mut frame = vec![
            if fin { 0x80 } else { 0 } | opcode,
            0x80 | u8::try_from(payload.len()).unwrap(),
        ];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.tcp.write_all(&frame).await.unwrap();
    }

    /// Reads frames until a close frame; returns its code.
    pub(crate) async fn close_code(&mut self) -> u16 {
        self.close_frame().await.0
    }

    /// Reads frames until a close frame; returns its code and reason.
    pub(crate) async fn close_frame(&mut self) -> (u16, String) {
        loop {
            let mut head = [0; 2];
            tokio::time::timeout(WAIT, self.tcp.read_exact(&mut head))
                .await
                .expect("a frame in time")
                .expect("a frame, not the end of the connection");
            let mut len = usize::from(head[1] & 0x7f);
            if len == 126 {
                let mut ext = [0; 2];
                self.tcp.read_exact(&mut ext).await.unwrap();
                len = usize::from(u16::from_be_bytes(ext));
            }
            let mut payload = vec![0; len];
            self.tcp.read_exact(&mut payload).await.unwrap();
            if head[0] & 0x0f == 0x8 {
                let reason = String::from_utf8_lossy(&payload[2..]).into_owned();
                return (u16::from_be_bytes([payload[0], payload[1]]), reason);
            }
        }
    }
}
