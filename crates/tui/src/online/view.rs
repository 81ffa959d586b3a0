//! Drawing the online screen: the lobby, or the table with its board,
//! players, clocks, scores and chat.
//!
//! Every part is wrapped here, to its width, before it is drawn, so that
//! the rows a part takes are known when the layout is made (a chat
//! message's later rows go under its text). In a short terminal the parts
//! that matter least give way: the chat, the scores, the title (before
//! the players' rows under the board), my own row (before my opponent's),
//! then keys (one row of them, see `keys`); the board and whose turn it
//! is stay.

use oxo_core::{Bitboard, Board, Player, Square};
use oxo_protocol::{TableState, TableStatus};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::help::render_help;
use super::keys::key_rows;
use super::link::{LinkRows, link_rows};
use super::lobby::render_lobby;
use super::seat::player_rows;
use super::state::{Online, has_free_seat};
use super::status::status;
use crate::app::{MIN_HEIGHT, MIN_WIDTH};
use crate::text::{self, truncate, wrap_whole};
use crate::ui::board::{CellView, Size, cell_rect, render_board};
use crate::ui::render_too_small;

/// Columns kept for the players, status and chat beside the board.
const INFO_WIDTH: u16 = 36;
/// Rows kept for them under the board when they do not fit beside it.
const INFO_HEIGHT: u16 = 5;
/// Rows kept for the information under the smallest board in a cramped
/// terminal, where the blank line under the title gives way.
const CRAMPED_INFO: u16 = 2;
/// The fewest columns for the information beside the smallest board in a
/// cramped terminal (else it goes under the board).
const CRAMPED_BESIDE: u16 = 12;
/// At most this many rows at the bottom for the message and the keys.
const FOOTER_MAX: u16 = 4;
/// In a terminal shorter than this, the keys take one row (else two at
/// most) and the message two at most: the board and whose turn it is need
/// the rest.
const COMPACT_HEIGHT: u16 = 16;

impl Widget for &Online {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            render_too_small(area, buf, self.theme);
            return;
        }
        let Some(table) = &self.table else {
            render_lobby(self, area, buf);
            render_help(self, area, buf);
            return;
        };
        let layout = TableLayout::of(area, self);
        if layout.title {
            buf.set_line(area.x, area.y, &title(self, area.width), area.width);
        }
        if let Some((size, rect)) = layout.board {
            let me = self.my_seat();
            let marks = marks(&table.board);
            let view = CellView {
                cursor: (me.is_some() && table.turn == me && self.typing.is_none())
                    .then_some(self.cursor),
                last: table.moves.last().copied(),
                win: table.outcome.map_or(Bitboard::EMPTY, |o| o.cells()),
                over: table.status != TableStatus::InProgress,
                // Empty cells show the numbers that play them, only to
                // someone who can: not to a spectator with no seat to take.
                numbers: me.is_some() || has_free_seat(table),
                values: [None; 9],
            };
            render_board(&marks, &view, size, rect, self.theme, buf);
        }
        let mut lines = Vec::new();
        game(self, table, layout.info, &mut lines);
        Paragraph::new(fit(lines, layout.info)).render(layout.info, buf);
        if let Some((rect, text)) = layout.link {
            Paragraph::new(text)
                .wrap(Wrap { trim: false })
                .render(rect, buf);
        }
        Paragraph::new(footer(self, area)).render(layout.footer, buf);
        render_help(self, area, buf);
    }
}

/// Where the parts of the table screen go: one home for the drawing and
/// for mapping clicks to cells.
struct TableLayout {
    /// Whether the title line shows (not in a terminal too short for it).
    title: bool,
    /// The board's size and place, if any board fits.
    board: Option<(Size, Rect)>,
    /// Players, status, spectators and chat.
    info: Rect,
    /// The table's link with its label, under the board, while it waits
    /// for an opponent of mine (to give a friend).
    link: Option<(Rect, String)>,
    /// The message and the keys.
    footer: Rect,
}

