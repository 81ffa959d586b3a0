//! A server that stops answering (`kill -STOP`): a move without a reply
//! says that it waits for the server within seconds, and a connection
//! that hears nothing at all for about two of the server's ping intervals
//! is taken for lost and reconnects, as a dropped one does.

use std::time::Duration;

use super::{OXO, Tmux, board, common, serve_with};

fn signal(server: &tokio::process::Child, signal: &str) {
    let pid = server.id().expect("a running server").to_string();
    let sent = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill {signal}");
}

#[tokio::test]
async fn a_server_that_stops_answering_is_noticed_within_seconds() {
    let dir = common::TempDir::new("online_silence");
    // Pings every second (half the idle timeout).
    let flags = ["--idle-timeout", "2s"];
    let (server, addr) = serve_with(&dir.join("oxo.db"), "127.0.0.1:0", &flags).await;
    let config = format!("OXO_CONFIG_DIR={}", dir.join("cfg").display());
    let url = format!("http://{addr}");
    let command = [
        "env", &config, OXO, "play", "--server", &url, "--name", "Tess",
    ];
    let Some(tmux) = Tmux::start_command("online_silence", 64, 22, &command) else {
        return;
    };
    tmux.wait_for("the lobby", |s| s.contains("Open tables"));
    // A table against the server's Random bot.
    tmux.send(&["1"]);
    let screen = tmux.wait_for("her move", |s| s.contains("Your move"));
    let before = board(&screen);
    let free = before.find('.').expect("a free cell") + 1;

    // Stopped with the move on its way: said within seconds, then lost.
    signal(&server, "-STOP");
    tmux.send(&["-l", &free.to_string()]);
    tmux.wait_for("the wait said", |s| s.contains("Waiting for the server…"));
    tmux.wait_for("the connection taken for lost", |s| {
        s.contains("reconnecting") || s.contains("not reachable")
    });
    // Back: online again, the table as the server has it.
    signal(&server, "-CONT");
    tmux.wait_for("back online", |s| s.contains("· online"));

    // Stopped with nothing asked: the silence alone is noticed, well
    // before TCP or the default interval (40 s) would tell.
    std::thread::sleep(Duration::from_secs(3));
    signal(&server, "-STOP");
    let start = std::time::Instant::now();
    tmux.wait_for("the silence noticed", |s| {
        s.contains("Connection lost — reconnecting…")
    });
    let noticed = start.elapsed();
    signal(&server, "-CONT");
    assert!(noticed < Duration::from_secs(8), "{noticed:?}");
    tmux.wait_for("back online again", |s| s.contains("· online"));
    common::stop(server).await;
}

#[tokio::test]
async fn a_first_connection_that_hangs_says_where_it_is_connecting_meanwhile() {
    let dir = common::TempDir::new("online_connecting");
    // Takes connections (the kernel completes them) and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    let addr = silent.local_addr().expect("its address");
    let script = format!(
        "OXO_CONFIG_DIR='{}' '{OXO}' play --server http://{addr}; echo EXIT=$?; sleep 60",
        dir.join("cfg").display()
    );
    let Some(tmux) = Tmux::start_command("online_connecting", 64, 22, &["sh", "-c", &script])
    else {
        return;
    };
    // Said long before the reply's 10 s run out.
    let start = std::time::Instant::now();
    let screen = tmux.wait_for("the notice", |s| {
        s.contains(&format!("Connecting to http://{addr}…")) || s.contains("EXIT=")
    });
    assert!(!screen.contains("EXIT="), "{screen}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // Then the one line saying why, and exit status 1, as before.
    let screen = tmux.wait_for("the end", |s| s.contains("EXIT="));
    assert!(screen.contains("no reply from the server"), "{screen}");
    assert!(screen.contains("EXIT=1"), "{screen}");
    drop(silent);
}
