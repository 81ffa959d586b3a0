//! The network side of online play: one task that keeps a connection to
//! the server (reconnecting with the player's token when it drops), sends
//! what the screen asks and reports what the server says.
//!
//! The screen runs on the main thread and talks to this task through two
//! channels: [`Ask`] in, [`News`] out.

use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use oxo_client::{Address, Connection, Error, Event};
use oxo_core::Rng;
use oxo_protocol::{ClientMsg, ErrorCode, PlayerId, ServerMsg, TableId};
use tokio::sync::mpsc;

use self::retry::{FIRST_RETRY, dropped, next_retry, retrying, spread, try_again_later};
use super::{names, tokens};

mod retry;

/// How often a request refused `table_moving` is sent again, half a
/// second apart (a takeover takes a lease, 2 s by default).
const MOVING_RETRIES: u32 = 20;

/// What is said of a request made while the connection is down: it is
/// dropped, not sent later.
pub(crate) const NOT_SENT: &str = "Not sent: not connected — reconnecting…";

/// How long a request waits for its reply before the screen says so
/// ([`News::Slow`]).
const SLOW: Duration = Duration::from_secs(2);

/// What is said while a request waits for its reply longer than [`SLOW`].
pub(crate) const WAITING: &str = "Waiting for the server…";

/// What the screen asks of the server.
#[derive(Clone, Debug)]
pub(crate) enum Ask {
    /// A request; its refusal comes back as [`News::Refused`].
    Send(ClientMsg),
    /// The table now shown (to sync it again after a reconnect).
    Showing(Option<TableId>),
    /// The game is about to stop (Ctrl-Z): close the connection, say so
    /// on the channel, and stay away until [`Ask::Resume`].
    Pause(std_mpsc::Sender<()>),
    /// The game goes on after a stop: connect again.
    Resume,
}

/// What the server said, or what happened to the connection.
#[derive(Debug)]
pub(crate) enum News {
    /// Connected (again) as this player, who holds seats in play at
    /// `tables`.
    Welcome {
        name: String,
        player_id: PlayerId,
        tables: Vec<TableId>,
    },
    /// A server message (an event).
    Message(Box<ServerMsg>),
    /// A table this player asked for was created.
    Created(TableId),
    /// A request was refused: the server's words.
    Refused(String),
    /// A seat asked for (`join_table`) was refused because both are
    /// taken: the server's words.
    Full(String),
    /// A request has waited [`SLOW`] for its reply (`true`), or got it at
    /// last (`false`).
    Slow(bool),
    /// The connection dropped, or trying again failed: what to tell the
    /// player ([`dropped`], [`retrying`]).
    Reconnecting(String),
    /// The server cannot be reached at all, or refused the player.
    Failed(String),
    /// The table shown is no longer there (`no_such_table` when it was
    /// shown again after a reconnect): it closed meanwhile.
    Gone(TableId),
}