impl TableLayout {
    /// The layout of `o`'s table screen in `area`: the largest board that
    /// fits beside the information (then under it), the message and keys
    /// at the bottom, as many rows as they take wrapped; and the link of a
    /// table waiting for my opponent under the board.
    fn of(area: Rect, o: &Online) -> TableLayout {
        let layout = TableLayout::without_link(area, o);
        match link(o) {
            Some(link) => layout.with_link(&link),
            None => layout,
        }
    }

    /// The layout with rows for the table's `link` (with its label) under
    /// the board: the ones below it (the information beside the board then
    /// ends there), or the information's first ones when it is under the
    /// board (see [`link_rows`]).
    fn with_link(mut self, link: &str) -> TableLayout {
        let Some((_, board)) = self.board else {
            return self;
        };
        let x = self.info.x.min(board.x);
        let width = self.info.right().max(board.right()).saturating_sub(x);
        let info_under = self.info.y >= board.bottom();
        let bottom = if info_under {
            self.info.bottom()
        } else {
            self.footer.y
        };
        let room = bottom.saturating_sub(board.bottom());
        let LinkRows { text, rows } = link_rows(link, width, room, info_under);
        if rows == 0 {
            return self;
        }
        if info_under {
            self.info.y += rows;
            self.info.height -= rows;
        } else {
            self.info.height = board.bottom().saturating_sub(self.info.y);
        }
        self.link = Some((Rect::new(x, board.bottom(), width, rows), text));
        self
    }

    /// The layout without the link.
    fn without_link(area: Rect, o: &Online) -> TableLayout {
        let footer_h = u16::try_from(footer(o, area).len())
            .unwrap_or(u16::MAX)
            .min(area.height.saturating_sub(1));
        let footer = Rect::new(
            area.x,
            area.bottom().saturating_sub(footer_h),
            area.width,
            footer_h,
        );
        // Below the title line (none in a terminal too short for it) and
        // a blank line; not the blank line when the smallest board would
        // leave too little room for the information under it.
        let (small_w, small_h) = Size::Small.labelled();
        // In a short terminal, the title goes unless there is room for it
        // with the smallest board and the information beside it (or two
        // rows of it under).
        let beside = 1 + small_w + 2 + CRAMPED_BESIDE <= area.width;
        // Under the board, both players and the status whole (a long
        // result takes three rows at the smallest width): the title gives
        // way to them.
        let info_under = if beside { 0 } else { info_rows(o, area.width) };
        let title = u16::from(footer_h + 1 + small_h + info_under <= area.height);
        let blank = footer_h + title + 1 + small_h + info_under.max(CRAMPED_INFO) <= area.height;
        let top = area.y + (title + u16::from(blank)).min(area.height);
        let body = Rect::new(area.x, top, area.width, footer.y.saturating_sub(top));
        for size in Size::ALL {
            let (bw, bh) = size.labelled();
            if bw + 2 + INFO_WIDTH <= body.width && bh <= body.height {
                let board = Rect::new(body.x + 1, body.y, bw, bh);
                let info = Rect::new(
                    board.right() + 2,
                    body.y,
                    body.right().saturating_sub(board.right() + 2),
                    body.height,
                );
                return TableLayout {
                    board: Some((size, board)),
                    info,
                    link: None,
                    footer,
                    title: title > 0,
                };
            }
            if bw <= body.width && bh + INFO_HEIGHT <= body.height {
                let board = Rect::new(body.x + (body.width - bw) / 2, body.y, bw, bh);
                let info = Rect::new(body.x, board.bottom(), body.width, body.height - bh);
                return TableLayout {
                    board: Some((size, board)),
                    info,
                    link: None,
                    footer,
                    title: title > 0,
                };
            }
        }
        // Cramped: the smallest board whenever it fits at all, the rest
        // beside it (or under it, if the side is too narrow to read).
        let (bw, bh) = Size::Small.labelled();
        if bw <= body.width && bh <= body.height {
            let board = Rect::new(body.x + 1, body.y, bw, bh);
            let beside = body.right().saturating_sub(board.right() + 2);
            let info = if beside >= CRAMPED_BESIDE {
                Rect::new(board.right() + 2, body.y, beside, body.height)
            } else {
                Rect::new(body.x, board.bottom(), body.width, body.height - bh)
            };
            return TableLayout {
                board: Some((Size::Small, board)),
                info,
                link: None,
                footer,
                title: title > 0,
            };
        }
        TableLayout {
            board: None,
            info: body,
            link: None,
            footer,
            title: title > 0,
        }
    }
}

