//! Drawing: `impl Widget for &App`, one `render_*` helper per part of the
//! screen. Nothing here changes the app.
//!
//! The board comes in three sizes and the layout picks the largest that fits
//! next to the scoreboard panel; on a narrow terminal the scoreboard becomes
//! one line under the board, and below [`MIN_WIDTH`]×[`MIN_HEIGHT`] the screen
//! only says that the terminal is too small.

use oxo_core::{Bitboard, Player, Square, Value};
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Padding, Paragraph, Widget, Wrap};

use crate::app::{App, Field, Opponent, Overlay, Screen, SetupForm, Tone};

use crate::session::Session;
use crate::theme::Theme;

/// The smallest terminal width the game draws in.
pub const MIN_WIDTH: u16 = 32;
/// The smallest terminal height the game draws in.
pub const MIN_HEIGHT: u16 = 14;

/// Width of the scoreboard panel beside the board.
const PANEL_WIDTH: u16 = 30;
/// Columns between the board and the panel.
const PANEL_GAP: u16 = 4;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            render_too_small(area, buf, self.theme());
            return;
        }
        let [title, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Fill(1),
            Constraint::Length(1),
        ])
        .areas(area);
        render_title(self, title, buf);
        match self.screen() {
            Screen::Setup => render_setup(self.form(), self.theme(), body, buf),
            Screen::Game => {
                if let Some(session) = self.session() {
                    render_game(self, session, body, buf);
                }
            }
        }
        render_footer(self, footer, buf);
        if self.overlay() == Some(Overlay::Help) {
            render_help(self.theme(), area, buf);
        }
    }
}

fn render_too_small(area: Rect, buf: &mut Buffer, theme: Theme) {
    let text = vec![
        Line::styled("Terminal too small", theme.warn()),
        Line::from(format!(
            "need {MIN_WIDTH}×{MIN_HEIGHT}, have {}×{}",
            area.width, area.height
        )),
        Line::styled("enlarge it, or press q", theme.dim()),
    ];
    let height = (text.len() as u16).min(area.height);
    let y = area.y + area.height.saturating_sub(height) / 2;
    Paragraph::new(text)
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true })
        .render(Rect::new(area.x, y, area.width, height), buf);
}

fn render_title(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    buf.set_style(area, theme.title_bar());
    let (subtitle, right) = match (app.screen(), app.session()) {
        (Screen::Game, Some(s)) => (
            format!("· {} vs {}", s.label(Player::X), s.label(Player::O)),
            format!("Round {} ", s.round()),
        ),
        _ => ("· tic-tac-toe".to_owned(), "New game ".to_owned()),
    };
    let right_width = right.chars().count() as u16;
    let room = usize::from(area.width.saturating_sub(right_width + 6));
    Line::from(vec![
        Span::styled(" oxo ", theme.title_bar().add_modifier(Modifier::BOLD)),
        Span::raw(truncate(&subtitle, room)),
    ])
    .render(area, buf);
    Line::from(right)
        .alignment(Alignment::Right)
        .render(area, buf);
}

/// One key and what it does, for the footer.
struct KeyHint {
    key: &'static str,
    what: &'static str,
    /// Lower numbers stay longer when the footer is too narrow.
    keep: u8,
}

const fn hint(key: &'static str, what: &'static str, keep: u8) -> KeyHint {
    KeyHint { key, what, keep }
}

fn footer_hints(app: &App) -> Vec<KeyHint> {
    match (app.screen(), app.session()) {
        (Screen::Setup, session) => vec![
            hint("↑↓", "field", 2),
            hint("←→", "change", 3),
            hint("Enter", "start", 1),
            if session.is_some() {
                hint("Esc", "back", 0)
            } else {
                hint("Esc", "quit", 0)
            },
        ],
        (Screen::Game, Some(s)) if s.game().is_over() => vec![
            hint("Enter", "next round", 0),
            hint("r", "replay", 3),
            hint("n", "new game", 4),
            hint("?", "keys", 1),
            hint("q", "quit", 2),
        ],
        (Screen::Game, _) => vec![
            hint("←↑↓→", "move", 2),
            hint("Enter", "place", 3),
            hint("1-9", "cell", 4),
            hint("u", "undo", 5),
            hint("v", "values", 6),
            hint("r", "restart", 7),
            hint("n", "new game", 8),
            hint("?", "keys", 0),
            hint("q", "quit", 1),
        ],
    }
}

