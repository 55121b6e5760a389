//! The map as the player sees it: where things go on the screen, what each terrain,
//! creature and item looks like, and drawing one frame of it.

use macroquad::prelude::*;
use sandglass_sim::geometry::Pos;
use sandglass_sim::item::{Glass, Item, Look, Stone};
use sandglass_sim::map::Terrain;
use sandglass_sim::species::Species;
use sandglass_sim::State;

use super::animate::{cell_of, Frame};
use super::atlas::{Atlas, Glyph};

/// Where the parts of the game screen go, recomputed every frame from the window size so
/// that resizing just works.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The top-left corner of the map's first cell.
    pub map_origin: Vec2,
    /// One cell, in whole pixels.
    pub cell: Vec2,
    /// The map's cells, as drawn.
    pub map: Rect,
    pub side: Rect,
    pub log: Rect,
    /// The size of interface text, in pixels.
    pub text: f32,
}

/// Lines of messages shown under the map.
pub const LOG_LINES: usize = 5;
const MARGIN: f32 = 6.0;

impl Layout {
    /// The layout for a `map_w` by `map_h` map in a `width` by `height` window.
    pub fn new(width: f32, height: f32, map_w: u16, map_h: u16) -> Layout {
        let text = (height / 44.0).clamp(13.0, 22.0).round();
        let side_w = (width * 0.22).clamp(200.0, 340.0).round();
        let log_h = (LOG_LINES as f32 * line_height(text) + 2.0 * MARGIN).round();
        let (map_w, map_h) = (f32::from(map_w.max(1)), f32::from(map_h.max(1)));
        let room_w = (width - side_w - 3.0 * MARGIN).max(map_w * 3.0);
        let room_h = (height - log_h - 3.0 * MARGIN).max(map_h * 3.0);
        // Cells no wider than tall, and not much taller than wide: glyphs are tall, but a
        // map stretched thin is hard to read.
        let mut cell_w = (room_w / map_w).floor().max(3.0);
        let mut cell_h = (room_h / map_h).floor().max(3.0);
        cell_w = cell_w.min(cell_h);
        cell_h = cell_h.min((cell_w * 1.4).ceil());
        let cell = vec2(cell_w, cell_h);
        let size = vec2(cell_w * map_w, cell_h * map_h);
        let map_area = Rect::new(MARGIN, MARGIN, room_w, room_h);
        let origin = vec2(
            (map_area.x + (map_area.w - size.x) / 2.0).floor(),
            (map_area.y + (map_area.h - size.y) / 2.0).floor(),
        );
        let side_x = (origin.x + size.x + MARGIN).max(width - side_w - MARGIN);
        Layout {
            map_origin: origin,
            cell,
            map: Rect::new(origin.x, origin.y, size.x, size.y),
            side: Rect::new(
                side_x,
                MARGIN,
                width - side_x - MARGIN,
                height - 2.0 * MARGIN,
            ),
            log: Rect::new(
                MARGIN,
                height - log_h - MARGIN,
                side_x - 2.0 * MARGIN,
                log_h,
            ),
            text,
        }
    }

    /// The map cell under a point of the window, if the point is on the map.
    pub fn cell_under(&self, point: Vec2) -> Option<Pos> {
        if !self.map.contains(point) {
            return None;
        }
        let at = (point - self.map_origin) / self.cell;
        Some(Pos::new(at.x.floor() as i16, at.y.floor() as i16))
    }

    /// The top-left corner of a cell, for a position that may lie between cells while
    /// something moves.
    pub fn cell_at(&self, at: Vec2) -> Vec2 {
        self.map_origin + at * self.cell
    }
}

pub fn line_height(text: f32) -> f32 {
    (text * 1.25).round()
}

/// Every glyph on the map, in atlas order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Sand,
    Dune,
    Hardpan,
    Cactus,
    Water,
    DoorClosed,
    DoorOpen,
    Stairs,
    Oasis,
    Camel,
    Snake,
    Elephant,
    Spider,
    Egg,
    Jackal,
    Scorpion,
    Cobra,
    Meerkat,
    Sandworm,
    Hyena,
    Tortoise,
    Food,
    Mushroom,
    Stone,
    Spear,
    Gear,
    Flask,
    Scarab,
    Rose,
    DoorLocked,
    Key,
}

