//! The client against a real server on 127.0.0.1: a whole game between two
//! connections, a refusal, and coming back with the token.

use std::net::SocketAddr;

use oxo_client::{Address, Connection, Error, Event};
use oxo_core::{Player, Square};
use oxo_protocol::{
    ClientMsg, ErrorCode, ServerMsg, TableId, TableOptions, TableState, TableStatus,
};

/// A server on a free port, until the test's runtime ends.
async fn server() -> SocketAddr {
    server_with(oxo_server::Config::in_memory()).await
}

/// A server with `config` on a free port, until the test's runtime ends.
async fn server_with(config: oxo_server::Config) -> SocketAddr {
    let state = oxo_server::AppState::new(config).expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(oxo_server::run(listener, state, std::future::pending()));
    addr
}

/// The next `table` event.
async fn table(conn: &mut Connection) -> TableState {
    loop {
        match conn.next_event().await {
            Some(Event::Message(msg)) => {
                if let ServerMsg::Table { table } = *msg {
                    return table;
                }
            }
            other => panic!("no table event: {other:?}"),
        }
    }
}

async fn play(conn: &mut Connection, table: &TableId, cell: Square) -> ServerMsg {
    conn.request(ClientMsg::Move {
        table_id: table.clone(),
        cell,
        game_id: None,
    })
    .await
    .expect("the move is accepted")
}

#[tokio::test]
async fn two_connections_play_a_game_and_one_comes_back() {
    let addr = server().await;
    let address: Address = format!("http://{addr}").parse().expect("an address");
    let mut x = Connection::connect(&address).await.expect("connect");
    let mut o = Connection::connect(&address).await.expect("connect");
    let wx = x.hello(None, Some("Xena")).await.expect("welcome");
    o.hello(None, Some("Otto")).await.expect("welcome");
    let options = TableOptions {
        seat: Some(Player::X),
        ..TableOptions::default()
    };
    let ServerMsg::Ok {
        table_id: Some(id), ..
    } = x
        .request(ClientMsg::CreateTable { options })
        .await
        .expect("created")
    else {
        panic!("no table id");
    };
    o.request(ClientMsg::JoinTable {
        table_id: id.clone(),
        seat: None,
    })
    .await
    .expect("joined");
    assert_eq!(table(&mut o).await.status, TableStatus::InProgress);

    // A refusal is an error with its code; nothing changed.
    let refused = o
        .request(ClientMsg::Move {
            table_id: id.clone(),
            cell: Square::A1,
            game_id: None,
        })
        .await;
    assert!(
        matches!(
            refused,
            Err(Error::Refused {
                code: ErrorCode::NotYourTurn,
                ..
            })
        ),
        "{refused:?}"
    );

    let moves = [Square::A1, Square::B1, Square::A2, Square::B2];
    for (i, cell) in moves.into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut x } else { &mut o };
        let ok = play(mover, &id, cell).await;
        assert!(
            matches!(ok, ServerMsg::Ok { ply: Some(p), .. } if p as usize == i + 1),
            "{ok:?}"
        );
    }

    // X's connection drops; X comes back with the token, to the same seat.
    drop(x);
    let mut x = Connection::connect(&address).await.expect("connect again");
    let back = x.hello(Some(&wx.token), None).await.expect("welcome back");
    assert_eq!(back.player_id, wx.player_id);
    assert_eq!(back.tables, vec![id.clone()]);
    let state = table(&mut x).await;
    assert_eq!(state.board, "XO.XO....");
    play(&mut x, &id, Square::A3).await;
    let mut end = table(&mut o).await;
    while end.status != TableStatus::RoundOver {
        end = table(&mut o).await;
    }
    assert_eq!(end.scores.x, 1);
    x.close().await;
}

#[tokio::test]
async fn an_unreachable_server_is_an_error_that_says_where() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("an address");
    drop(listener);
    let address: Address = format!("http://{addr}").parse().expect("an address");
    let e = Connection::connect(&address)
        .await
        .expect_err("nobody listens");
    assert!(matches!(e, Error::Connect { .. }), "{e}");
    assert!(e.to_string().starts_with("cannot connect to ws://"), "{e}");
}

#[tokio::test]
async fn a_full_server_says_so_when_it_closes() {
    let mut config = oxo_server::Config::in_memory();
    config.max_connections = 1;
    let addr = server_with(config).await;
    let address: Address = format!("http://{addr}").parse().expect("an address");
    let mut first = Connection::connect(&address).await.expect("connect");
    first.hello(None, Some("First")).await.expect("welcome");
    let mut second = Connection::connect(&address).await.expect("the handshake");
    let e = second
        .hello(None, Some("Second"))
        .await
        .expect_err("the server is full");
    assert_eq!(e, Error::Closed(Some((1013, "server full".into()))), "{e}");
    assert!(e.to_string().contains("server full"), "{e}");
}
