//! A graceful shutdown is not held up by clients that do not play their
//! part: one that never answers the server's close frame, or one that never
//! finishes its request head, costs the shutdown a fraction of a second
//! (docs/protocol.md, "Closing"), while every client that is there still
//! gets `closing` and the close frame.

use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::common::{Server, WAIT, config};
use crate::raw_ws::RawWs;

/// The most a shutdown may take here: the documented bound on waiting for
/// a client (0.2 s for its close frame to go out, 0.2 s for its answer),
/// with room for a loaded machine, and well under the second a client had
/// before.
const QUICK: Duration = Duration::from_millis(750);

#[tokio::test]
async fn a_client_that_never_answers_the_close_frame_holds_the_shutdown_briefly() {
    let server = Server::with(config()).await;
    let mut ws = RawWs::connect(&server).await;
    ws.frame(true, 1, br#"{"type":"hello","version":1,"name":"Mute"}"#)
        .await;
    let started = Instant::now();
    let stopping = tokio::spawn(server.stop());
    // The client reads its welcome and the close frame, but never answers
    // the close frame.
    assert_eq!(ws.close_code().await, 1001);
    tokio::time::timeout(WAIT, stopping)
        .await
        .expect("the server stops")
        .unwrap();
    let took = started.elapsed();
    assert!(took < QUICK, "the shutdown took {took:?}");
}

#[tokio::test]
async fn a_request_head_never_finished_does_not_hold_the_shutdown() {
    let server = Server::with(config()).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n")
        .await
        .unwrap();
    // The server has the bytes before the shutdown begins.
    assert_eq!(server.get("/healthz").await.0, 200);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    server.stop().await;
    let took = started.elapsed();
    assert!(took < QUICK, "the shutdown took {took:?}");
}
