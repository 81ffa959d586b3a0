//! Non-readers: clients that say `hello`, subscribe to the lobby, and then
//! never read their socket again, while keeping it open.
//!
//! A server that queues messages for such a client without a bound, or
//! waits on it, pays in memory (its own, and the kernel's TCP buffers) or
//! in stalls; a server that bounds its queue closes it. The report says how
//! many the server closed and how long after their `hello`.
//!
//! How a non-reader is made:
//!
//! - Its socket asks for a small receive buffer (`SO_RCVBUF`, set before
//!   connecting so the window the server sees is small from the start), so
//!   the server's data backs up after a few KiB.
//! - It reads the handshake and the `welcome` (to know the server took it
//!   as a player), then never again. `watch_lobby` and the optional `ping`s
//!   are written as masked text frames straight to the TCP socket, so the
//!   WebSocket library never gets a chance to read on the way.
//! - A close by the server is noticed without reading a byte: every tick
//!   the socket's readiness is checked for a hang-up (a FIN that reached
//!   the socket, a reset, an error), and a write that fails (with pings)
//!   counts too. Both leave the received data where it is. A FIN queued
//!   behind data the client has not read cannot be seen that way; the
//!   final check finds it.
//!
//! At the end of the window each survivor reads what is waiting, until
//! nothing arrives for [`QUIET`] or the drain is nearly over (the backlog
//! can be megabytes: the server's kernel keeps sending what its socket
//! buffer holds even after the server closed): a close frame, end of stream
//! or a reset means the server had closed it (`closed_at_end`, with no
//! time: it happened at some point in the run); otherwise it was still
//! open. The bytes read then are the backlog the server and the kernels
//! held for it. Then the tool closes what is left.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use futures_util::FutureExt;
use oxo_core::Rng;
use oxo_protocol::{ClientMsg, Request};
use serde::{Deserialize, Serialize};
use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::client::Conn;
use crate::game::Ctx;

/// How often a non-reader looks for a hang-up (and sends a due ping).
const CHECK_EVERY: Duration = Duration::from_millis(250);
/// What the drain must leave after the final read: finishing a frame and
/// closing.
const AFTER_FINAL_READ: Duration = Duration::from_millis(1500);
/// The final read ends when nothing has arrived for this long.
const QUIET: Duration = Duration::from_millis(250);
/// The longest a non-reader waits at the end to finish writing a frame it
/// had begun.
const FINISH_WRITE: Duration = Duration::from_millis(500);
/// Bytes of unsent frames a non-reader keeps before it stops adding pings
/// (the server is not reading them either).
const MAX_UNSENT: usize = 64 * 1024;

/// What the non-readers of a run did, and what the server did to them.
///
/// `ready == closed_during_run + closed_at_end + open_at_end + unchecked`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NonReaderReport {
    /// Non-readers asked for.
    pub requested: usize,
    /// Time between two pings, in milliseconds, if they pinged.
    pub ping_interval_ms: Option<u64>,
    /// The receive buffer asked for each socket (`SO_RCVBUF`), in bytes.
    pub recv_buffer_bytes: u32,
    /// Non-readers that got `welcome` and sent `watch_lobby`.
    pub ready: u64,
    /// Non-readers that never got that far.
    pub setup_failures: u64,
    /// Set-up failures by kind (`connect`, `refused:server_full`, …).
    pub setup_failures_by_kind: BTreeMap<String, u64>,
    /// Pings written (none of their `pong`s were read).
    pub pings_sent: u64,
    /// Closed by the server, noticed during the run (hang-up or failed
    /// write).
    pub closed_during_run: u64,
    /// Closed by the server, found by the final read.
    pub closed_at_end: u64,
    /// Still open at the end of the window.
    pub open_at_end: u64,
    /// Abandoned before the final check (the drain ran out).
    pub unchecked: u64,
    /// How each close was noticed: `hangup`, `write:KIND`, `final_read`.
    pub noticed_by: BTreeMap<String, u64>,
    /// What reading a closed connection found: `close:CODE` (a close
    /// frame), `eof` (end of stream without one), `reset`, `error`, or
    /// `open` when the hang-up came with no end on the read side yet.
    pub closed_how: BTreeMap<String, u64>,
    /// From `hello` to the close being noticed, in milliseconds, over the
    /// closes noticed during the run: the fastest, the median and the
    /// slowest.
    pub ms_to_close: Option<CloseTimes>,
    /// Bytes the final read found waiting, over all connections.
    pub backlog_bytes_total: u64,
    /// The most bytes the final read found waiting on one connection.
    pub backlog_bytes_max: u64,
}

/// The spread of times from `hello` to a close, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseTimes {
    /// The fastest.
    pub min: u64,
    /// The median.
    pub p50: u64,
    /// The slowest.
    pub max: u64,
}