fn render_footer(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let mut hints = footer_hints(app);
    let width = |hints: &[KeyHint]| -> usize {
        hints
            .iter()
            .map(|h| h.key.chars().count() + h.what.chars().count() + 4)
            .sum()
    };
    while width(&hints) > usize::from(area.width) && hints.len() > 1 {
        if let Some(worst) = (0..hints.len()).max_by_key(|&i| hints[i].keep) {
            hints.remove(worst);
        }
    }
    let mut spans = Vec::new();
    for h in &hints {
        spans.push(Span::styled(format!(" {}", h.key), theme.key()));
        spans.push(Span::styled(format!(" {}  ", h.what), theme.dim()));
    }
    Line::from(spans)
        .alignment(Alignment::Center)
        .render(area, buf);
}

// ---------------------------------------------------------------------------
// The board

/// How big the board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Size {
    /// 13×5 cells with 9×5 marks.
    Large,
    /// 9×3 cells with 5×3 marks.
    Medium,
    /// 5×1 cells with one-letter marks.
    Small,
}

impl Size {
    const fn cell(self) -> (u16, u16) {
        match self {
            Size::Large => (13, 5),
            Size::Medium => (9, 3),
            Size::Small => (5, 1),
        }
    }

    /// The board with its grid lines and its row and column labels.
    const fn labelled(self) -> (u16, u16) {
        let (w, h) = self.cell();
        (3 * w + 4 + 2, 3 * h + 4 + 1)
    }

    fn glyph(self, player: Player) -> &'static [&'static str] {
        match (self, player) {
            (Size::Large, Player::X) => &[
                "╲       ╱",
                "  ╲   ╱  ",
                "    ╳    ",
                "  ╱   ╲  ",
                "╱       ╲",
            ],
            (Size::Large, Player::O) => &[
                "  ╭───╮  ",
                " ╱     ╲ ",
                "│       │",
                " ╲     ╱ ",
                "  ╰───╯  ",
            ],
            (Size::Medium, Player::X) => &["╲   ╱", "  ╳  ", "╱   ╲"],
            (Size::Medium, Player::O) => &["╭───╮", "│   │", "╰───╯"],
            (Size::Small, Player::X) => &["X"],
            (Size::Small, Player::O) => &["O"],
        }
    }
}

/// Where the parts of the game screen go.
struct GameLayout {
    size: Size,
    /// The board with its labels.
    board: Rect,
    /// The scoreboard panel, or `None` for a one-line scoreboard.
    panel: Option<Rect>,
    /// The status lines (and the one-line scoreboard), centred under the
    /// board.
    status_y: u16,
    /// The horizontal centre of the board.
    center_x: u16,
}

fn game_layout(body: Rect) -> GameLayout {
    let options = [
        (Size::Large, true),
        (Size::Medium, true),
        (Size::Large, false),
        (Size::Medium, false),
        (Size::Small, true),
        (Size::Small, false),
    ];
    let fits = |size: Size, panel: bool| {
        let (w, h) = size.labelled();
        let w = if panel {
            w + PANEL_GAP + PANEL_WIDTH
        } else {
            w
        };
        let h = h + 2 + u16::from(!panel);
        w <= body.width && h <= body.height
    };
    let (size, panel) = options
        .into_iter()
        .find(|&(size, panel)| fits(size, panel))
        .unwrap_or((Size::Small, false));
    let (bw, bh) = size.labelled();
    let group_w = if panel {
        bw + PANEL_GAP + PANEL_WIDTH
    } else {
        bw
    };
    let lines_below = 2 + u16::from(!panel);
    let gap = u16::from(bh + lines_below < body.height);
    let group_h = bh + gap + lines_below;
    let x = body.x + body.width.saturating_sub(group_w) / 2;
    let y = body.y + body.height.saturating_sub(group_h) / 2;
    let board = Rect::new(x, y, bw, bh).intersection(body);
    let panel = panel.then(|| {
        Rect::new(x + bw + PANEL_GAP, y + 1, PANEL_WIDTH, bh.saturating_sub(1)).intersection(body)
    });
    GameLayout {
        size,
        board,
        panel,
        status_y: y + bh + gap,
        center_x: x + bw / 2 + 1,
    }
}

