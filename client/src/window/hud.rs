//! Interface text around the map: the side bar, the message log, boxes and menus.

use macroquad::prelude::*;
use sandglass_sim::level::DEEPEST;
use sandglass_sim::tape::TimeModel;
use sandglass_sim::State;

use super::draw_map::{line_height, species_color, Layout, LOG_LINES};

pub const TEXT: Color = Color::new(0.90, 0.87, 0.80, 1.0);
pub const DIM: Color = Color::new(0.55, 0.52, 0.47, 1.0);
pub const TITLE: Color = Color::new(1.0, 0.82, 0.45, 1.0);
pub const ASK: Color = Color::new(1.0, 0.93, 0.35, 1.0);
pub const GOOD: Color = Color::new(0.45, 0.85, 0.40, 1.0);
pub const BAD: Color = Color::new(0.95, 0.35, 0.30, 1.0);
const BOX: Color = Color::new(0.08, 0.065, 0.05, 0.96);
const EDGE: Color = Color::new(0.55, 0.42, 0.25, 1.0);

/// How wide a character of the monospace face is, per pixel of font size.
const ADVANCE: f32 = 0.602;

/// The interface's fonts (the map draws from its own atlas).
pub struct Text {
    regular: Font,
    bold: Font,
}

impl Text {
    pub fn load() -> Text {
        let load = |bytes: &[u8]| {
            let mut font = load_ttf_font_from_bytes(bytes).expect("the embedded font parses");
            font.set_filter(FilterMode::Linear);
            font
        };
        Text {
            regular: load(include_bytes!("../../assets/DejaVuSansMono.ttf")),
            bold: load(include_bytes!("../../assets/DejaVuSansMono-Bold.ttf")),
        }
    }

    /// Draws one line whose box starts at `top`; returns its width.
    pub fn draw(&self, s: &str, x: f32, top: f32, size: f32, color: Color) -> f32 {
        self.draw_with(&self.regular, s, x, top, size, color)
    }

    pub fn bold(&self, s: &str, x: f32, top: f32, size: f32, color: Color) -> f32 {
        self.draw_with(&self.bold, s, x, top, size, color)
    }

    fn draw_with(&self, font: &Font, s: &str, x: f32, top: f32, size: f32, color: Color) -> f32 {
        let line = line_height(size);
        // The face's ascent is about 0.76 em: this puts the text in the middle of its line.
        let baseline = top + (line - size) / 2.0 + size * 0.8;
        draw_text_ex(
            s,
            x.round(),
            baseline.round(),
            TextParams {
                font: Some(font),
                font_size: size as u16,
                color,
                ..Default::default()
            },
        );
        width(s, size)
    }
}

/// The width of `s` in the monospace face.
pub fn width(s: &str, size: f32) -> f32 {
    s.chars().count() as f32 * size * ADVANCE
}