/// The link of `o`'s table, shown while it waits for an opponent of mine.
fn link(o: &Online) -> Option<String> {
    let table = o.table.as_ref()?;
    if table.status != TableStatus::Waiting || o.my_seat().is_none() {
        return None;
    }
    Some(o.address.table_link(&table.id))
}

/// The cell of `o`'s table screen's board at column `x`, row `y` of the
/// screen `area`, if the board is drawn there.
pub(super) fn square_at(o: &Online, area: Rect, x: u16, y: u16) -> Option<Square> {
    let (size, board) = TableLayout::of(area, o).board?;
    Square::ALL
        .into_iter()
        .find(|&sq| cell_rect(size, board, sq).contains(Position { x, y }))
}

/// The board of a table state (`X`, `O` and `.` by square); anything else
/// reads as an empty cell.
fn marks(text: &str) -> Board {
    let mut board = Board::new();
    for (sq, c) in Square::ALL.into_iter().zip(text.chars()) {
        let mark = match c {
            'X' => Some(Player::X),
            'O' => Some(Player::O),
            _ => None,
        };
        board.set(sq, mark);
    }
    board
}

/// The message and the keys at the bottom of a screen of `area`, in rows
/// of its width: the keys in two rows at most (one at a table in a short
/// terminal), the message above them in what is left of [`FOOTER_MAX`]
/// (two rows at most at a table in a short terminal), a link in it whole.
/// The lobby keeps two rows of keys in a short terminal: its list scrolls.
pub(super) fn footer(o: &Online, area: Rect) -> Vec<Line<'static>> {
    // At a table in a short terminal, the board and the status need the
    // rest.
    let compact = area.height < COMPACT_HEIGHT && o.table.is_some();
    let keys = key_rows(o, area.width, if compact { 1 } else { 2 });
    let room = if compact {
        2
    } else {
        usize::from(FOOTER_MAX).saturating_sub(keys.len()).max(1)
    };
    let italic = Style::new().add_modifier(Modifier::ITALIC);
    // At a table in a short terminal no message takes no row: the status
    // needs it.
    let message = if o.message.is_empty() && compact {
        Vec::new()
    } else {
        wrap_whole(&o.message, usize::from(area.width))
    };
    let cut = message.len() > room;
    let mut message: Vec<String> = message.into_iter().take(room).collect();
    // A message cut short says so.
    if let Some(last) = message.last_mut().filter(|_| cut) {
        *last = text::truncate(&format!("{last}…"), usize::from(area.width));
    }
    let mut lines: Vec<Line<'static>> = message
        .into_iter()
        .map(|row| Line::styled(row, italic))
        .collect();
    let dim = Style::new().add_modifier(Modifier::DIM);
    lines.extend(keys.into_iter().map(|row| Line::styled(row, dim)));
    lines
}

/// The top row: the server, my name and whether the connection is up,
/// in `width` columns.
pub(super) fn title(o: &Online, width: u16) -> Line<'static> {
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
    // Short of room, the name and then the address are cut: whether
    // the connection is up stays whole.
    let state = format!(" · {state}");
    let width = usize::from(width);
    let head = format!(" oxo · {}{who}", o.address.http_url());
    let room = width.saturating_sub(text::width(&state));
    let text = if room >= text::NAME_MIN {
        truncate(&head, room) + &state
    } else {
        truncate(&(head + &state), width)
    };
    Line::styled(text, Style::new().add_modifier(Modifier::REVERSED))
}

/// How many rows the players and the status of the table shown take at
/// `width`: what stays under the smallest board before the title.
fn info_rows(o: &Online, width: u16) -> u16 {
    o.table.as_ref().map_or(0, |t| {
        let width = usize::from(width);
        let me = o.my_seat();
        let rows: usize = Player::ALL
            .into_iter()
            .map(|p| player_rows(o, t, p, width).len())
            .chain([wrap_whole(&status(o, t, me, width), width).len()])
            .sum();
        u16::try_from(rows).unwrap_or(u16::MAX)
    })
}

