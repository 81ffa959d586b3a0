//! Behind a reverse proxy: `X-Forwarded-For` names the client for the
//! per-address limit on new players only when the proxy is trusted; and
//! which sites' pages may open WebSockets.

use oxo_client::tungstenite::Message;
use oxo_client::tungstenite::client::IntoClientRequest;
use oxo_server::{Config, RateLimit};
use serde_json::Value;

use crate::common::{Server, WAIT, config};

/// A server that lets one new player per address in, and trusts
/// `trusted` as proxies.
async fn server(trusted: &[&str]) -> Server {
    Server::with(Config {
        new_players: RateLimit::new(0.001, 1),
        trusted_proxies: trusted.iter().map(|ip| ip.parse().unwrap()).collect(),
        ..config()
    })
    .await
}

/// Connects (with `X-Forwarded-For: forwarded`, if any), says hello as a
/// new player and returns the reply's type and code.
async fn new_player(server: &Server, forwarded: Option<&str>) -> (String, String) {
    let mut request = server.ws_url().into_client_request().unwrap();
    if let Some(value) = forwarded {
        request
            .headers_mut()
            .insert("x-forwarded-for", value.parse().unwrap());
    }
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async(request, tcp).await.unwrap();
    futures_util::SinkExt::send(
        &mut ws,
        Message::text(r#"{"type":"hello","version":1,"id":1}"#),
    )
    .await
    .unwrap();
    loop {
        let frame = tokio::time::timeout(WAIT, futures_util::StreamExt::next(&mut ws))
            .await
            .expect("a reply in time")
            .expect("open")
            .unwrap();
        if let Message::Text(text) = frame {
            let v: Value = serde_json::from_str(&text).unwrap();
            let code = v["code"].as_str().unwrap_or_default().to_owned();
            return (v["type"].as_str().unwrap_or_default().to_owned(), code);
        }
    }
}

#[tokio::test]
async fn a_trusted_proxy_names_the_client_and_others_cannot() {
    // Trusted: two clients behind the proxy are two addresses.
    let s = server(&["127.0.0.1"]).await;
    let welcome = ("welcome".to_owned(), String::new());
    let limited = ("error".to_owned(), "rate_limited".to_owned());
    assert_eq!(new_player(&s, Some("198.51.100.1")).await, welcome);
    assert_eq!(new_player(&s, Some("198.51.100.2")).await, welcome);
    assert_eq!(new_player(&s, Some("198.51.100.1")).await, limited);
    // What a client writes left of the proxy's own entry is not believed.
    assert_eq!(
        new_player(&s, Some("203.0.113.50, 198.51.100.2")).await,
        limited
    );
    s.stop().await;

    // Not trusted (the default): the header is ignored, and every
    // connection from 127.0.0.1 is one address.
    let s = server(&[]).await;
    assert_eq!(new_player(&s, Some("198.51.100.1")).await, welcome);
    assert_eq!(new_player(&s, Some("198.51.100.2")).await, limited);
    s.stop().await;
}

/// The status of a WebSocket request sent with `Origin: origin`.
async fn upgrade_status(server: &Server, origin: &str) -> u16 {
    let mut request = server.ws_url().into_client_request().unwrap();
    request
        .headers_mut()
        .insert("origin", origin.parse().unwrap());
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    match tokio_tungstenite::client_async(request, tcp).await {
        Ok((_, response)) => response.status().as_u16(),
        Err(oxo_client::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
async fn another_sites_pages_may_not_open_websockets_unless_allowed() {
    let s = Server::start().await;
    let own = format!("http://{}", s.addr);
    assert_eq!(upgrade_status(&s, &own).await, 101);
    assert_eq!(upgrade_status(&s, "https://evil.example").await, 403);
    assert_eq!(s.metric("oxo_origin_refusals_total").await, Some(1));
    s.stop().await;
    let s = Server::with(Config {
        allowed_origins: vec!["https://friend.example".to_owned()],
        ..config()
    })
    .await;
    assert_eq!(upgrade_status(&s, "https://friend.example").await, 101);
    assert_eq!(upgrade_status(&s, "https://evil.example").await, 403);
    s.stop().await;
}