/// Everything the cells need to know to draw themselves.
struct CellView {
    cursor: Option<Square>,
    win: Bitboard,
    over: bool,
    values: [Option<Value>; 9],
}

fn render_game(app: &App, s: &Session, body: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let layout = game_layout(body);
    let game = s.game();
    let outcome = game.outcome();
    let mut values = [None; 9];
    if app.hints() {
        for h in s.hints() {
            values[usize::from(h.square.index())] = Some(h.value);
        }
    }
    let view = CellView {
        cursor: s.human_to_move().map(|_| app.cursor()),
        win: outcome.map_or(Bitboard::EMPTY, |o| o.cells()),
        over: game.is_over(),
        values,
    };
    render_board(s, &view, layout.size, layout.board, theme, buf);
    if let Some(panel) = layout.panel {
        render_panel(s, panel, theme, buf);
    }

    // Status: whose turn or the result, then the message.
    let status = status_line(s, theme);
    let message = message_line(app, s, theme);
    let mut lines = vec![status, message];
    if layout.panel.is_none() {
        lines.push(score_line(s, theme));
    }
    for (i, line) in lines.into_iter().enumerate() {
        let y = layout.status_y + i as u16;
        if y >= body.bottom() {
            break;
        }
        let w = (line.width() as u16).min(body.width);
        let x = layout
            .center_x
            .saturating_sub(w / 2)
            .clamp(body.x, body.right().saturating_sub(w));
        line.render(Rect::new(x, y, w, 1), buf);
    }
}

fn status_line(s: &Session, theme: Theme) -> Line<'static> {
    let game = s.game();
    match game.outcome() {
        Some(outcome) => match outcome.winner() {
            Some(winner) => Line::from(vec![
                Span::styled(
                    format!("{} wins!", s.label(winner)),
                    theme.result(Some(winner)),
                ),
                Span::styled(format!("  ({})", outcome.cells()), theme.dim()),
            ]),
            None => Line::styled("Draw! Nobody wins this round", theme.result(None)),
        },
        None => {
            let player = game.position().turn();
            let verb = if s.is_bot(player) {
                " is thinking…"
            } else {
                " to move"
            };
            Line::from(vec![
                Span::styled(
                    s.name(player).to_owned(),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::raw(" ("),
                Span::styled(player.to_string(), theme.mark(player)),
                Span::raw(")"),
                Span::raw(verb),
            ])
        }
    }
}

fn message_line(app: &App, s: &Session, theme: Theme) -> Line<'static> {
    if let Some(col) = app.pending_column() {
        let letter = char::from(b'a' + col);
        return Line::styled(format!("{letter}… now the row: 1, 2 or 3"), theme.info());
    }
    match app.message() {
        Some(m) if m.tone == Tone::Warn => Line::styled(m.text.clone(), theme.warn()),
        _ if s.game().is_over() => {
            Line::styled("Enter: next round · r: replay · n: new game", theme.info())
        }
        Some(m) => Line::styled(m.text.clone(), theme.info()),
        None if app.hints() => Line::styled(
            "Each free cell shows its value with perfect play",
            theme.info(),
        ),
        None => Line::default(),
    }
}

