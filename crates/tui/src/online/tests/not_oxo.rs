//! A server that answers but is not oxo (a plain web server: no WebSocket
//! at `/ws`) is said as such, with what to check, not as a WebSocket
//! protocol error; an oxo server that cannot take players right now is
//! tried again.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use oxo_client::Address;
use tokio::sync::mpsc;

use super::News;
use crate::online::net;

/// A server that answers every connection with `reply`.
fn answering(reply: &'static [u8]) -> Address {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("an address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut request = [0_u8; 1024];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(reply);
        }
    });
    format!("http://{addr}").parse().expect("an address")
}

#[test]
fn a_server_that_is_not_oxo_is_said_so_with_what_to_check() {
    // Answers as `python3 -m http.server` does.
    let address =
        answering(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>files</html>");
    let (_asks_tx, asks) = mpsc::unbounded_channel();
    let (news_tx, news) = std_mpsc::channel();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(net::run(address, None, asks, news_tx));
    let Ok(News::Failed(why)) = news.try_recv() else {
        panic!("the first connection fails");
    };
    assert!(why.contains("not as an oxo server"), "{why}");
    assert!(why.contains("/ws"), "{why}");
    assert!(why.contains("oxo serve"), "{why}");
    assert!(!why.contains("HTTP version"), "{why}");
}

#[test]
fn a_cluster_between_leaders_is_tried_again_from_the_first_connection() {
    // What a follower answers while no node leads (the server's relay.rs).
    let address = answering(
        b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
          Content-Type: text/plain; charset=utf-8\r\nContent-Length: 64\r\n\
          Connection: close\r\n\r\n\
          No node of the cluster is serving right now; retry in a second.\n",
    );
    let (asks_tx, asks) = mpsc::unbounded_channel();
    let (news_tx, news) = std_mpsc::channel();
    let network = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(net::run(address, None, asks, news_tx));
    });
    let said = news.recv_timeout(Duration::from_secs(10));
    let Ok(News::Reconnecting(said)) = said else {
        panic!("the first connection is not tried again: {said:?}");
    };
    assert!(
        said.starts_with("Server busy — retrying in 1 s ("),
        "{said}"
    );
    assert!(said.contains("no node of the cluster"), "{said}");
    // It keeps trying until the screen goes away.
    let again = news.recv_timeout(Duration::from_secs(10));
    assert!(matches!(again, Ok(News::Reconnecting(_))), "{again:?}");
    drop(asks_tx);
    network.join().expect("the network task ends");
}
