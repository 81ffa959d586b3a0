//! Frames that never make a message: empty continuation frames after the
//! start of a text message are below the message limit's notice, so the
//! server reads each connection no faster than its byte rate
//! (`Config::read_limit`), and the flood backs up in the client.

use std::time::Duration;

use oxo_server::{Config, RateLimit};
use tokio::io::AsyncWriteExt;

use crate::common::{Server, config};
use crate::raw_ws::RawWs;

/// How much of a flood `raw` gets out in `window`: written into the
/// kernel and read by the server.
async fn flood_for(raw: &mut RawWs, window: Duration) -> usize {
    // A small send buffer, so that what the kernel holds on this side
    // counts little beside what the server reads.
    let _ = socket2::SockRef::from(&raw.tcp).set_send_buffer_size(16 * 1024);
    // Empty continuation frames: FIN clear, opcode 0, masked, no payload.
    let chunk = [0x00u8, 0x80, 0x11, 0x22, 0x33, 0x44].repeat(64 * 1024 / 6);
    let mut sent = 0;
    let _ = tokio::time::timeout(window, async {
        loop {
            if raw.tcp.write_all(&chunk).await.is_err() {
                return;
            }
            sent += chunk.len();
        }
    })
    .await;
    sent
}

/// A server with `read_limit`, flooded for four seconds after `hello` and
/// the start of a message: the bytes the flood got out, and how often the
/// server held its reads back.
async fn flooded(read_limit: RateLimit) -> (usize, u64) {
    let server = Server::with(Config {
        read_limit,
        ..config()
    })
    .await;
    let mut raw = RawWs::connect(&server).await;
    raw.frame(true, 0x1, br#"{"type":"hello","version":1}"#)
        .await;
    raw.frame(false, 0x1, br#"{"type":"ping","id":1"#).await;
    let sent = flood_for(&mut raw, Duration::from_secs(4)).await;
    let held = server.metric("oxo_reads_held_total").await.unwrap_or(0);
    server.stop().await;
    (sent, held)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_empty_continuation_frames_is_read_no_faster_than_the_byte_rate() {
    // 64 KiB a second with bursts of 64 KiB: in 4 s the server reads
    // about 320 KiB, the kernel's buffers hold a few megabytes, and the
    // rest waits in the client.
    let (held, times) = flooded(RateLimit::new(64.0 * 1024.0, 64 * 1024)).await;
    assert!(times > 0, "the flood's reads were held back");
    // Without the limit the same flood goes far further.
    let (free, times) = flooded(RateLimit::UNLIMITED).await;
    assert!(
        held * 2 < free,
        "held back: {held} bytes sent; without a limit: {free}"
    );
    assert_eq!(times, 0);
}

#[tokio::test]
async fn honest_play_is_never_held_back() {
    let server = Server::start().await;
    let (mut x, mut o, table) = crate::common::pair(&server, serde_json::json!({})).await;
    for (x_cell, o_cell) in [("a1", "b1"), ("a2", "b2")] {
        x.play(&table, x_cell).await;
        o.play(&table, o_cell).await;
    }
    x.play(&table, "a3").await;
    assert_eq!(server.metric("oxo_reads_held_total").await, Some(0));
    server.stop().await;
}