fn score_line(s: &Session, theme: Theme) -> Line<'static> {
    let scores = s.scores();
    Line::from(vec![
        Span::styled(Player::X.to_string(), theme.mark(Player::X)),
        Span::raw(format!(" {} {}  ", s.name(Player::X), scores.x)),
        Span::styled(Player::O.to_string(), theme.mark(Player::O)),
        Span::raw(format!(" {} {}  ", s.name(Player::O), scores.o)),
        Span::styled(format!("draws {}", scores.draws), theme.dim()),
    ])
}

fn render_board(
    s: &Session,
    view: &CellView,
    size: Size,
    area: Rect,
    theme: Theme,
    buf: &mut Buffer,
) {
    let (cw, ch) = size.cell();
    let (bw, bh) = size.labelled();
    if area.width < bw || area.height < bh {
        return;
    }
    let gx = area.x + 2; // the grid, right of the row labels
    let gy = area.y + 1; // below the column labels
    let border = theme.border();
    let dim = theme.dim();

    // Column labels and row labels.
    for i in 0..3u16 {
        let label = char::from(b'a' + i as u8).to_string();
        buf.set_string(gx + 1 + i * (cw + 1) + cw / 2, area.y, label, dim);
        let row = char::from(b'1' + i as u8).to_string();
        buf.set_string(area.x, gy + 1 + i * (ch + 1) + ch / 2, row, dim);
    }

    // Grid lines.
    let horizontal = |left: &str, mid: &str, right: &str| {
        let seg = "─".repeat(usize::from(cw));
        format!("{left}{seg}{mid}{seg}{mid}{seg}{right}")
    };
    buf.set_string(gx, gy, horizontal("╭", "┬", "╮"), border);
    for r in 0..3u16 {
        let top = gy + 1 + r * (ch + 1);
        for dy in 0..ch {
            for c in 0..4u16 {
                buf.set_string(gx + c * (cw + 1), top + dy, "│", border);
            }
        }
        let sep = if r < 2 {
            horizontal("├", "┼", "┤")
        } else {
            horizontal("╰", "┴", "╯")
        };
        buf.set_string(gx, top + ch, sep, border);
    }

    // Cells.
    for sq in Square::ALL {
        let rect = Rect::new(
            gx + 1 + u16::from(sq.column()) * (cw + 1),
            gy + 1 + u16::from(sq.row()) * (ch + 1),
            cw,
            ch,
        );
        render_cell(s, view, size, sq, rect, theme, buf);
    }
}

fn render_cell(
    s: &Session,
    view: &CellView,
    size: Size,
    sq: Square,
    rect: Rect,
    theme: Theme,
    buf: &mut Buffer,
) {
    let winning = view.win.contains(sq);
    if winning {
        buf.set_style(rect, theme.win());
    } else if view.cursor == Some(sq) {
        buf.set_style(rect, theme.cursor());
    }
    let centered = |text: &str, row: u16| {
        let w = text.chars().count() as u16;
        (rect.x + rect.width.saturating_sub(w) / 2, rect.y + row)
    };
    match s.game().position().board().get(sq) {
        Some(player) => {
            let mut style = if winning {
                theme.win()
            } else {
                theme.mark(player)
            };
            if view.over && !view.win.is_empty() && !winning {
                style = style.add_modifier(Modifier::DIM);
            }
            for (row, line) in size.glyph(player).iter().enumerate() {
                let (x, y) = centered(line, row as u16);
                // Spaces keep the background of the cell (cursor or win).
                for (i, c) in line.chars().enumerate() {
                    if c != ' ' {
                        buf.set_string(x + i as u16, y, c.to_string(), style);
                    }
                }
            }
        }
        None if view.over => {}
        None => {
            let mid = rect.height / 2;
            match view.values[usize::from(sq.index())] {
                Some(value) => {
                    let text = match size {
                        Size::Small => short_value(value),
                        Size::Medium | Size::Large => value.to_string(),
                    };
                    let (x, y) = centered(&text, mid);
                    buf.set_string(x, y, text, theme.value(value));
                }
                None => {
                    let text = sq.number().to_string();
                    let (x, y) = centered(&text, mid);
                    let style = if view.cursor == Some(sq) {
                        Style::new().add_modifier(Modifier::BOLD)
                    } else {
                        theme.dim()
                    };
                    buf.set_string(x, y, text, style);
                }
            }
        }
    }
}

