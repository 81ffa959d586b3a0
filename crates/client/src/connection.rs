//! One WebSocket connection to `oxo serve`: requests numbered by the
//! client and matched with their replies, and the server's events in
//! order.
//!
//! A reader task owns the socket's reading half: a frame with the id of a
//! request still waiting is that request's reply; everything else (`table`,
//! `chat`, `lobby`, `closing`, and replies nobody waits for) is an event,
//! delivered in the order it arrived. The writing half stays with the
//! [`Connection`], so requests go out in the order they are made.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::SinkExt;
use futures_util::stream::{SplitSink, StreamExt};
use oxo_protocol::{ClientMsg, PROTOCOL_VERSION, PlayerId, Request, ServerMsg, TableId};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::decode::{decode, reply_id};
use crate::silence::Silence;
use crate::{Address, DEFAULT_TIMEOUT, Error, Link, LinkOptions};

type Socket = WebSocketStream<TcpStream>;

/// The `welcome` a `hello` got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// The secret token: keep it to come back as the same player.
    pub token: String,
    /// The player's public id.
    pub player_id: PlayerId,
    /// The display name in use.
    pub name: String,
    /// Tables where the player holds a seat in play.
    pub tables: Vec<TableId>,
}

impl Welcome {
    /// The welcome in a reply to `hello`.
    pub(crate) fn from_reply(reply: ServerMsg) -> Result<Welcome, Error> {
        match reply {
            ServerMsg::Welcome {
                token,
                player_id,
                name,
                tables,
                ..
            } => Ok(Welcome {
                token,
                player_id,
                name,
                tables,
            }),
            other => Err(Error::Unexpected(format!("{other:?} instead of welcome"))),
        }
    }
}

/// Something the server sent that is not a reply to a waiting request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A message: `table`, `chat`, `lobby`, `closing`, ... (boxed: a table
    /// state is large, a close is not).
    Message(Box<ServerMsg>),
    /// The connection closed, with the server's code and reason if it sent
    /// them. Nothing follows.
    Closed(Option<(u16, String)>),
}

type Waiting = Arc<Mutex<HashMap<u64, oneshot::Sender<ServerMsg>>>>;

/// The server's close code and reason, once its close frame came: kept
/// for the requests that were waiting (a full server refuses a
/// connection by closing it, 1013 "server full", before any reply).
type CloseReason = Arc<Mutex<Option<(u16, String)>>>;

/// A connection to `oxo serve`.
#[derive(Debug)]
pub struct Connection {
    sink: SplitSink<Socket, Message>,
    waiting: Waiting,
    closed: CloseReason,
    events: mpsc::UnboundedReceiver<Event>,
    reader: JoinHandle<()>,
    next_id: u64,
    timeout: Duration,
}

impl Connection {
    /// Connects to the server at `address`.
    ///
    /// # Errors
    ///
    /// [`Error::Connect`] if the server cannot be reached,
    /// [`Error::Unavailable`] if it cannot take a connection now,
    /// [`Error::Timeout`] if it does not answer within [`DEFAULT_TIMEOUT`].
    pub async fn connect(address: &Address) -> Result<Connection, Error> {
        Connection::open(address, None).await
    }

