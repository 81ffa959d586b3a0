//! Unit tests of the online screen: the keys and clicks of the lobby and
//! the table, and what the table screen draws.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use oxo_client::Address;
use oxo_core::{BotLevel, ByPlayer, Outcome, Player, Scores, Square, Starter, WinReason};
use oxo_protocol::{
    ClientMsg, LobbyTable, PlayerId, PlayerInfo, ServerMsg, TableId, TableOptions, TableState,
    TableStatus,
};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use tokio::sync::mpsc;

use super::net::{Ask, News};
use super::state::Online;

fn online() -> (Online, mpsc::UnboundedReceiver<Ask>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let address: Address = "http://127.0.0.1:8080".parse().expect("an address");
    let mut o = Online::new(address, tx);
    // Connected (no request is sent while the connection is down).
    o.connected = true;
    (o, rx)
}

fn press(o: &mut Online, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\u{1b}' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        o.key(KeyEvent::new(code, KeyModifiers::NONE));
    }
}

fn sent(rx: &mut mpsc::UnboundedReceiver<Ask>) -> Vec<ClientMsg> {
    let mut out = Vec::new();
    while let Ok(ask) = rx.try_recv() {
        if let Ask::Send(msg) = ask {
            out.push(msg);
        }
    }
    out
}

fn lobby_entry(id: &str) -> LobbyTable {
    LobbyTable {
        id: TableId::from(id),
        status: TableStatus::Waiting,
        players: ByPlayer {
            x: Some("Ann".into()),
            o: None,
        },
        spectators: 0,
        options: TableOptions::default(),
    }
}

fn state(id: &str, me: &str) -> TableState {
    let player = |id: &str, name: &str| PlayerInfo {
        id: PlayerId::from(id),
        name: name.into(),
        bot: None,
        connected: true,
        grace_left_ms: None,
        wants_rematch: false,
    };
    TableState {
        id: TableId::from(id),
        status: TableStatus::InProgress,
        options: TableOptions::default(),
        players: ByPlayer {
            x: Some(player(me, "Me")),
            o: Some(player("p2", "Bob")),
        },
        spectators: 0,
        round: 1,
        game_id: Some("g1".into()),
        first: Some(Player::X),
        board: ".........".into(),
        moves: vec![],
        move_number: 0,
        turn: Some(Player::X),
        time_left_ms: None,
        outcome: None,
        scores: Scores::default(),
    }
}

#[test]
fn the_lobby_keys_join_watch_and_create() {
    let (mut o, mut rx) = online();
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t1"), lobby_entry("t2")],
    })));
    press(&mut o, "j\n");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::JoinTable {
            table_id: "t2".into(),
            seat: None
        }]
    );
    press(&mut o, "kw");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::WatchTable {
            table_id: "t1".into()
        }]
    );
    press(&mut o, "stt3");
    // The bot's table shows; back in the lobby, p makes a private one.
    let mut table = state("b1", "me");
    table.players.o = None;
    o.news(News::Message(Box::new(ServerMsg::Table { table })));
    press(&mut o, "\u{1b}\u{1b}p");
    let created: Vec<ClientMsg> = sent(&mut rx)
        .into_iter()
        .filter(|m| matches!(m, ClientMsg::CreateTable { .. }))
        .collect();
    let [
        ClientMsg::CreateTable { options: bot },
        ClientMsg::CreateTable { options: private },
    ] = created.as_slice()
    else {
        panic!("{created:?}");
    };
    assert_eq!(bot.bot.map(|b| b.level), Some(BotLevel::Medium));
    assert_eq!((bot.starter, bot.move_time_ms), (Starter::X, Some(30_000)));
    assert!(!private.public && private.bot.is_none());
}

