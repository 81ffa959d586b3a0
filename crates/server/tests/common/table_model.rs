//! A table driven by a sequence of actions from two players, A and B, and a
//! spectator, S, through the real server (client, table actor and an
//! in-memory store, without a network), checked after every step.
//!
//! Shared by the proptest in `tests/server/properties.rs` (stable, in
//! `cargo test`) and the `table_actions` fuzz target (`fuzz/`, nightly),
//! which includes this file by path. Each input byte is one action (see
//! [`Action::decode`]); the first picks the table's options.
//!
//! Checked after every step:
//!
//! - every `table` state anyone receives is consistent on its own: one mark
//!   per cell, marks alternating from the round's first player and agreeing
//!   with the move list, at most one outcome and the one `oxo_core` sees on
//!   the board (or a forfeit when the board shows none), whose turn it is,
//!   and scores that add up to the finished rounds;
//! - the reply (`ok` or the error code) is the one a plain model predicts,
//!   so no action from the wrong seat, from the spectator or after the
//!   round is over is ever accepted;
//! - the last state each client received equals the model's.

#![allow(dead_code, unreachable_pub, missing_docs, clippy::unwrap_used)]

use std::collections::VecDeque;
use std::time::Duration;

use oxo_core::{ByPlayer, Game, Outcome, Player, Square, WinReason};
use oxo_protocol::{Scores, ServerMsg, Starter, TableState, TableStatus};
use oxo_server::{AppState, Config, LocalClient, RateLimit};

/// Actions per input at most (a few rounds' worth).
pub const MAX_ACTIONS: usize = 64;

/// Who acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    A,
    B,
    S,
}

/// One step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// A move with a fresh request id, or (`retry`) with the id of the
    /// actor's last accepted move.
    Move {
        cell: Square,
        retry: bool,
    },
    /// A move to a cell that does not exist.
    BadCell,
    Forfeit,
    Rematch,
    Sync,
    /// Join without naming a seat (a seated player re-attaches).
    Join,
    /// Join naming the seat the actor does not hold (X for the spectator).
    JoinOther,
    Chat,
}

impl Action {
    /// Byte → actor (`b % 3`) and action (`b / 3`); moves are the most
    /// common, so that games get played to the end.
    pub fn decode(b: u8) -> (Who, Action) {
        let who = [Who::A, Who::B, Who::S][usize::from(b % 3)];
        let op = b / 3;
        let cell = |i: u8| Square::from_index(i % 9).expect("a square");
        let action = match op {
            0..=8 => Action::Move {
                cell: cell(op),
                retry: false,
            },
            9..=17 => Action::Move {
                cell: cell(op - 9),
                retry: true,
            },
            18 => Action::Forfeit,
            19 => Action::Rematch,
            20 => Action::Sync,
            21 => Action::Join,
            22 => Action::BadCell,
            23 => Action::Chat,
            24 => Action::JoinOther,
            _ => Action::Move {
                cell: cell(op),
                retry: false,
            },
        };
        (who, action)
    }
}

/// One in-process client and what it has received.
struct Actor {
    client: LocalClient,
    next_id: u64,
    /// The id and cell of this actor's last accepted move (for retries).
    last_move: Option<(u64, Square)>,
    /// The last table state received.
    last_state: Option<TableState>,
}

/// What the server should answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    Ok,
    Err(&'static str),
}

/// The table as a plain model sees it.
#[derive(Debug)]
struct Model {
    starter: Starter,
    round: u32,
    game: Game,
    scores: Scores,
    wants: ByPlayer<bool>,
    /// The latest accepted moves with their request ids, across rounds,
    /// as many as the table remembers: a retry of one is answered `ok`
    /// and changes nothing. Each seat's moves come from one connection
    /// here, and a retry on the same connection is recognised in any
    /// round (docs/protocol.md, "Retries and the fate of a move").
    accepted: VecDeque<(Player, u64, Square)>,
}

/// Accepted moves a table remembers (docs/protocol.md).
const REMEMBERED_MOVES: usize = 32;

impl Model {
    fn status(&self) -> TableStatus {
        if self.game.is_over() {
            TableStatus::RoundOver
        } else {
            TableStatus::InProgress
        }
    }

    fn end_round(&mut self) {
        if let Some(outcome) = self.game.outcome() {
            self.scores.record(outcome);
        }
    }
}

