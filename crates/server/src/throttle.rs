//! Reading a client's socket no faster than a byte rate.
//!
//! The message limit counts what the WebSocket layer hands up: whole
//! messages, pings and pongs. Frames that never make a message, such as
//! empty continuation frames after the start of a text message, are read
//! and parsed below it, and a client can send millions a second. So every
//! connection's reads are held to [`Config::read_limit`]: past its burst,
//! the next read waits until the bytes already read are paid for, the
//! kernel's buffers fill, and the client's sends back up. Honest traffic
//! never comes near it (a full burst of the largest messages is 400 KiB).
//!
//! [`Config::read_limit`]: crate::Config::read_limit

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use crate::config::RateLimit;
use crate::metrics::Metrics;

/// The limit every connection's reads are held to, and where the times
/// they were held back are counted.
#[derive(Debug)]
pub(crate) struct ReadLimit {
    /// How many nanoseconds one byte takes to pay for; `None`: no limit.
    per_byte: Option<u64>,
    /// How far ahead of the present, in nanoseconds, the bytes read may be
    /// paid for before reading waits: the burst.
    ahead: u64,
    /// What the connections' times count from (a connection keeps its
    /// time in 8 bytes, not an `Instant`'s 16: an idle connection's memory
    /// is mostly such small things).
    start: Instant,
    metrics: Arc<Metrics>,
}

impl ReadLimit {
    /// `limit` in bytes per second and bytes of burst.
    pub(crate) fn new(limit: RateLimit, metrics: Arc<Metrics>) -> ReadLimit {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let per_byte = (limit.per_second.is_finite() && limit.per_second > 0.0)
            .then(|| (1e9 / limit.per_second).ceil().min(u64::MAX as f64) as u64);
        ReadLimit {
            per_byte,
            ahead: per_byte.map_or(0, |b| b.saturating_mul(u64::from(limit.burst))),
            start: Instant::now(),
            metrics,
        }
    }

    /// Nanoseconds from the start to `at`.
    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.start).as_nanos()).unwrap_or(u64::MAX)
    }
}

/// A stream whose reads are held to a [`ReadLimit`]; writes pass through.
#[derive(Debug)]
pub(crate) struct Throttled<S> {
    inner: S,
    limit: Arc<ReadLimit>,
    /// When every byte read so far is paid for, in nanoseconds from the
    /// limit's start.
    paid_at: u64,
    /// Set while reading waits for the bytes read to be paid for.
    wait: Option<Pin<Box<Sleep>>>,
}

impl<S> Throttled<S> {
    /// `inner`, read no faster than `limit`.
    pub(crate) fn new(inner: S, limit: Arc<ReadLimit>) -> Throttled<S> {
        Throttled {
            inner,
            limit,
            paid_at: 0,
            wait: None,
        }
    }

    /// Counts `n` bytes just read; when that takes the debt past the
    /// burst, the next read waits.
    fn spend(&mut self, n: usize) {
        let Some(per_byte) = self.limit.per_byte else {
            return;
        };
        let now = Instant::now();
        let now_ns = self.limit.nanos(now);
        let cost = per_byte.saturating_mul(u64::try_from(n).unwrap_or(u64::MAX));
        self.paid_at = self.paid_at.max(now_ns).saturating_add(cost);
        let until = self.paid_at.saturating_sub(self.limit.ahead);
        if until > now_ns {
            self.limit.metrics.reads_held.fetch_add(1, Relaxed);
            let wait = Duration::from_nanos(until - now_ns);
            self.wait = Some(Box::pin(tokio::time::sleep_until(now + wait)));
        }
    }
}

// A connection's stream sits in hyper's upgraded connection for the
// connection's life.
const _: () = assert!(std::mem::size_of::<Throttled<()>>() <= 24);

impl<S: AsyncRead + Unpin> AsyncRead for Throttled<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(wait) = &mut this.wait {
            ready!(wait.as_mut().poll(cx));
            this.wait = None;
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        this.spend(buf.filled().len() - before);
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Throttled<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn reads_past_the_burst_wait_for_the_rate() {
        let metrics = Arc::new(Metrics::default());
        // 1,000 bytes a second, bursts of 100.
        let limit = Arc::new(ReadLimit::new(
            RateLimit::new(1000.0, 100),
            Arc::clone(&metrics),
        ));
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let mut reader = Throttled::new(server, limit);
        client.write_all(&[0; 1101]).await.unwrap();
        let start = Instant::now();
        // A read takes what is there: 1,100 bytes, 1,000 past the burst.
        let mut buf = vec![0; 1100];
        reader.read_exact(&mut buf).await.unwrap();
        assert_eq!(start.elapsed(), Duration::ZERO);
        // So the next read waits until they are paid for: a second.
        reader.read_exact(&mut buf[..1]).await.unwrap();
        assert_eq!(start.elapsed(), Duration::from_secs(1));
        assert!(metrics.reads_held.load(Relaxed) >= 1);
    }

    #[tokio::test(start_paused = true)]
    async fn no_limit_never_waits() {
        let metrics = Arc::new(Metrics::default());
        let limit = Arc::new(ReadLimit::new(RateLimit::UNLIMITED, Arc::clone(&metrics)));
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let mut reader = Throttled::new(server, limit);
        client.write_all(&[0; 50_000]).await.unwrap();
        let mut buf = vec![0; 50_000];
        reader.read_exact(&mut buf).await.unwrap();
        assert_eq!(metrics.reads_held.load(Relaxed), 0);
    }
}