/// The atlas's glyphs, indexed by `Sym`.
pub const GLYPHS: &[Glyph] = &[
    ground('·'),   // sand
    ground('~'),   // dune
    ground('-'),   // hardpan
    thing('Ψ'),    // cactus: a saguaro
    ground('≈'),   // water
    thing('+'),    // closed door
    thing('\''),   // open door
    thing('>'),    // stairs
    thing('≈'),    // oasis
    creature('@'), // camel
    creature('s'), // snake
    creature('E'), // elephant
    creature('x'), // spider
    creature('o'), // egg
    creature('j'), // jackal
    creature('S'), // scorpion
    creature('c'), // cobra
    creature('m'), // meerkat
    creature('W'), // sandworm
    creature('h'), // hyena
    creature('T'), // tortoise
    thing('%'),    // dates and fruit
    thing('♠'),    // mushroom
    thing('*'),    // stone
    thing('/'),    // spear
    thing('['),    // gear
    thing('!'),    // flask
    thing('"'),    // scarab
    thing('♦'),    // desert rose
    thing('+'),    // locked door
    thing('⊸'),    // key: a bow and a blade
];

const fn ground(c: char) -> Glyph {
    Glyph {
        c,
        bold: false,
        scale: 1.0,
    }
}

const fn thing(c: char) -> Glyph {
    Glyph {
        c,
        bold: true,
        scale: 1.05,
    }
}

const fn creature(c: char) -> Glyph {
    Glyph {
        c,
        bold: true,
        scale: 1.25,
    }
}

const fn rgb(hex: u32) -> Color {
    Color::new(
        ((hex >> 16) & 0xff) as f32 / 255.0,
        ((hex >> 8) & 0xff) as f32 / 255.0,
        (hex & 0xff) as f32 / 255.0,
        1.0,
    )
}

pub const BACKGROUND: Color = rgb(0x15110d);
const SAND_BG: Color = rgb(0x3a2f22);

/// How a terrain looks: its glyph and colour, and the colour of its cell.
fn terrain_look(terrain: Terrain) -> (Sym, Color, Color) {
    match terrain {
        Terrain::Sand => (Sym::Sand, rgb(0x7d6a4c), SAND_BG),
        Terrain::Dune => (Sym::Dune, rgb(0xd9a857), rgb(0x4d3a1f)),
        Terrain::Hardpan => (Sym::Hardpan, rgb(0x8f8a80), rgb(0x2c2a27)),
        Terrain::Cactus => (Sym::Cactus, rgb(0x5fbf4a), rgb(0x23301b)),
        Terrain::Water => (Sym::Water, rgb(0x7cc3f0), rgb(0x1b3a5a)),
        Terrain::DoorClosed => (Sym::DoorClosed, rgb(0xe0a050), rgb(0x4a2c14)),
        Terrain::DoorOpen => (Sym::DoorOpen, rgb(0xe0a050), rgb(0x2e2418)),
        Terrain::Stairs => (Sym::Stairs, rgb(0xffffff), rgb(0x5a4a78)),
        Terrain::Oasis => (Sym::Oasis, rgb(0xa8ffc0), rgb(0x1f6a48)),
        // Iron-grey on rust, apart from a wooden door's amber.
        Terrain::DoorLocked => (Sym::DoorLocked, rgb(0xd8dce8), rgb(0x6a2418)),
    }
}

/// Bright colours the ground never uses, so a creature is never lost in its cell.
fn species_look(species: Species) -> (Sym, Color) {
    match species {
        Species::Camel => (Sym::Camel, rgb(0xfff0b0)),
        Species::Snake => (Sym::Snake, rgb(0x9cff5a)),
        Species::Elephant => (Sym::Elephant, rgb(0xc8d4e0)),
        Species::Spider => (Sym::Spider, rgb(0xff6a6a)),
        Species::SpiderEgg => (Sym::Egg, rgb(0xf4f0ff)),
        Species::Jackal => (Sym::Jackal, rgb(0xffb347)),
        Species::Scorpion => (Sym::Scorpion, rgb(0xe070ff)),
        Species::Cobra => (Sym::Cobra, rgb(0x5ae0e0)),
        Species::Meerkat => (Sym::Meerkat, rgb(0xffe070)),
        Species::Sandworm => (Sym::Sandworm, rgb(0xff9ec8)),
        Species::Hyena => (Sym::Hyena, rgb(0xff5ad0)),
        Species::Tortoise => (Sym::Tortoise, rgb(0x5a8cff)),
    }
}

/// What the map shows: what the camel sees and remembers, or (on the replay scrubber,
/// on request) the whole level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sight {
    Camel,
    Everything,
}