/// A value in at most three characters: `W3`, `D`, `L2`.
fn short_value(value: Value) -> String {
    match value {
        Value::Win(n) => format!("W{n}"),
        Value::Draw(_) => "D".to_owned(),
        Value::Loss(n) => format!("L{n}"),
    }
}

fn panel_block(title: String, theme: Theme) -> Block<'static> {
    Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.border())
        .padding(Padding::horizontal(1))
        .title(Span::styled(
            format!(" {title} "),
            Style::new().add_modifier(Modifier::BOLD),
        ))
}

fn render_panel(s: &Session, area: Rect, theme: Theme, buf: &mut Buffer) {
    let [scores_area, round_area] =
        Layout::vertical([Constraint::Length(5), Constraint::Fill(1)]).areas(area);

    // Scoreboard.
    let block = panel_block("Scoreboard".to_owned(), theme);
    let inner = block.inner(scores_area);
    block.render(scores_area, buf);
    let to_move = s.game().to_move();
    let width = usize::from(inner.width);
    let row = |marker: &str, mark: Option<Player>, name: &str, n: u32| -> Line<'static> {
        let count = n.to_string();
        let name_room = width.saturating_sub(5 + count.len() + 1);
        let name = truncate(name, name_room);
        let pad = width.saturating_sub(5 + name.chars().count() + count.len());
        let mark_span = match mark {
            Some(p) => Span::styled(p.to_string(), theme.mark(p)),
            None => Span::raw(" "),
        };
        Line::from(vec![
            Span::styled(format!("{marker} "), theme.key()),
            mark_span,
            Span::raw("  "),
            Span::raw(name),
            Span::raw(" ".repeat(pad)),
            Span::styled(count, Style::new().add_modifier(Modifier::BOLD)),
        ])
    };
    let marker = |p: Player| if to_move == Some(p) { "▶" } else { " " };
    let scores = s.scores();
    let lines = vec![
        row(
            marker(Player::X),
            Some(Player::X),
            s.name(Player::X),
            scores.x,
        ),
        row(
            marker(Player::O),
            Some(Player::O),
            s.name(Player::O),
            scores.o,
        ),
        row(" ", None, "Draws", scores.draws),
    ];
    Paragraph::new(lines).render(inner, buf);

    // This round: who started, and the moves.
    if round_area.height < 3 {
        return;
    }
    let block = panel_block(format!("Round {}", s.round()), theme);
    let inner = block.inner(round_area);
    block.render(round_area, buf);
    let game = s.game();
    let first = game.first();
    let mut lines = vec![Line::from(vec![
        Span::styled(
            if s.tossed() { "Coin toss: " } else { "First: " },
            theme.dim(),
        ),
        Span::raw(s.label(first)),
    ])];
    let moves = game.moves();
    if !moves.is_empty() {
        lines.push(Line::default());
    }
    let mut move_lines = Vec::new();
    for (turn, pair) in moves.chunks(2).enumerate() {
        let mut spans = vec![Span::styled(format!("{:>2}.", turn + 1), theme.dim())];
        for (i, sq) in pair.iter().enumerate() {
            let player = game.player_of_ply(turn * 2 + i);
            spans.push(Span::raw("  "));
            spans.push(Span::styled(player.to_string(), theme.mark(player)));
            spans.push(Span::raw(format!(" {sq}")));
        }
        move_lines.push(Line::from(spans));
    }
    // Keep the latest moves when the panel is short.
    let room = usize::from(inner.height).saturating_sub(lines.len());
    let skip = move_lines.len().saturating_sub(room);
    lines.extend(move_lines.into_iter().skip(skip));
    Paragraph::new(lines).render(inner, buf);
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut t: String = text.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

