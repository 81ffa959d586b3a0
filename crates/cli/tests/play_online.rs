//! `oxo play --server` in tmux against a real `oxo serve`, with the other
//! seat held by the protocol client: both see the same moves and result,
//! the server's record is complete, and a connection killed mid-game (the
//! server killed and started again) comes back by itself, losing nothing.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use oxo_client::{Address, Connection, Event};
use oxo_core::{Player, Square};
use oxo_protocol::{ClientMsg, ServerMsg, TableId, TableState, TableStatus};
use tokio::process::Child;

mod common;
#[path = "play_online/gone.rs"]
mod gone;
#[path = "play_online/silence.rs"]
mod silence;
#[path = "play_online/token.rs"]
mod token;

use common::tmux::Tmux;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// The board rows of the terminal's screen, as `X.O` strings. The window
/// is small enough for the one-letter board; an empty cell shows its
/// number (or nothing once the round is over).
fn board(screen: &str) -> String {
    screen
        .lines()
        .filter(|l| l.trim_start().starts_with(['1', '2', '3']) && l.contains('│'))
        .map(|l| {
            l.split('│')
                .skip(1)
                .take(3)
                .map(|c| match c.trim().chars().next() {
                    None => '.',
                    Some(d) if d.is_ascii_digit() => '.',
                    Some(m) => m,
                })
                .collect::<String>()
        })
        .collect()
}

/// Sends `signal` (`-STOP`, `-CONT`) to `oxo play` run under a shell in
/// `tmux` (tmux continues a stopped process of its own at once).
fn signal_play(tmux: &Tmux, signal: &str) {
    let pid = tmux.oxo_pid();
    let sent = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill {signal} {pid}");
}