/// Runs until the screen goes away (its end of `asks` closes).
pub(crate) async fn run(
    address: Address,
    name: Option<String>,
    mut asks: mpsc::UnboundedReceiver<Ask>,
    news: std_mpsc::Sender<News>,
) {
    let mut showing: Option<TableId> = address.table().cloned();
    let mut first = true;
    let mut delay = FIRST_RETRY;
    let mut rng = Rng::new(crate::config::clock_seed());
    // The token of this run's player: a reconnect comes back as them even
    // when the config directory cannot keep it.
    let mut token: Option<String> = None;
    loop {
        let mut conn = match connect(&address, name.as_deref(), &mut token, &news).await {
            Ok(conn) => conn,
            // A server that cannot take players right now (shutting down,
            // full, a cluster between leaders) is tried again, even at first.
            Err(e) if first && !try_again_later(&e) => {
                let _ = news.send(News::Failed(e.to_string()));
                return;
            }
            Err(e) => {
                let pause_for = spread(delay, &mut rng);
                let _ = news.send(News::Reconnecting(retrying(&e, pause_for)));
                // Wait before trying again, unless the screen goes away.
                let pause = tokio::time::sleep(pause_for);
                tokio::pin!(pause);
                loop {
                    tokio::select! {
                        () = &mut pause => break,
                        ask = asks.recv() => match ask {
                            None => return,
                            Some(Ask::Showing(table)) => showing = table,
                            Some(Ask::Send(_)) => {
                                let _ = news.send(News::Refused(NOT_SENT.to_owned()));
                            }
                            // No connection to close; retrying goes on
                            // once the game does.
                            Some(Ask::Pause(done)) => {
                                let _ = done.send(());
                            }
                            Some(Ask::Resume) => {}
                        },
                    }
                }
                delay = next_retry(delay);
                continue;
            }
        };
        delay = FIRST_RETRY;
        let _ = conn.request(ClientMsg::WatchLobby).await;
        if let Some(table) = &showing {
            if first {
                open(&mut conn, table, &news).await;
            } else {
                resume(&mut conn, table, &news).await;
                read_chat(&mut conn, table).await;
            }
        }
        first = false;
        loop {
            tokio::select! {
                ask = asks.recv() => match ask {
                    None => {
                        conn.close().await;
                        return;
                    }
                    Some(Ask::Showing(table)) => {
                        if let Some(table) = &table {
                            read_chat(&mut conn, table).await;
                        }
                        showing = table;
                    }
                    Some(Ask::Send(msg)) => {
                        if let Err(why) = send(&mut conn, msg, &news).await {
                            let _ = news.send(News::Reconnecting(why));
                            not_sent(&mut asks, &mut showing, &news);
                            break;
                        }
                    }
                    Some(Ask::Pause(done)) => {
                        let _ = tokio::time::timeout(CLOSE_WAIT, conn.close()).await;
                        let _ = done.send(());
                        if !paused(&mut asks, &mut showing).await {
                            return;
                        }
                        break;
                    }
                    Some(Ask::Resume) => {}
                },
                event = conn.next_event() => match event {
                    Some(Event::Message(msg)) => {
                        if news.send(News::Message(msg)).is_err() {
                            return;
                        }
                    }
                    closed => {
                        let why = match closed {
                            Some(Event::Closed(why)) => why,
                            _ => None,
                        };
                        let _ = news.send(News::Reconnecting(dropped(why)));
                        not_sent(&mut asks, &mut showing, &news);
                        break;
                    }
                },
            }
        }
    }
}

/// The connection is lost: the requests asked meanwhile are dropped, and
/// said to be (none is sent on the next connection, unseen: there, the
/// server's state decides).
fn not_sent(
    asks: &mut mpsc::UnboundedReceiver<Ask>,
    showing: &mut Option<TableId>,
    news: &std_mpsc::Sender<News>,
) {
    while let Ok(ask) = asks.try_recv() {
        match ask {
            Ask::Send(_) => {
                let _ = news.send(News::Refused(NOT_SENT.to_owned()));
            }
            Ask::Showing(table) => *showing = table,
            Ask::Pause(done) => {
                let _ = done.send(());
            }
            Ask::Resume => {}
        }
    }
}

/// How long closing the connection before a stop may take.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Waits, disconnected, until the game goes on after a stop (`true`), or
/// the screen goes away (`false`); keeps track of the table shown.
async fn paused(asks: &mut mpsc::UnboundedReceiver<Ask>, showing: &mut Option<TableId>) -> bool {
    loop {
        match asks.recv().await {
            None => return false,
            Some(Ask::Resume) => return true,
            Some(Ask::Showing(table)) => *showing = table,
            Some(Ask::Pause(done)) => {
                let _ = done.send(());
            }
            // Nothing is sent while stopped (the screen is not running).
            Some(Ask::Send(_)) => {}
        }
    }
}

