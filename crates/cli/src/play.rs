//! `oxo play`: the terminal game. The game itself lives in `oxo-tui`; this
//! module only turns the flags into an [`oxo_tui::Config`].

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use oxo_core::{ByPlayer, Starter};
use oxo_tui::{Config, Seat};

/// Every key of the full-screen game and every command of the line mode,
/// for `oxo play --help`.
const KEYS: &str = "\
Keys (full screen):
  arrows, h j k l   move the cursor         Enter, Space   place (next round when over)
  1-9               place on a cell, 1 = a1 top left, row by row
  a1-c3             place by name           u, Backspace   undo
  v                 values of free cells    r              replay the round / next round
  n                 new game (set-up)       ?              the keys of this screen
  mouse click       place on that cell      Ctrl-Z         suspend (fg resumes)
  q, Ctrl-C         quit (q asks once with scores on the screen)
  set-up: Tab/arrows move, Left/Right change, type a name, Ctrl-U clears it

Online (--server [URL], or a table's LINK): in the lobby, arrows select,
  Enter joins, w watches, c/p create a public/private table, 1-4 play a
  server bot, s and t pick the starter rule and the time per move; at a
  table, r rematch, f forfeit, m chat, Esc back to the lobby.

Line mode (--plain, pipes, TERM=dumb): one cell (b2, 5) or command per line:
  undo (u), restart (r), scores (s), hint (h, v, values), next (n), help (?), quit (q)

Values count plies: win in 3 is three moves, both players' together.";

/// Arguments of `oxo play`.
///
/// Giving any of `--x`, `--o` or `--first` skips the set-up screen.
#[derive(Debug, Args)]
#[command(after_long_help = KEYS)]
pub(crate) struct PlayArgs {
    /// Who plays X: a name, or a bot as bot:random, bot:easy, bot:medium or
    /// bot:perfect [default: "Player 1"].
    #[arg(long, value_name = "NAME|bot:LEVEL")]
    x: Option<Seat>,
    /// Who plays O: a name, or a bot as bot:random, bot:easy, bot:medium or
    /// bot:perfect [default: "Player 2"].
    #[arg(long, value_name = "NAME|bot:LEVEL")]
    o: Option<Seat>,
    /// Who starts each round: x or o (always), toss (a coin toss each round)
    /// or alternate (X first, then taking turns) [default: alternate].
    #[arg(long, value_name = "x|o|toss|alternate")]
    first: Option<Starter>,
    /// Use the plain line mode even on a terminal: the board as text, one
    /// move (b2 or 5) or command (undo, restart, scores, hint, next, help,
    /// quit) per line. It is also used whenever standard input or output is
    /// not a terminal, and when TERM is dumb. Offline games only: online
    /// play needs the full screen.
    #[arg(long)]
    plain: bool,
    /// Seed for the bots and the coin toss; the same seed and moves replay the
    /// same games [default: from the clock].
    #[arg(long, value_parser = crate::seed::parse, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Play online on `oxo serve` at this address (http://127.0.0.1:8080
    /// when given without one).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "http://127.0.0.1:8080")]
    server: Option<oxo_tui::Address>,
    /// A table's link copied from the browser (http://HOST:PORT/t/TABLE_ID):
    /// play online at that table.
    #[arg(value_name = "LINK")]
    link: Option<oxo_tui::Address>,
    /// Your name online (the server keeps the last one used with your token)
    /// [default: a friendly name such as "Keen Otter", picked once and kept
    /// in the config directory].
    #[arg(long, value_name = "NAME", value_parser = online_name)]
    name: Option<String>,
}

/// Why `--plain` is refused with `--server` or a link.
const PLAIN_ONLINE: &str = "--plain is for offline games; online play needs the full screen";

/// `--name`: checked by the rules the server holds (`oxo_protocol`), in the
/// words `--x` and `--o` use (a computer player's name in the server's),
/// before anything connects.
fn online_name(name: &str) -> Result<String, oxo_tui::ParseSeatError> {
    oxo_tui::check_online_name(name)
}

/// Refuses `oxo play` as clap refuses a bad flag (exit status 2), saying
/// `why`.
fn refuse(why: &str) -> ! {
    let mut play = <PlayArgs as clap::Args>::augment_args(clap::Command::new("oxo play"));
    play.error(clap::error::ErrorKind::ArgumentConflict, why)
        .exit()
}

/// `names` joined for a sentence: "--x", "--x and --o", "--x, --o and --seed".
fn listed(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Why the flags given do not go together, if they do not: offline flags
/// online, `--name` offline, a link and `--server` naming two servers.
fn conflict(args: &PlayArgs) -> Option<String> {
    if args.link.is_none() && args.server.is_none() {
        return args.name.is_some().then(|| {
            "--name is for online play (--server or a table link); offline, --x and --o \
             name the players"
                .to_owned()
        });
    }
    if args.plain {
        return Some(PLAIN_ONLINE.to_owned());
    }
    let offline: Vec<&str> = [
        ("--x", args.x.is_some()),
        ("--o", args.o.is_some()),
        ("--first", args.first.is_some()),
        ("--seed", args.seed.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect();
    if !offline.is_empty() {
        let verb = if offline.len() == 1 { "is" } else { "are" };
        return Some(format!(
            "{} {verb} for offline games; online, the server seats the players and the \
             table's options say who starts",
            listed(&offline)
        ));
    }
    match (&args.link, &args.server) {
        (Some(link), Some(server)) if link.http_url() != server.http_url() => Some(format!(
            "--server names another server than the link ({} and {}): give one of them",
            server.http_url(),
            link.http_url()
        )),
        _ => None,
    }
}

pub(crate) fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    if let Some(why) = conflict(&args) {
        refuse(&why);
    }
    if let Some(address) = args.link.or(args.server) {
        oxo_tui::run_online(address, args.name)?;
        return Ok(ExitCode::SUCCESS);
    }
    let defaults = Config::default();
    let setup = args.x.is_none() && args.o.is_none() && args.first.is_none();
    let config = Config {
        players: ByPlayer {
            x: args.x.unwrap_or(defaults.players.x),
            o: args.o.unwrap_or(defaults.players.o),
        },
        first: args.first.unwrap_or(defaults.first),
        seed: args.seed,
        setup,
        plain: args.plain,
    };
    oxo_tui::run(config).context("the terminal game failed")?;
    Ok(ExitCode::SUCCESS)
}
