//! The glyph atlas: every map glyph rasterized once, at the current cell size, into one
//! texture, beside a solid white cell for backgrounds. Drawing a cell is then one or two
//! tinted quads of that one texture, so the whole map goes to the GPU in a handful of
//! draw calls. (Alternating textures, say macroquad's own white one for rectangles and a
//! font's for glyphs, would break the batch at every cell: thousands of draw calls,
//! which a software renderer takes tens of milliseconds over.)

use macroquad::prelude::*;

/// A glyph in the atlas: its character, whether it is drawn in the bold face, and its
/// size relative to the cell (creatures are bold and large, so that a lowercase `s` is
/// not lost on the ground it crosses).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glyph {
    pub c: char,
    pub bold: bool,
    pub scale: f32,
}

pub struct Atlas {
    regular: fontdue::Font,
    bold: fontdue::Font,
    /// The glyphs the atlas holds, in slot order.
    glyphs: &'static [Glyph],
    /// The cell size (whole pixels) the texture was made for.
    cell: (u16, u16),
    texture: Option<Texture2D>,
}

/// The grey of a tile's backdrop, before tinting.
const TILE: u8 = 22;

const REGULAR: &[u8] = include_bytes!("../../assets/DejaVuSansMono.ttf");
const BOLD: &[u8] = include_bytes!("../../assets/DejaVuSansMono-Bold.ttf");

impl Atlas {
    /// An atlas for `glyphs`; the texture is made on the first `prepare`.
    pub fn new(glyphs: &'static [Glyph]) -> Atlas {
        let load = |bytes| {
            fontdue::Font::from_bytes(bytes, fontdue::FontSettings::default())
                .expect("the embedded font parses")
        };
        Atlas {
            regular: load(REGULAR),
            bold: load(BOLD),
            glyphs,
            cell: (0, 0),
            texture: None,
        }
    }

    /// Makes sure the texture matches a cell of `w` by `h` pixels; after a resize this
    /// rasterizes every glyph again at the new size, otherwise it costs nothing.
    pub fn prepare(&mut self, w: f32, h: f32) {
        let cell = (w.max(1.0) as u16, h.max(1.0) as u16);
        if self.texture.is_some() && cell == self.cell {
            return;
        }
        self.cell = cell;
        let (cw, ch) = (usize::from(cell.0), usize::from(cell.1));
        // After the glyphs, the solid cell; after that, every glyph again as a tile.
        let count = self.glyphs.len();
        let width = cw * (2 * count + 1);
        let mut bytes = vec![0u8; width * ch * 4];
        for y in 0..ch {
            let row = (y * width + count * cw) * 4;
            bytes[row..row + cw * 4].fill(255);
            for slot in count + 1..=2 * count {
                let at = (y * width + slot * cw) * 4;
                for pixel in bytes[at..at + cw * 4].chunks_exact_mut(4) {
                    pixel.copy_from_slice(&[TILE, TILE, TILE, 255]);
                }
            }
        }
        // The em as large as the cell allows: a monospace advance is 0.6 em wide.
        let px = (ch as f32).min(cw as f32 / 0.62);
        for (slot, glyph) in self.glyphs.iter().enumerate() {
            let font = if glyph.bold {
                &self.bold
            } else {
                &self.regular
            };
            let (metrics, coverage) = font.rasterize(glyph.c, px * glyph.scale);
            // Centre the ink in the cell: a dot sits in the middle of its cell, and
            // glyphs of different heights share one visual centre.
            let x0 = (cw as i32 - metrics.width as i32) / 2;
            let y0 = (ch as i32 - metrics.height as i32) / 2;
            for gy in 0..metrics.height {
                for gx in 0..metrics.width {
                    let (x, y) = (x0 + gx as i32, y0 + gy as i32);
                    if x < 0 || y < 0 || x >= cw as i32 || y >= ch as i32 {
                        continue;
                    }
                    let ink = coverage[gy * metrics.width + gx];
                    let at = (y as usize * width + slot * cw + x as usize) * 4;
                    bytes[at..at + 4].copy_from_slice(&[255, 255, 255, ink]);
                    // The tile: the glyph laid over the backdrop, opaque.
                    let (ink16, tile16) = (u16::from(ink), u16::from(TILE));
                    let grey = ((tile16 * (255 - ink16) + 255 * ink16) / 255) as u8;
                    let at = (y as usize * width + (count + 1 + slot) * cw + x as usize) * 4;
                    bytes[at..at + 4].copy_from_slice(&[grey, grey, grey, 255]);
                }
            }
        }
        let texture = Texture2D::from_rgba8(width as u16, ch as u16, &bytes);
        texture.set_filter(FilterMode::Nearest);
        self.texture = Some(texture);
    }

    /// Fills a rectangle with `color`, from the same texture as the glyphs.
    pub fn fill(&self, x: f32, y: f32, w: f32, h: f32, color: Color) {
        let Some(texture) = &self.texture else { return };
        let solid = self.glyphs.len() as f32 * f32::from(self.cell.0);
        // The middle of the solid cell: no neighbour's edge can bleed in.
        let source = Rect::new(solid + 0.25, 0.25, 0.5, 0.5);
        quad(texture, source, x, y, vec2(w.round(), h.round()), color);
    }

    /// Draws the glyph in `slot` on an opaque dark tile filling the cell, tinted `color`
    /// (the tile darkens with the tint but stays dark): one quad where a fill and a glyph
    /// would be two, which matters for a crowd.
    pub fn draw_tile(&self, slot: usize, x: f32, y: f32, color: Color) {
        self.draw(self.glyphs.len() + 1 + slot, x, y, color);
    }

    /// Draws the glyph in `slot` (its index in the list the atlas was made with) in the
    /// cell whose top-left corner is `(x, y)`, tinted `color`.
    pub fn draw(&self, slot: usize, x: f32, y: f32, color: Color) {
        let Some(texture) = &self.texture else { return };
        let (w, h) = (f32::from(self.cell.0), f32::from(self.cell.1));
        let source = Rect::new(slot as f32 * w, 0.0, w, h);
        quad(texture, source, x, y, vec2(w, h), color);
    }
}

/// Draws `source` of the atlas at `(x, y)` on whole pixels, `size` large, tinted `color`.
fn quad(texture: &Texture2D, source: Rect, x: f32, y: f32, size: Vec2, color: Color) {
    draw_texture_ex(
        texture,
        x.round(),
        y.round(),
        color,
        DrawTextureParams {
            source: Some(source),
            dest_size: Some(size),
            ..Default::default()
        },
    );
}