/// Connects and says hello with `token`, this run's player's, or else the
/// saved one (a token the server no longer knows is dropped, and the
/// player starts afresh, told so) and the name given, or for a new player
/// the remembered one (`names`). The welcome's token is kept in `token`
/// and saved; a token that cannot be saved, or a tokens file that could
/// not be read (kept aside, not written over), is said after the welcome.
async fn connect(
    address: &Address,
    name: Option<&str>,
    token: &mut Option<String>,
    news: &std_mpsc::Sender<News>,
) -> Result<Connection, Error> {
    // A server that stops answering (stopped, or the network gone) is
    // noticed by its silence, as a dropped connection.
    let mut conn = Connection::connect_watched(address).await?;
    let (saved, unreadable) = match token.clone() {
        Some(t) => (Some(t), None),
        None => match tokens::load(address) {
            Ok(t) => (t, None),
            Err(why) => (None, Some(why)),
        },
    };
    // A new player without --name goes by a friendly name, not `Player`.
    let named = |new_player| names::for_hello(name, new_player, tokens::config_dir().as_deref());
    let mut forgotten = false;
    let welcome = match conn
        .hello(saved.as_deref(), named(saved.is_none()).as_deref())
        .await
    {
        Ok(w) => w,
        Err(e) if saved.is_some() && starts_afresh(&e) => {
            forgotten = true;
            conn.hello(None, named(true).as_deref()).await?
        }
        Err(e) => return Err(e),
    };
    let saved = tokens::save(address, &welcome.token);
    *token = Some(welcome.token);
    let mut said = Vec::new();
    // A returning player's rename past the server's budget (5 in a row,
    // then one per 5 s) comes back under the name they have.
    if let Some(asked) = name.map(str::trim).filter(|n| *n != welcome.name) {
        said.push(format!(
            "Still {}: renamed too often to become {asked} now (5 in a row, then one \
             every 5 s); try again later",
            welcome.name
        ));
    }
    if forgotten {
        said.push(format!(
            "Your saved session was not recognised: playing as {}, a new player",
            welcome.name
        ));
    }
    if let Some(why) = unreadable {
        let kept = match &saved {
            Ok(Some(bak)) => format!(": kept as {}", bak.display()),
            _ => String::new(),
        };
        said.push(format!(
            "Your saved tokens file could not be read ({why}){kept}; playing as {}, a new player",
            welcome.name
        ));
    }
    if let Err(e) = saved {
        said.push(format!(
            "Could not save your token ({e}): the next oxo play starts as a new player"
        ));
    }
    let _ = news.send(News::Welcome {
        name: welcome.name,
        player_id: welcome.player_id,
        tables: welcome.tables,
    });
    if !said.is_empty() {
        let _ = news.send(News::Refused(said.join(". ")));
    }
    Ok(conn)
}

/// Whether a returning player's `hello` refused with `e` means that the
/// token is no longer known, so that the player starts afresh as a new
/// one. Any other refusal (the server's trouble, a name it refuses) keeps
/// the token: a new player would lose the seats the token holds.
fn starts_afresh(e: &Error) -> bool {
    matches!(
        e,
        Error::Refused {
            code: ErrorCode::InvalidToken,
            ..
        }
    )
}

/// Opens the table of a link as the browser does: takes a free seat (or
/// the player's own, again), and watches when there is none.
async fn open(conn: &mut Connection, table: &TableId, news: &std_mpsc::Sender<News>) {
    let join = ClientMsg::JoinTable {
        table_id: table.clone(),
        seat: None,
    };
    match request(conn, &join).await {
        Err(Error::Refused {
            code: ErrorCode::TableFull | ErrorCode::AlreadySeated,
            ..
        }) => {
            let watch = ClientMsg::WatchTable {
                table_id: table.clone(),
            };
            let _ = send(conn, watch, news).await;
        }
        reply => report(&join, reply, news),
    }
}