#[test]
fn at_a_table_keys_play_chat_rematch_and_leave() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    o.news(News::Message(Box::new(ServerMsg::Table {
        table: state("t1", "me"),
    })));
    assert_eq!(o.my_seat(), Some(Player::X));
    press(&mut o, "5");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::Move {
            table_id: "t1".into(),
            cell: Square::B2,
            game_id: Some("g1".into())
        }]
    );
    press(&mut o, "mhi q\n");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::Chat {
            table_id: "t1".into(),
            text: "hi q".into()
        }],
        "q and other keys are text while typing"
    );
    assert!(o.running);
    // f (forfeit) asks first during a round in play: twice acts.
    press(&mut o, "rff");
    assert_eq!(
        sent(&mut rx),
        [
            ClientMsg::Rematch {
                table_id: "t1".into()
            },
            ClientMsg::Forfeit {
                table_id: "t1".into()
            }
        ]
    );
    // So does Esc (leaving forfeits the round).
    press(&mut o, "\u{1b}\u{1b}");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::LeaveTable {
            table_id: "t1".into()
        }]
    );
    assert!(o.table.is_none());
}

#[test]
fn a_watcher_takes_a_free_seat_by_playing_and_is_told_when_there_is_none() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    // Ann waits for an opponent; I am watching.
    let mut table = state("t1", "ann");
    table.status = TableStatus::Waiting;
    table.players.o = None;
    table.game_id = None;
    table.turn = None;
    o.news(News::Message(Box::new(ServerMsg::Table {
        table: table.clone(),
    })));
    assert_eq!(o.my_seat(), None);
    press(&mut o, "5");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::JoinTable {
            table_id: "t1".into(),
            seat: None
        }],
        "playing at a table with a free seat takes it"
    );
    assert!(o.message.contains("seat"), "{}", o.message);
    // Both seats taken by others: nothing to take.
    let full = state("t1", "ann");
    o.news(News::Message(Box::new(ServerMsg::Table { table: full })));
    press(&mut o, "5");
    assert!(sent(&mut rx).is_empty());
    assert!(o.message.contains("watching"), "{}", o.message);
    // Seated at a table waiting for an opponent: no move yet, and says so.
    let mut waiting = table;
    waiting.players.x = state("t1", "me").players.x;
    o.news(News::Message(Box::new(ServerMsg::Table { table: waiting })));
    assert_eq!(o.my_seat(), Some(Player::X));
    press(&mut o, "5");
    assert!(sent(&mut rx).is_empty());
    assert!(o.message.contains("opponent"), "{}", o.message);
}

#[test]
fn an_opponent_taking_the_free_seat_is_said() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut waiting = state("t1", "me");
    waiting.status = TableStatus::Waiting;
    waiting.players.o = None;
    o.news(News::Message(Box::new(ServerMsg::Table {
        table: waiting.clone(),
    })));
    o.news(News::Created("t1".into()));
    // A state that changes nothing leaves the link on the screen.
    o.news(News::Message(Box::new(ServerMsg::Table { table: waiting })));
    assert!(o.message.contains("Table created"), "{}", o.message);
    o.news(News::Message(Box::new(ServerMsg::Table {
        table: state("t1", "me"),
    })));
    assert_eq!(o.message, "Bob joined: the round starts");
}

#[test]
fn an_opponent_leaving_is_said_with_what_it_means_for_the_round() {
    // Mid-round: leaving forfeits, so I win.
    let (mut o, _rx) = seated("X...O....", &[Square::A1, Square::B2]);
    let mut left = o.table.clone().expect("a table");
    left.status = TableStatus::Waiting;
    left.players.o = None;
    left.turn = None;
    left.outcome = Some(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Forfeit,
    });
    left.scores.x = 1;
    table_msg(&mut o, &left);
    assert_eq!(o.message, "Bob left the table: you win");
    let (_, screen) = draw(&o, 64, 22);
    assert!(screen.contains("Bob left the table: you win"), "{screen}");

    // After a finished round, nothing is won.
    let (mut o, _rx) = seated("XXXOO....", &[]);
    let mut over = o.table.clone().expect("a table");
    over.status = TableStatus::RoundOver;
    over.turn = None;
    table_msg(&mut o, &over);
    let mut left = over;
    left.status = TableStatus::Waiting;
    left.players.o = None;
    table_msg(&mut o, &left);
    assert_eq!(o.message, "Bob left the table");
}