impl Sight {
    /// Whether a cell is shown as seen now.
    fn sees(self, state: &State, pos: Pos) -> bool {
        self == Sight::Everything || state.world().sees(pos)
    }

    /// Whether a cell is shown at all: seen now, or remembered.
    fn knows(self, state: &State, pos: Pos) -> bool {
        self == Sight::Everything || state.world().remembers(pos)
    }
}

/// A remembered cell's colour: darker and greyer than when seen.
fn remembered(color: Color) -> Color {
    let grey = (color.r + color.g + color.b) / 3.0;
    let fade = |c: f32| (c * 0.45 + grey * 0.2) * 0.75;
    Color::new(fade(color.r), fade(color.g), fade(color.b), 1.0)
}

fn item_look(item: Item) -> (Sym, Color) {
    match item {
        Item::Date => (Sym::Food, rgb(0xd08040)),
        Item::CactusFruit => (Sym::Food, rgb(0xff70b0)),
        // A mushroom shows its look, which is all the camel knows before eating it.
        Item::Mushroom(look) => (
            Sym::Mushroom,
            match look {
                Look::Red => rgb(0xff4a3a),
                Look::Brown => rgb(0xb07a48),
                Look::Speckled => rgb(0xf0e68a),
                Look::Pale => rgb(0xf0ece0),
                Look::Violet => rgb(0xc080ff),
            },
        ),
        Item::Stone => (Sym::Stone, rgb(0xb8b8b8)),
        Item::Spear => (Sym::Spear, rgb(0xe8e8f0)),
        Item::Javelin => (Sym::Spear, rgb(0x9fc8ff)),
        Item::Blanket => (Sym::Gear, rgb(0xff5a5a)),
        Item::Boots => (Sym::Gear, rgb(0xc89060)),
        Item::Barding => (Sym::Gear, rgb(0xe0a040)),
        // Flasks and scarabs show their looks, which is all the camel knows before use.
        Item::Flask(glass) => (
            Sym::Flask,
            match glass {
                Glass::Cloudy => rgb(0xd8e0e8),
                Glass::Amber => rgb(0xffb030),
                Glass::Green => rgb(0x60e070),
            },
        ),
        Item::Scarab(stone) => (
            Sym::Scarab,
            match stone {
                Stone::Jade => rgb(0x40c0a0),
                Stone::Bone => rgb(0xf0e8d0),
                Stone::Copper => rgb(0xe08050),
            },
        ),
        Item::Rose => (Sym::Rose, rgb(0xffa0c0)),
        Item::Key => (Sym::Key, rgb(0xffd700)),
    }
}

/// Every glyph on the map with its colour and what it is, for the help screen's legend.
pub fn legend() -> Vec<(char, Color, &'static str)> {
    let glyph = |sym: Sym| GLYPHS[sym as usize].c;
    let terrain = [
        (Terrain::Sand, "sand"),
        (Terrain::Dune, "dunes (slow)"),
        (Terrain::Hardpan, "hardpan (quick)"),
        (Terrain::Cactus, "cactus"),
        (Terrain::Water, "water (fill skin)"),
        (Terrain::DoorClosed, "closed door"),
        (Terrain::DoorOpen, "open door"),
        (Terrain::DoorLocked, "locked door (key)"),
        (Terrain::Stairs, "stairs down"),
        (Terrain::Oasis, "the oasis"),
    ]
    .map(|(t, name)| {
        let (sym, fg, _) = terrain_look(t);
        (glyph(sym), fg, name)
    });
    let creatures = Species::ALL.map(|s| {
        let (sym, color) = species_look(s);
        (glyph(sym), color, s.name())
    });
    let items = [
        (Item::Date, "dates, cactus fruit"),
        (Item::Mushroom(Look::Violet), "mushroom"),
        (Item::Stone, "stone"),
        (Item::Spear, "spear, javelin"),
        (Item::Blanket, "gear (wear)"),
        (Item::Flask(Glass::Amber), "flask (a: drink)"),
        (Item::Scarab(Stone::Jade), "scarab (a: crack)"),
        (Item::Rose, "desert rose (a)"),
        (Item::Key, "key (opens a lock)"),
    ]
    .map(|(item, name)| {
        let (sym, color) = item_look(item);
        (glyph(sym), color, name)
    });
    terrain.into_iter().chain(creatures).chain(items).collect()
}

/// The colour a creature's glyph is drawn in; the side bar and panel use it too.
pub fn species_color(species: Species) -> Color {
    species_look(species).1
}

