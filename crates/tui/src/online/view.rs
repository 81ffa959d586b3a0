//! Drawing the online screen: the lobby, or the table with its board,
//! players, clocks, scores and chat.

use oxo_core::{Outcome, Player, Square};
use oxo_protocol::{PlayerInfo, TableState, TableStatus};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::state::Online;
use crate::text::truncate;

impl Widget for &Online {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut lines = vec![title(self, area.width), Line::default()];
        match &self.table {
            None => lobby(self, &mut lines),
            Some(table) => game(self, table, &mut lines),
        }
        lines.push(Line::default());
        lines.push(Line::styled(
            self.message.clone(),
            Style::new().add_modifier(Modifier::ITALIC),
        ));
        lines.push(Line::styled(
            keys(self),
            Style::new().add_modifier(Modifier::DIM),
        ));
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .render(area, buf);
    }
}

fn title(o: &Online, width: u16) -> Line<'static> {
    let state = if o.connected {
        "online"
    } else {
        "reconnecting…"
    };
    let who = if o.name.is_empty() {
        String::new()
    } else {
        format!(" as {}", o.name)
    };
    let text = format!(" oxo · {}{who} · {state}", o.address.http_url());
    Line::styled(
        truncate(&text, usize::from(width)),
        Style::new().add_modifier(Modifier::REVERSED),
    )
}

fn keys(o: &Online) -> String {
    if o.typing.is_some() {
        return "Enter send · Esc cancel".to_owned();
    }
    match &o.table {
        None => format!(
            "↑↓ select · Enter join · w watch · c new public table · p new private · \
             1-4 vs bot (random, easy, medium, impossible) · s starts: {} · t {} · q quit",
            o.starter.describe(),
            o.clock_text()
        ),
        Some(_) => "arrows/hjkl + Enter or 1-9 play · r rematch · f forfeit · m chat · \
                    Esc leave · q quit"
            .to_owned(),
    }
}

fn lobby(o: &Online, lines: &mut Vec<Line<'static>>) {
    lines.push(Line::styled(
        "Open tables",
        Style::new().add_modifier(Modifier::BOLD),
    ));
    if o.lobby.is_empty() {
        lines.push(Line::from("  none yet: c creates one, 1-4 plays a bot"));
    }
    for (i, t) in o.lobby.iter().enumerate() {
        let name = |p: Player| t.players[p].clone().unwrap_or_else(|| "(free)".to_owned());
        let status = match t.status {
            TableStatus::Waiting => "waiting",
            TableStatus::InProgress => "playing",
            TableStatus::RoundOver => "round over",
            TableStatus::Closed => "closed",
        };
        let clock = t
            .options
            .move_time_ms
            .map_or_else(String::new, |ms| format!(", {} s a move", ms / 1000));
        let marker = if i == o.selected { "▸ " } else { "  " };
        lines.push(Line::from(format!(
            "{marker}{} vs {}  {status}  ({}{clock}, {} watching)",
            truncate(&name(Player::X), 20),
            truncate(&name(Player::O), 20),
            t.options.starter.describe(),
            t.spectators
        )));
    }
}

fn info(p: Option<&PlayerInfo>) -> String {
    match p {
        None => "(free seat)".to_owned(),
        Some(i) => {
            let mut text = truncate(&i.name, 24);
            if !i.connected {
                match i.grace_left_ms {
                    Some(ms) => {
                        text.push_str(&format!(" (away: {} s to come back)", ms.div_ceil(1000)))
                    }
                    None => text.push_str(" (away)"),
                }
            }
            if i.wants_rematch {
                text.push_str(" wants a rematch");
            }
            text
        }
    }
}

fn game(o: &Online, t: &TableState, lines: &mut Vec<Line<'static>>) {
    let me = o.my_seat();
    let you = |p: Player| if me == Some(p) { " (you)" } else { "" };
    lines.push(Line::from(format!(
        "X {}{}  {}   ·   O {}{}  {}   ·   draws {}   ·   round {}",
        info(t.players.x.as_ref()),
        you(Player::X),
        t.scores.x,
        info(t.players.o.as_ref()),
        you(Player::O),
        t.scores.o,
        t.scores.draws,
        t.round
    )));
    lines.push(Line::from(status(o, t, me)));
    lines.push(Line::default());
    board(o, t, me, lines);
    lines.push(Line::default());
    if t.spectators > 0 {
        lines.push(Line::from(format!("{} watching", t.spectators)));
    }
    for c in &o.chat {
        lines.push(Line::from(format!("  {c}")));
    }
    if let Some(typed) = &o.typing {
        lines.push(Line::from(format!("say: {typed}▏")));
    }
}

fn status(o: &Online, t: &TableState, me: Option<Player>) -> String {
    let name = |p: Player| {
        t.players[p]
            .as_ref()
            .map_or("?", |i| i.name.as_str())
            .to_owned()
    };
    match (t.status, t.outcome) {
        (TableStatus::Waiting, _) => "Waiting for an opponent to join…".to_owned(),
        (TableStatus::Closed, _) => "The table is closed".to_owned(),
        (_, Some(Outcome::Draw)) => "Draw! r asks for a rematch".to_owned(),
        (_, Some(Outcome::Win { winner, reason })) => format!(
            "{} ({winner}) wins ({}) · r asks for a rematch",
            name(winner),
            reason.as_str()
        ),
        (_, None) => {
            let Some(turn) = t.turn else {
                return String::new();
            };
            let left = t.time_left_ms.map_or_else(String::new, |ms| {
                let elapsed = u64::try_from(o.table_at.elapsed().as_millis()).unwrap_or(u64::MAX);
                format!(" · {} s left", ms.saturating_sub(elapsed).div_ceil(1000))
            });
            if me == Some(turn) {
                format!("Your move ({turn}){left}")
            } else {
                format!("{} ({turn}) to move{left}", name(turn))
            }
        }
    }
}

fn board(o: &Online, t: &TableState, me: Option<Player>, lines: &mut Vec<Line<'static>>) {
    let cells: Vec<char> = t.board.chars().collect();
    let last = t.moves.last().copied();
    let my_turn = me.is_some() && t.turn == me;
    lines.push(Line::from("      a   b   c"));
    lines.push(Line::from("    ╭───┬───┬───╮"));
    for row in 0..3u8 {
        let mut spans = vec![Span::raw(format!("  {} │", row + 1))];
        for col in 0..3u8 {
            let Some(sq) = Square::from_coords(col, row) else {
                continue;
            };
            let mark = cells.get(usize::from(sq.index())).copied().unwrap_or('.');
            let shown = if mark == '.' { ' ' } else { mark };
            let mut style = Style::new();
            if last == Some(sq) {
                style = style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
            }
            if my_turn && o.cursor == sq {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::styled(format!(" {shown} "), style));
            spans.push(Span::raw("│"));
        }
        lines.push(Line::from(spans));
        lines.push(Line::from(if row < 2 {
            "    ├───┼───┼───┤"
        } else {
            "    ╰───┴───┴───╯"
        }));
    }
}
