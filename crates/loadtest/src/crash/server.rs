//! The server under test: `oxo serve` as a child process, started on the
//! crash test's database and killed with SIGKILL.

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::time::Instant;

use super::config::CrashConfig;
use crate::error::Error;

/// A running `oxo serve`.
#[derive(Debug)]
pub(super) struct Server {
    child: Child,
    /// Where it listens.
    pub(super) addr: SocketAddr,
}

impl Server {
    /// Starts `oxo serve` on `127.0.0.1:port` and waits for its listening
    /// line.
    pub(super) async fn start(
        config: &CrashConfig,
        port: u16,
    ) -> Result<(Server, Duration), Error> {
        let stderr = match &config.server_log {
            Some(path) => Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| Error::io(format!("open {}", path.display()), e))?,
            ),
            None => Stdio::null(),
        };
        let started = Instant::now();
        let mut child = Command::new(&config.server_bin)
            .arg("serve")
            .arg("--addr")
            .arg(format!("127.0.0.1:{port}"))
            .arg("--db")
            .arg(&config.db)
            .args(&config.server_args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::io(format!("spawn {}", config.server_bin.display()), e))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::Server("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        let wait = async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(addr) = listening_addr(&line) {
                    return Some(addr);
                }
            }
            None
        };
        let addr = tokio::time::timeout(Duration::from_secs(10), wait).await;
        let took = started.elapsed();
        let Ok(Some(addr)) = addr else {
            let _ = child.start_kill();
            let status = child.wait().await.ok();
            return Err(Error::Server(format!(
                "`{} serve` did not print its listening line within 10 s (exit: {status:?})",
                config.server_bin.display()
            )));
        };
        // Keep reading stdout so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok((Server { child, addr }, took))
    }

    /// SIGKILL, and wait for the process to be gone.
    pub(super) async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

/// The address in `oxo listening on http://127.0.0.1:PORT`.
fn listening_addr(line: &str) -> Option<SocketAddr> {
    let rest = line.split("listening on http://").nth(1)?;
    let addr = rest.split(|c: char| c == '/' || c.is_whitespace()).next()?;
    addr.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listening_line() {
        assert_eq!(
            listening_addr("oxo listening on http://127.0.0.1:4321"),
            "127.0.0.1:4321".parse().ok()
        );
        assert_eq!(
            listening_addr("oxo listening on http://127.0.0.1:4321/ (db x)"),
            "127.0.0.1:4321".parse().ok()
        );
        assert_eq!(listening_addr("starting"), None);
    }
}
