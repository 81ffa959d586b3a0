//! Small drawing helpers the screens share.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Block, BorderType, Clear, Widget};

/// A rounded box with `title` in bold on its top border.
pub(super) fn titled_block(title: &str, border: Style) -> Block<'static> {
    Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(border)
        .title(Span::styled(
            format!(" {title} "),
            Style::new().add_modifier(Modifier::BOLD),
        ))
}

/// A window over whatever `area` held: clears it, draws a rounded box with
/// `title` centred on its top border, and returns the inside.
pub(super) fn render_window(title: &str, border: Style, area: Rect, buf: &mut Buffer) -> Rect {
    Clear.render(area, buf);
    let block = titled_block(title, border).title_alignment(Alignment::Center);
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}
