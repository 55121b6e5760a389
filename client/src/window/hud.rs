//! Interface text around the map: the side bar, the message log, boxes and menus.

use macroquad::prelude::*;
use sandglass_sim::desert::TimeOfDay;
use sandglass_sim::ids::ActorId;
use sandglass_sim::item::unknown_name;
use sandglass_sim::lore::{Boon, Growth};
use sandglass_sim::text::capitalise;
use sandglass_sim::world::Actor;
use sandglass_sim::State;

use super::draw_map::{line_height, species_color, Layout, Scheme, LOG_LINES};
use crate::look::{in_view, pile, Standing};
use crate::timing::Figures;

/// The most creatures the side bar lists by name; beyond, it counts them.
const IN_VIEW_LINES: usize = 6;

/// The most lines the creatures in view leave for the bags below them, however many
/// there are.
const BAG_LINES_KEPT: usize = 12;

/// The fewest creatures the side bar lists by name, however full the bags.
const IN_VIEW_LEAST: usize = 3;

pub const TEXT: Color = Color::new(0.90, 0.87, 0.80, 1.0);
pub const DIM: Color = Color::new(0.55, 0.52, 0.47, 1.0);
pub const TITLE: Color = Color::new(1.0, 0.82, 0.45, 1.0);
pub const ASK: Color = Color::new(1.0, 0.93, 0.35, 1.0);
pub const GOOD: Color = Color::new(0.45, 0.85, 0.40, 1.0);
pub const BAD: Color = Color::new(0.95, 0.35, 0.30, 1.0);
const WATER: Color = Color::new(0.49, 0.76, 0.94, 1.0);
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

/// `s` broken into lines of at most `room` pixels, at spaces where it can be.
pub fn wrap(s: &str, room: f32, size: f32) -> Vec<String> {
    let most = (room / (size * ADVANCE)).floor().max(1.0) as usize;
    let mut lines = vec![];
    let mut line = String::new();
    for word in s.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > most {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        // A word longer than a line is cut where the line ends.
        while line.chars().count() > most {
            let rest: String = line.chars().skip(most).collect();
            line = line.chars().take(most).collect();
            lines.push(std::mem::replace(&mut line, rest));
        }
    }
    lines.push(line);
    lines
}

/// A framed box.
pub fn frame(rect: Rect) {
    draw_rectangle(rect.x, rect.y, rect.w, rect.h, BOX);
    draw_rectangle_lines(rect.x, rect.y, rect.w, rect.h, 2.0, EDGE);
}

/// A few lines about the map cell `about`, in a box along the top of the map, or along
/// its bottom when the cell is in the top half: what the look cursor or the mouse is on,
/// never hidden by its own description.
pub fn caption(text: &Text, layout: &Layout, about: Vec2, lines: &[String], clear: Option<Vec2>) {
    let size = layout.text;
    let area = layout.map;
    // At most half the map less a cell wide: in the half away from the cell, it can
    // never reach it.
    let room = area.w / 2.0 - layout.cell.x - 2.0 * size;
    let wrapped: Vec<String> = lines.iter().flat_map(|l| wrap(l, room, size)).collect();
    let w = wrapped.iter().map(|l| width(l, size)).fold(0.0, f32::max) + 2.0 * size;
    let h = wrapped.len() as f32 * line_height(size) + size;
    let rect = Rect::new(0.0, 0.0, w, h);
    let rect = caption_place(area, rect, about, layout.cell, clear);
    frame(rect);
    let mut y = rect.y + size * 0.5;
    for line in &wrapped {
        text.draw(line, rect.x + size, y, size, TEXT);
        y += line_height(size);
    }
}

/// Where a caption of `rect`'s size goes over the map `area`: in the corner farthest from
/// the cell it describes (whose top-left is `about`, `cell` in size), or the other corner
/// on that side where the farthest would cover the cell `clear` (the camel's: played by
/// eye, a caption hid it). No wider than half the map less a cell, it never covers the
/// cell it describes.
pub fn caption_place(area: Rect, rect: Rect, about: Vec2, cell: Vec2, clear: Option<Vec2>) -> Rect {
    let centre = about + cell / 2.0;
    let x = if centre.x < area.x + area.w / 2.0 {
        area.right() - rect.w
    } else {
        area.x
    };
    let (top, bottom) = (area.y, area.bottom() - rect.h);
    let (far, near) = match centre.y < area.y + area.h / 2.0 {
        true => (bottom, top),
        false => (top, bottom),
    };
    let at = |y| Rect::new(x, y, rect.w, rect.h);
    let covers = |placed: Rect| {
        clear.is_some_and(|c| {
            let kept = Rect::new(c.x, c.y, cell.x, cell.y);
            placed.intersect(kept).is_some_and(|r| r.w * r.h > 0.0)
        })
    };
    if covers(at(far)) && !covers(at(near)) {
        at(near)
    } else {
        at(far)
    }
}