    /// Connects, and reads with `silence` watched, if given.
    async fn open(address: &Address, silence: Option<Silence>) -> Result<Connection, Error> {
        let link = Link::connect(address, LinkOptions::default()).await?;
        let (sink, stream) = link.into_websocket().split();
        let waiting = Waiting::default();
        let closed = CloseReason::default();
        let (tx, events) = mpsc::unbounded_channel();
        let reader = tokio::spawn(read(
            stream,
            Arc::clone(&waiting),
            Arc::clone(&closed),
            tx,
            silence,
        ));
        Ok(Connection {
            sink,
            waiting,
            closed,
            events,
            reader,
            next_id: 1,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// Connects as [`Connection::connect`] does, and takes the server for
    /// gone when it says nothing at all, not even a WebSocket ping, for
    /// about two of its ping intervals (learnt from its pings; 20 s, its
    /// default, until then): requests waiting fail with
    /// [`Error::Closed`], and [`Event::Closed`] (with no reason) ends the
    /// events, as for a dropped connection. For a program with a person
    /// waiting on it: a stopped server, or a network gone quiet, would
    /// otherwise be noticed only when TCP gives up, many minutes later.
    ///
    /// # Errors
    ///
    /// As [`Connection::connect`].
    pub async fn connect_watched(address: &Address) -> Result<Connection, Error> {
        Connection::open(address, Some(Silence::new())).await
    }

    /// Changes how long requests wait for their replies.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Says `hello`: with the `token` of an earlier welcome to come back
    /// as the same player (to the same seats), with a display `name`.
    ///
    /// # Errors
    ///
    /// [`Error::Refused`] (e.g. `invalid_token`, `invalid_name`), or the
    /// connection's errors.
    pub async fn hello(
        &mut self,
        token: Option<&str>,
        name: Option<&str>,
    ) -> Result<Welcome, Error> {
        let reply = self
            .request(ClientMsg::Hello {
                version: PROTOCOL_VERSION.into(),
                token: token.map(str::to_owned),
                name: name.map(str::to_owned),
            })
            .await?;
        Welcome::from_reply(reply)
    }

    /// Sends `msg` and waits for its reply (`ok`, `welcome`, `pong`); a
    /// refusal is [`Error::Refused`]. Events that arrive meanwhile wait in
    /// [`Connection::next_event`].
    ///
    /// # Errors
    ///
    /// [`Error::Refused`], [`Error::Timeout`], [`Error::Closed`] (with the
    /// server's close code and reason, if it sent them).
    pub async fn request(&mut self, msg: ClientMsg) -> Result<ServerMsg, Error> {
        let id = self.next_id;
        self.next_id += 1;
        let (tx, rx) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, tx);
        let text = serde_json::to_string(&Request { id: Some(id), msg }).map_err(|e| {
            self.forget(id);
            Error::Unexpected(format!("a request that does not serialize: {e}"))
        })?;
        if self.sink.send(Message::text(text)).await.is_err() {
            self.forget(id);
            return Err(Error::Closed(self.close_reason()));
        }
        let reply = match tokio::time::timeout(self.timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => return Err(Error::Closed(self.close_reason())),
            Err(_) => {
                self.forget(id);
                return Err(Error::Timeout(self.timeout));
            }
        };
        match reply {
            ServerMsg::Error { code, message, .. } => Err(Error::Refused { code, message }),
            reply => Ok(reply),
        }
    }

    /// Sends a text frame as it is (for tests of what the server does with
    /// bad input); its reply, if any, arrives as an event.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`].
    pub async fn send_text(&mut self, text: &str) -> Result<(), Error> {
        self.sink
            .send(Message::text(text))
            .await
            .map_err(|_| Error::Closed(None))
    }

    /// The next event, waiting for it; `None` once the connection closed
    /// and every event was taken.
    pub async fn next_event(&mut self) -> Option<Event> {
        self.events.recv().await
    }

    /// The next event if one is already there.
    pub fn try_event(&mut self) -> Option<Event> {
        self.events.try_recv().ok()
    }

    /// Closes the connection with a close frame (1000).
    pub async fn close(mut self) {
        let frame = CloseFrame {
            code: CloseCode::Normal,
            reason: "bye".into(),
        };
        let _ = self.sink.send(Message::Close(Some(frame))).await;
        let _ = tokio::time::timeout(Duration::from_secs(1), &mut self.reader).await;
    }

    /// The server's close code and reason, if its close frame came.
    fn close_reason(&self) -> Option<(u16, String)> {
        self.closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn forget(&self, id: u64) {
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Reads the socket until it closes, or until the server has been silent
/// too long (when `silence` is watched): replies to their requests, the
/// rest to the events.
async fn read(
    mut stream: futures_util::stream::SplitStream<Socket>,
    waiting: Waiting,
    close_reason: CloseReason,
    events: mpsc::UnboundedSender<Event>,
    mut silence: Option<Silence>,
) {
    let mut closed = None;
    loop {
        let frame = match &silence {
            None => stream.next().await,
            Some(s) => match tokio::time::timeout_at(s.deadline(), stream.next()).await {
                Ok(frame) => frame,
                // Gone quiet: taken for a dropped connection.
                Err(_) => break,
            },
        };
        let Some(frame) = frame else {
            break;
        };
        if let Some(s) = &mut silence {
            s.heard(matches!(frame, Ok(Message::Ping(_))));
        }
        let text = match frame {
            Ok(Message::Text(text)) => text,
            Ok(Message::Close(frame)) => {
                closed = frame.map(|f| (u16::from(f.code), f.reason.to_string()));
                break;
            }
            Ok(_) => continue,
            Err(_) => break,
        };
        let Ok(msg) = decode(&text) else {
            // Not a message of this protocol version: skipped.
            continue;
        };
        let waiter = reply_id(&msg).and_then(|id| {
            waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id)
        });
        match waiter {
            Some(tx) => {
                let _ = tx.send(msg);
            }
            None => {
                if events.send(Event::Message(Box::new(msg))).is_err() {
                    return;
                }
            }
        }
    }
    // Requests still waiting learn of the close when their sender drops,
    // and find its reason here.
    close_reason
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone_from(&closed);
    waiting
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
    let _ = events.send(Event::Closed(closed));
}
