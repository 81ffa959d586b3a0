//! A handshake the server answers with an HTTP error instead of the
//! WebSocket: a `503` is the server being unable to take the connection
//! now (retry), another status with an oxo error body is the server's
//! refusal in its words, and anything else is something that is not oxo.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};

use oxo_client::{Address, Error, Link, LinkOptions};

/// A server that answers every connection with `reply`.
fn answering(reply: &'static str) -> Address {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("an address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut request = [0_u8; 2048];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://{addr}").parse().expect("an address")
}

async fn connect(reply: &'static str) -> Error {
    Link::connect(&answering(reply), LinkOptions::default())
        .await
        .expect_err("the handshake is refused")
}

#[tokio::test]
async fn a_cluster_between_leaders_is_unavailable_in_the_servers_words() {
    // What a follower answers while no node leads (server's relay.rs).
    let e = connect(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Length: 64\r\n\
         Connection: close\r\n\r\n\
         No node of the cluster is serving right now; retry in a second.\n",
    )
    .await;
    let Error::Unavailable { reason, .. } = &e else {
        panic!("not unavailable: {e}");
    };
    assert_eq!(
        reason,
        "No node of the cluster is serving right now; retry in a second."
    );
    assert_eq!(e.kind(), "unavailable");
}

#[tokio::test]
async fn a_server_shutting_down_is_unavailable_in_its_words() {
    let e = connect(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
         Content-Length: 39\r\nConnection: close\r\n\r\n\
         {\"error\":\"The server is shutting down\"}",
    )
    .await;
    assert!(
        matches!(&e, Error::Unavailable { reason, .. } if reason == "The server is shutting down"),
        "{e}"
    );
    assert!(
        e.to_string().contains("cannot take connections right now"),
        "{e}"
    );
}

#[tokio::test]
async fn an_oxo_refusal_is_said_in_the_servers_words() {
    let e = connect(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n\
         Content-Length: 46\r\nConnection: close\r\n\r\n\
         {\"error\":\"Pages from x may not connect\\u0007\"}",
    )
    .await;
    let Error::Connect { reason, .. } = &e else {
        panic!("not a connect error: {e}");
    };
    // Control characters from the network are not passed on.
    assert_eq!(
        reason,
        "the server refused the connection (403 Forbidden): Pages from x may not connect"
    );
}

#[tokio::test]
async fn anything_else_is_not_an_oxo_server() {
    let e = connect(
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\
         Connection: close\r\n\r\n<h1>no</h1",
    )
    .await;
    let Error::Connect { reason, .. } = &e else {
        panic!("not a connect error: {e}");
    };
    assert!(reason.contains("404 Not Found"), "{reason}");
    assert!(reason.contains("not as an oxo server"), "{reason}");
}