/// A box filling `area`: a title, then `lines`.
pub fn panel(
    text: &Text,
    area: Rect,
    size: f32,
    title: &str,
    title_color: Color,
    lines: &[(String, Color)],
) {
    frame(area);
    let (x, mut y) = (area.x + size, area.y + size);
    text.bold(title, x, y, size, title_color);
    y += 2.0 * line_height(size);
    for (s, color) in lines {
        if y + line_height(size) > area.bottom() {
            break;
        }
        text.draw(&fit(s, area.w - 2.0 * size, size), x, y, size, *color);
        y += line_height(size);
    }
}

/// What a page of the help screen shows.
pub struct Help<'a> {
    /// Keys and what they do (none on a page without them).
    pub keys: &'a [(String, String)],
    /// Every glyph of the map, in its colour, with what it is.
    pub legend: &'a [(char, Color, &'a str)],
    /// The page's text, under its title: how time and energy work, with this game's
    /// numbers, or the desert's rules.
    pub title: &'a str,
    pub lines: &'a [String],
    /// What the keys do here, in the bottom corner.
    pub footer: &'a str,
}

/// A page of the help screen over `area`: the keys on the left, the page's text below
/// them (or from the top, on a page without keys), the legend down the right, its whole
/// height.
pub fn help(text: &Text, area: Rect, size: f32, help: &Help) {
    draw_rectangle(area.x, area.y, area.w, area.h, super::draw_map::BACKGROUND);
    frame(area);
    let page = help_layout(area, size, help);
    help_keys(text, help, &page);
    help_legend(text, help, &page);
    help_text(text, help, &page);
}

/// Where a help page's parts go: worked out once by `help_layout`, then drawn part by
/// part (`help_keys`, `help_legend`, `help_text`).
struct HelpLayout {
    area: Rect,
    size: f32,
    /// A line's height.
    line: f32,
    /// Where the keys start, and the page's text left of the legend.
    x: f32,
    top: f32,
    /// Where the legend starts.
    lx: f32,
    /// The page's text, wrapped to the width of its column or columns.
    lines: Vec<String>,
    /// Where the page's title is, above its text.
    lines_top: f32,
    /// How many lines of the page's text a column holds above the footer.
    text_rows: usize,
    /// The width of each column of a page in two.
    half: f32,
    two_columns: bool,
}

/// A help page laid out over `area`: the legend's width on the right, the page's text
/// below the keys (or from the top, on a page without keys), in two columns when a page
/// of text alone runs below the footer.
fn help_layout(area: Rect, size: f32, help: &Help) -> HelpLayout {
    let line = line_height(size);
    let (x, top) = (area.x + size, area.y + size);
    let legend_w = width("Ψ  dates, cactus fruit", size) + 2.0 * size;
    let lx = area.right() - legend_w;
    let mut lines: Vec<String> = help
        .lines
        .iter()
        .flat_map(|t| wrap(t, lx - x - size, size))
        .collect();
    let lines_top = match help.keys.is_empty() {
        true => top,
        false => area.bottom() - (lines.len() as f32 + 2.5) * line,
    };
    // A page of text alone that runs below the footer goes on in a second column: the
    // desert's page was cut off mid-sentence at the window's usual size.
    let text_rows = ((area.bottom() - 2.5 * line - lines_top) / line).max(1.0) as usize;
    let half = (lx - x) / 2.0;
    let two_columns = help.keys.is_empty() && lines.len() > text_rows;
    if two_columns {
        lines = help_prose(help.lines)
            .iter()
            .flat_map(|t| wrap(t, half - 2.0 * size, size))
            .collect();
    }
    HelpLayout {
        area,
        size,
        line,
        x,
        top,
        lx,
        lines,
        lines_top,
        text_rows,
        half,
        two_columns,
    }
}