// ---------------------------------------------------------------------------
// Set-up

fn field_label(form: &SetupForm, field: Field) -> &'static str {
    match field {
        Field::Mode => "Mode",
        Field::Level => "Bot",
        Field::BotSide => "Bot plays",
        Field::Name(_) if form.opponent == Opponent::Bot => "Your name",
        Field::Name(Player::X) => "Name of X",
        Field::Name(Player::O) => "Name of O",
        Field::First => "First move",
        Field::Start => "",
    }
}

fn level_note(level: oxo_core::BotLevel) -> &'static str {
    match level {
        oxo_core::BotLevel::Random => "plays anywhere",
        oxo_core::BotLevel::Easy => "wins when it can",
        oxo_core::BotLevel::Medium => "blocks, sometimes slips",
        oxo_core::BotLevel::Perfect => "never loses",
    }
}

fn render_setup(form: &SetupForm, theme: Theme, body: Rect, buf: &mut Buffer) {
    let fields = form.fields();
    let n = fields.len() as u16;
    let roomy = body.height >= 2 * n + 4;
    let height = (if roomy { 2 * n + 4 } else { n + 3 }).min(body.height);
    let width = body.width.min(58);
    // The logo goes above the form when there is room for it.
    let logo = body.height >= height + 5;
    let total = height + if logo { 5 } else { 0 };
    let top = body.y + (body.height - total) / 2;
    if logo {
        render_logo(theme, Rect::new(body.x, top, body.width, 3), buf);
    }
    let area = Rect::new(
        body.x + (body.width - width) / 2,
        if logo { top + 5 } else { top },
        width,
        height,
    );
    Clear.render(area, buf);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.border())
        .title(Span::styled(
            " New game ",
            Style::new().add_modifier(Modifier::BOLD),
        ))
        .title_alignment(Alignment::Center);
    let inner = block.inner(area);
    block.render(area, buf);

    let label_w = 12;
    let mut lines = Vec::new();
    if roomy {
        lines.push(
            Line::styled("Pick the players, then press Enter", theme.dim())
                .alignment(Alignment::Center),
        );
        lines.push(Line::default());
    }
    for &field in &fields {
        let focused = form.focus == field;
        let marker = if focused { " ▸ " } else { "   " };
        let label_style = if focused { theme.focus() } else { theme.dim() };
        if field == Field::Start {
            let (button, style) = if focused {
                ("[ Start ]", theme.focus().add_modifier(Modifier::REVERSED))
            } else {
                ("[ Start ]", Style::new().add_modifier(Modifier::BOLD))
            };
            let pad = usize::from(inner.width).saturating_sub(9) / 2;
            lines.push(Line::from(vec![
                Span::raw(" ".repeat(pad.saturating_sub(3))),
                Span::styled(marker, theme.focus()),
                Span::styled(button, style),
            ]));
            continue;
        }
        let mut spans = vec![
            Span::styled(marker, theme.focus()),
            Span::styled(
                format!("{:<label_w$}", field_label(form, field)),
                label_style,
            ),
        ];
        let (value, note) = match field {
            Field::Mode => match form.opponent {
                Opponent::Person => ("Two players".to_owned(), "one keyboard"),
                Opponent::Bot => ("Against a bot".to_owned(), ""),
            },
            Field::Level => (form.level.display_name().to_owned(), level_note(form.level)),
            Field::BotSide => (
                form.bot_side.to_string(),
                form.bot_side.fold_xo("you play O", "you play X"),
            ),
            Field::First => (form.first.describe().to_owned(), ""),
            Field::Name(_) | Field::Start => (String::new(), ""),
        };
        if let Field::Name(p) = field {
            let name = &form.names[p];
            spans.push(Span::raw("  "));
            spans.push(Span::styled(
                name.clone(),
                Style::new().add_modifier(Modifier::BOLD),
            ));
            if focused {
                spans.push(Span::styled(
                    " ",
                    Style::new().add_modifier(Modifier::REVERSED),
                ));
            } else if name.trim().is_empty() {
                spans.push(Span::styled(crate::DEFAULT_NAMES[p], theme.dim()));
            }
        } else if focused {
            spans.push(Span::styled("◀ ", theme.key()));
            spans.push(Span::styled(
                value,
                Style::new().add_modifier(Modifier::BOLD),
            ));
            spans.push(Span::styled(" ▶", theme.key()));
        } else {
            spans.push(Span::raw(format!("  {value}  ")));
        }
        if !note.is_empty() {
            spans.push(Span::styled(format!(" {note}"), theme.dim()));
        }
        lines.push(Line::from(spans));
        if roomy {
            lines.push(Line::default());
        }
    }
    Paragraph::new(lines).render(inner, buf);
}