/// Draws the map. The ground and what lies on it change only when a command changes
/// them, so they are drawn once into a texture of their own and the frame shows that
/// texture, then the creatures over it.
pub struct Painter {
    pub atlas: Atlas,
    ground: Option<Ground>,
}

struct Ground {
    target: RenderTarget,
    /// What the texture shows: see `ground_key`.
    key: u64,
}

impl Painter {
    pub fn new() -> Painter {
        Painter {
            atlas: Atlas::new(GLYPHS),
            ground: None,
        }
    }

    /// Draws the map: ground, items, then creatures where `frame` shows them, as much of
    /// it as `sight` shows.
    pub fn draw(&mut self, state: &State, frame: &Frame, layout: &Layout, sight: Sight) {
        self.atlas.prepare(layout.cell.x, layout.cell.y);
        self.draw_ground(state, frame, layout, sight);
        let atlas = &self.atlas;
        let cell = layout.cell;
        let player = state.world().player_id();
        let seen = |a: &&super::animate::Actor| {
            let at = Pos::new(a.at.x.round() as i16, a.at.y.round() as i16);
            let hidden = sight == Sight::Camel && state.world().is_hidden(a.id);
            Some(a.id) == player || (sight.sees(state, at) && !hidden)
        };
        // The camel last, so that it is on top of anything passing through its cell.
        let order = frame
            .actors
            .iter()
            .filter(|a| Some(a.id) != player)
            .filter(seen)
            .chain(frame.actors.iter().filter(|a| Some(a.id) == player));
        for shown in order {
            let at = layout.cell_at(shown.at);
            let (sym, color) = species_look(shown.species);
            // A creature stands on a dark tile of its own: it reads as a piece on the
            // board, whatever the ground, and a moving one slides rather than flickers.
            // The camel's tile is gold, an ally's green, and a creature being hurt
            // flashes red.
            let ally = state.world().actor(shown.id).is_some_and(|a| a.is_ally());
            let under = if shown.hurt {
                Some(rgb(0xb01c1c))
            } else if Some(shown.id) == player {
                Some(rgb(0x7a5c1c))
            } else if ally {
                Some(rgb(0x1f6b35))
            } else {
                None
            };
            match under {
                Some(under) => {
                    atlas.fill(at.x, at.y, cell.x, cell.y, under);
                    atlas.draw(sym as usize, at.x, at.y, color);
                }
                None => atlas.draw_tile(sym as usize, at.x, at.y, color),
            }
        }
        if let Some((item, at)) = frame.flight {
            let (sym, color) = item_look(item);
            let at = layout.cell_at(at);
            atlas.draw(sym as usize, at.x, at.y, color);
        }
    }

    fn draw_ground(&mut self, state: &State, frame: &Frame, layout: &Layout, sight: Sight) {
        let (w, h) = (layout.map.w as u32, layout.map.h as u32);
        let key = ground_key(state, frame, layout, sight);
        let fresh = match &self.ground {
            Some(g) => g.key == key,
            None => false,
        };
        if !fresh {
            let target = match self.ground.take() {
                Some(g) if g.target.texture.size() == vec2(w as f32, h as f32) => g.target,
                _ => {
                    let target = render_target(w, h);
                    target.texture.set_filter(FilterMode::Nearest);
                    target
                }
            };
            let mut camera = Camera2D::from_display_rect(Rect::new(0.0, 0.0, w as f32, h as f32));
            camera.render_target = Some(target.clone());
            set_camera(&camera);
            clear_background(BACKGROUND);
            let origin = Layout {
                map_origin: Vec2::ZERO,
                ..*layout
            };
            draw_ground(&self.atlas, state, frame, &origin, sight);
            set_default_camera();
            self.ground = Some(Ground { target, key });
        }
        if let Some(ground) = &self.ground {
            draw_texture_ex(
                &ground.target.texture,
                layout.map.x,
                layout.map.y,
                WHITE,
                DrawTextureParams {
                    dest_size: Some(vec2(w as f32, h as f32)),
                    // A render target's rows run bottom to top.
                    flip_y: true,
                    ..Default::default()
                },
            );
        }
    }
}