impl CloseTimes {
    /// The spread of `ms`, if there is any.
    fn of(mut ms: Vec<u64>) -> Option<CloseTimes> {
        ms.sort_unstable();
        Some(CloseTimes {
            min: *ms.first()?,
            p50: ms[ms.len() / 2],
            max: *ms.last()?,
        })
    }
}

impl fmt::Display for NonReaderReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pings = match self.ping_interval_ms {
            Some(ms) => format!("{} pings sent every {ms} ms", self.pings_sent),
            None => "no pings".to_owned(),
        };
        writeln!(
            f,
            "  non-read   {} of {} ready ({pings}, {} B receive buffer)",
            self.ready, self.requested, self.recv_buffer_bytes
        )?;
        let times = self.ms_to_close.map_or_else(String::new, |t| {
            format!(
                " ({} ms after hello median, {}..{} ms)",
                t.p50, t.min, t.max
            )
        });
        writeln!(
            f,
            "    closed by the server: {} during the run{times}, {} found at the end; {} still open, {} unchecked",
            self.closed_during_run, self.closed_at_end, self.open_at_end, self.unchecked
        )?;
        writeln!(
            f,
            "    backlog read at the end: {} B in all, {} B at most on one",
            self.backlog_bytes_total, self.backlog_bytes_max
        )?;
        for (label, map) in [
            ("noticed by", &self.noticed_by),
            ("closed how", &self.closed_how),
            ("set-up failed", &self.setup_failures_by_kind),
        ] {
            if !map.is_empty() {
                let parts: Vec<String> = map.iter().map(|(k, n)| format!("{k} {n}")).collect();
                writeln!(f, "    {label}: {}", parts.join(", "))?;
            }
        }
        Ok(())
    }
}

/// How the non-readers of a run behave.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Non-readers asked for.
    pub(crate) count: usize,
    /// Time between pings, if they ping.
    pub(crate) pings: Option<Duration>,
    /// `SO_RCVBUF` for their sockets.
    pub(crate) recv_buffer: u32,
    /// The longest the final read of one connection may take.
    pub(crate) final_read: Duration,
}

impl Plan {
    /// The final read's limit for a run whose drain lasts `drain`.
    pub(crate) fn final_read_within(drain: Duration) -> Duration {
        drain.saturating_sub(AFTER_FINAL_READ).max(QUIET)
    }
}

/// Counters shared by the non-readers of a run.
#[derive(Debug)]
pub(crate) struct NonReaders {
    plan: Plan,
    /// Non-readers ready.
    pub(crate) ready: AtomicU64,
    /// Non-readers that failed to get ready.
    pub(crate) failed: AtomicU64,
    pings: AtomicU64,
    closed_during_run: AtomicU64,
    closed_at_end: AtomicU64,
    open_at_end: AtomicU64,
    backlog_total: AtomicU64,
    backlog_max: AtomicU64,
    maps: Mutex<Maps>,
}

/// The counters by kind, and the close times.
#[derive(Debug, Default)]
struct Maps {
    setup_failures: BTreeMap<String, u64>,
    noticed_by: BTreeMap<String, u64>,
    closed_how: BTreeMap<String, u64>,
    ms_to_close: Vec<u64>,
}

impl NonReaders {
    /// Counters for the non-readers of `plan`.
    pub(crate) fn new(plan: Plan) -> NonReaders {
        NonReaders {
            plan,
            ready: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            pings: AtomicU64::new(0),
            closed_during_run: AtomicU64::new(0),
            closed_at_end: AtomicU64::new(0),
            open_at_end: AtomicU64::new(0),
            backlog_total: AtomicU64::new(0),
            backlog_max: AtomicU64::new(0),
            maps: Mutex::new(Maps::default()),
        }
    }

    /// Non-readers asked for.
    pub(crate) fn requested(&self) -> usize {
        self.plan.count
    }

    /// Whether every non-reader is ready or has failed.
    pub(crate) fn set_up(&self) -> bool {
        self.ready.load(Relaxed) + self.failed.load(Relaxed) >= self.plan.count as u64
    }