/// "OXO" in big marks, centred in `area` (3 rows).
fn render_logo(theme: Theme, area: Rect, buf: &mut Buffer) {
    let o = Size::Medium.glyph(Player::O);
    let x = Size::Medium.glyph(Player::X);
    let width = 5 * 3 + 2 * 2;
    let left = area.x + area.width.saturating_sub(width) / 2;
    for (i, (glyph, player)) in [(o, Player::O), (x, Player::X), (o, Player::O)]
        .into_iter()
        .enumerate()
    {
        for (row, line) in glyph.iter().enumerate() {
            let y = area.y + row as u16;
            if y < area.bottom() {
                buf.set_stringn(
                    left + i as u16 * 7,
                    y,
                    line,
                    usize::from(area.width),
                    theme.mark(player),
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Help

fn render_help(theme: Theme, area: Rect, buf: &mut Buffer) {
    const FULL: [(&str, &str); 15] = [
        ("←↑↓→  h j k l", "move the cursor"),
        ("Enter  Space", "place your mark at the cursor"),
        ("1 … 9", "place on a cell:   1 2 3    a1 b1 c1"),
        ("", "numbered like      4 5 6    a2 b2 c2"),
        ("", "the board          7 8 9    a3 b3 c3"),
        ("", "(1 is top left as on a phone, not a numpad)"),
        ("a1 … c3", "place by name: column a-c, then row 1-3"),
        ("u", "undo your move (and the bot's answer)"),
        ("v", "show each free cell's value: win/draw/loss"),
        ("r", "restart this round"),
        ("Enter", "next round, once the game is over"),
        ("n", "new game: back to set-up"),
        ("?", "show or hide this help"),
        ("q  Ctrl-C", "quit"),
        ("", ""),
    ];
    const COMPACT: [(&str, &str); 12] = [
        ("←↑↓→ hjkl", "move"),
        ("Enter", "place, next round"),
        ("1 … 9", "1 2 3 / 4 5 6 / 7 8 9"),
        ("", "1 = a1, top left"),
        ("a1 … c3", "column, then row"),
        ("u", "undo"),
        ("v", "values of free cells"),
        ("r", "restart round"),
        ("n", "new game"),
        ("?", "this help"),
        ("q", "quit"),
        ("", ""),
    ];
    let (rows, key_w): (&[(&str, &str)], usize) = if area.width >= 64 {
        (&FULL, 15)
    } else {
        (&COMPACT, 10)
    };
    let mut lines: Vec<Line> = rows
        .iter()
        .map(|(key, what)| {
            Line::from(vec![
                Span::styled(format!(" {key:<key_w$}"), theme.key()),
                Span::raw(*what),
            ])
        })
        .collect();
    lines.push(Line::styled("press any key to close", theme.dim()).alignment(Alignment::Center));
    let width = area.width.min(64);
    // Clipped if the terminal is too short for every line.
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(popup, buf);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.key())
        .title(Span::styled(
            " Keys ",
            Style::new().add_modifier(Modifier::BOLD),
        ))
        .title_alignment(Alignment::Center);
    let inner = block.inner(popup);
    block.render(popup, buf);
    Paragraph::new(lines).render(inner, buf);
}
