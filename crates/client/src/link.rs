//! [`Link`]: one WebSocket connection driven by one task, with nothing
//! between the caller and the socket: requests go out numbered, messages
//! come back in order, read only when asked for.
//!
//! This is the client for programs that hold many connections (the load
//! tool holds tens of thousands) or must see exactly what the server sent
//! (the server's own tests). A program with a user interface usually wants
//! [`Connection`](crate::Connection), which reads in the background.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use oxo_protocol::{ClientMsg, PROTOCOL_VERSION, Request, ServerMsg};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::decode::{clip, decode, reply_id};
use crate::{Address, DEFAULT_TIMEOUT, Error, Welcome};

/// How a [`Link`] connects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkOptions {
    /// How long the TCP connection and the WebSocket handshake may take.
    pub timeout: Duration,
    /// The socket's receive buffer (`SO_RCVBUF`), set before connecting so
    /// that the window the server sees is small from the first packet
    /// (Linux doubles the value and keeps a floor of about 2 KiB); `None`
    /// keeps the system's default.
    pub recv_buffer: Option<u32>,
}

impl Default for LinkOptions {
    fn default() -> LinkOptions {
        LinkOptions {
            timeout: DEFAULT_TIMEOUT,
            recv_buffer: None,
        }
    }
}

/// A connection to `oxo serve` driven by its owner: [`Link::send`] numbers
/// and sends a request, [`Link::recv`] reads the next message, whatever it
/// is, and [`Link::call`] does both until the reply.
///
/// Buffers are small (a 4 KiB read buffer, no write buffer) because a
/// program may hold tens of thousands of links, and Nagle's algorithm is
/// off because every message is a request or an event someone waits for.
#[derive(Debug)]
pub struct Link {
    ws: WebSocketStream<TcpStream>,
    next_id: u64,
}

impl Link {
    /// Connects to the server at `address`.
    ///
    /// # Errors
    ///
    /// [`Error::Connect`] if the server cannot be reached or refuses the
    /// handshake, [`Error::Unavailable`] if it answers that it cannot take
    /// a connection now (`503`: try again in a moment), [`Error::Timeout`]
    /// if that takes longer than `options.timeout`.
    pub async fn connect(address: &Address, options: LinkOptions) -> Result<Link, Error> {
        let url = address.ws_url();
        let failed = |reason: String| Error::Connect {
            url: url.clone(),
            reason,
        };
        let resolve = tokio::net::lookup_host(address.host_port());
        let addrs: Vec<SocketAddr> = tokio::time::timeout(options.timeout, resolve)
            .await
            .map_err(|_| Error::Timeout(options.timeout))?
            .map_err(|e| failed(e.to_string()))?
            .collect();
        let mut last = failed("the name has no address".to_owned());
        for addr in addrs {
            match Link::connect_to(addr, &url, options).await {
                Ok(link) => return Ok(link),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Connects to the WebSocket `url` at the socket address `addr` (no
    /// name lookup: for programs that resolved it once for many
    /// connections).
    ///
    /// # Errors
    ///
    /// As [`Link::connect`].
    pub async fn connect_to(
        addr: SocketAddr,
        url: &str,
        options: LinkOptions,
    ) -> Result<Link, Error> {
        tokio::time::timeout(options.timeout, Link::open(addr, url, options.recv_buffer))
            .await
            .unwrap_or(Err(Error::Timeout(options.timeout)))
    }

    async fn open(addr: SocketAddr, url: &str, recv_buffer: Option<u32>) -> Result<Link, Error> {
        let failed = |reason: String| Error::Connect {
            url: url.to_owned(),
            reason,
        };
        let io = |e: std::io::Error| failed(e.to_string());
        let tcp = match recv_buffer {
            None => TcpStream::connect(addr).await,
            Some(bytes) => {
                let socket = if addr.is_ipv4() {
                    TcpSocket::new_v4()
                } else {
                    TcpSocket::new_v6()
                }
                .map_err(io)?;
                socket.set_recv_buffer_size(bytes).map_err(io)?;
                socket.connect(addr).await
            }
        }
        .map_err(io)?;
        tcp.set_nodelay(true).map_err(io)?;
        let config = WebSocketConfig::default()
            .read_buffer_size(4096)
            .write_buffer_size(0)
            .max_message_size(Some(1 << 20))
            .max_frame_size(Some(1 << 20));
        let (ws, _) = tokio_tungstenite::client_async_with_config(url, tcp, Some(config))
            .await
            .map_err(|e| handshake_failure(url, &e))?;
        Ok(Link { ws, next_id: 1 })
    }

    /// Sends `msg` with a fresh request id and returns the id; its reply
    /// comes back through [`Link::recv`] with that id.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] if the connection is gone.
    pub async fn send(&mut self, msg: ClientMsg) -> Result<u64, Error> {
        let id = self.next_id;
        self.next_id += 1;
        let text = serde_json::to_string(&Request { id: Some(id), msg })
            .map_err(|e| Error::Unexpected(format!("a request that does not serialize: {e}")))?;
        self.send_text(&text).await?;
        Ok(id)
    }

    /// Sends a text frame as it is (for tests of what the server does with
    /// bad input).
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] if the connection is gone.
    pub async fn send_text(&mut self, text: &str) -> Result<(), Error> {
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|_| Error::Closed(None))
    }

    /// The next message from the server, pings skipped. Cancel-safe:
    /// dropping the future loses nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`] (with the server's close code and reason, if it
    /// sent them), [`Error::BadMessage`] for a frame that is not a message
    /// of this protocol.
    pub async fn recv(&mut self) -> Result<ServerMsg, Error> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(text))) => {
                    return decode(text.as_str())
                        .map_err(|e| Error::BadMessage(format!("{e}: {}", clip(&text))));
                }
                Some(Ok(Message::Binary(_))) => {
                    return Err(Error::BadMessage("a binary frame".to_owned()));
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Close(frame))) => {
                    return Err(Error::Closed(
                        frame.map(|f| (u16::from(f.code), f.reason.to_string())),
                    ));
                }
                Some(Err(_)) | None => return Err(Error::Closed(None)),
            }
        }
    }

    /// The next WebSocket frame as it came, close frames and errors
    /// included (`None` once the stream has ended), for callers that must
    /// tell exactly how a connection ended or what the server wrote.
    pub async fn next_frame(&mut self) -> Option<Result<Message, tungstenite::Error>> {
        self.ws.next().await
    }

    /// Sends `msg` and waits up to `timeout` for its reply (`ok`,
    /// `welcome` or `pong` with the same id), handing every other message
    /// to `on_event` meanwhile.
    ///
    /// # Errors
    ///
    /// [`Error::Refused`] when the reply is an `error`, [`Error::Timeout`],
    /// and [`Link::recv`]'s errors.
    pub async fn call(
        &mut self,
        msg: ClientMsg,
        timeout: Duration,
        mut on_event: impl FnMut(ServerMsg),
    ) -> Result<ServerMsg, Error> {
        let id = self.send(msg).await?;
        let wait = async {
            loop {
                let msg = self.recv().await?;
                if reply_id(&msg) == Some(id) {
                    return match msg {
                        ServerMsg::Error { code, message, .. } => {
                            Err(Error::Refused { code, message })
                        }
                        reply => Ok(reply),
                    };
                }
                on_event(msg);
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .unwrap_or(Err(Error::Timeout(timeout)))
    }

    /// Says `hello`: with the `token` of an earlier welcome to come back as
    /// the same player, with a display `name`; messages before the welcome
    /// are dropped.
    ///
    /// # Errors
    ///
    /// As [`Link::call`]; [`Error::Unexpected`] for a reply that is not a
    /// welcome.
    pub async fn hello(
        &mut self,
        token: Option<String>,
        name: Option<String>,
        timeout: Duration,
    ) -> Result<Welcome, Error> {
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION.into(),
            token,
            name,
        };
        Welcome::from_reply(self.call(hello, timeout, |_| {}).await?)
    }

    /// The WebSocket itself, to send what no well-behaved client would
    /// (binary or oversized frames, a close of one's own) or to split it.
    pub fn websocket(&mut self) -> &mut WebSocketStream<TcpStream> {
        &mut self.ws
    }

    /// The WebSocket itself, for good.
    #[must_use]
    pub fn into_websocket(self) -> WebSocketStream<TcpStream> {
        self.ws
    }

    /// The TCP socket under the WebSocket, to write frames of one's own or
    /// look at its readiness without reading. Whoever writes to it must
    /// write whole frames only.
    #[must_use]
    pub fn tcp(&self) -> &TcpStream {
        self.ws.get_ref()
    }

    /// Closes the connection politely, waiting at most half a second.
    pub async fn close(mut self) {
        self.close_frame().await;
    }

    /// Sends a close frame (waiting at most half a second to write it) and
    /// keeps the connection, to read the server's answer.
    pub async fn close_frame(&mut self) {
        let _ = tokio::time::timeout(Duration::from_millis(500), self.ws.close(None)).await;
    }
}

