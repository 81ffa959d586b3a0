//! A config directory that cannot be written (the token cannot be kept
//! between runs) is said, and the running game still comes back as the
//! same player after a dropped connection: the token is kept in memory.

use std::time::Duration;

use super::{OXO, Tmux, common, linked_table, otto_watching, serve_with, signal_play, table_until};

#[tokio::test]
async fn without_a_writable_config_a_dropped_connection_comes_back_as_the_same_player() {
    let dir = common::TempDir::new("online_token");
    // A silent client is dropped after 2 s; its seat waits a minute.
    let flags = ["--idle-timeout", "2s"];
    let (server, addr) = serve_with(&dir.join("oxo.db"), "127.0.0.1:0", &flags).await;
    // A file where the config directory should be: nothing can be saved.
    let not_a_dir = dir.join("cfg");
    std::fs::write(&not_a_dir, b"").expect("a file");
    let url = format!("http://{addr}");
    let play = format!(
        "env OXO_CONFIG_DIR={} '{OXO}' play --server {url} --name Tess; true",
        not_a_dir.display()
    );
    let Some(tmux) = Tmux::start_command("online_token", 64, 22, &["sh", "-c", &play]) else {
        return;
    };
    tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    let screen = tmux.screen();
    assert!(screen.contains("Could not save your token"), "{screen}");
    tmux.send(&["c"]);
    tmux.wait_for("her table", |s| s.contains("Waiting for an opponent"));
    // Otto watches her table: she goes away, and comes back.
    let mut otto = otto_watching(&url, linked_table(&tmux.screen())).await;
    let mut last = None;
    let tess = |t: &oxo_protocol::TableState| {
        [&t.players.x, &t.players.o]
            .into_iter()
            .flatten()
            .any(|p| p.name == "Tess" && p.connected)
    };
    table_until(&mut otto, &mut last, |t| tess(t)).await;
    signal_play(&tmux, "-STOP");
    let away = tokio::time::timeout(
        Duration::from_secs(20),
        table_until(&mut otto, &mut last, |t| !tess(t)),
    )
    .await;
    assert!(away.is_ok(), "never away: {last:?}");
    signal_play(&tmux, "-CONT");
    let back = tokio::time::timeout(
        Duration::from_secs(20),
        table_until(&mut otto, &mut last, |t| tess(t)),
    )
    .await;
    assert!(back.is_ok(), "Tess did not come back to her seat: {last:?}");
    let screen = tmux.wait_for("her table again", |s| s.contains("· online"));
    assert!(screen.contains("Tess (you)"), "{screen}");
    tmux.send(&["q"]);
    common::stop(server).await;
}