#[test]
fn an_ok_that_is_not_a_table_created_says_nothing() {
    let (mut o, _rx) = online();
    // A `watch_table`'s `ok` can come before the table's state.
    o.news(News::Message(Box::new(ServerMsg::Ok {
        id: Some(2),
        table_id: Some("t9".into()),
        game_id: None,
        ply: None,
    })));
    assert!(!o.message.contains("created"), "{}", o.message);
    o.news(News::Created("t9".into()));
    assert!(o.message.contains("Table created"), "{}", o.message);
    assert!(o.message.ends_with("/t/t9"), "{}", o.message);
}

#[test]
fn refusals_and_drops_are_said_and_a_failure_ends() {
    let (mut o, _rx) = online();
    o.news(News::Refused("b2 is already taken".into()));
    assert_eq!(o.message, "b2 is already taken");
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    assert!(!o.connected);
    assert_eq!(o.message, "Connection lost — reconnecting…");
    o.news(News::Failed("cannot connect".into()));
    assert!(!o.running);
    assert_eq!(o.failed.as_deref(), Some("cannot connect"));
}

/// An online screen seated as X at table `t1`, `board` as in a table
/// state (`X`, `O`, `.` by square) with `moves` played, X to move.
fn seated(board: &str, moves: &[Square]) -> (Online, mpsc::UnboundedReceiver<Ask>) {
    let (mut o, rx) = online();
    welcome(&mut o);
    let mut table = state("t1", "me");
    table.board = board.into();
    table.moves = moves.to_vec();
    table.move_number = u32::try_from(moves.len()).unwrap_or(0);
    o.news(News::Message(Box::new(ServerMsg::Table { table })));
    (o, rx)
}

fn draw(o: &Online, width: u16, height: u16) -> (Rect, String) {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    o.render(area, &mut buf);
    let text = (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n");
    (area, text)
}

/// The screen position of `sq`'s centre on `o`'s table screen in `area`,
/// found on the drawn screen: the cell whose number is shown there.
fn centre_of(o: &Online, area: Rect, sq: Square) -> (u16, u16) {
    let mut found = None;
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            if super::view::square_at(o, area, x, y) == Some(sq) {
                found.get_or_insert((x, y));
            }
        }
    }
    found.expect("the cell is on the screen")
}

#[test]
fn the_table_screen_draws_the_board_as_large_as_the_terminal_allows() {
    let (o, _rx) = seated("X...O....", &[Square::A1, Square::B2]);
    let (_, big) = draw(&o, 110, 30);
    assert!(big.contains('╳'), "the large X glyph:\n{big}");
    assert!(big.contains("╭───╮"), "the large O glyph:\n{big}");
    assert!(big.contains('•'), "the last move is marked:\n{big}");
    assert!(big.contains("Your move (X)"), "{big}");
    assert!(big.contains("X Me (you)  0"), "{big}");
    let (_, small) = draw(&o, 64, 22);
    assert!(
        small.lines().any(|l| l.starts_with(" 1 │  X  │")),
        "the one-letter board in a small window:\n{small}"
    );
    assert!(small.contains("Your move (X)"), "{small}");
}

#[test]
fn a_click_on_a_cell_plays_it_and_a_click_elsewhere_does_nothing() {
    for (width, height) in [(110, 30), (80, 24), (64, 22), (50, 16)] {
        let (mut o, mut rx) = seated(".........", &[]);
        let area = Rect::new(0, 0, width, height);
        let (x, y) = centre_of(&o, area, Square::C3);
        o.click(area, x, y);
        assert_eq!(
            sent(&mut rx),
            [ClientMsg::Move {
                table_id: "t1".into(),
                cell: Square::C3,
                game_id: Some("g1".into())
            }],
            "{width}x{height}"
        );
        o.click(area, 0, 0);
        o.click(area, width - 1, height - 1);
        assert_eq!(sent(&mut rx), [], "{width}x{height}: outside the board");
    }
}