/// Why the WebSocket handshake failed, for people.
///
/// A `503` is the server saying it cannot take the connection now (it is
/// shutting down, or a cluster is between leaders): [`Error::Unavailable`]
/// with its words, worth trying again. Any other reply that carries an oxo
/// error body is the server refusing, in its words. Anything else (another
/// status from something else, an old HTTP version, not HTTP at all) comes
/// from something that answers but is not an oxo server, and what to check
/// is said rather than the protocol's details.
fn handshake_failure(url: &str, e: &tungstenite::Error) -> Error {
    use tungstenite::Error as Ws;
    let failed = |reason: String| Error::Connect {
        url: url.to_owned(),
        reason,
    };
    let status = match e {
        Ws::Http(reply) => {
            let status = reply.status();
            let body = reply.body().as_deref().unwrap_or_default();
            if status == tungstenite::http::StatusCode::SERVICE_UNAVAILABLE {
                return Error::Unavailable {
                    url: url.to_owned(),
                    reason: words(body, true).unwrap_or_else(|| status.to_string()),
                };
            }
            if let Some(said) = words(body, false) {
                return failed(format!(
                    "the server refused the connection ({status}): {said}"
                ));
            }
            format!(" (it answered {status})")
        }
        Ws::HttpFormat(_) | Ws::Protocol(_) => String::new(),
        _ => return failed(e.to_string()),
    };
    failed(format!(
        "something answers there{status}, but not as an oxo server: it has no WebSocket \
         at /ws; check that the URL is the address and port of `oxo serve`"
    ))
}

/// The words in a refused handshake's `body`: an oxo error body's
/// `error`, or (when `text` allows it) a plain-text body's first line; at
/// most 200 characters, without control characters.
fn words(body: &[u8], text: bool) -> Option<String> {
    let said = match serde_json::from_slice::<oxo_protocol::ApiError>(body) {
        Ok(api) => api.error,
        Err(_) if text => String::from_utf8_lossy(body).lines().next()?.to_owned(),
        Err(_) => return None,
    };
    let clean: String = said.chars().filter(|c| !c.is_control()).take(200).collect();
    let clean = clean.trim();
    (!clean.is_empty()).then(|| clean.to_owned())
}
