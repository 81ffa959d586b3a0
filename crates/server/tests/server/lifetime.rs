//! `oxo_server::run` serves for as long as its future lives: dropping it
//! (aborting the task that runs it) closes the listening socket too.

use std::time::Duration;

use oxo_server::AppState;
use tokio::net::{TcpListener, TcpStream};

use crate::common::config;

#[tokio::test]
async fn a_dropped_server_stops_listening() {
    let state = tokio::task::spawn_blocking(|| AppState::new(config()))
        .await
        .unwrap()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(oxo_server::run(listener, state, std::future::pending()));
    assert!(TcpStream::connect(addr).await.is_ok(), "serving");

    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    // The accept loop's task is aborted with it; give it a moment to end.
    for _ in 0..100 {
        if TcpStream::connect(addr).await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{addr} still accepts connections after the server was dropped");
}
