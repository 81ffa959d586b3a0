//! A client's TCP socket that, when the server is done with it, is not
//! closed with the client's bytes still unread.
//!
//! Closing a socket that holds unread data makes the kernel reset the
//! connection (RFC 1122, 4.2.2.13), and a reset can make the client lose
//! what it had not yet read: the close frame that says why, or the last
//! response. That happens when the server stops reading in the middle of
//! what the client sends: a frame the WebSocket layer refuses (over its
//! size limit, bad UTF-8) with more behind it, or requests pipelined after
//! the last one answered. So a socket dropped with bytes waiting is
//! handed to a task that sends the end of the stream, then reads and drops
//! what comes until the client closes too, for at most [`DRAIN`] and
//! [`DRAIN_BYTES`].
//!
//! A socket dropped with nothing waiting (the usual end) costs one
//! non-blocking peek.

use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

/// How long a socket dropped with bytes waiting is read for, at most:
/// the same second the WebSocket layer waits for a client's close frame.
pub(crate) const DRAIN: Duration = Duration::from_secs(1);

/// How many bytes a drain reads at most: the burst of a connection's
/// default byte rate (1 MiB, `Config::read_limit`). The socket is read
/// below that rate's throttle, so without a cap a client that streams as
/// fast as it can while it is let go would have the server read (and
/// drop) gigabytes in that second; one whose sends outrun the cap is
/// flooding, and gets the reset it asked for.
pub(crate) const DRAIN_BYTES: usize = 1 << 20;

/// A TCP stream that is drained, not reset, when dropped with unread
/// bytes (see the module's docs).
#[derive(Debug)]
pub(crate) struct Linger(Option<TcpStream>);

// The option costs nothing: the stream's handle has room for `None`.
const _: () = assert!(std::mem::size_of::<Linger>() == std::mem::size_of::<TcpStream>());

impl Linger {
    /// Wraps `tcp`.
    pub(crate) fn new(tcp: TcpStream) -> Linger {
        Linger(Some(tcp))
    }

    fn stream(self: Pin<&mut Self>) -> io::Result<Pin<&mut TcpStream>> {
        match &mut self.get_mut().0 {
            Some(tcp) => Ok(Pin::new(tcp)),
            None => Err(io::ErrorKind::NotConnected.into()),
        }
    }
}

impl Drop for Linger {
    fn drop(&mut self) {
        let Some(tcp) = self.0.take() else { return };
        if !unread(&tcp) {
            return;
        }
        // Outside a runtime (not the server's case) there is nobody to
        // drain it: it is closed as it is.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(drain(tcp));
        }
    }
}

/// Whether the client has sent bytes the server did not read (the end of
/// the stream does not count: it leaves nothing to reset).
fn unread(tcp: &TcpStream) -> bool {
    let mut byte = [MaybeUninit::<u8>::uninit()];
    // The socket is non-blocking: nothing waiting is `WouldBlock`.
    matches!(socket2::SockRef::from(tcp).peek(&mut byte), Ok(n) if n > 0)
}

/// Ends the server's side of the stream, then reads what the client still
/// sends until it closes its side, for at most [`DRAIN`] and
/// [`DRAIN_BYTES`].
async fn drain(mut tcp: TcpStream) {
    let _ = tokio::time::timeout(DRAIN, async {
        let _ = tcp.shutdown().await;
        let mut buf = [0; 2048];
        let mut left = DRAIN_BYTES;
        while let Ok(n @ 1..) = tcp.read(&mut buf).await {
            left = left.saturating_sub(n);
            if left == 0 {
                break;
            }
        }
    })
    .await;
}

impl AsyncRead for Linger {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.stream() {
            Ok(tcp) => tcp.poll_read(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl AsyncWrite for Linger {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.stream() {
            Ok(tcp) => tcp.poll_write(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.stream() {
            Ok(tcp) => tcp.poll_write_vectored(cx, bufs),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.stream() {
            Ok(tcp) => tcp.poll_flush(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.stream() {
            Ok(tcp) => tcp.poll_shutdown(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("addr"))
            .await
            .expect("connect");
        let (server, _) = listener.accept().await.expect("accept");
        (client, server)
    }

    #[tokio::test]
    async fn what_was_written_reaches_a_client_whose_bytes_were_not_read() {
        let (mut client, server) = pair().await;
        let mut server = Linger::new(server);
        // The client sends more than the server reads...
        client.write_all(&[7; 10_000]).await.expect("send");
        tokio::time::sleep(Duration::from_millis(50)).await;
        // ...the server answers and is done with the socket.
        server.write_all(b"bye").await.expect("answer");
        drop(server);
        // The client reads the answer, then the end of the stream: not a
        // reset, which would be the end of its reading.
        let mut got = Vec::new();
        let read = client.read_to_end(&mut got).await;
        assert!(read.is_ok(), "{read:?}");
        assert_eq!(got, b"bye");
    }

    #[tokio::test]
    async fn a_client_that_streams_while_let_go_is_read_no_more_than_the_drain_allows() {
        let (mut client, server) = pair().await;
        client.write_all(b"unread").await.expect("send");
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(Linger::new(server));
        // The client sends as fast as it can while the server drains: the
        // server stops reading (and the client's sends fail) once it has
        // read its allowance, not after a whole second of a flood.
        let chunk = vec![7; 64 * 1024];
        let mut sent = 0usize;
        let start = tokio::time::Instant::now();
        while start.elapsed() < 2 * DRAIN {
            match tokio::time::timeout(DRAIN, client.write_all(&chunk)).await {
                Ok(Ok(())) => sent += chunk.len(),
                Ok(Err(_)) | Err(_) => break,
            }
        }
        // What the kernel's buffers hold comes on top of the allowance.
        assert!(sent < DRAIN_BYTES + 32 * 1024 * 1024, "{sent} bytes taken");
    }

    #[tokio::test]
    async fn a_client_that_never_closes_is_let_go_after_the_drain() {
        let (mut client, server) = pair().await;
        client.write_all(b"unread").await.expect("send");
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(Linger::new(server));
        let mut got = Vec::new();
        let start = tokio::time::Instant::now();
        // The server's end of the stream comes at once.
        let read = client.read_to_end(&mut got).await;
        assert!(read.is_ok() && got.is_empty(), "{read:?}");
        assert!(start.elapsed() < DRAIN, "{:?}", start.elapsed());
        // Still read meanwhile: more bytes are taken without a reset.
        client.write_all(b"more").await.expect("still read");
        tokio::time::sleep(Duration::from_millis(50)).await;
        client.write_all(b"more").await.expect("still read");
        // After the drain the socket is gone: more bytes get a reset.
        tokio::time::sleep(DRAIN).await;
        let _ = client.write_all(b"more").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(client.write_all(b"more").await.is_err(), "not let go");
    }
}