/// The table state the client last saw, or the next one, that satisfies
/// `ready`.
async fn table_until(
    conn: &mut Connection,
    last: &mut Option<TableState>,
    ready: impl Fn(&TableState) -> bool,
) -> TableState {
    if let Some(t) = last.as_ref().filter(|t| ready(t)) {
        return t.clone();
    }
    let wait = async {
        loop {
            match conn.next_event().await {
                Some(Event::Message(msg)) => {
                    if let ServerMsg::Table { table } = *msg {
                        *last = Some(table.clone());
                        if ready(&table) {
                            return table;
                        }
                    }
                }
                other => panic!("the client lost the server: {other:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("a table state in time")
}

/// `cell` played by whoever holds the seat to move: typed on the terminal
/// (Tess) once it says it is her move, or sent by Otto's client.
async fn play(tmux: &Tmux, otto: &mut Connection, tess_moves: bool, table: &TableId, cell: Square) {
    if tess_moves {
        tmux.wait_for("Tess's turn", |s| s.contains("Your move"));
        tmux.send(&["-l", &(cell.index() + 1).to_string()]);
    } else {
        otto.request(ClientMsg::Move {
            table_id: table.clone(),
            cell,
            game_id: None,
        })
        .await
        .expect("Otto's move");
    }
}

async fn serve(db: &Path, addr: &str) -> (Child, SocketAddr) {
    serve_with(db, addr, &[]).await
}

/// [`serve`] with `extra` flags (short timeouts, say).
async fn serve_with(db: &Path, addr: &str, extra: &[&str]) -> (Child, SocketAddr) {
    let db = db.to_str().expect("UTF-8");
    let mut args = vec!["serve", "--addr", addr, "--db", db];
    args.extend_from_slice(extra);
    common::start_with(OXO, &args, None).await
}

/// The table whose link for a friend (`…/t/ID`) is on `screen`.
fn linked_table(screen: &str) -> TableId {
    let id = screen
        .split("/t/")
        .nth(1)
        .map(|rest| {
            rest.chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect::<String>()
        })
        .expect("the table's link on the screen");
    TableId::from(id.as_str())
}

/// A new player, Otto, watching `table` at the server at `url`.
async fn otto_watching(url: &str, table: TableId) -> Connection {
    let address: Address = url.parse().expect("an address");
    let (mut otto, _) = client(&address, "Otto", None).await;
    otto.request(ClientMsg::WatchTable { table_id: table })
        .await
        .expect("watching");
    otto
}

#[tokio::test]
async fn the_terminal_plays_online_against_another_client_and_survives_a_dropped_connection() {
    let dir = common::TempDir::new("play-online");
    let db = dir.join("oxo.db");
    let (server, addr) = serve(&db, "127.0.0.1:0").await;
    let url = format!("http://{addr}");
    let config = format!("OXO_CONFIG_DIR={}", dir.join("cfg").display());
    let command = [
        "env", &config, OXO, "play", "--server", &url, "--name", "Tess",
    ];
    let Some(tmux) = Tmux::start_command("online_game", 64, 22, &command) else {
        return;
    };
    tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    tmux.send(&["c"]);
    tmux.wait_for("the new table", |s| s.contains("Waiting for an opponent"));

    let address: Address = url.parse().expect("an address");
    let mut otto = Connection::connect(&address).await.expect("connect");
    let welcome = otto.hello(None, Some("Otto")).await.expect("welcome");
    otto.request(ClientMsg::WatchLobby)
        .await
        .expect("the lobby");
    let table: TableId = loop {
        match otto.next_event().await {
            Some(Event::Message(msg)) => {
                if let ServerMsg::Lobby { tables } = *msg {
                    if let Some(t) = tables.first() {
                        break t.id.clone();
                    }
                }
            }
            other => panic!("no lobby: {other:?}"),
        }
    };
    otto.request(ClientMsg::JoinTable {
        table_id: table.clone(),
        seat: None,
    })
    .await
    .expect("Otto joins");
    let mut last = None;
    let state = table_until(&mut otto, &mut last, |t| {
        t.status == TableStatus::InProgress
    })
    .await;
    let tess = if state.players.x.as_ref().is_some_and(|p| p.name == "Tess") {
        Player::X
    } else {
        Player::O
    };

    // X plays a1 a2 a3, O b1 b2: X wins. Tess types cells; Otto sends them.
    let moves = [Square::A1, Square::B1, Square::A2, Square::B2, Square::A3];
    for (i, cell) in moves.into_iter().enumerate() {
        let mover = if i % 2 == 0 { Player::X } else { Player::O };
        if mover != tess {
            table_until(&mut otto, &mut last, |t| t.turn == Some(mover)).await;
        }
        play(&tmux, &mut otto, mover == tess, &table, cell).await;
        let seen = table_until(&mut otto, &mut last, |t| t.moves.len() > i).await;
        assert_eq!(seen.moves[i], cell);
    }
    let end = table_until(&mut otto, &mut last, |t| t.status == TableStatus::RoundOver).await;
    // In words, not the protocol's reason ("wins (line)").
    let screen = tmux.wait_for("the result", |s| {
        s.contains("You win (X) — three") || s.contains("Otto (X) wins — three")
    });
    assert_eq!(board(&screen), "XO.XO.X..", "{screen}");
    assert_eq!(end.board, "XO.XO.X..");
    assert_eq!(end.scores.x, 1);

    // The server's record has every move.
    let game_id = end.game_id.clone().expect("a game id");
    let (status, body) = common::get(addr, &format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{body}");
    let record: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        record["moves"].as_array().map(Vec::len),
        Some(5),
        "{record}"
    );

    // A second round; after its first move the server dies (every
    // connection with it) and starts again on the same address.
    tmux.send(&["r"]);
    otto.request(ClientMsg::Rematch {
        table_id: table.clone(),
    })
    .await
    .expect("rematch");
    let round2 = table_until(&mut otto, &mut last, |t| {
        t.round == 2 && t.status == TableStatus::InProgress
    })
    .await;
    let first = round2.turn.expect("a side to move");
    play(&tmux, &mut otto, first == tess, &table, Square::B2).await;
    table_until(&mut otto, &mut last, |t| t.round == 2 && t.moves.len() == 1).await;
    // The table alternates starters: round 2's first mark may be O.
    let after_one = format!("....{}....", first.char());
    let after_two = format!("{}...{}....", (!first).char(), first.char());
    tmux.wait_for("the move on the terminal", |s| board(s) == after_one);
    drop(otto);
    let mut server = server;
    server.kill().await.expect("kill the server");
    let _ = server.wait().await;
    tmux.wait_for("the drop", |s| s.contains("reconnecting"));
    // Said in a player's words, not the OS's ("Connection refused (os
    // error 111)").
    let screen = tmux.wait_for("a failed retry", |s| {
        s.contains("Server not reachable — retrying in")
    });
    assert!(!screen.contains("os error"), "{screen}");
    let (server, _) = serve(&db, &addr.to_string()).await;
    let screen = tmux.wait_for("the terminal back online", |s| {
        s.contains("· online") && board(s) == after_one
    });
    assert!(screen.contains("round 2"), "{screen}");

    // Otto comes back with his token; the game goes on where it was.
    let mut otto = Connection::connect(&address).await.expect("connect again");
    last = None;
    otto.hello(Some(&welcome.token), None)
        .await
        .expect("welcome back");
    otto.request(ClientMsg::Sync {
        table_id: table.clone(),
    })
    .await
    .expect("sync");
    let state = table_until(&mut otto, &mut last, |t| t.round == 2).await;
    assert_eq!(state.board, after_one);
    let second = !first;
    play(&tmux, &mut otto, second == tess, &table, Square::A1).await;
    let state = table_until(&mut otto, &mut last, |t| t.moves.len() == 2).await;
    assert_eq!(state.moves, vec![Square::B2, Square::A1]);
    tmux.wait_for("both moves on the terminal", |s| board(s) == after_two);
    common::stop(server).await;
}

#[tokio::test]
async fn a_private_tables_link_opened_in_the_terminal_takes_its_free_seat() {
    let dir = common::TempDir::new("play-link");
    let (server, addr) = serve(&dir.join("oxo.db"), "127.0.0.1:0").await;
    let address: Address = format!("http://{addr}").parse().expect("an address");
    let mut otto = Connection::connect(&address).await.expect("connect");
    otto.hello(None, Some("Otto")).await.expect("welcome");
    let created = otto
        .request(ClientMsg::CreateTable {
            options: oxo_protocol::TableOptions {
                public: false,
                ..oxo_protocol::TableOptions::default()
            },
        })
        .await
        .expect("a table");
    let ServerMsg::Ok {
        table_id: Some(table),
        ..
    } = created
    else {
        panic!("no table id: {created:?}");
    };

    // Tess opens the link Otto gave her, as a browser would: she sits.
    let link = address.table_link(&table);
    let config = format!("OXO_CONFIG_DIR={}", dir.join("cfg").display());
    let command = ["env", &config, OXO, "play", &link, "--name", "Tess"];
    let Some(tmux) = Tmux::start_command("online_link", 64, 22, &command) else {
        return;
    };
    let mut last = None;
    let state = table_until(&mut otto, &mut last, |t| {
        t.status == TableStatus::InProgress
    })
    .await;
    let tess = Player::ALL
        .into_iter()
        .find(|&p| state.players[p].as_ref().is_some_and(|i| i.name == "Tess"))
        .expect("Tess holds a seat");
    assert_eq!(state.spectators, 0, "she sat instead of watching");
    let screen = tmux.wait_for("the round on the terminal", |s| {
        s.contains("Otto") && !s.contains("watching ·")
    });
    assert!(!screen.contains("Table created"), "{screen}");

    // The first move is hers or Otto's; either way it reaches both.
    play(
        &tmux,
        &mut otto,
        state.turn == Some(tess),
        &table,
        Square::B2,
    )
    .await;
    table_until(&mut otto, &mut last, |t| t.moves == [Square::B2]).await;
    tmux.wait_for("the move on the terminal", |s| board(s) == "....X....");
    common::stop(server).await;
}

/// A client named `name` on `address`, said hello to (with `token` to come
/// back as the same player).
async fn client(address: &Address, name: &str, token: Option<&str>) -> (Connection, String) {
    let mut conn = Connection::connect(address).await.expect("connect");
    let welcome = conn.hello(token, Some(name)).await.expect("welcome");
    (conn, welcome.token)
}

/// Otto creates a public table and Ann takes its other seat; returns the
/// table and whose move it is.
async fn otto_and_ann(otto: &mut Connection, ann: &mut Connection) -> (TableId, Player) {
    let created = otto
        .request(ClientMsg::CreateTable {
            options: oxo_protocol::TableOptions::default(),
        })
        .await
        .expect("a table");
    let ServerMsg::Ok {
        table_id: Some(table),
        ..
    } = created
    else {
        panic!("no table id: {created:?}");
    };
    ann.request(ClientMsg::JoinTable {
        table_id: table.clone(),
        seat: None,
    })
    .await
    .expect("Ann joins");
    let mut last = None;
    let state = table_until(ann, &mut last, |t| t.status == TableStatus::InProgress).await;
    (table, state.turn.expect("a side to move"))
}

/// Sends `cell` from whichever of Otto and Ann holds the seat to move.
async fn seat_move(
    otto: &mut Connection,
    ann: &mut Connection,
    otto_is: Player,
    mover: Player,
    table: &TableId,
    cell: Square,
) {
    let conn = if mover == otto_is { otto } else { ann };
    conn.request(ClientMsg::Move {
        table_id: table.clone(),
        cell,
        game_id: None,
    })
    .await
    .expect("the move");
}

/// Which seat Otto holds at `table`, as Ann's client last saw it.
async fn seat_of_otto(ann: &mut Connection, table: &TableId) -> Player {
    ann.request(ClientMsg::Sync {
        table_id: table.clone(),
    })
    .await
    .expect("sync");
    let mut last = None;
    let state = table_until(ann, &mut last, |_| true).await;
    Player::ALL
        .into_iter()
        .find(|&p| state.players[p].as_ref().is_some_and(|i| i.name == "Otto"))
        .expect("Otto holds a seat")
}

/// Otto and Ann at a table in play on a server of its own, and Tess's
/// terminal (`tmux` session `name`) in its lobby.
struct Scene {
    dir: common::TempDir,
    server: Child,
    addr: SocketAddr,
    address: Address,
    otto: (Connection, String),
    ann: (Connection, String),
    table: TableId,
    /// The seat that moves first.
    first: Player,
    otto_is: Player,
    tmux: Tmux,
}

impl Scene {
    /// `None` when tmux is missing (the test is skipped).
    async fn start(name: &str) -> Option<Scene> {
        let dir = common::TempDir::new(name);
        let (server, addr) = serve(&dir.join("oxo.db"), "127.0.0.1:0").await;
        let address: Address = format!("http://{addr}").parse().expect("an address");
        let mut otto = client(&address, "Otto", None).await;
        let mut ann = client(&address, "Ann", None).await;
        let (table, first) = otto_and_ann(&mut otto.0, &mut ann.0).await;
        let otto_is = seat_of_otto(&mut ann.0, &table).await;
        let url = format!("http://{addr}");
        let config = format!("OXO_CONFIG_DIR={}", dir.join("cfg").display());
        let command = [
            "env", &config, OXO, "play", "--server", &url, "--name", "Tess",
        ];
        let tmux = Tmux::start_command(name, 64, 22, &command)?;
        Some(Scene {
            dir,
            server,
            addr,
            address,
            otto,
            ann,
            table,
            first,
            otto_is,
            tmux,
        })
    }

    /// Whichever of Otto and Ann holds `mover`'s seat plays `cell`.
    async fn play(&mut self, mover: Player, cell: Square) {
        let (otto, ann) = (&mut self.otto.0, &mut self.ann.0);
        seat_move(otto, ann, self.otto_is, mover, &self.table, cell).await;
    }
}

#[tokio::test]
async fn one_esc_leaves_a_table_for_the_lobby_for_good() {
    let Some(mut scene) = Scene::start("online_esc").await else {
        return;
    };
    let tmux = &scene.tmux;
    // Tess leaves a table of her own (no round in play: one Esc), whose
    // last state (her seat vacated) comes after she left.
    tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    tmux.send(&["c"]);
    tmux.wait_for("her new table", |s| s.contains("Waiting for an opponent"));
    tmux.send(&["Escape"]);
    tmux.wait_for("the lobby again", |s| s.contains("Open tables"));
    std::thread::sleep(Duration::from_millis(1500));
    let screen = tmux.screen();
    assert!(screen.contains("Open tables"), "{screen}");
    assert!(!screen.contains("watching ·"), "{screen}");
    assert!(screen.contains("Back in the lobby"), "{screen}");

    // The same with a table she watches, whose game goes on.
    tmux.wait_for("Otto's table in the lobby", |s| {
        s.contains("Otto vs Ann") || s.contains("Ann vs Otto")
    });
    tmux.send(&["w"]);
    tmux.wait_for("the watched table", |s| s.contains("watching ·"));
    tmux.send(&["Escape"]);
    tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    scene.play(scene.first, Square::B2).await;
    std::thread::sleep(Duration::from_millis(1500));
    let screen = scene.tmux.screen();
    assert!(screen.contains("Open tables"), "{screen}");
    assert!(!screen.contains("watching ·"), "{screen}");
    assert!(screen.contains("Back in the lobby"), "{screen}");
    common::stop(scene.server).await;
}

#[tokio::test]
async fn a_spectators_view_stays_live_after_the_server_restarts() {
    let Some(mut scene) = Scene::start("online_watch_restart").await else {
        return;
    };
    let first = scene.first;
    let tmux = &scene.tmux;
    tmux.wait_for("the table in the lobby", |s| {
        s.contains("Otto vs Ann") || s.contains("Ann vs Otto")
    });
    tmux.send(&["w"]);
    tmux.wait_for("the watched table", |s| s.contains("watching ·"));
    scene.play(first, Square::B2).await;
    let after_one = format!("....{}....", first.char());
    scene
        .tmux
        .wait_for("the first move", |s| board(s) == after_one);

    // The server is killed and comes back; so do both players.
    scene.server.kill().await.expect("kill the server");
    let _ = scene.server.wait().await;
    scene
        .tmux
        .wait_for("the drop", |s| s.contains("reconnecting"));
    let (server, _) = serve(&scene.dir.join("oxo.db"), &scene.addr.to_string()).await;
    scene.server = server;
    scene
        .tmux
        .wait_for("the terminal back online", |s| s.contains("· online"));
    let (otto_token, ann_token) = (scene.otto.1.clone(), scene.ann.1.clone());
    scene.otto = client(&scene.address, "Otto", Some(&otto_token)).await;
    scene.ann = client(&scene.address, "Ann", Some(&ann_token)).await;
    for conn in [&mut scene.otto.0, &mut scene.ann.0] {
        conn.request(ClientMsg::Sync {
            table_id: scene.table.clone(),
        })
        .await
        .expect("sync");
    }
    // The second move reaches the spectator.
    scene.play(!first, Square::A1).await;
    let after_two = format!("{}...{}....", (!first).char(), first.char());
    scene
        .tmux
        .wait_for("the move after the restart", |s| board(s) == after_two);
    common::stop(scene.server).await;
}

#[tokio::test]
async fn a_table_opened_later_shows_the_chat_so_far() {
    let Some(mut scene) = Scene::start("online_chat_history").await else {
        return;
    };
    scene
        .otto
        .0
        .request(ClientMsg::Chat {
            table_id: scene.table.clone(),
            text: "good luck Ann".into(),
        })
        .await
        .expect("chat");
    let tmux = &scene.tmux;
    tmux.wait_for("the table in the lobby", |s| {
        s.contains("Otto vs Ann") || s.contains("Ann vs Otto")
    });
    tmux.send(&["w"]);
    tmux.wait_for("the chat before she came", |s| {
        s.contains("watching ·") && s.contains("Otto: good luck Ann")
    });
    common::stop(scene.server).await;
}

/// The name in the title line (` oxo · URL as NAME · online`), if shown.
fn title_name(screen: &str) -> Option<String> {
    let title = screen.lines().next()?;
    let (_, rest) = title.split_once(" as ")?;
    let (name, _) = rest.split_once(" · ")?;
    Some(name.to_owned())
}

#[tokio::test]
async fn without_a_name_a_new_player_goes_by_a_friendly_one_kept_for_next_time() {
    let dir = common::TempDir::new("play-name");
    let (server, addr) = serve(&dir.join("oxo.db"), "127.0.0.1:0").await;
    let url = format!("http://{addr}");
    let cfg = dir.join("cfg");
    let config = format!("OXO_CONFIG_DIR={}", cfg.display());
    let command = ["env", &config, OXO, "play", "--server", &url];
    let named = |tmux: &Tmux| {
        let screen = tmux.wait_for("the lobby, named", |s| {
            s.contains("Open tables") && title_name(s).is_some()
        });
        title_name(&screen).expect("a name")
    };
    let name = {
        let Some(tmux) = Tmux::start_command("online_name", 80, 24, &command) else {
            return;
        };
        named(&tmux)
    };
    // Not the server's default for everyone: an adjective and an animal.
    assert_ne!(name, "Player");
    assert_eq!(name.split(' ').count(), 2, "{name}");
    let kept = std::fs::read_to_string(cfg.join("name.txt")).expect("the name is kept");
    assert_eq!(kept.trim(), name);
    // A new player again (the token forgotten): the same name.
    std::fs::remove_file(cfg.join("tokens.json")).expect("the token file");
    let Some(tmux) = Tmux::start_command("online_name_again", 80, 24, &command) else {
        return;
    };
    assert_eq!(named(&tmux), name);
    drop(tmux);
    common::stop(server).await;
}

#[tokio::test]
async fn ctrl_z_closes_the_connection_at_once_and_fg_opens_it_again() {
    let dir = common::TempDir::new("online_ctrl_z");
    let (server, addr) = serve(&dir.join("oxo.db"), "127.0.0.1:0").await;
    let address: Address = format!("http://{addr}").parse().expect("an address");
    let mut otto = client(&address, "Otto", None).await;
    let mut ann = client(&address, "Ann", None).await;
    let (table, _) = otto_and_ann(&mut otto.0, &mut ann.0).await;
    // Tess's terminal runs as a job of an interactive shell, so that
    // Ctrl-Z stops it and `fg` continues it.
    let config = format!("OXO_CONFIG_DIR={}", dir.join("cfg").display());
    let command = ["env", &config, "bash", "--norc", "--noprofile", "-i"];
    let Some(tmux) = Tmux::start_command("online_ctrl_z", 64, 22, &command) else {
        return;
    };
    tmux.wait_for("the shell", |s| s.contains("bash"));
    tmux.send(&[
        "-l",
        &format!("'{OXO}' play --server http://{addr} --name Tess"),
    ]);
    tmux.send(&["Enter"]);
    tmux.wait_for("the table in the lobby", |s| {
        s.contains("Otto vs Ann") || s.contains("Ann vs Otto")
    });
    tmux.send(&["w"]);
    tmux.wait_for("the watched table", |s| s.contains("watching ·"));
    let mut last = None;
    table_until(&mut otto.0, &mut last, |t| {
        t.id == table && t.spectators == 1
    })
    .await;

    // Stopped: the table sees her gone within seconds, not after the
    // server's idle timeout (a minute).
    tmux.send(&["C-z"]);
    tmux.wait_for("the shell's job report", |s| s.contains("Stopped"));
    let gone = tokio::time::timeout(
        Duration::from_secs(5),
        table_until(&mut otto.0, &mut last, |t| t.spectators == 0),
    )
    .await;
    assert!(gone.is_ok(), "still watching while stopped: {last:?}");

    // Continued: she is back, watching the same table.
    tmux.send(&["-l", "clear; fg"]);
    tmux.send(&["Enter"]);
    table_until(&mut otto.0, &mut last, |t| t.spectators == 1).await;
    tmux.wait_for("the watched table again", |s| s.contains("watching ·"));
    tmux.send(&["q"]);
    common::stop(server).await;
}