fn config() -> Config {
    Config {
        rate_limit: RateLimit::UNLIMITED,
        chat_limit: RateLimit::UNLIMITED,
        // The model checks the table's answers, not the per-player rate
        // of new games (which `limits.rs` tests).
        rounds_limit: RateLimit::UNLIMITED,
        ..Config::in_memory()
    }
}

/// How long any reply may take (a hang is a bug).
const REPLY: Duration = Duration::from_secs(10);

async fn recv(c: &mut LocalClient) -> ServerMsg {
    let text = tokio::time::timeout(REPLY, c.recv())
        .await
        .expect("a reply in time")
        .expect("the connection stays open");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Sends `text` with request id `id`; returns the table states before the
/// reply, and the reply.
async fn request(actor: &mut Actor, text: &str, id: u64) -> (Vec<TableState>, Reply) {
    assert!(actor.client.send(text).await, "closed: {text}");
    let mut states = Vec::new();
    loop {
        match recv(&mut actor.client).await {
            ServerMsg::Table { table } => {
                check_state(&table);
                actor.last_state = Some(table.clone());
                states.push(table);
            }
            ServerMsg::Ok { id: Some(i), .. } if i == id => return (states, Reply::Ok),
            ServerMsg::Error {
                id: Some(i), code, ..
            } if i == id => return (states, Reply::Err(code.as_str())),
            ServerMsg::Ok { .. } | ServerMsg::Error { .. } => {
                panic!("a reply to another request: {text}")
            }
            ServerMsg::Chat { .. } | ServerMsg::Lobby { .. } | ServerMsg::Pong { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// Reads whatever is queued for `actor`, checking each table state.
fn drain(actor: &mut Actor) {
    while let Some(text) = actor.client.try_recv() {
        let msg: ServerMsg = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        match msg {
            ServerMsg::Table { table } => {
                check_state(&table);
                actor.last_state = Some(table);
            }
            ServerMsg::Chat { .. } | ServerMsg::Lobby { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// The invariants every table state must satisfy on its own.
pub fn check_state(t: &TableState) {
    // Before the first round nobody moved first, and there is no game.
    assert_eq!(t.first.is_none(), t.game_id.is_none(), "{t:?}");
    let Some(first) = t.first else {
        assert!(t.moves.is_empty(), "{t:?}");
        assert!(
            matches!(t.status, TableStatus::Waiting | TableStatus::Closed),
            "{t:?}"
        );
        return;
    };
    // Marks alternate from the first player, one per cell: the move list
    // replays as a game, and the board is that game's.
    let game = Game::from_moves(first, &t.moves)
        .unwrap_or_else(|e| panic!("moves {:?} do not replay: {e}: {t:?}", t.moves));
    let board = game.position().board().to_string();
    assert_eq!(t.board, board, "{t:?}");
    assert_eq!(t.move_number as usize, t.moves.len(), "{t:?}");
    let (x, o) = (
        game.position().board().marks(Player::X).count(),
        game.position().board().marks(Player::O).count(),
    );
    let (firsts, seconds) = if first == Player::X { (x, o) } else { (o, x) };
    assert!(firsts == seconds || firsts == seconds + 1, "{t:?}");
    // At most one outcome: the board's if it shows one; otherwise only a
    // win by forfeit, timeout or drop.
    match (game.outcome(), t.outcome) {
        (Some(on_board), outcome) => assert_eq!(outcome, Some(on_board), "{t:?}"),
        (None, None) => {}
        (None, Some(Outcome::Win { reason, .. })) => assert!(
            matches!(
                reason,
                WinReason::Forfeit | WinReason::Timeout | WinReason::Dropped
            ),
            "{t:?}"
        ),
        (None, Some(Outcome::Draw)) => panic!("a draw on a board that is not full: {t:?}"),
    }
    match t.status {
        TableStatus::InProgress => {
            assert_eq!(t.outcome, None, "{t:?}");
            assert_eq!(t.turn, game.to_move(), "{t:?}");
        }
        TableStatus::RoundOver => {
            assert!(t.outcome.is_some(), "{t:?}");
            assert_eq!(t.turn, None, "{t:?}");
        }
        TableStatus::Waiting | TableStatus::Closed => assert_eq!(t.turn, None, "{t:?}"),
    }
    // Scores add up to the finished rounds.
    if t.status != TableStatus::Waiting {
        let finished = t.round - 1 + u32::from(t.outcome.is_some());
        assert_eq!(t.scores.x + t.scores.o + t.scores.draws, finished, "{t:?}");
    }
}

/// Checks a received state against the model.
fn check_model(t: &TableState, m: &Model, who: Who) {
    let ctx = || format!("{who:?} saw {t:?}\nmodel {m:?}");
    assert_eq!(t.status, m.status(), "{}", ctx());
    assert_eq!(t.round, m.round, "{}", ctx());
    assert_eq!(t.first, Some(m.game.first()), "{}", ctx());
    assert_eq!(t.moves, m.game.moves(), "{}", ctx());
    assert_eq!(t.outcome, m.game.outcome(), "{}", ctx());
    assert_eq!(t.scores, m.scores, "{}", ctx());
    for p in Player::ALL {
        let info = t.players[p].as_ref().expect("both seats taken");
        assert_eq!(info.wants_rematch, m.wants[p], "{}", ctx());
    }
}

/// Runs one input: the first byte picks the options, each further byte is
/// an action (at most [`MAX_ACTIONS`]). Panics on any broken invariant.
pub async fn run(data: &[u8]) {
    let Some((&setup, actions)) = data.split_first() else {
        return;
    };
    let starter =
        [Starter::X, Starter::O, Starter::Alternate, Starter::Toss][usize::from(setup & 3)];
    let a_seat = if setup & 4 == 0 { Player::X } else { Player::O };
    let state = AppState::new(config()).expect("server state");
    let mut actors: Vec<Actor> = Vec::new();
    for name in ["Ann", "Bob", "Sam"] {
        let mut client = state.connect_local();
        assert!(
            client
                .send(&format!(
                    r#"{{"type":"hello","version":1,"name":"{name}"}}"#
                ))
                .await
        );
        assert!(matches!(recv(&mut client).await, ServerMsg::Welcome { .. }));
        actors.push(Actor {
            client,
            next_id: 1,
            last_move: None,
            last_state: None,
        });
    }
    let options = serde_json::json!({
        "public": false,
        "seat": a_seat,
        "starter": starter,
    });
    let create = format!(r#"{{"type":"create_table","id":0,"options":{options}}}"#);
    let (states, reply) = request(&mut actors[0], &create, 0).await;
    assert_eq!(reply, Reply::Ok);
    let table = states.last().expect("the new table").id.clone();
    let join = format!(r#"{{"type":"join_table","id":0,"table_id":"{table}"}}"#);
    assert_eq!(request(&mut actors[1], &join, 0).await.1, Reply::Ok);
    let watch = format!(r#"{{"type":"watch_table","id":0,"table_id":"{table}"}}"#);
    let (states, reply) = request(&mut actors[2], &watch, 0).await;
    assert_eq!(reply, Reply::Ok);
    let first = states
        .last()
        .expect("the table's state")
        .first
        .expect("the round started");
    if starter != Starter::Toss {
        let expected = if starter == Starter::O {
            Player::O
        } else {
            Player::X
        };
        assert_eq!(first, expected);
    }
    let mut model = Model {
        starter,
        round: 1,
        game: Game::with_first(first),
        scores: Scores::default(),
        wants: ByPlayer { x: false, o: false },
        accepted: VecDeque::new(),
    };
    for actor in &mut actors {
        drain(actor);
    }

    for &byte in actions.iter().take(MAX_ACTIONS) {
        let (who, action) = Action::decode(byte);
        let index = who as usize;
        let seat = match who {
            Who::A => Some(a_seat),
            Who::B => Some(!a_seat),
            Who::S => None,
        };
        let actor = &mut actors[index];
        actor.next_id += 1;
        let mut id = actor.next_id;
        let (text, expected) = match action {
            Action::Move { cell, retry } => {
                if let (true, Some((last, _))) = (retry, actor.last_move) {
                    id = last;
                }
                let text =
                    format!(r#"{{"type":"move","id":{id},"table_id":"{table}","cell":"{cell}"}}"#);
                let expected = match seat {
                    None => Reply::Err("not_seated"),
                    Some(seat) if model.accepted.contains(&(seat, id, cell)) => Reply::Ok,
                    Some(_) if model.game.is_over() => Reply::Err("game_over"),
                    Some(seat) if model.game.to_move() != Some(seat) => Reply::Err("not_your_turn"),
                    Some(_) if model.game.position().board().get(cell).is_some() => {
                        Reply::Err("cell_taken")
                    }
                    Some(_) => Reply::Ok,
                };
                (text, expected)
            }
            Action::BadCell => (
                format!(r#"{{"type":"move","id":{id},"table_id":"{table}","cell":9}}"#),
                Reply::Err("bad_request"),
            ),
            Action::Forfeit => {
                let expected = match seat {
                    None => Reply::Err("not_seated"),
                    Some(_) if model.game.is_over() => Reply::Err("game_over"),
                    Some(_) => Reply::Ok,
                };
                (
                    format!(r#"{{"type":"forfeit","id":{id},"table_id":"{table}"}}"#),
                    expected,
                )
            }
            Action::Rematch => {
                let expected = match seat {
                    None => Reply::Err("not_seated"),
                    Some(_) if !model.game.is_over() => Reply::Err("game_in_progress"),
                    Some(_) => Reply::Ok,
                };
                (
                    format!(r#"{{"type":"rematch","id":{id},"table_id":"{table}"}}"#),
                    expected,
                )
            }
            Action::Sync => (
                format!(r#"{{"type":"sync","id":{id},"table_id":"{table}"}}"#),
                Reply::Ok,
            ),
            Action::Join => (
                format!(r#"{{"type":"join_table","id":{id},"table_id":"{table}"}}"#),
                if seat.is_some() {
                    Reply::Ok
                } else {
                    Reply::Err("table_full")
                },
            ),
            Action::JoinOther => {
                let other = seat.map_or(Player::X, |s| !s);
                (
                    format!(
                        r#"{{"type":"join_table","id":{id},"table_id":"{table}","seat":"{other}"}}"#
                    ),
                    Reply::Err(if seat.is_some() {
                        "already_seated"
                    } else {
                        "table_full"
                    }),
                )
            }
            Action::Chat => (
                format!(r#"{{"type":"chat","id":{id},"table_id":"{table}","text":"hi"}}"#),
                Reply::Ok,
            ),
        };
        let (states, reply) = request(actor, &text, id).await;
        assert_eq!(
            reply, expected,
            "{who:?} (seat {seat:?}) sent {text}\nmodel {model:?}"
        );
        // The model follows what was accepted.
        if reply == Reply::Ok {
            match (action, seat) {
                // A retry changes nothing.
                (Action::Move { cell, .. }, Some(seat))
                    if !model.accepted.contains(&(seat, id, cell)) =>
                {
                    model
                        .game
                        .play(cell)
                        .expect("the model agrees the move is legal");
                    if model.accepted.len() == REMEMBERED_MOVES {
                        model.accepted.pop_front();
                    }
                    model.accepted.push_back((seat, id, cell));
                    actor.last_move = Some((id, cell));
                    if model.game.is_over() {
                        model.end_round();
                    }
                }
                (Action::Forfeit, Some(seat)) => {
                    model.game.forfeit(seat).expect("a round in progress");
                    model.end_round();
                }
                (Action::Rematch, Some(seat)) => {
                    model.wants[seat] = true;
                    if model.wants.x && model.wants.o {
                        model.round += 1;
                        let first = match model.starter {
                            Starter::X => Player::X,
                            Starter::O => Player::O,
                            Starter::Alternate if model.round % 2 == 1 => Player::X,
                            Starter::Alternate => Player::O,
                            Starter::Toss => states
                                .last()
                                .expect("the new round")
                                .first
                                .expect("a started round names its first mover"),
                        };
                        model.game = Game::with_first(first);
                        model.wants = ByPlayer { x: false, o: false };
                    }
                }
                _ => {}
            }
        }
        if action == Action::Sync {
            assert!(!states.is_empty(), "sync sends the state");
        }
        for (i, actor) in actors.iter_mut().enumerate() {
            drain(actor);
            if let Some(t) = &actor.last_state {
                check_model(t, &model, [Who::A, Who::B, Who::S][i]);
            }
        }
    }
    for actor in actors {
        actor.client.close().await;
    }
    state.shutdown().await;
}
