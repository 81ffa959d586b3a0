//! A server that answers but is not oxo (a plain web server: no WebSocket
//! at `/ws`) is said as such, with what to check, not as a WebSocket
//! protocol error.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc as std_mpsc;

use oxo_client::Address;
use tokio::sync::mpsc;

use super::News;
use crate::online::net;

#[test]
fn a_server_that_is_not_oxo_is_said_so_with_what_to_check() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("an address");
    // Answers every connection as `python3 -m http.server` does.
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut request = [0_u8; 1024];
            let _ = stream.read(&mut request);
            let _ = stream
                .write_all(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>files</html>");
        }
    });
    let address: Address = format!("http://{addr}").parse().expect("an address");
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
