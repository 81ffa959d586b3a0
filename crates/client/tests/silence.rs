//! A server that goes silent (stopped, or the network gone) is noticed: a
//! watched connection hears the server's WebSocket pings, and when nothing
//! at all comes for about two of their intervals it closes as lost.

use std::time::{Duration, Instant};

use futures_util::SinkExt;
use oxo_client::tungstenite::Message;
use oxo_client::{Address, Connection, Event};
use tokio::net::TcpListener;

/// A WebSocket server that pings every `every` for `pinging`, then says
/// nothing more, with the connection open, for a minute.
async fn pinging_then_silent(every: Duration, pinging: Duration) -> Address {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let Ok((tcp, _)) = listener.accept().await else {
            return;
        };
        let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
            return;
        };
        let start = Instant::now();
        while start.elapsed() < pinging {
            tokio::time::sleep(every).await;
            if ws.send(Message::Ping(Vec::new().into())).await.is_err() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(ws);
    });
    format!("http://{addr}").parse().expect("an address")
}

#[tokio::test]
async fn a_watched_connection_closes_as_lost_once_the_pings_stop() {
    let every = Duration::from_millis(200);
    let pinging = Duration::from_millis(2000);
    let address = pinging_then_silent(every, pinging).await;
    let start = Instant::now();
    let mut conn = Connection::connect_watched(&address)
        .await
        .expect("connect");
    let event = tokio::time::timeout(Duration::from_secs(10), conn.next_event())
        .await
        .expect("the silence is noticed within seconds, not the default 40 s");
    assert_eq!(event, Some(Event::Closed(None)), "closed as lost");
    let after = start.elapsed();
    assert!(after >= pinging, "not while the pings came ({after:?})");
    assert!(
        after < pinging + Duration::from_secs(2),
        "about two intervals after the last ping ({after:?})"
    );
}

#[tokio::test]
async fn a_connection_not_watched_waits_however_long_the_server_is_silent() {
    let address = pinging_then_silent(Duration::from_millis(100), Duration::from_millis(300)).await;
    let mut conn = Connection::connect(&address).await.expect("connect");
    let event = tokio::time::timeout(Duration::from_millis(1500), conn.next_event()).await;
    assert!(event.is_err(), "no close: {event:?}");
}