    fn maps(&self) -> std::sync::MutexGuard<'_, Maps> {
        self.maps
            .lock()
            .expect("non-reader map lock is never poisoned")
    }

    fn setup_failed(&self, kind: String) {
        self.failed.fetch_add(1, Relaxed);
        *self.maps().setup_failures.entry(kind).or_default() += 1;
    }

    fn closed(&self, noticed_by: String, how: String, after: Option<Duration>) {
        if after.is_some() {
            self.closed_during_run.fetch_add(1, Relaxed);
        } else {
            self.closed_at_end.fetch_add(1, Relaxed);
        }
        let mut maps = self.maps();
        *maps.noticed_by.entry(noticed_by).or_default() += 1;
        *maps.closed_how.entry(how).or_default() += 1;
        if let Some(after) = after {
            maps.ms_to_close
                .push(u64::try_from(after.as_millis()).unwrap_or(u64::MAX));
        }
    }

    fn backlog(&self, bytes: u64) {
        self.backlog_total.fetch_add(bytes, Relaxed);
        self.backlog_max.fetch_max(bytes, Relaxed);
    }

    /// The report, once the non-readers are done.
    pub(crate) fn report(&self) -> NonReaderReport {
        let maps = self.maps();
        let ready = self.ready.load(Relaxed);
        let closed_during_run = self.closed_during_run.load(Relaxed);
        let closed_at_end = self.closed_at_end.load(Relaxed);
        let open_at_end = self.open_at_end.load(Relaxed);
        NonReaderReport {
            requested: self.plan.count,
            ping_interval_ms: self
                .plan
                .pings
                .map(|p| u64::try_from(p.as_millis()).unwrap_or(u64::MAX)),
            recv_buffer_bytes: self.plan.recv_buffer,
            ready,
            setup_failures: self.failed.load(Relaxed),
            setup_failures_by_kind: maps.setup_failures.clone(),
            pings_sent: self.pings.load(Relaxed),
            closed_during_run,
            closed_at_end,
            open_at_end,
            unchecked: ready.saturating_sub(closed_during_run + closed_at_end + open_at_end),
            noticed_by: maps.noticed_by.clone(),
            closed_how: maps.closed_how.clone(),
            ms_to_close: CloseTimes::of(maps.ms_to_close.clone()),
            backlog_bytes_total: self.backlog_total.load(Relaxed),
            backlog_bytes_max: self.backlog_max.load(Relaxed),
        }
    }
}

/// Non-reader number `index`: set up, then hold the socket without reading
/// until the server closes it or the run stops.
pub(crate) async fn non_reader(ctx: Arc<Ctx>, shared: Arc<NonReaders>, index: usize) {
    let Some((mut conn, hello_at)) = set_up(&ctx, &shared, index).await else {
        return;
    };
    shared.ready.fetch_add(1, Relaxed);
    let mut out = RawSender::new(ctx.seed ^ (index as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    out.queue(ClientMsg::WatchLobby);
    let open = match hold(&ctx, &shared, &conn, &mut out).await {
        Held::Closed(noticed_by) => {
            let after = hello_at.elapsed();
            let (how, bytes) = final_read(&mut conn, shared.plan.final_read).await;
            shared.backlog(bytes);
            shared.closed(
                noticed_by,
                how.unwrap_or_else(|| "open".to_owned()),
                Some(after),
            );
            false
        }
        Held::Stopped => check_at_end(&shared, &mut conn, &mut out).await,
    };
    ctx.stats.open.fetch_sub(1, Relaxed);
    if open {
        conn.close().await;
    }
}

/// Connects with a small receive buffer and says `hello`; counts a failure.
async fn set_up(ctx: &Ctx, shared: &NonReaders, index: usize) -> Option<(Conn, Instant)> {
    let _permit = ctx.setup.acquire().await.ok()?;
    let target = ctx.target().await?;
    let mut conn =
        match Conn::connect_with(&target, ctx.timeout, Some(shared.plan.recv_buffer)).await {
            Ok(conn) => conn,
            Err(e) => {
                shared.setup_failed(e.kind());
                return None;
            }
        };
    ctx.stats.open.fetch_add(1, Relaxed);
    let hello_at = Instant::now();
    match conn
        .hello(None, Some(format!("nonreader{index}")), ctx.timeout)
        .await
    {
        Ok(_) => Some((conn, hello_at)),
        Err(e) => {
            shared.setup_failed(e.kind());
            ctx.stats.open.fetch_sub(1, Relaxed);
            conn.close().await;
            None
        }
    }
}

/// How holding a connection ended.
enum Held {
    /// The server closed it; how that was noticed.
    Closed(String),
    /// The run stopped.
    Stopped,
}

/// Writes what is queued and a ping when due, and looks for a hang-up,
/// every tick, never reading, until the server closes or the run stops.
async fn hold(ctx: &Ctx, shared: &NonReaders, conn: &Conn, out: &mut RawSender) -> Held {
    let tcp = conn.tcp();
    let mut tick = tokio::time::interval(
        shared
            .plan
            .pings
            .map_or(CHECK_EVERY, |p| p.min(CHECK_EVERY)),
    );
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut next_ping = shared.plan.pings.map(|p| Instant::now() + p);
    let mut stop = ctx.stop.clone();
    loop {
        if let (Some(at), Some(every)) = (next_ping, shared.plan.pings) {
            if Instant::now() >= at {
                next_ping = Some(at + every);
                if out.queue(ClientMsg::Ping) {
                    shared.pings.fetch_add(1, Relaxed);
                }
            }
        }
        if let Err(e) = out.flush(tcp) {
            return Held::Closed(format!("write:{:?}", e.kind()));
        }
        if hung_up(tcp) {
            return Held::Closed("hangup".to_owned());
        }
        if *stop.borrow() {
            return Held::Stopped;
        }
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return Held::Stopped,
        }
    }
}

/// At the end of the window: finishes a frame begun, then reads what is
/// waiting to learn whether the server had closed the connection. Returns
/// whether it is still open.
async fn check_at_end(shared: &NonReaders, conn: &mut Conn, out: &mut RawSender) -> bool {
    match tokio::time::timeout(FINISH_WRITE, out.finish(conn.tcp())).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            // The write side is gone: the server closed (a reset).
            let (how, bytes) = final_read(conn, shared.plan.final_read).await;
            shared.backlog(bytes);
            let how = how.unwrap_or_else(|| "open".to_owned());
            shared.closed(format!("write:{:?}", e.kind()), how, None);
            return false;
        }
        Err(_) => {
            // The server is not reading either: reading now could not tell
            // a close, and the WebSocket library must not write into a
            // half-written frame. Count it as open and drop it.
            shared.open_at_end.fetch_add(1, Relaxed);
            return false;
        }
    }
    let (how, bytes) = final_read(conn, shared.plan.final_read).await;
    shared.backlog(bytes);
    match how {
        Some(how) => {
            shared.closed("final_read".to_owned(), how, None);
            false
        }
        None => {
            shared.open_at_end.fetch_add(1, Relaxed);
            true
        }
    }
}

