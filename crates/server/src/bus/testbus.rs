//! A throw-away NATS server for tests: one per call, on a free loopback
//! port, stopped when dropped (and by a watcher if the test process exits
//! first). Without `nats-server` installed the tests that need it are
//! skipped with a note, unless `OXO_TEST_NATS=required` (set by
//! `scripts/test`), which makes that a failure.

#![allow(clippy::unwrap_used, dead_code)]

use std::process::{Child, Command, Stdio};

/// A running `nats-server`.
pub(crate) struct TestBus {
    /// Where it listens: `nats://127.0.0.1:PORT`.
    pub(crate) url: String,
    port: u16,
    child: Option<Child>,
}

impl TestBus {
    /// A new server, or `None` (after a note) when `nats-server` is not
    /// installed and not required.
    ///
    /// # Panics
    ///
    /// If NATS is required but cannot be started.
    pub(crate) fn start() -> Option<TestBus> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        match spawn(port) {
            Ok(child) => Some(TestBus {
                url: format!("nats://127.0.0.1:{port}"),
                port,
                child: Some(child),
            }),
            Err(why) => {
                let required = std::env::var("OXO_TEST_NATS").is_ok_and(|v| v == "required");
                assert!(!required, "NATS is required for this test: {why}");
                eprintln!("skipped: {why}");
                None
            }
        }
    }

    /// Stops the server (as a crash would).
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port.
    pub(crate) fn restart(&mut self) {
        self.stop();
        self.child = Some(spawn(self.port).unwrap());
    }
}

impl Drop for TestBus {
    fn drop(&mut self) {
        self.stop();
    }
}

fn spawn(port: u16) -> Result<Child, String> {
    let child = Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("nats-server is not installed or did not start: {e}"))?;
    // The server goes with this test process, even if it exits without
    // dropping the handle.
    let watch = format!(
        "while kill -0 {me} 2>/dev/null && kill -0 {it} 2>/dev/null; do sleep 0.5; done; \
         kill {it} 2>/dev/null",
        me = std::process::id(),
        it = child.id(),
    );
    Command::new("sh")
        .args(["-c", &watch])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(child);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Err("nats-server did not start".into())
}