#[test]
fn the_cell_under_a_click_is_the_cell_drawn_there() {
    let (o, _rx) = seated(".........", &[]);
    let area = Rect::new(0, 0, 110, 30);
    let (_, screen) = draw(&o, 110, 30);
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    for sq in Square::ALL {
        let (x, y) = centre_of(&o, area, sq);
        // Every cell of the clicked area shows that square's number in
        // its middle row.
        let cell: String = (0..13)
            .filter_map(|dx| rows[usize::from(y + 2)].get(usize::from(x + dx)))
            .collect();
        assert!(
            cell.contains(&sq.number().to_string()),
            "{sq}: '{cell}' at ({x}, {y})\n{screen}"
        );
    }
}

#[test]
fn clicks_do_nothing_in_the_lobby_or_while_typing() {
    let (mut o, mut rx) = online();
    o.click(Rect::new(0, 0, 110, 30), 10, 10);
    assert_eq!(sent(&mut rx), []);
    let (mut o, mut rx) = seated(".........", &[]);
    let area = Rect::new(0, 0, 110, 30);
    let (x, y) = centre_of(&o, area, Square::A1);
    press(&mut o, "m");
    o.click(area, x, y);
    assert_eq!(sent(&mut rx), [], "a click while typing a chat line");
}

#[test]
fn quitting_mid_round_asks_once_and_any_other_key_takes_it_back() {
    let (mut o, _rx) = seated(".........", &[]);
    press(&mut o, "q");
    assert!(o.running, "a round in play is at stake: asked first");
    assert!(o.message.contains("q again"), "{}", o.message);
    press(&mut o, "5q");
    assert!(o.running, "another key took the first q back");
    press(&mut o, "q");
    assert!(!o.running);

    // A finished round, or watching, quits at once.
    let (mut o, _rx) = seated("XXXOO....", &[]);
    let mut over = o.table.clone().expect("a table");
    over.status = TableStatus::RoundOver;
    o.news(News::Message(Box::new(ServerMsg::Table { table: over })));
    press(&mut o, "q");
    assert!(!o.running);
}

#[test]
fn a_click_takes_back_a_first_q_as_a_key_does() {
    let (mut o, _rx) = seated(".........", &[]);
    let area = Rect::new(0, 0, 80, 24);
    let (x, y) = centre_of(&o, area, Square::B2);
    press(&mut o, "q");
    o.click(area, x, y);
    press(&mut o, "q");
    assert!(o.running, "the click took the first q back");
}

/// The state of table `id` where Ann (X) waits for an opponent.
fn waiting(id: &str) -> TableState {
    let mut table = state(id, "ann");
    table.status = TableStatus::Waiting;
    table.players.o = None;
    table.game_id = None;
    table.turn = None;
    table
}

fn table_msg(o: &mut Online, table: &TableState) {
    o.news(News::Message(Box::new(ServerMsg::Table {
        table: table.clone(),
    })));
}

fn welcome(o: &mut Online) {
    o.news(News::Welcome {
        name: "Me".into(),
        player_id: "me".into(),
        tables: Vec::new(),
    });
}

fn key_with(o: &mut Online, code: KeyCode, modifiers: KeyModifiers) {
    o.key(KeyEvent::new(code, modifiers));
}

