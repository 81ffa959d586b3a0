//! The load tool against a small in-process fake of `oxo serve` that speaks
//! the protocol (hello, create/join/watch, move, rematch, sync) with the real
//! message types. It checks the game driver's logic without the real server;
//! `crates/cli/tests/loadtest.rs` runs against `oxo serve` itself.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use oxo_core::{ByPlayer, Game, Player};
use oxo_protocol::{
    ClientMsg, ErrorCode, PlayerInfo, Request, Scores, ServerMsg, TableId, TableOptions,
    TableState, TableStatus,
};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

type Outbox = mpsc::UnboundedSender<String>;

#[derive(Default)]
struct Fake {
    next: AtomicU64,
    tokens: Mutex<HashMap<String, String>>,
    tables: Mutex<HashMap<String, Table>>,
    moves: AtomicU64,
}

struct Table {
    options: TableOptions,
    seats: ByPlayer<Option<String>>,
    game: Game,
    round: u32,
    wants: ByPlayer<bool>,
    listeners: Vec<(u64, Outbox)>,
}

impl Table {
    /// The seat `me` holds here.
    fn seat_of(&self, me: &str) -> Result<Player, ErrorCode> {
        [Player::X, Player::O]
            .into_iter()
            .find(|&p| self.seats[p].as_deref() == Some(me))
            .ok_or(ErrorCode::NotSeated)
    }

    fn state(&self, id: &str) -> TableState {
        let status = match (&self.seats.x, &self.seats.o) {
            (Some(_), Some(_)) if self.game.is_over() => TableStatus::RoundOver,
            (Some(_), Some(_)) => TableStatus::InProgress,
            _ => TableStatus::Waiting,
        };
        let info = |p: Player| {
            self.seats[p].as_ref().map(|id| PlayerInfo {
                id: id.clone().into(),
                name: id.clone(),
                bot: None,
                connected: true,
                grace_left_ms: None,
                wants_rematch: self.wants[p],
            })
        };
        TableState {
            id: id.to_owned().into(),
            status,
            options: self.options,
            players: ByPlayer::new_with(info),
            spectators: 0,
            round: self.round,
            game_id: Some(format!("{id}-{}", self.round).into()),
            first: Some(self.game.first()),
            board: self.game.position().to_string(),
            moves: self.game.moves().to_vec(),
            move_number: self.game.moves().len() as u32,
            turn: (status == TableStatus::InProgress)
                .then(|| self.game.to_move())
                .flatten(),
            time_left_ms: None,
            outcome: self.game.outcome(),
            scores: Scores::default(),
        }
    }

    fn broadcast(&self, id: &str) {
        let text = json(&ServerMsg::Table {
            table: self.state(id),
        });
        for (_, out) in &self.listeners {
            let _ = out.send(text.clone());
        }
    }
}

fn json(msg: &ServerMsg) -> String {
    serde_json::to_string(msg).expect("serializes")
}

async fn serve(fake: Arc<Fake>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let _ = tcp.set_nodelay(true);
            tokio::spawn(connection(Arc::clone(&fake), tcp));
        }
    });
    addr
}

async fn connection(fake: Arc<Fake>, tcp: tokio::net::TcpStream) {
    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
        return;
    };
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            if sink.send(Message::text(text)).await.is_err() {
                return;
            }
        }
    });
    let conn = fake.next.fetch_add(1, Ordering::Relaxed);
    let mut me = String::new();
    while let Some(Ok(Message::Text(text))) = stream.next().await {
        let Ok(req) = serde_json::from_str::<Request>(text.as_str()) else {
            continue;
        };
        let id = req.id;
        let reply = handle(&fake, conn, &mut me, &tx, req.msg);
        let msg = match reply {
            Ok(Some(welcome)) => welcome,
            Ok(None) => ServerMsg::ok(id, None),
            Err(code) => ServerMsg::error(id, code, code.as_str()),
        };
        let msg = match msg {
            ServerMsg::Welcome {
                version,
                token,
                player_id,
                name,
                tables,
                ..
            } => ServerMsg::Welcome {
                id,
                version,
                token,
                player_id,
                name,
                tables,
            },
            ServerMsg::Ok { table_id, .. } => ServerMsg::ok(id, table_id),
            other => other,
        };
        let _ = tx.send(json(&msg));
    }
    for t in fake.tables.lock().expect("lock").values_mut() {
        t.listeners.retain(|(c, _)| *c != conn);
    }
}

