//! A tmux server of the test's own, to drive the full-screen game through
//! the real binary.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// A tmux server of our own (its own socket), killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `oxo play ARGS` in a `width`×`height` tmux window of its
    /// own; after the game the window shows `EXIT=` with its exit code
    /// and `TTY=icanon` or `TTY=-icanon` (whether the terminal is back in
    /// canonical, cooked mode). `None` if tmux is not installed (which
    /// fails the test in CI, where scripts/test installs it).
    pub fn start(test: &str, width: u16, height: u16, args: &str) -> Option<Tmux> {
        let script = format!(
            "'{OXO}' play {args}; echo EXIT=$?; \
             stty -a | grep -o -- '-*icanon' | sed 's/^/TTY=/'; sleep 60"
        );
        Tmux::start_command(test, width, height, &["sh", "-c", &script])
    }

    /// Runs `command` (a program and its arguments) in a
    /// `width`×`height` tmux window of its own.
    pub fn start_command(test: &str, width: u16, height: u16, command: &[&str]) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(
                std::env::var_os("CI").is_none(),
                "tmux is missing in CI: scripts/test installs it"
            );
            println!("SKIPPED {test}: tmux is not installed");
            eprintln!("SKIPPED {test}: tmux is not installed");
            return None;
        }
        let tmux = Tmux {
            socket: format!("oxo-test-{test}-{}", std::process::id()),
        };
        let (width, height) = (width.to_string(), height.to_string());
        let mut args = vec![
            "new-session",
            "-d",
            "-s",
            "oxo",
            "-x",
            &width,
            "-y",
            &height,
        ];
        args.extend_from_slice(command);
        let started = tmux.run(&args);
        assert!(started.status.success(), "tmux new-session: {started:?}");
        Some(tmux)
    }

    /// Starts an interactive bash (job control on) in a window of its
    /// own, and `oxo play ARGS` in it as a job; after the game the shell
    /// prints `EXIT=` and `TTY=` as in [`Tmux::start`].
    pub fn start_in_shell(test: &str, args: &str) -> Option<Tmux> {
        let tmux = Tmux::start_command(test, 60, 20, &["bash", "--norc", "--noprofile", "-i"])?;
        tmux.wait_for("the shell", |s| s.contains("bash"));
        tmux.send(&[
            "-l",
            &format!(
                "'{OXO}' play {args}; echo EXIT=$?; \
                 stty -a | grep -o -- '-*icanon' | sed 's/^/TTY=/'"
            ),
        ]);
        tmux.send(&["Enter"]);
        Some(tmux)
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env("TERM", "xterm-256color")
            .env_remove("TMUX")
            .output()
            .expect("run tmux")
    }

    pub fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "oxo"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success(), "send-keys {keys:?}");
    }

    /// The pid of `oxo play` (the child of the window's shell).
    pub fn oxo_pid(&self) -> String {
        let shell = self.run(&["display", "-p", "-t", "oxo", "#{pane_pid}"]);
        let shell = String::from_utf8_lossy(&shell.stdout).trim().to_owned();
        let start = Instant::now();
        loop {
            let out = Command::new("pgrep")
                .args(["-P", &shell])
                .output()
                .expect("run pgrep");
            let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            if !pid.is_empty() {
                return pid;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no oxo under {shell}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The pid of `oxo play`: the window's own process when it runs the
    /// game directly, else the child of its shell.
    pub fn oxo_pid_or_pane(&self) -> String {
        let pane = self.run(&["display", "-p", "-t", "oxo", "#{pane_pid}"]);
        let pane = String::from_utf8_lossy(&pane.stdout).trim().to_owned();
        let comm = std::fs::read_to_string(format!("/proc/{pane}/comm")).unwrap_or_default();
        if comm.trim() == "oxo" {
            pane
        } else {
            self.oxo_pid()
        }
    }

    /// Sends `signal` (`TERM`, `HUP`, ...) to `oxo play`.
    pub fn signal(&self, signal: &str) {
        let pid = self.oxo_pid();
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("run kill");
        assert!(sent.success(), "kill -{signal} {pid}");
    }

    /// The pane's alternate-screen and cursor flags: `"0 1"` is the
    /// normal screen with the cursor shown.
    pub fn flags(&self) -> String {
        let out = self.run(&[
            "display",
            "-p",
            "-t",
            "oxo",
            "#{alternate_on} #{cursor_flag}",
        ]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Waits until the pane's flags are `want`, for at most 10 s.
    pub fn wait_flags(&self, what: &str, want: &str) {
        let start = Instant::now();
        while self.flags() != want {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{what}: flags {:?}, want {want:?}; the screen:\n{}",
                self.flags(),
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "oxo"]).stdout).into_owned()
    }

    /// Polls the screen until `ready` holds, for at most 20 s.
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