#[test]
fn one_esc_leaves_for_the_lobby_and_the_tables_late_states_are_ignored() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    // Watching: no round of mine at stake, so one Esc leaves.
    let table = state("t1", "ann");
    table_msg(&mut o, &table);
    press(&mut o, "\u{1b}");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::LeaveTable {
            table_id: "t1".into()
        }]
    );
    assert!(o.table.is_none());
    // The server's last state of the table comes after the leave.
    let mut late = table.clone();
    late.spectators = 0;
    table_msg(&mut o, &late);
    assert!(o.table.is_none(), "the left table does not open again");
    assert_eq!(o.message, "Back in the lobby");
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("Open tables"), "{screen}");
    assert!(!screen.contains("watching ·"), "{screen}");
    // Asked for again from the lobby, it shows.
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t1")],
    })));
    press(&mut o, "w");
    table_msg(&mut o, &late);
    assert_eq!(o.table.as_ref().map(|t| t.id.as_str()), Some("t1"));
}

#[test]
fn a_link_shows_its_table_even_when_another_seats_state_comes_first() {
    let (tx, _rx) = mpsc::unbounded_channel();
    let address: Address = "http://127.0.0.1:8080/t/link1".parse().expect("a link");
    let mut o = Online::new(address, tx);
    welcome(&mut o);
    // The welcome re-attaches my seat at an older table first.
    table_msg(&mut o, &state("old", "me"));
    assert!(o.table.is_none(), "not the linked table");
    table_msg(&mut o, &state("link1", "me"));
    assert_eq!(o.table.as_ref().map(|t| t.id.as_str()), Some("link1"));
    table_msg(&mut o, &state("old", "me"));
    assert_eq!(o.table.as_ref().map(|t| t.id.as_str()), Some("link1"));
}

#[test]
fn forfeit_and_leave_mid_round_ask_once() {
    let (mut o, mut rx) = seated(".........", &[]);
    press(&mut o, "f");
    assert!(sent(&mut rx).is_empty(), "a round in play: asked first");
    assert!(o.message.contains("f again"), "{}", o.message);
    press(&mut o, "hf");
    assert!(
        sent(&mut rx).is_empty(),
        "another key took the first f back"
    );
    press(&mut o, "f");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::Forfeit {
            table_id: "t1".into()
        }]
    );

    let (mut o, mut rx) = seated(".........", &[]);
    press(&mut o, "\u{1b}");
    assert!(sent(&mut rx).is_empty());
    assert!(o.table.is_some(), "still at the table");
    assert!(o.message.contains("Esc again"), "{}", o.message);
    press(&mut o, "\u{1b}");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::LeaveTable {
            table_id: "t1".into()
        }]
    );
    assert!(o.table.is_none());

    // A finished round: f and Esc act at once.
    let (mut o, mut rx) = seated("XXXOO....", &[]);
    let mut over = o.table.clone().expect("a table");
    over.status = TableStatus::RoundOver;
    table_msg(&mut o, &over);
    press(&mut o, "\u{1b}");
    assert_eq!(sent(&mut rx).len(), 1);
    assert!(o.table.is_none());
}

#[test]
fn ctrl_z_suspends_online_and_does_not_quit() {
    let (mut o, _rx) = seated(".........", &[]);
    key_with(&mut o, KeyCode::Char('z'), KeyModifiers::CONTROL);
    assert!(o.running);
    assert!(o.take_suspend(), "the loop is asked to suspend");
    assert!(!o.take_suspend(), "once");
    // While typing a chat line too.
    press(&mut o, "m");
    key_with(&mut o, KeyCode::Char('z'), KeyModifiers::CONTROL);
    assert!(o.take_suspend());
}