/// Everything the ground texture depends on: the cell size, every cell's terrain and
/// whether it is seen or remembered, and every item on the floor that is not in the air.
/// A hash of a few thousand cells costs microseconds; drawing them costs milliseconds on
/// a software renderer.
fn ground_key(state: &State, frame: &Frame, layout: &Layout, sight: Sight) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (layout.cell.x as u32, layout.cell.y as u32).hash(&mut hasher);
    let map = state.world().map();
    (map.width(), map.height()).hash(&mut hasher);
    for pos in map.cells() {
        map.terrain(pos).hash(&mut hasher);
        (sight.sees(state, pos), sight.knows(state, pos)).hash(&mut hasher);
    }
    for (index, item) in state.world().floor().iter().enumerate() {
        if frame.hidden_item != Some(index) {
            item.hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// The ground and the items on it, with the map's first cell at `layout.map_origin`:
/// what the camel sees in full colour, what it remembers dimmed, the rest left dark.
fn draw_ground(atlas: &Atlas, state: &State, frame: &Frame, layout: &Layout, sight: Sight) {
    let map = state.world().map();
    let cell = layout.cell;
    let look = |pos: Pos, color: Color| {
        if sight.sees(state, pos) {
            color
        } else {
            remembered(color)
        }
    };
    for pos in map.cells().filter(|&p| sight.knows(state, p)) {
        let (sym, fg, bg) = terrain_look(map.terrain(pos));
        let at = layout.cell_at(cell_of(pos));
        atlas.fill(at.x, at.y, cell.x, cell.y, look(pos, bg));
        atlas.draw(sym as usize, at.x, at.y, look(pos, fg));
    }
    for (index, &(pos, item)) in state.world().floor().iter().enumerate() {
        if frame.hidden_item == Some(index) || !sight.knows(state, pos) {
            continue;
        }
        let (sym, color) = item_look(item);
        let at = layout.cell_at(cell_of(pos));
        let under = ground_under(map.terrain(pos));
        atlas.fill(at.x, at.y, cell.x, cell.y, look(pos, under));
        atlas.draw(sym as usize, at.x, at.y, look(pos, color));
    }
}

/// The cell colour behind something standing on `terrain`, so that the glyph of the
/// ground does not show through.
fn ground_under(terrain: Terrain) -> Color {
    terrain_look(terrain).2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_window_gives_readable_cells_and_room_for_the_rest() {
        let layout = Layout::new(1024.0, 640.0, 64, 40);
        assert!(layout.cell.x >= 12.0 && layout.cell.y >= 12.0, "{layout:?}");
        assert!(layout.map.right() <= layout.side.x, "{layout:?}");
        assert!(layout.map.bottom() <= layout.log.y, "{layout:?}");
        assert!(layout.side.w >= 190.0, "{layout:?}");
    }

    #[test]
    fn the_smallest_window_allowed_gives_readable_cells_and_room_for_the_rest() {
        for [w, h] in [super::super::MIN_WINDOW, super::super::DEFAULT_WINDOW] {
            let layout = Layout::new(w as f32, h as f32, 64, 40);
            assert!(layout.cell.x >= 10.0 && layout.cell.y >= 10.0, "{layout:?}");
            assert!(layout.map.right() <= layout.side.x, "{layout:?}");
            assert!(layout.map.bottom() <= layout.log.y, "{layout:?}");
            assert!(layout.side.right() <= w as f32, "{layout:?}");
            assert!(layout.log.bottom() <= h as f32, "{layout:?}");
        }
        let [w, h] = super::super::MIN_WINDOW;
        let under = Layout::new(w as f32 - 40.0, h as f32 - 40.0, 64, 40);
        assert!(under.cell.x < 10.0, "{under:?}");
    }

    #[test]
    fn a_bigger_window_gives_bigger_cells() {
        let small = Layout::new(1024.0, 640.0, 64, 40);
        let big = Layout::new(1920.0, 1080.0, 64, 40);
        assert!(big.cell.x > small.cell.x && big.cell.y > small.cell.y);
        assert!(big.text > small.text);
    }

    #[test]
    fn a_tiny_window_still_lays_out() {
        let layout = Layout::new(200.0, 100.0, 64, 40);
        assert!(layout.cell.x >= 3.0 && layout.cell.y >= 3.0);
    }

    #[test]
    fn the_legend_names_every_terrain_creature_and_item_glyph() {
        let legend = legend();
        assert_eq!(legend.len(), 10 + Species::ALL.len() + 9);
        for (sym, c) in [(Sym::Jackal, 'j'), (Sym::Cactus, 'Ψ'), (Sym::Spear, '/')] {
            assert!(legend.iter().any(|&(g, _, _)| g == c), "{sym:?}");
        }
    }

    #[test]
    fn every_symbol_has_a_glyph() {
        assert_eq!(GLYPHS.len(), Sym::Key as usize + 1);
    }
}