/// The page's lines are prose broken for one wide column: joined again into sentences
/// ending a line, to be wrapped to the narrower columns.
fn help_prose(lines: &[String]) -> Vec<String> {
    let mut prose: Vec<String> = vec![];
    let mut open = false;
    for t in lines {
        match prose.last_mut().filter(|_| open) {
            Some(last) => *last = format!("{last} {t}"),
            None => prose.push(t.clone()),
        }
        open = !t.ends_with('.');
    }
    prose
}

/// The keys, under their title, in as many columns as it takes to fit above the page's
/// text.
fn help_keys(text: &Text, help: &Help, page: &HelpLayout) {
    let HelpLayout {
        size,
        line,
        x,
        top,
        lx,
        lines_top,
        ..
    } = *page;
    if !help.keys.is_empty() {
        text.bold("Keys", x, top, size, TITLE);
    }
    let room = (((lines_top - top) / line) as usize)
        .saturating_sub(2)
        .max(1);
    let columns = help.keys.len().div_ceil(room).max(1);
    let rows = help.keys.len().div_ceil(columns).max(1);
    let column_w = (lx - x - size) / columns as f32;
    for (column, keys) in help.keys.chunks(rows).enumerate() {
        let cx = x + column as f32 * column_w;
        let key_w = keys.iter().map(|(k, _)| width(k, size)).fold(0.0, f32::max) + size;
        let key_w = key_w.min(column_w / 2.0);
        for (row, (keys, what)) in keys.iter().enumerate() {
            let cy = top + (row as f32 + 1.5) * line;
            text.bold(&fit(keys, key_w, size), cx, cy, size, ASK);
            text.draw(
                &fit(what, column_w - key_w, size),
                cx + key_w,
                cy,
                size,
                TEXT,
            );
        }
    }
}

/// The legend down the right, the page's whole height.
fn help_legend(text: &Text, help: &Help, page: &HelpLayout) {
    let HelpLayout {
        area,
        size,
        line,
        top,
        lx,
        ..
    } = *page;
    let mut y = top;
    text.bold("On the map", lx, y, size, TITLE);
    y += 1.5 * line;
    let legend_bottom = area.bottom() - 2.0 * line;
    // Lines a little closer together rather than a glyph left out, down to where they
    // would touch; below that, what does not fit is left out.
    let count = help.legend.len().max(1) as f32;
    let step = ((legend_bottom - y) / count).clamp(0.85 * line, line);
    for (glyph, color, name) in help.legend {
        if y + step > legend_bottom + 1.0 {
            break;
        }
        text.bold(&glyph.to_string(), lx, y, size, *color);
        text.draw(name, lx + 3.0 * width("x", size), y, size, TEXT);
        y += step;
    }
}

/// The page's title and text, in one column or two, and what the keys do here in the
/// bottom corner.
fn help_text(text: &Text, help: &Help, page: &HelpLayout) {
    let HelpLayout {
        area,
        size,
        line,
        x,
        lines_top,
        text_rows,
        half,
        two_columns,
        ..
    } = *page;
    let mut y = lines_top;
    text.bold(help.title, x, y, size, TITLE);
    text.draw(
        help.footer,
        area.right() - width(help.footer, size) - size,
        area.bottom() - 1.5 * line,
        size,
        DIM,
    );
    y += 1.5 * line;
    let columns = match two_columns {
        true => page.lines.chunks(text_rows).take(2).collect::<Vec<_>>(),
        false => vec![&page.lines[..]],
    };
    for (column, lines) in columns.into_iter().enumerate() {
        let cx = x + column as f32 * half;
        for (row, t) in lines.iter().enumerate() {
            text.draw(t, cx, y + row as f32 * line, size, DIM);
        }
    }
}

/// A box in the middle of `area` holding a title and `lines` (a line wider than the area
/// wrapped onto the next); `pad` pixels inside.
pub fn dialog(text: &Text, area: Rect, size: f32, title: &str, lines: &[(String, Color)]) {
    let line = line_height(size);
    let pad = size;
    let widest = lines
        .iter()
        .map(|(s, _)| width(s, size))
        .fold(width(title, size), f32::max);
    let w = (widest + 2.0 * pad).min(area.w);
    // A line wider than the area goes on over the next ones rather than being cut: the
    // end of a message is often what it asks of the player.
    let room = w - 2.0 * pad;
    let lines: Vec<(String, Color)> = lines
        .iter()
        .flat_map(|(s, color)| match width(s, size) <= room {
            true => vec![(s.clone(), *color)],
            false => wrap(s, room, size)
                .into_iter()
                .map(|l| (l, *color))
                .collect(),
        })
        .collect();
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
        text.draw(&s, x, y, size, color);
        y += line;
    }
}