#[test]
fn stale_messages_go_when_the_table_changes() {
    // A refusal goes once the opponent has moved.
    let (mut o, _rx) = seated(".........", &[]);
    let mut table = o.table.clone().expect("a table");
    o.news(News::Refused("Not your turn".into()));
    table.board = "X........".into();
    table.moves = vec![Square::A1];
    table.move_number = 1;
    table.turn = Some(Player::O);
    table_msg(&mut o, &table);
    assert_eq!(o.message, "", "after a move");

    // "Bob joined" goes once the round is over.
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut mine = state("t1", "me");
    mine.status = TableStatus::Waiting;
    mine.players.o = None;
    table_msg(&mut o, &mine);
    let mut playing = state("t1", "me");
    table_msg(&mut o, &playing);
    assert_eq!(o.message, "Bob joined: the round starts");
    playing.status = TableStatus::RoundOver;
    playing.turn = None;
    table_msg(&mut o, &playing);
    assert_eq!(o.message, "");

    // A lobby refusal goes once a table opens.
    let (mut o, _rx) = online();
    welcome(&mut o);
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t1")],
    })));
    press(&mut o, "\n");
    o.news(News::Refused("Both seats are taken".into()));
    press(&mut o, "w");
    table_msg(&mut o, &state("t1", "ann"));
    assert!(!o.message.contains("Both seats"), "{}", o.message);
}

#[test]
fn taking_the_free_seat_myself_is_not_said_as_the_others_arrival() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &waiting("t1"));
    press(&mut o, "\n");
    let mut taken = state("t1", "ann");
    taken.players.o = state("t1", "me").players.x;
    table_msg(&mut o, &taken);
    assert_eq!(o.my_seat(), Some(Player::O));
    assert!(!o.message.contains("Ann joined"), "{}", o.message);
    assert_eq!(o.message, "You joined: the round starts");
}

#[test]
fn the_opponents_away_countdown_ticks() {
    let (mut o, _rx) = seated(".........", &[]);
    let mut table = o.table.clone().expect("a table");
    if let Some(bob) = table.players.o.as_mut() {
        bob.connected = false;
        bob.grace_left_ms = Some(60_000);
    }
    table_msg(&mut o, &table);
    let (_, screen) = draw(&o, 110, 30);
    assert!(screen.contains("away: 60 s"), "{screen}");
    o.table_at -= std::time::Duration::from_secs(5);
    let (_, screen) = draw(&o, 110, 30);
    assert!(screen.contains("away: 55 s"), "{screen}");
}

#[test]
fn a_terminal_too_small_says_so_and_board_keys_do_nothing() {
    let (mut o, mut rx) = seated(".........", &[]);
    o.resize(40, 11);
    let (_, screen) = draw(&o, 40, 11);
    assert!(screen.contains("Terminal too small"), "{screen}");
    assert!(screen.contains("have 40×11"), "{screen}");
    press(&mut o, "5f\u{1b}");
    assert!(sent(&mut rx).is_empty(), "nothing happens unseen");
    assert!(o.table.is_some());
    o.resize(80, 24);
    press(&mut o, "5");
    assert_eq!(sent(&mut rx).len(), 1);
    o.resize(40, 11);
    press(&mut o, "q");
    assert!(!o.running);
}

#[test]
fn a_move_while_disconnected_says_it_was_not_sent() {
    let (mut o, mut rx) = seated(".........", &[]);
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    press(&mut o, "5");
    assert!(sent(&mut rx).is_empty());
    assert!(
        o.message.starts_with("Not sent: not connected"),
        "{}",
        o.message
    );
}

#[test]
fn while_reconnecting_the_keys_row_offers_only_keys_that_work() {
    let (mut o, _rx) = seated(".........", &[]);
    let (_, before) = draw(&o, 80, 24);
    assert!(before.contains("1-9 play"), "{before}");
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    let (_, screen) = draw(&o, 80, 24);
    // Moves, forfeit, chat and leave are not sent until the server is
    // back ("Not sent: not connected"): the row does not offer them.
    for gone in ["1-9 play", "f forfeit", "m chat", "Esc leave"] {
        assert!(!screen.contains(gone), "{gone}: {screen}");
    }
    assert!(screen.contains("q quit"), "{screen}");
    assert!(screen.contains("? keys"), "{screen}");
}

mod chat;
mod closed;
mod help;
mod lobby;
mod not_oxo;
mod screen;
mod seats;
mod small;