/// Whether the socket shows a hang-up or an error, without reading.
fn hung_up(tcp: &TcpStream) -> bool {
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
async fn final_read(conn: &mut Conn, limit: Duration) -> (Option<String>, u64) {
    let limit = Instant::now() + limit;
    let mut bytes = 0u64;
    loop {
        let deadline = limit.min(Instant::now() + QUIET);
        let next = match tokio::time::timeout_at(deadline, conn.next_raw()).await {
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

/// Client frames written straight to the socket, never waiting: what the
/// socket does not take now stays queued for the next try.
#[derive(Debug)]
struct RawSender {
    unsent: Vec<u8>,
    next_id: u64,
    rng: Rng,
}

impl RawSender {
    fn new(seed: u64) -> RawSender {
        RawSender {
            unsent: Vec::new(),
            // The `hello` went through the WebSocket library with id 1.
            next_id: 2,
            rng: Rng::new(seed),
        }
    }

    /// Queues `msg` as one masked text frame, unless [`MAX_UNSENT`] bytes
    /// are already waiting. Returns whether it was queued.
    fn queue(&mut self, msg: ClientMsg) -> bool {
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
    fn flush(&mut self, tcp: &TcpStream) -> io::Result<()> {
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
    async fn finish(&mut self, tcp: &TcpStream) -> io::Result<()> {
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
    fn close_times_spread() {
        assert_eq!(CloseTimes::of(Vec::new()), None);
        assert_eq!(
            CloseTimes::of(vec![30, 10, 20]),
            Some(CloseTimes {
                min: 10,
                p50: 20,
                max: 30
            })
        );
        assert_eq!(CloseTimes::of(vec![5]).map(|t| t.p50), Some(5));
    }

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

    #[test]
    fn report_adds_up() {
        let shared = NonReaders::new(Plan {
            count: 5,
            pings: Some(Duration::from_secs(1)),
            recv_buffer: 4096,
            final_read: Plan::final_read_within(Duration::from_secs(5)),
        });
        assert_eq!(shared.plan.final_read, Duration::from_millis(3500));
        assert_eq!(Plan::final_read_within(Duration::ZERO), QUIET);
        shared.ready.store(4, Relaxed);
        shared.setup_failed("connect".into());
        assert!(shared.set_up());
        shared.closed(
            "hangup".into(),
            "close:1008".into(),
            Some(Duration::from_millis(1500)),
        );
        shared.closed("final_read".into(), "eof".into(), None);
        shared.open_at_end.fetch_add(1, Relaxed);
        shared.backlog(100);
        shared.backlog(40);
        let r = shared.report();
        assert_eq!(
            (
                r.ready,
                r.closed_during_run,
                r.closed_at_end,
                r.open_at_end,
                r.unchecked
            ),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(r.ms_to_close.map(|t| t.p50), Some(1500));
        assert_eq!((r.backlog_bytes_total, r.backlog_bytes_max), (140, 100));
        assert_eq!(r.ping_interval_ms, Some(1000));
        assert_eq!(r.setup_failures_by_kind.get("connect"), Some(&1));
    }
}