fn handle(
    fake: &Fake,
    conn: u64,
    me: &mut String,
    tx: &Outbox,
    msg: ClientMsg,
) -> Result<Option<ServerMsg>, ErrorCode> {
    let mut tables = fake.tables.lock().expect("lock");
    match msg {
        ClientMsg::Hello { token, .. } => {
            let mut tokens = fake.tokens.lock().expect("lock");
            let (token, player) = match token {
                Some(t) => {
                    let p = tokens.get(&t).cloned().ok_or(ErrorCode::InvalidToken)?;
                    (t, p)
                }
                None => {
                    let n = fake.next.fetch_add(1, Ordering::Relaxed);
                    let (t, p) = (format!("tok{n}"), format!("p{n}"));
                    tokens.insert(t.clone(), p.clone());
                    (t, p)
                }
            };
            me.clone_from(&player);
            let seated: Vec<TableId> = tables
                .iter_mut()
                .filter(|(_, t)| {
                    t.seats.x.as_ref() == Some(&player) || t.seats.o.as_ref() == Some(&player)
                })
                .map(|(id, t)| {
                    t.listeners.push((conn, tx.clone()));
                    TableId::from(id.as_str())
                })
                .collect();
            Ok(Some(ServerMsg::Welcome {
                id: None,
                version: 1,
                token,
                player_id: player.clone().into(),
                name: player,
                tables: seated,
            }))
        }
        ClientMsg::CreateTable { options } => {
            let id = format!("t{}", fake.next.fetch_add(1, Ordering::Relaxed));
            let mut seats = ByPlayer::default();
            seats[options.seat.unwrap_or(Player::X)] = Some(me.clone());
            let t = Table {
                options,
                seats,
                game: Game::new(),
                round: 1,
                wants: ByPlayer::default(),
                listeners: vec![(conn, tx.clone())],
            };
            t.broadcast(&id);
            tables.insert(id.clone(), t);
            Ok(Some(ServerMsg::ok(None, Some(id.into()))))
        }
        ClientMsg::JoinTable { table_id, seat } => {
            let t = tables
                .get_mut(table_id.as_str())
                .ok_or(ErrorCode::NoSuchTable)?;
            let seat = seat.unwrap_or(Player::O);
            if t.seats[seat].is_some() {
                return Err(ErrorCode::TableFull);
            }
            t.seats[seat] = Some(me.clone());
            t.listeners.push((conn, tx.clone()));
            t.broadcast(table_id.as_str());
            Ok(None)
        }
        ClientMsg::WatchTable { table_id } | ClientMsg::Sync { table_id } => {
            let t = tables
                .get_mut(table_id.as_str())
                .ok_or(ErrorCode::NoSuchTable)?;
            if !t.listeners.iter().any(|(c, _)| *c == conn) {
                t.listeners.push((conn, tx.clone()));
            }
            let _ = tx.send(json(&ServerMsg::Table {
                table: t.state(table_id.as_str()),
            }));
            Ok(None)
        }
        ClientMsg::Move { table_id, cell, .. } => {
            let t = tables
                .get_mut(table_id.as_str())
                .ok_or(ErrorCode::NoSuchTable)?;
            let seat = t.seat_of(me)?;
            if t.game.is_over() {
                return Err(ErrorCode::GameOver);
            }
            if t.game.to_move() != Some(seat) {
                return Err(ErrorCode::NotYourTurn);
            }
            t.game.play(cell).map_err(|_| ErrorCode::CellTaken)?;
            fake.moves.fetch_add(1, Ordering::Relaxed);
            t.broadcast(table_id.as_str());
            Ok(None)
        }
        ClientMsg::Rematch { table_id } => {
            let t = tables
                .get_mut(table_id.as_str())
                .ok_or(ErrorCode::NoSuchTable)?;
            let seat = t.seat_of(me)?;
            if !t.game.is_over() {
                return Err(ErrorCode::GameInProgress);
            }
            t.wants[seat] = true;
            if t.wants.x && t.wants.o {
                t.wants = ByPlayer::default();
                t.round += 1;
                t.game = Game::with_first(!t.game.first());
            }
            t.broadcast(table_id.as_str());
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// A fresh fake server's WebSocket URL.
async fn fake_url() -> String {
    let addr = serve(Arc::new(Fake::default())).await;
    format!("ws://{addr}/ws")
}

/// Runs `config` to the end and checks that it counted no error.
async fn run_clean(config: &oxo_loadtest::Config) -> oxo_loadtest::Report {
    let report = oxo_loadtest::run(config, |_| {})
        .await
        .expect("the run completes");
    assert_eq!(report.errors, 0, "{:?}", report.first_errors);
    report
}

/// Why the load tool refuses to run against `url`, if it does.
async fn refusal(url: String) -> Option<String> {
    let config = oxo_loadtest::Config {
        url,
        ..oxo_loadtest::Config::default()
    };
    oxo_loadtest::run(&config, |_| {})
        .await
        .err()
        .map(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_against_a_fake_server() {
    let config = oxo_loadtest::Config {
        url: fake_url().await,
        games: 20,
        spectators: 1,
        duration: Duration::from_secs(2),
        warmup: Duration::from_millis(300),
        refusal_percent: 10.0,
        ..oxo_loadtest::Config::default()
    };
    let mut ticks = 0;
    let report = oxo_loadtest::run(&config, |_| ticks += 1)
        .await
        .expect("the run completes");
    println!("{report}");
    assert_eq!(report.errors, 0, "{:?}", report.first_errors);
    assert_eq!(report.setup.games_ready, 20);
    assert!(report.moves > 100, "{report:?}");
    assert!(report.games_finished > 10, "{report:?}");
    assert!(report.refusals > 0, "{report:?}");
    assert!(report.spectator_events > 0, "{report:?}");
    assert_eq!(report.latency_us.samples, report.moves);
    assert!(ticks > 5);
    let json = report.to_json();
    assert_eq!(oxo_loadtest::Report::from_json(&json).ok(), Some(report));
}

#[tokio::test]
async fn idle_connections() {
    let config = oxo_loadtest::Config {
        url: fake_url().await,
        games: 0,
        idle: 50,
        duration: Duration::from_millis(300),
        warmup: Duration::ZERO,
        ..oxo_loadtest::Config::default()
    };
    let report = run_clean(&config).await;
    assert_eq!(report.setup.idle_ready, 50);
    assert_eq!(report.setup.connections_open, 50);
}

#[tokio::test]
async fn refuses_remote_and_missing_servers() {
    let err = refusal("ws://192.0.2.1:80/ws".into()).await;
    assert!(
        err.as_deref().is_some_and(|e| e.contains("--allow-remote")),
        "{err:?}"
    );

    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let err = refusal(format!("ws://127.0.0.1:{port}/ws")).await;
    assert!(
        err.as_deref().is_some_and(|e| e.contains("cannot reach")),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paced_games_offer_the_asked_rate() {
    let config = oxo_loadtest::Config {
        url: fake_url().await,
        games: 10,
        rate: Some(400.0),
        duration: Duration::from_secs(2),
        warmup: Duration::from_millis(300),
        ..oxo_loadtest::Config::default()
    };
    let report = run_clean(&config).await;
    // Pacing caps the rate; a loaded test machine may fall somewhat short.
    assert!(
        (200.0..=420.0).contains(&report.moves_per_sec),
        "{}",
        report.moves_per_sec
    );
    let both = oxo_loadtest::Config {
        think: Duration::from_millis(5),
        ..config
    };
    assert!(oxo_loadtest::run(&both, |_| {}).await.is_err());
}
