//! A cluster node started while PostgreSQL is down (restarting, or not up
//! yet after a machine's reboot) waits for it and then serves, instead of
//! exiting: the real binary, with PostgreSQL behind a relay the test opens
//! only once the node has said it is waiting.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::Command;

mod common;

#[path = "../../server/src/store/postgres/testdb.rs"]
mod testdb;

use common::WAIT;

/// Relays connections on `listener` to `target` while `up` is set, and
/// drops them at once before (a database that is not there yet).
async fn relay(listener: TcpListener, target: String, up: Arc<AtomicBool>) {
    while let Ok((mut client, _)) = listener.accept().await {
        if !up.load(Ordering::Acquire) {
            continue;
        }
        let target = target.clone();
        tokio::spawn(async move {
            if let Ok(mut server) = TcpStream::connect(&target).await {
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            }
        });
    }
}

#[tokio::test]
async fn a_node_started_while_the_database_is_down_waits_for_it_and_serves() {
    let Some(url) = testdb::database() else {
        return;
    };
    // postgres://oxo@127.0.0.1:PORT/NAME: the node is pointed at the relay.
    let (head, name) = url.rsplit_once('/').expect("a database name");
    let db_addr = head.rsplit_once('@').expect("a host").1.to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let relay_addr = listener.local_addr().expect("the relay's address");
    let up = Arc::new(AtomicBool::new(false));
    let relay = tokio::spawn(relay(listener, db_addr, Arc::clone(&up)));
    let node_url = format!("postgres://oxo@{relay_addr}/{name}");

    let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", &node_url])
        .args(["--node-id", "1", "--lease", "1s"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn oxo serve");
    let mut errors = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut said = Vec::new();
    let waiting = tokio::time::timeout(WAIT, async {
        while let Ok(Some(line)) = errors.next_line().await {
            let found = line.contains("waiting for the database");
            said.push(line);
            if found {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    assert!(
        waiting,
        "the node should say it waits for the database; it said: {said:#?} (exit: {:?})",
        child.try_wait()
    );
    tokio::spawn(async move { while let Ok(Some(_)) = errors.next_line().await {} });

    up.store(true, Ordering::Release);
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let line = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("the node listens once the database is up")
        .expect("read stdout")
        .expect("the node exited instead of waiting for the database");
    let addr = line
        .strip_prefix("oxo listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .expect("an address");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let (status, body) = common::get(addr, "/healthz").await;
    assert_eq!(status, 200, "{body}");
    common::stop(child).await;
    relay.abort();
}