/// The lines beside (or under) the board, in rows of `area`'s width,
/// each with how long it stays when they do not all fit: lower numbers
/// stay longer.
fn game(o: &Online, t: &TableState, area: Rect, lines: &mut Vec<(u8, Vec<Line<'static>>)>) {
    let width = usize::from(area.width);
    let wrapped = |text: &str| -> Vec<Line<'static>> {
        wrap_whole(text, width)
            .into_iter()
            .map(Line::from)
            .collect()
    };
    let me = o.my_seat();
    for p in Player::ALL {
        let rows = player_rows(o, t, p, width);
        // My own row gives way before my opponent's (whether they are
        // away, say), with the draws.
        let keep = if me == Some(p) { 3 } else { 2 };
        lines.push((keep, rows.into_iter().map(Line::from).collect()));
    }
    // On one row, else the draws and the round on a row each (never a
    // number cut from its word).
    let (draws, round) = (
        format!("draws {}", t.scores.draws),
        format!("round {}", t.round),
    );
    let both = format!("{draws} · {round}");
    let rows = if text::width(&both) <= width {
        vec![Line::from(both)]
    } else {
        vec![Line::from(draws), Line::from(round)]
    };
    lines.push((3, rows));
    // Whose turn, the clock, the result: last to go but for a chat line
    // being typed, which must show what is typed.
    lines.push((1, wrapped(&status(o, t, me, width))));
    lines.push((5, vec![Line::default()]));
    // Nobody watches a closed table (its last state may count the
    // watchers it had).
    if t.spectators > 0 && t.status != TableStatus::Closed {
        lines.push((4, wrapped(&format!("{} watching", t.spectators))));
    }
    // The oldest chat line goes first.
    let older = |i: usize| u8::try_from(o.chat.len() - i).unwrap_or(u8::MAX);
    for (i, c) in o.chat.iter().enumerate() {
        lines.push((6_u8.saturating_add(older(i)), chat_rows(c, width)));
    }
    if let Some(typed) = &o.typing {
        // Longer than the area is high, its end shows: where the typing
        // goes on.
        let mut rows = wrapped(&format!("say: {typed}▏"));
        rows.drain(..rows.len().saturating_sub(usize::from(area.height)));
        lines.push((0, rows));
    }
}

/// A chat line (`Bob: text`) in rows of `width` columns, two in from the
/// edge, its text's later rows under its first word (under a long name,
/// four in).
fn chat_rows(line: &str, width: usize) -> Vec<Line<'static>> {
    let (from, said) = match line.split_once(": ") {
        Some((from, said)) => (format!("{from}: "), said),
        None => (String::new(), line),
    };
    let indent = 2 + text::width(&from);
    let (first, rest, rows) = if indent <= width / 2 {
        let rows = wrap_whole(said, width - indent);
        ("  ".to_owned() + &from, " ".repeat(indent), rows)
    } else {
        let rows = wrap_whole(&format!("{from}{said}"), width.saturating_sub(4));
        ("  ".to_owned(), "    ".to_owned(), rows)
    };
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let lead = if i == 0 {
                first.as_str()
            } else {
                rest.as_str()
            };
            Line::from(format!("{lead}{row}"))
        })
        .collect()
}

/// The `lines` that fit in `area`, in their order, each a group of rows
/// already wrapped to its width: while they take too many rows, the group
/// that goes first (the highest number; the last of equals) is left out.
fn fit(mut lines: Vec<(u8, Vec<Line<'static>>)>, area: Rect) -> Vec<Line<'static>> {
    let taken = |lines: &[(u8, Vec<Line<'static>>)]| -> usize {
        lines.iter().map(|(_, rows)| rows.len()).sum()
    };
    while taken(&lines) > usize::from(area.height) && lines.len() > 1 {
        if let Some(worst) = (0..lines.len()).max_by_key(|&i| lines[i].0) {
            lines.remove(worst);
        }
    }
    lines.into_iter().flat_map(|(_, rows)| rows).collect()
}