/// Shows `table` again after a reconnect: a seated player's seat is
/// re-attached by the `welcome`, and `sync` sends its state; a spectator
/// (refused `sync`: not seated) watches again, or the view would stay
/// frozen at the state before the drop. A table that closed meanwhile is
/// [`News::Gone`].
async fn resume(conn: &mut Connection, table: &TableId, news: &std_mpsc::Sender<News>) {
    let sync = ClientMsg::Sync {
        table_id: table.clone(),
    };
    let mut asked = sync;
    let mut reply = request(conn, &asked).await;
    if let Err(Error::Refused {
        code: ErrorCode::NotSeated,
        ..
    }) = reply
    {
        asked = ClientMsg::WatchTable {
            table_id: table.clone(),
        };
        reply = request(conn, &asked).await;
    }
    match reply {
        Err(Error::Refused {
            code: ErrorCode::NoSuchTable,
            ..
        }) => {
            let _ = news.send(News::Gone(table.clone()));
        }
        reply => report(&asked, reply, news),
    }
}

/// Asks for `table`'s chat so far (it comes as an event and replaces the
/// lines shown): on opening a table, and after a reconnect, which may have
/// missed some. Not worth a word on the screen if refused.
async fn read_chat(conn: &mut Connection, table: &TableId) {
    let history = ClientMsg::ChatHistory {
        table_id: table.clone(),
    };
    let _ = request(conn, &history).await;
}

/// Sends `msg`; a refusal goes to the screen, and so does a table created,
/// and a reply slower than [`SLOW`] is waited for on the screen.
///
/// # Errors
///
/// What to tell the player when the reply did not come in time (the
/// server stopped answering): the connection is given up; the request may
/// or may not have been applied, and is not sent again.
async fn send(
    conn: &mut Connection,
    msg: ClientMsg,
    news: &std_mpsc::Sender<News>,
) -> Result<(), String> {
    let reply = {
        let asked = request(conn, &msg);
        tokio::pin!(asked);
        tokio::select! {
            reply = &mut asked => reply,
            () = tokio::time::sleep(SLOW) => {
                let _ = news.send(News::Slow(true));
                let reply = asked.await;
                let _ = news.send(News::Slow(false));
                reply
            }
        }
    };
    match reply {
        // A connection that closed says why with its close event.
        Err(Error::Timeout(_)) => Err(unanswered()),
        reply => {
            report(&msg, reply, news);
            Ok(())
        }
    }
}

/// What a player is told when the connection is given up with a request
/// unanswered: the server's state, once back, says whether it was made.
fn unanswered() -> String {
    "The server did not answer — reconnecting…".to_owned()
}

/// Sends `msg` and waits for its reply. In a cluster, a table changing
/// node answers `table_moving` (nothing applied) for a moment: the request
/// is sent again.
async fn request(conn: &mut Connection, msg: &ClientMsg) -> Result<ServerMsg, Error> {
    let mut reply = conn.request(msg.clone()).await;
    for _ in 0..MOVING_RETRIES {
        if !matches!(
            reply,
            Err(Error::Refused {
                code: ErrorCode::TableMoving,
                ..
            })
        ) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        reply = conn.request(msg.clone()).await;
    }
    reply
}

/// Tells the screen what the reply to `msg` means for it: a refusal, or
/// the id of a table it created.
fn report(msg: &ClientMsg, reply: Result<ServerMsg, Error>, news: &std_mpsc::Sender<News>) {
    match reply {
        Ok(ServerMsg::Ok {
            table_id: Some(id), ..
        }) if matches!(msg, ClientMsg::CreateTable { .. }) => {
            let _ = news.send(News::Created(id));
        }
        Ok(_) => {}
        // The screen is back in the lobby already: a refused leave (a
        // spectator's, or a seat already gone) changes nothing there.
        Err(Error::Refused { .. }) if matches!(msg, ClientMsg::LeaveTable { .. }) => {}
        Err(Error::Refused {
            code: ErrorCode::TableFull,
            message,
        }) if matches!(msg, ClientMsg::JoinTable { .. }) => {
            let _ = news.send(News::Full(message));
        }
        Err(Error::Refused { message, .. }) => {
            let _ = news.send(News::Refused(message));
        }
        // The connection's trouble shows as its close.
        Err(_) => {}
    }
}

#[cfg(test)]
mod tests;
