//! A table that closed while the player was away (their grace ran out)
//! is not shown as if it were still there when the connection comes
//! back: the terminal goes back to the lobby and says why.

use std::time::Duration;

use oxo_protocol::TableStatus;

use super::{OXO, Tmux, common, linked_table, otto_watching, serve_with, signal_play, table_until};

#[tokio::test]
async fn a_table_closed_while_away_takes_the_player_back_to_the_lobby() {
    let dir = common::TempDir::new("online_gone");
    // A silent client is dropped after 2 s, and its seat given up 1 s
    // later: a waiting table whose only player is gone closes.
    let flags = ["--idle-timeout", "2s", "--reconnect-grace", "1s"];
    let (server, addr) = serve_with(&dir.join("oxo.db"), "127.0.0.1:0", &flags).await;
    let config = format!("OXO_CONFIG_DIR={}", dir.join("cfg").display());
    let url = format!("http://{addr}");
    // Under a shell: tmux continues a stopped process of its own at once.
    let play = format!("env {config} '{OXO}' play --server {url} --name Tess; true");
    let command = ["sh", "-c", &play];
    let Some(tmux) = Tmux::start_command("online_gone", 64, 22, &command) else {
        return;
    };
    tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    tmux.send(&["c"]);
    tmux.wait_for("her table", |s| s.contains("Waiting for an opponent"));
    // Otto watches her table, to see it close.
    let mut otto = otto_watching(&url, linked_table(&tmux.screen())).await;
    let mut last = None;
    table_until(&mut otto, &mut last, |t| t.spectators == 1).await;

    // Away (the terminal stopped, its connection silent) until the
    // server has closed the table.
    signal_play(&tmux, "-STOP");
    let closed = tokio::time::timeout(
        Duration::from_secs(20),
        table_until(&mut otto, &mut last, |t| t.status == TableStatus::Closed),
    )
    .await;
    assert!(closed.is_ok(), "the table did not close: {last:?}");
    signal_play(&tmux, "-CONT");
    let screen = tmux.wait_for("the lobby again", |s| {
        s.contains("Open tables") && s.contains("· online")
    });
    assert!(
        screen.contains("That table closed while you were away"),
        "{screen}"
    );
    assert!(!screen.contains("Link for a friend"), "{screen}");
    tmux.send(&["q"]);
    common::stop(server).await;
}