/// `s` cut to at most `room` pixels, with an ellipsis if cut.
pub fn fit(s: &str, room: f32, size: f32) -> String {
    let most = (room / (size * ADVANCE)).floor().max(1.0) as usize;
    if s.chars().count() <= most {
        s.to_owned()
    } else {
        let mut cut: String = s.chars().take(most.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// A framed box.
pub fn frame(rect: Rect) {
    draw_rectangle(rect.x, rect.y, rect.w, rect.h, BOX);
    draw_rectangle_lines(rect.x, rect.y, rect.w, rect.h, 2.0, EDGE);
}

/// A box in the middle of `area` holding a title and `lines`; `pad` pixels inside.
pub fn dialog(text: &Text, area: Rect, size: f32, title: &str, lines: &[(String, Color)]) {
    let line = line_height(size);
    let pad = size;
    let widest = lines
        .iter()
        .map(|(s, _)| width(s, size))
        .fold(width(title, size), f32::max);
    let w = (widest + 2.0 * pad).min(area.w);
    let h = ((lines.len() + 2) as f32 * line + 2.0 * pad).min(area.h);
    let rect = Rect::new(
        (area.x + (area.w - w) / 2.0).round(),
        (area.y + (area.h - h) / 2.0).round(),
        w,
        h,
    );
    frame(rect);
    let (x, mut y) = (rect.x + pad, rect.y + pad);
    text.bold(title, x, y, size, TITLE);
    y += 2.0 * line;
    for (s, color) in lines {
        if y + line > rect.bottom() {
            break;
        }
        text.draw(&fit(s, w - 2.0 * pad, size), x, y, size, *color);
        y += line;
    }
}

/// The message log under the map: `lines` oldest first, the newest at the bottom.
pub fn log(text: &Text, layout: &Layout, lines: &[(String, Color)]) {
    let rect = layout.log;
    frame(rect);
    let size = layout.text;
    let line = line_height(size);
    let pad = (rect.h - LOG_LINES as f32 * line) / 2.0;
    let shown = &lines[lines.len().saturating_sub(LOG_LINES)..];
    let mut y = rect.y + pad;
    for (s, color) in shown {
        text.draw(
            &fit(s, rect.w - 2.0 * size, size),
            rect.x + size,
            y,
            size,
            *color,
        );
        y += line;
    }
}

/// A row of the side bar being written top to bottom.
pub struct Column<'a> {
    text: &'a Text,
    x: f32,
    y: f32,
    room: f32,
    size: f32,
}

impl<'a> Column<'a> {
    pub fn new(text: &'a Text, rect: Rect, size: f32) -> Column<'a> {
        Column {
            text,
            x: rect.x + size * 0.8,
            y: rect.y + size * 0.6,
            room: rect.w - size * 1.6,
            size,
        }
    }

    pub fn line(&mut self, s: &str, color: Color) {
        self.text.draw(
            &fit(s, self.room, self.size),
            self.x,
            self.y,
            self.size,
            color,
        );
        self.y += line_height(self.size);
    }

    pub fn title(&mut self, s: &str) {
        self.text.bold(
            &fit(s, self.room, self.size),
            self.x,
            self.y,
            self.size,
            TITLE,
        );
        self.y += line_height(self.size);
    }

    /// A label, then a bar filled `part` of `whole`, then the numbers.
    pub fn bar(&mut self, label: &str, part: i32, whole: i32, color: Color) {
        let size = self.size;
        let label_w = width("Energy ", size);
        self.text.draw(label, self.x, self.y, size, TEXT);
        let numbers = format!("{part}/{whole}");
        let numbers_w = width("9999/9999", size);
        let bar_w = (self.room - label_w - numbers_w - size * 0.5).max(size);
        let (bx, by, bh) = (self.x + label_w, self.y + size * 0.3, size * 0.75);
        draw_rectangle(bx, by, bar_w, bh, Color::new(0.2, 0.17, 0.13, 1.0));
        let fill = (part.max(0) as f32 / whole.max(1) as f32).min(1.0);
        draw_rectangle(bx, by, bar_w * fill, bh, color);
        self.text
            .draw(&numbers, bx + bar_w + size * 0.5, self.y, size, TEXT);
        self.y += line_height(size);
    }

    pub fn gap(&mut self) {
        self.y += line_height(self.size) * 0.5;
    }

    /// True while there is room for another line above `bottom`.
    pub fn has_room(&self, bottom: f32) -> bool {
        self.y + line_height(self.size) <= bottom
    }
}

/// The side bar: the camel's vital signs, where it stands, and its bags. `heading` names
/// the game; `footer` is the key hints at the bottom.
pub fn side_bar(text: &Text, layout: &Layout, state: &State, heading: &[String], footer: &[&str]) {
    let rect = layout.side;
    frame(rect);
    let size = layout.text;
    let mut col = Column::new(text, rect, size);
    for (i, line) in heading.iter().enumerate() {
        if i == 0 {
            col.title(line);
        } else {
            col.line(line, DIM);
        }
    }
    col.gap();
    if let (Some(id), Some(camel)) = (state.world().player_id(), state.world().player()) {
        let hp_color = if camel.hp() * 3 <= camel.max_hp() {
            BAD
        } else {
            GOOD
        };
        col.bar("HP", camel.hp().into(), camel.max_hp().into(), hp_color);
        let time = state.world().time();
        let stats = camel.stats();
        // Against the most it can hold when acting: under nethack a rested camel holds
        // more than it may carry into the next tick.
        col.bar(
            "Energy",
            state.world().energy(id).0.into(),
            time.peak(&stats).into(),
            Color::new(0.35, 0.55, 0.9, 1.0),
        );
        col.line(
            &format!("Depth  {} of {DEEPEST}", state.world().depth()),
            TEXT,
        );
        col.line(&format!("Turn   {}", state.tick().0), TEXT);
        let speed = match time {
            TimeModel::Nethack => format!("Speed  {}", stats.speed),
            TimeModel::Classic { .. } => format!("Speed  move cost {}", stats.move_cost),
        };
        col.line(&speed, TEXT);
        let c = camel.conditions();
        let mut states = vec![];
        if state.world().is_dashing(id) {
            states.push(("dashing".to_owned(), GOOD));
        }
        if camel.waiting().is_some() {
            states.push(("gathering strength".to_owned(), TEXT));
        }
        for (condition, turns) in c.each().filter(|&(_, turns)| turns > 0) {
            let color = if condition.is_good() { GOOD } else { BAD };
            states.push((format!("{} ({turns})", condition.adjective()), color));
        }
        for (s, color) in states {
            col.line(&s, color);
        }
        col.gap();
        let here = state.world().map().terrain(camel.pos());
        col.line(&format!("On {}", here.name()), DIM);
        for item in state.world().items_at(camel.pos()) {
            col.line(
                &format!("Here: {}", state.world().mycology().describe(item)),
                TEXT,
            );
        }
        col.gap();
        col.title("Bags");
        let bags = state.world().bags();
        if bags.is_empty() {
            col.line("(empty)", DIM);
        }
        let bottom = rect.bottom() - (footer.len() as f32 + 0.5) * line_height(size);
        for (slot, stack) in bags.stacks() {
            if !col.has_room(bottom) {
                col.line("…", DIM);
                break;
            }
            let name = state.world().mycology().counted(stack.item, stack.count);
            col.line(&format!("{} - {name}", slot.letter()), TEXT);
        }
    } else {
        col.line(
            &format!("{} creatures", state.world().actors().count()),
            species_color(sandglass_sim::species::Species::Snake),
        );
        col.line(&format!("Turn   {}", state.tick().0), TEXT);
    }
    let mut y = rect.bottom() - (footer.len() as f32 + 0.3) * line_height(size);
    for hint in footer {
        text.draw(
            &fit(hint, rect.w - 1.6 * size, size),
            rect.x + size * 0.8,
            y,
            size,
            DIM,
        );
        y += line_height(size);
    }
}