/// The message log under the map: `lines` oldest first, the newest at the bottom, long
/// ones wrapped onto the next line rather than cut.
pub fn log(text: &Text, layout: &Layout, lines: &[(String, Color)]) {
    let rect = layout.log;
    frame(rect);
    let size = layout.text;
    let line = line_height(size);
    let pad = (rect.h - LOG_LINES as f32 * line) / 2.0;
    let room = rect.w - 2.0 * size;
    let wrapped: Vec<(String, Color)> = lines
        .iter()
        .flat_map(|(s, color)| wrap(s, room, size).into_iter().map(move |l| (l, *color)))
        .collect();
    let shown = &wrapped[wrapped.len().saturating_sub(LOG_LINES)..];
    let mut y = rect.y + pad;
    for (s, color) in shown {
        text.draw(s, rect.x + size, y, size, *color);
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

    /// `s` over as many lines as it takes, later lines indented by `indent` characters:
    /// names are never cut.
    pub fn wrapped(&mut self, s: &str, indent: usize, color: Color) {
        self.wrapped_above(s, indent, color, f32::INFINITY);
    }

    /// As `wrapped`, if all of `s` fits above `bottom`; says whether it did.
    pub fn wrapped_above(&mut self, s: &str, indent: usize, color: Color, bottom: f32) -> bool {
        let pad = " ".repeat(indent);
        let room = self.room - width(&pad, self.size);
        let lines = wrap(s, room, self.size);
        if self.y + lines.len() as f32 * line_height(self.size) > bottom {
            return false;
        }
        for (i, piece) in lines.into_iter().enumerate() {
            match i {
                0 => self.line(&piece, color),
                _ => self.line(&format!("{pad}{piece}"), color),
            }
        }
        true
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

    /// A label, then a bar filled `part` of `whole`, then `numbers`.
    pub fn bar(&mut self, label: &str, part: i32, whole: i32, numbers: &str, color: Color) {
        let size = self.size;
        let label_w = width("Energy ", size);
        self.text.draw(label, self.x, self.y, size, TEXT);
        let numbers_w = width("9999/9999", size);
        let bar_w = (self.room - label_w - numbers_w - size * 0.5).max(size);
        let (bx, by, bh) = (self.x + label_w, self.y + size * 0.3, size * 0.75);
        draw_rectangle(bx, by, bar_w, bh, Color::new(0.2, 0.17, 0.13, 1.0));
        let fill = (part.max(0) as f32 / whole.max(1) as f32).min(1.0);
        draw_rectangle(bx, by, bar_w * fill, bh, color);
        self.text
            .draw(numbers, bx + bar_w + size * 0.5, self.y, size, TEXT);
        self.y += line_height(size);
    }

    pub fn gap(&mut self) {
        self.y += line_height(self.size) * 0.5;
    }
}

/// How the camel has grown, only in the ways it has: "Grown: hardier, deeper skin x2".
pub fn grown(growth: Growth) -> String {
    let said: Vec<String> = Boon::ALL
        .into_iter()
        .map(|boon| (boon.name(), growth.taken(boon)))
        .filter(|&(_, times)| times > 0)
        .map(|(way, times)| match times {
            1 => way.to_owned(),
            n => format!("{way} x{n}"),
        })
        .collect();
    format!("Grown: {}", said.join(", "))
}

/// A line of the side bar's energy block.
#[derive(Debug, PartialEq)]
pub enum EnergyLine {
    Bar { energy: u16, peak: u16 },
    Text(String),
}

/// The camel's energy as the side bar shows it, from the same figures as the energy
/// panel's camel row: what it holds (green once it is enough to act), what a step on
/// this ground costs and when it can act, and how fast it goes.
pub fn energy_lines(figures: &Figures) -> Vec<(EnergyLine, Color)> {
    let color = if figures.energy >= figures.needed {
        GOOD
    } else {
        Color::new(0.35, 0.55, 0.9, 1.0)
    };
    let speed = match figures.pace {
        Some(pace) => format!("Speed  {} ({pace})", figures.speed),
        None => format!("Speed  {}", figures.speed),
    };
    vec![
        (
            EnergyLine::Bar {
                energy: figures.energy,
                peak: figures.peak,
            },
            color,
        ),
        (
            EnergyLine::Text(format!("Step   {} here", figures.step)),
            TEXT,
        ),
        (EnergyLine::Text(format!("Ready  {}", figures.ready)), TEXT),
        (EnergyLine::Text(speed), TEXT),
    ]
}

/// The bags, a line a stack, or where that does not fit above `bottom`, the stacks run
/// on one after another ("a 8 dates, b 9 stones, ..."): played by eye with seventeen
/// stacks, the side bar showed four of them and "... and 13 more". What still does not
/// fit ends in "... and N more"; `i` lists them all.
fn bag_lines(col: &mut Column, state: &State, bottom: f32) {
    let world = state.world();
    let named: Vec<(char, String)> = world
        .bags()
        .stacks()
        .map(|(slot, stack)| (slot.letter(), world.counted_items(stack.item, stack.count)))
        .collect();
    let lines: Vec<String> = named
        .iter()
        .map(|(l, name)| format!("{l} - {name}"))
        .collect();
    let room = col.room - width("    ", col.size);
    let rows: usize = lines.iter().map(|l| wrap(l, room, col.size).len()).sum();
    if col.y + rows as f32 * line_height(col.size) <= bottom {
        for line in &lines {
            col.wrapped(line, 4, TEXT);
        }
        return;
    }
    let short: Vec<String> = named
        .iter()
        .map(|(l, name)| format!("{l} {name}"))
        .collect();
    for shown in (1..=short.len()).rev() {
        let more = short.len() - shown;
        // A line is kept for what does not fit.
        let above = match more {
            0 => bottom,
            _ => bottom - line_height(col.size),
        };
        if col.wrapped_above(&short[..shown].join(", "), 2, TEXT, above) {
            if more > 0 {
                col.line(&format!("… and {more} more"), DIM);
            }
            return;
        }
    }
    col.line(&format!("… and {} more", short.len()), DIM);
}

/// The side bar: the camel's vital signs, where it stands, and its bags. `heading` names
/// the game; `footer` is the key hints at the bottom.
pub fn side_bar(
    (text, scheme): (&Text, Scheme),
    layout: &Layout,
    state: &State,
    heading: &[String],
    footer: &[&str],
) {
    let rect = layout.side;
    frame(rect);
    let size = layout.text;
    let mut col = Column::new(text, rect, size);
    for (i, line) in heading.iter().enumerate() {
        if i == 0 {
            col.title(line);
        } else {
            col.wrapped(line, 2, DIM);
        }
    }
    col.gap();
    if let (Some(id), Some(camel)) = (state.world().player_id(), state.world().player()) {
        side_bar_vitals(&mut col, state, id, camel);
        side_bar_whereabouts(&mut col, state);
        side_bar_states(&mut col, state, id, camel);
        col.gap();
        side_bar_underfoot(&mut col, state, camel);
        let bottom = rect.bottom() - 1.5 * line_height(size);
        side_bar_in_view(&mut col, state, scheme, bottom);
        side_bar_carried(&mut col, state, bottom);
    } else {
        col.line(
            &format!("{} creatures", state.world().actors().count()),
            species_color(sandglass_sim::species::Species::Snake, scheme),
        );
        col.line(&format!("Turn   {}", state.tick().0), TEXT);
    }
    side_bar_footer(text, layout, col.y, footer);
}

/// The camel's vital signs: hit points, water (with the desert's clock), how fast
/// wounds close (where the heat changes it), energy.
fn side_bar_vitals(col: &mut Column, state: &State, id: ActorId, camel: &Actor) {
    let hp_color = if camel.hp() * 3 <= camel.max_hp() {
        BAD
    } else {
        GOOD
    };
    // Hit points below zero are how far past dead a blow went: dead is 0.
    let hp = camel.hp().max(0);
    let max_hp = camel.max_hp();
    col.bar(
        "HP",
        hp.into(),
        max_hp.into(),
        &format!("{hp}/{max_hp}"),
        hp_color,
    );
    if state.world().time_of_day().is_some() {
        let water = state.world().water();
        let color = if water == 0 { BAD } else { WATER };
        let skin = state.world().growth().waterskin();
        col.bar(
            "Water",
            water.into(),
            skin.into(),
            &format!("{water}/{skin}"),
            color,
        );
    }
    // Told only where the heat changes it (the furnace, rules 13 on): before, every
    // wound closed at one pace.
    if state.world().rules().crossing().has_furnace() {
        match state.world().regenerate_every() {
            Some(turns) => col.line(&format!("Heals  1 HP / {turns} turns"), TEXT),
            None => col.line("Heals  never by itself", BAD),
        }
    }
    let figures = Figures::of(state, id);
    for (line, color) in figures.iter().flat_map(energy_lines) {
        match line {
            EnergyLine::Bar { energy, peak } => col.bar(
                "Energy",
                energy.into(),
                peak.into(),
                &energy.to_string(),
                color,
            ),
            EnergyLine::Text(s) => col.line(&s, color),
        }
    }
}

/// Where and when the camel is: the depth, the ground, the turn, the time of day.
fn side_bar_whereabouts(col: &mut Column, state: &State) {
    col.line(
        &format!(
            "Depth  {} of {}",
            state.world().depth(),
            state.world().rules().crossing().deepest()
        ),
        TEXT,
    );
    if state.world().rules().grounds() {
        col.line(&format!("Ground {}", state.world().ground().name()), TEXT);
    }
    col.line(&format!("Turn   {}", state.tick().0), TEXT);
    if let Some(time) = state.world().time_of_day() {
        let left = TimeOfDay::ticks_left(state.tick());
        col.wrapped(
            &format!("{}  ({left} ticks left)", capitalise(time.name())),
            2,
            TEXT,
        );
        col.wrapped(&time.effect(), 2, DIM);
    }
}

/// What the camel is doing or undergoing: dashing, gathering strength, its conditions.
fn side_bar_states(col: &mut Column, state: &State, id: ActorId, camel: &Actor) {
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
}

/// The ground under the camel and what lies on it.
fn side_bar_underfoot(col: &mut Column, state: &State, camel: &Actor) {
    let here = state.world().map().terrain(camel.pos());
    col.line(&format!("On {}", here.name()), DIM);
    let pile = pile(state.world(), camel.pos());
    if !pile.is_empty() {
        col.wrapped(&format!("Here: {}", pile.join(", ")), 6, TEXT);
    }
}

/// The creatures in view, the nearest first, above what the bags need of the lines
/// left over `bottom`.
fn side_bar_in_view(col: &mut Column, state: &State, scheme: Scheme, bottom: f32) {
    let seen = in_view(state);
    if seen.is_empty() {
        return;
    }
    let size = col.size;
    col.gap();
    col.title("In view");
    // The creatures leave the bags (and what is worn and grown) the lines they
    // need, up to `BAG_LINES_KEPT`, and take at least `IN_VIEW_LEAST` lines
    // themselves, the nearest first: a hatched nest in view must not hide what
    // the camel carries, nor a full bag the creature beside it.
    let bag_lines = state.world().bags().stacks().count().max(1) + 5;
    let kept = (bag_lines.min(BAG_LINES_KEPT) + 1) as f32 * line_height(size);
    let least = col.y + (IN_VIEW_LEAST + 1) as f32 * line_height(size);
    let above = (bottom - kept).max(least);
    for (i, sighting) in seen.iter().enumerate() {
        let last = i == IN_VIEW_LINES && seen.len() > IN_VIEW_LINES + 1;
        let color = match sighting.standing {
            Some(Standing::Ally) => GOOD,
            Some(standing) if standing.is_calm() => DIM,
            _ => species_color(sighting.species, scheme),
        };
        if last || !col.wrapped_above(&sighting.line(), 4, color, above) {
            col.line(&format!("… and {} more", seen.len() - i), DIM);
            break;
        }
    }
}

/// What the camel wears, what it has grown, and its bags, down to `bottom`.
fn side_bar_carried(col: &mut Column, state: &State, bottom: f32) {
    let worn: Vec<String> = state.world().gear().worn().map(unknown_name).collect();
    if !worn.is_empty() {
        col.wrapped(&format!("Wearing {}", worn.join(", ")), 2, TEXT);
    }
    let growth = state.world().growth();
    if growth.has_grown() {
        col.wrapped(&grown(growth), 2, GOOD);
    }
    col.gap();
    col.title("Bags");
    let bags = state.world().bags();
    if bags.is_empty() {
        col.line("(empty)", DIM);
    }
    // Bags come before the key hints: when they need the room, the hints (all in
    // the help, `?`) give it up.
    bag_lines(col, state, bottom);
}

/// The key hints at the bottom of the side bar, left out when what is above reaches
/// down to them (`above`: where the column above ended).
fn side_bar_footer(text: &Text, layout: &Layout, above: f32, footer: &[&str]) {
    let (rect, size) = (layout.side, layout.text);
    let mut y = rect.bottom() - (footer.len() as f32 + 0.3) * line_height(size);
    if above > y {
        return;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::Ready;
    use sandglass_sim::ids::Tick;
    use sandglass_sim::lore::Offers;

    #[test]
    fn the_side_bar_says_what_the_panel_says_of_the_camel() {
        let figures = Figures {
            energy: 21,
            needed: 12,
            carried: 12,
            peak: 24,
            step: 12,
            ready: Ready::At(Tick(7)),
            speed: "18".into(),
            pace: Some("hasted"),
        };
        let lines: Vec<EnergyLine> = energy_lines(&figures).into_iter().map(|l| l.0).collect();
        assert_eq!(
            lines,
            [
                EnergyLine::Bar {
                    energy: 21,
                    peak: 24
                },
                EnergyLine::Text("Step   12 here".into()),
                EnergyLine::Text("Ready  turn 7".into()),
                EnergyLine::Text("Speed  18 (hasted)".into()),
            ]
        );
    }

    /// The look box never covers the cell it describes, wherever that cell is.
    #[test]
    fn a_caption_never_covers_its_cell() {
        let area = Rect::new(10.0, 20.0, 640.0, 400.0);
        let cell = vec2(10.0, 10.0);
        let size = Rect::new(0.0, 0.0, 310.0, 390.0);
        for y in (20..420).step_by(10) {
            for x in (10..650).step_by(10) {
                let about = vec2(x as f32, y as f32);
                let placed = caption_place(area, size, about, cell, None);
                let described = Rect::new(about.x, about.y, cell.x, cell.y);
                assert!(placed.intersect(described).is_none_or(|r| r.w * r.h == 0.0));
                assert!(placed.x >= area.x && placed.right() <= area.right());
                assert!(placed.y >= area.y && placed.bottom() <= area.bottom());
            }
        }
    }

    /// Where the farthest corner would hide the camel, the caption takes the other corner
    /// on that side.
    #[test]
    fn a_caption_keeps_clear_of_the_camel() {
        let area = Rect::new(0.0, 0.0, 640.0, 400.0);
        let cell = vec2(10.0, 10.0);
        let size = Rect::new(0.0, 0.0, 300.0, 100.0);
        let about = vec2(600.0, 350.0);
        let far = caption_place(area, size, about, cell, None);
        assert_eq!((far.x, far.y), (0.0, 0.0), "the top left, farthest");
        let camel = vec2(20.0, 20.0);
        let kept = caption_place(area, size, about, cell, Some(camel));
        assert_eq!((kept.x, kept.y), (0.0, 300.0), "the bottom left");
        let under = Rect::new(camel.x, camel.y, cell.x, cell.y);
        assert!(kept.intersect(under).is_none_or(|r| r.w * r.h == 0.0));
    }

    #[test]
    fn growth_names_only_the_ways_grown() {
        let growth = Growth::new([1, 0, 2, 0, 0, 0, 0, 0, 0, 0], Offers::default());
        assert_eq!(grown(growth), "Grown: hardier, deeper skin x2");
    }

    #[test]
    fn long_lines_wrap_at_spaces_and_lose_nothing() {
        let size = 10.0;
        let room = 20.0 * size * ADVANCE;
        let text = "The jackal bites you (3). You are poisoned! The scorpion stings you (2).";
        let lines = wrap(text, room, size);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        let long = "x".repeat(45);
        assert_eq!(wrap(&long, room, size).concat(), long);
        assert_eq!(wrap("", room, size), [""]);
    }
}
