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

/// Starts `oxo play` in tmux with the config directory `cfg` (as `test`);
/// `None` when tmux is not there.
fn play_with_config(test: &str, cfg: &std::path::Path, url: &str) -> Option<Tmux> {
    let play = format!(
        "env OXO_CONFIG_DIR={} '{OXO}' play --server {url}; true",
        cfg.display()
    );
    Tmux::start_command(test, 100, 24, &["sh", "-c", &play])
}

#[tokio::test]
async fn a_saved_session_the_server_does_not_know_or_an_unreadable_file_is_said() {
    let dir = common::TempDir::new("online_token_unknown");
    let (server, addr) = serve_with(&dir.join("oxo.db"), "127.0.0.1:0", &[]).await;
    let url = format!("http://{addr}");
    let cfg = dir.join("cfg");
    std::fs::create_dir_all(&cfg).expect("a config dir");
    // A token this server never gave.
    let unknown = format!("{{\"{url}\": \"{}\"}}", "ab".repeat(16));
    std::fs::write(cfg.join("tokens.json"), &unknown).expect("a tokens file");
    let Some(tmux) = play_with_config("online_token_unknown", &cfg, &url) else {
        return;
    };
    let screen = tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    assert!(
        screen.contains("Your saved session was not recognised: playing as"),
        "{screen}"
    );
    assert!(screen.contains("a new player"), "{screen}");
    tmux.send(&["q"]);
    drop(tmux);

    // A tokens file that is not one: said, and kept aside.
    std::fs::write(cfg.join("tokens.json"), b"{ cut short").expect("a tokens file");
    let Some(tmux) = play_with_config("online_token_unreadable", &cfg, &url) else {
        return;
    };
    let screen = tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    assert!(
        screen.contains("Your saved tokens file could not be read (not a tokens file)"),
        "{screen}"
    );
    assert!(screen.contains("tokens.json.bak"), "{screen}");
    let kept = std::fs::read_to_string(cfg.join("tokens.json.bak")).unwrap_or_default();
    assert_eq!(kept, "{ cut short", "the old file kept whole");
    tmux.send(&["q"]);
    common::stop(server).await;
}

#[tokio::test]
async fn a_rename_past_the_budget_is_said_with_the_name_kept() {
    let dir = common::TempDir::new("online_rename_budget");
    let (server, addr) = serve_with(&dir.join("oxo.db"), "127.0.0.1:0", &[]).await;
    let url = format!("http://{addr}");
    let address: oxo_client::Address = url.parse().expect("an address");
    // Ann spends her renames (5 in a row) from another client.
    let (mut ann, token) = super::client(&address, "Ann", None).await;
    for i in 1..=5 {
        ann.request(oxo_protocol::ClientMsg::SetName {
            name: format!("Ann{i}"),
        })
        .await
        .expect("a rename within the budget");
    }
    let cfg = dir.join("cfg");
    std::fs::create_dir_all(&cfg).expect("a config dir");
    let tokens = format!("{{\"{url}\": \"{token}\"}}");
    std::fs::write(cfg.join("tokens.json"), tokens).expect("a tokens file");
    let play = format!(
        "env OXO_CONFIG_DIR={} '{OXO}' play --server {url} --name Dave; true",
        cfg.display()
    );
    let Some(tmux) = Tmux::start_command("online_rename_budget", 80, 24, &["sh", "-c", &play])
    else {
        return;
    };
    let screen = tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    assert!(screen.contains("as Ann5"), "{screen}");
    assert!(
        screen.contains("Still Ann5: renamed too often"),
        "the name kept is said, and why: {screen}"
    );
    tmux.send(&["q"]);
    common::stop(server).await;
}
