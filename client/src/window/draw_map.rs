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
use super::view::follow;

/// Where the parts of the game screen go, recomputed every frame from the window size so
/// that resizing just works.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The top-left corner of the map's first cell, which is off the screen while the
    /// view has moved on from it.
    pub map_origin: Vec2,
    /// One cell, in whole pixels.
    pub cell: Vec2,
    /// The map's cells in view, as drawn.
    pub map: Rect,
    /// The first cell in view, and how many are, across and down.
    pub first: Pos,
    pub cells: (i16, i16),
    /// The cell height that fits the whole map, where glyph sizes step from.
    pub fitted: f32,
    pub side: Rect,
    pub log: Rect,
    /// The size of interface text, in pixels.
    pub text: f32,
}

/// Lines of messages shown under the map.
pub const LOG_LINES: usize = 5;
const MARGIN: f32 = 6.0;

impl Layout {
    /// The layout for a `map_w` by `map_h` map in a `width` by `height` window, its cells
    /// as large as fit the whole map.
    pub fn new(width: f32, height: f32, map_w: u16, map_h: u16) -> Layout {
        Layout::sized(width, height, (map_w, map_h), None, None)
    }

    /// The layout with cells of `glyph` pixels (`None`: as large as fit the whole map);
    /// when the map does not fit, the view follows `focus`, the camel (`view::follow`).
    pub fn sized(
        width: f32,
        height: f32,
        (map_w, map_h): (u16, u16),
        glyph: Option<u16>,
        focus: Option<Pos>,
    ) -> Layout {
        let text = (height / 44.0).clamp(13.0, 22.0).round();
        let side_w = (width * 0.22).clamp(200.0, 340.0).round();
        let log_h = (LOG_LINES as f32 * line_height(text) + 2.0 * MARGIN).round();
        let (cols, rows) = (map_w.max(1), map_h.max(1));
        let (map_w, map_h) = (f32::from(cols), f32::from(rows));
        let room_w = (width - side_w - 3.0 * MARGIN).max(map_w * 3.0);
        let room_h = (height - log_h - 3.0 * MARGIN).max(map_h * 3.0);
        // Cells no wider than tall, and not much taller than wide: glyphs are tall, but a
        // map stretched thin is hard to read.
        let mut cell_w = (room_w / map_w).floor().max(3.0);
        let mut cell_h = (room_h / map_h).floor().max(3.0);
        cell_w = cell_w.min(cell_h);
        cell_h = cell_h.min((cell_w * 1.4).ceil());
        let fitted = cell_h;
        let cell = match glyph {
            Some(size) => Vec2::splat(f32::from(size)),
            None => vec2(cell_w, cell_h),
        };
        let shown = |room: f32, side: f32, all: u16| ((room / side).floor() as u16).clamp(1, all);
        let cells = (shown(room_w, cell.x, cols), shown(room_h, cell.y, rows));
        let focus = focus.unwrap_or(Pos::new(cols as i16 / 2, rows as i16 / 2));
        let first = Pos::new(
            follow(focus.x.into(), cells.0.into(), cols.into()) as i16,
            follow(focus.y.into(), cells.1.into(), rows.into()) as i16,
        );
        let size = vec2(cell.x * f32::from(cells.0), cell.y * f32::from(cells.1));
        let map_area = Rect::new(MARGIN, MARGIN, room_w, room_h);
        let corner = vec2(
            (map_area.x + (map_area.w - size.x) / 2.0).floor(),
            (map_area.y + (map_area.h - size.y) / 2.0).floor(),
        );
        let side_x = (corner.x + size.x + MARGIN).max(width - side_w - MARGIN);
        Layout {
            map_origin: corner - vec2(first.x.into(), first.y.into()) * cell,
            cell,
            map: Rect::new(corner.x, corner.y, size.x, size.y),
            first,
            cells: (cells.0 as i16, cells.1 as i16),
            fitted,
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

    /// Whether the cell at `at` (in cells, between two while something moves) is wholly
    /// in view: nothing is drawn cut off at the view's edge.
    pub fn shows(&self, at: Vec2) -> bool {
        let (x, y) = (
            at.x - f32::from(self.first.x),
            at.y - f32::from(self.first.y),
        );
        x >= 0.0 && y >= 0.0 && x <= f32::from(self.cells.0 - 1) && y <= f32::from(self.cells.1 - 1)
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
    Lion,
    Ratel,
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
    // Glyphs of their own in high contrast, for what the normal colours alone tell apart.
    Palm,
    Lock,
    Fruit,
    Javelin,
    Boots,
    Barding,
    Vulture,
    Locusts,
    Fennec,
    Viper,
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
    creature('L'), // lion
    creature('r'), // ratel
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
    thing('♣'),    // the oasis, in high contrast: a palm
    thing('‡'),    // locked door, in high contrast
    thing('♥'),    // cactus fruit, in high contrast
    thing('|'),    // javelin, in high contrast
    thing(']'),    // boots, in high contrast
    thing('('),    // barding, in high contrast
    creature('v'), // vulture
    creature('l'), // locust swarm
    creature('f'), // fennec
    creature('V'), // horned viper
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

/// The colours, and a few glyphs, the map is drawn in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Scheme {
    #[default]
    Normal,
    /// Everything told apart by its glyph, by brightness, or by blue against orange,
    /// never by red against green alone: for colour-blind eyes and dim screens.
    HighContrast,
}

impl Scheme {
    pub fn of(high_contrast: bool) -> Scheme {
        if high_contrast {
            Scheme::HighContrast
        } else {
            Scheme::Normal
        }
    }
}

/// How a terrain looks: its glyph and colour, and the colour of its cell.
fn terrain_look(terrain: Terrain, scheme: Scheme) -> (Sym, Color, Color) {
    if scheme == Scheme::HighContrast {
        return terrain_high_contrast(terrain);
    }
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

/// Near-black cells, bright glyphs; water and the oasis blue, dunes and doors orange.
fn terrain_high_contrast(terrain: Terrain) -> (Sym, Color, Color) {
    match terrain {
        Terrain::Sand => (Sym::Sand, rgb(0x8c8c8c), rgb(0x121212)),
        Terrain::Dune => (Sym::Dune, rgb(0xffa030), rgb(0x3a2200)),
        Terrain::Hardpan => (Sym::Hardpan, rgb(0xd0d0d0), rgb(0x2a2a2a)),
        Terrain::Cactus => (Sym::Cactus, rgb(0xffffff), rgb(0x383838)),
        Terrain::Water => (Sym::Water, rgb(0x60b0ff), rgb(0x002a66)),
        Terrain::DoorClosed => (Sym::DoorClosed, rgb(0xffb000), rgb(0x301800)),
        Terrain::DoorOpen => (Sym::DoorOpen, rgb(0xffb000), rgb(0x121212)),
        Terrain::Stairs => (Sym::Stairs, rgb(0xffffff), rgb(0x3030a0)),
        Terrain::Oasis => (Sym::Palm, rgb(0xa0e0ff), rgb(0x003a70)),
        Terrain::DoorLocked => (Sym::Lock, rgb(0xffffff), rgb(0x703800)),
    }
}

/// Bright colours the ground never uses, so a creature is never lost in its cell. Every
/// creature has a letter of its own; in high contrast the colours are bright, on the
/// blue-orange scale.
fn species_look(species: Species, scheme: Scheme) -> (Sym, Color) {
    if scheme == Scheme::HighContrast {
        let (sym, _) = species_look(species, Scheme::Normal);
        let color = match species {
            Species::Camel | Species::SpiderEgg => 0xffffff,
            Species::Snake => 0xffd000,
            Species::Elephant => 0xb0c8ff,
            Species::Spider => 0xff8c00,
            Species::Jackal => 0xffb060,
            Species::Scorpion => 0x70a0ff,
            Species::Cobra => 0x40e0ff,
            Species::Meerkat => 0xfff080,
            Species::Sandworm => 0xffc0a0,
            Species::Hyena => 0xff9040,
            Species::Tortoise => 0x5080ff,
            Species::Lion => 0xffe000,
            Species::Ratel => 0xd0d0d0,
            Species::Vulture => 0xe0b0ff,
            Species::Locusts => 0xc0ff40,
            Species::Fennec => 0xffe8c0,
            Species::Viper => 0xff70ff,
        };
        return (sym, rgb(color));
    }
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
        Species::Lion => (Sym::Lion, rgb(0xffc040)),
        Species::Ratel => (Sym::Ratel, rgb(0xb8b8c8)),
        Species::Vulture => (Sym::Vulture, rgb(0xd8a0ff)),
        Species::Locusts => (Sym::Locusts, rgb(0xd0f040)),
        Species::Fennec => (Sym::Fennec, rgb(0xf0d8a8)),
        Species::Viper => (Sym::Viper, rgb(0xc8a0ff)),
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

fn item_look(item: Item, scheme: Scheme) -> (Sym, Color) {
    if scheme == Scheme::HighContrast {
        return item_high_contrast(item);
    }
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

/// Items in high contrast: a glyph of their own where only a colour told them apart, and
/// looks (which are all the camel knows of a mushroom, flask or scarab) apart by
/// brightness and by blue against orange.
fn item_high_contrast(item: Item) -> (Sym, Color) {
    let (sym, color) = match item {
        Item::Date => (Sym::Food, 0xff9a30),
        Item::CactusFruit => (Sym::Fruit, 0xffc0e0),
        Item::Mushroom(look) => (
            Sym::Mushroom,
            match look {
                Look::Red => 0xff7000,
                Look::Brown => 0xa06020,
                Look::Speckled => 0xffff70,
                Look::Pale => 0xc8c8c8,
                Look::Violet => 0x7090ff,
            },
        ),
        Item::Stone => (Sym::Stone, 0xb0b0b0),
        Item::Spear => (Sym::Spear, 0xffffff),
        Item::Javelin => (Sym::Javelin, 0x90c0ff),
        Item::Blanket => (Sym::Gear, 0xff9030),
        Item::Boots => (Sym::Boots, 0xd0a070),
        Item::Barding => (Sym::Barding, 0xffd060),
        Item::Flask(glass) => (
            Sym::Flask,
            match glass {
                Glass::Cloudy => 0xe0e0e0,
                Glass::Amber => 0xff9000,
                Glass::Green => 0x4090ff,
            },
        ),
        Item::Scarab(stone) => (
            Sym::Scarab,
            match stone {
                Stone::Jade => 0x40a0ff,
                Stone::Bone => 0xffffff,
                Stone::Copper => 0xff8030,
            },
        ),
        Item::Rose => (Sym::Rose, 0xffc080),
        Item::Key => (Sym::Key, 0xffd700),
    };
    (sym, rgb(color))
}

/// Every glyph on the map with its colour and what it is, for the help screen's legend.
pub fn legend(scheme: Scheme) -> Vec<(char, Color, &'static str)> {
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
        let (sym, fg, _) = terrain_look(t, scheme);
        (glyph(sym), fg, name)
    });
    let creatures = Species::ALL.map(|s| {
        let (sym, color) = species_look(s, scheme);
        (glyph(sym), color, s.name())
    });
    let shared = [
        (Item::Date, "dates, cactus fruit"),
        (Item::Mushroom(Look::Violet), "mushroom"),
        (Item::Stone, "stone"),
        (Item::Spear, "spear, javelin"),
        (Item::Blanket, "gear (wear)"),
        (Item::Flask(Glass::Amber), "flask (a: drink)"),
        (Item::Scarab(Stone::Jade), "scarab (a: crack)"),
        (Item::Rose, "desert rose (a)"),
        (Item::Key, "key (opens a lock)"),
    ];
    // What high contrast gives glyphs of their own, each on a line of its own.
    let apart = [
        (Item::Date, "dates"),
        (Item::CactusFruit, "cactus fruit"),
        (Item::Spear, "spear"),
        (Item::Javelin, "javelin"),
        (Item::Blanket, "blanket (wear)"),
        (Item::Boots, "boots (wear)"),
        (Item::Barding, "barding (wear)"),
    ];
    let items: Vec<(Item, &str)> = match scheme {
        Scheme::Normal => shared.to_vec(),
        Scheme::HighContrast => shared
            .iter()
            .filter(|(item, _)| !matches!(item, Item::Date | Item::Spear | Item::Blanket))
            .chain(apart.iter())
            .copied()
            .collect(),
    };
    let items = items.into_iter().map(|(item, name)| {
        let (sym, color) = item_look(item, scheme);
        (glyph(sym), color, name)
    });
    terrain.into_iter().chain(creatures).chain(items).collect()
}

/// The colour a creature's glyph is drawn in; the side bar and panel use it too.
pub fn species_color(species: Species, scheme: Scheme) -> Color {
    species_look(species, scheme).1
}

/// Draws the map. The ground and what lies on it change only when a command changes
/// them, so they are drawn once into a texture of their own and the frame shows that
/// texture, then the creatures over it.
pub struct Painter {
    pub atlas: Atlas,
    /// The colours to draw in (the player's choice, set before each frame).
    pub scheme: Scheme,
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
            scheme: Scheme::Normal,
            ground: None,
        }
    }

    /// Draws the map: ground, items, then creatures where `frame` shows them, as much of
    /// it as `sight` shows.
    pub fn draw(&mut self, state: &State, frame: &Frame, layout: &Layout, sight: Sight) {
        self.atlas.prepare(layout.cell.x, layout.cell.y);
        self.draw_ground(state, frame, layout, sight);
        let (atlas, scheme) = (&self.atlas, self.scheme);
        let cell = layout.cell;
        let player = state.world().player_id();
        let seen = |a: &&super::animate::Actor| {
            let at = Pos::new(a.at.x.round() as i16, a.at.y.round() as i16);
            let hidden = sight == Sight::Camel && state.world().is_hidden(a.id);
            layout.shows(a.at) && (Some(a.id) == player || (sight.sees(state, at) && !hidden))
        };
        // The camel last, so that it is on top of anything passing through its cell.
        let order = frame
            .actors
            .iter()
            .filter(|a| Some(a.id) != player)
            .filter(seen)
            .chain(
                frame
                    .actors
                    .iter()
                    .filter(|a| Some(a.id) == player && layout.shows(a.at)),
            );
        for shown in order {
            let at = layout.cell_at(shown.at);
            let (sym, mut color) = species_look(shown.species, scheme);
            // A creature stands on a dark tile of its own: it reads as a piece on the
            // board, whatever the ground, and a moving one slides rather than flickers.
            // The camel's tile is gold, an ally's green (blue in high contrast), and a
            // creature being hurt flashes red (white, its glyph dark, in high contrast).
            let ally = state.world().actor(shown.id).is_some_and(|a| a.is_ally());
            let high = scheme == Scheme::HighContrast;
            let under = if shown.hurt && high {
                color = BACKGROUND;
                Some(WHITE)
            } else if shown.hurt {
                Some(rgb(0xb01c1c))
            } else if Some(shown.id) == player {
                Some(rgb(0x7a5c1c))
            } else if ally && high {
                Some(rgb(0x1a4a9a))
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
        if let Some((item, at)) = frame.flight.filter(|&(_, at)| layout.shows(at)) {
            let (sym, color) = item_look(item, scheme);
            let at = layout.cell_at(at);
            atlas.draw(sym as usize, at.x, at.y, color);
        }
    }

    fn draw_ground(&mut self, state: &State, frame: &Frame, layout: &Layout, sight: Sight) {
        let (w, h) = (layout.map.w as u32, layout.map.h as u32);
        let key = ground_key(state, frame, layout, (sight, self.scheme));
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
            // The view's first cell at the texture's corner.
            let origin = Layout {
                map_origin: layout.map_origin - layout.map.point(),
                ..*layout
            };
            draw_ground(&self.atlas, state, frame, &origin, (sight, self.scheme));
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
fn ground_key(state: &State, frame: &Frame, layout: &Layout, seen: (Sight, Scheme)) -> u64 {
    use std::hash::{Hash, Hasher};
    let (sight, scheme) = seen;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    scheme.hash(&mut hasher);
    (layout.cell.x as u32, layout.cell.y as u32).hash(&mut hasher);
    (layout.first, layout.cells).hash(&mut hasher);
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
fn draw_ground(
    atlas: &Atlas,
    state: &State,
    frame: &Frame,
    layout: &Layout,
    seen: (Sight, Scheme),
) {
    let (sight, scheme) = seen;
    let map = state.world().map();
    let cell = layout.cell;
    let look = |pos: Pos, color: Color| {
        if sight.sees(state, pos) {
            color
        } else {
            remembered(color)
        }
    };
    let shown = |pos: Pos| layout.shows(cell_of(pos));
    for pos in map.cells().filter(|&p| shown(p) && sight.knows(state, p)) {
        let (sym, fg, bg) = terrain_look(map.terrain(pos), scheme);
        let at = layout.cell_at(cell_of(pos));
        atlas.fill(at.x, at.y, cell.x, cell.y, look(pos, bg));
        atlas.draw(sym as usize, at.x, at.y, look(pos, fg));
    }
    for (index, &(pos, item)) in state.world().floor().iter().enumerate() {
        if frame.hidden_item == Some(index) || !shown(pos) || !sight.knows(state, pos) {
            continue;
        }
        let (sym, color) = item_look(item, scheme);
        let at = layout.cell_at(cell_of(pos));
        let under = terrain_look(map.terrain(pos), scheme).2;
        atlas.fill(at.x, at.y, cell.x, cell.y, look(pos, under));
        atlas.draw(sym as usize, at.x, at.y, look(pos, color));
    }
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
        let legend = legend(Scheme::Normal);
        assert_eq!(legend.len(), 10 + Species::ALL.len() + 9);
        for (sym, c) in [(Sym::Jackal, 'j'), (Sym::Cactus, 'Ψ'), (Sym::Spear, '/')] {
            assert!(legend.iter().any(|&(g, _, _)| g == c), "{sym:?}");
        }
    }

    #[test]
    fn in_high_contrast_no_two_things_share_a_glyph() {
        let legend = legend(Scheme::HighContrast);
        assert_eq!(legend.len(), 10 + Species::ALL.len() + 9 + 4);
        for (i, (glyph, _, name)) in legend.iter().enumerate() {
            for (other, _, other_name) in &legend[i + 1..] {
                assert_ne!(glyph, other, "{name} and {other_name}");
            }
        }
    }

    #[test]
    fn in_high_contrast_looks_differ_in_brightness_or_blue_against_orange() {
        // Red against green is what most colour-blind eyes cannot tell: two looks of
        // one thing must differ by more than that, in brightness or in blue less red.
        let apart = |a: Color, b: Color| {
            let light = |c: Color| 0.3 * c.r + 0.59 * c.g + 0.11 * c.b;
            let warmth = |c: Color| c.b - c.r;
            (light(a) - light(b)).abs() > 0.12 || (warmth(a) - warmth(b)).abs() > 0.3
        };
        let looks: [&[Item]; 3] = [
            &Look::ALL.map(Item::Mushroom),
            &[Glass::Cloudy, Glass::Amber, Glass::Green].map(Item::Flask),
            &[Stone::Jade, Stone::Bone, Stone::Copper].map(Item::Scarab),
        ];
        for items in looks {
            for (i, &a) in items.iter().enumerate() {
                for &b in &items[i + 1..] {
                    let (ca, cb) = (
                        item_look(a, Scheme::HighContrast).1,
                        item_look(b, Scheme::HighContrast).1,
                    );
                    assert!(apart(ca, cb), "{a:?} and {b:?}");
                }
            }
        }
    }

    #[test]
    fn every_glyph_is_in_the_font() {
        for (bytes, bold) in [
            (
                &include_bytes!("../../assets/DejaVuSansMono.ttf")[..],
                false,
            ),
            (
                &include_bytes!("../../assets/DejaVuSansMono-Bold.ttf")[..],
                true,
            ),
        ] {
            let font = fontdue::Font::from_bytes(bytes, fontdue::FontSettings::default()).unwrap();
            for glyph in GLYPHS.iter().filter(|g| g.bold == bold) {
                assert_ne!(font.lookup_glyph_index(glyph.c), 0, "{:?}", glyph.c);
            }
        }
    }

    #[test]
    fn every_glyph_size_on_small_and_large_screens_leaves_nothing_cut_off() {
        let screens = [[1280.0, 720.0], [3840.0, 2160.0], [860.0, 540.0]];
        let corners = [(0, 0), (63, 39), (0, 39), (32, 20), (63, 0)];
        for [w, h] in screens {
            for size in super::super::view::GLYPH_SIZES
                .map(Some)
                .into_iter()
                .chain([None])
            {
                for (x, y) in corners {
                    let camel = Pos::new(x, y);
                    let layout = Layout::sized(w, h, (64, 40), size, Some(camel));
                    let case = format!("{w}x{h} {size:?} {camel:?}: {layout:?}");
                    assert!(layout.map.x >= 0.0 && layout.map.y >= 0.0, "{case}");
                    assert!(layout.map.right() <= layout.side.x, "{case}");
                    assert!(layout.map.bottom() <= layout.log.y, "{case}");
                    assert!(layout.side.right() <= w, "{case}");
                    assert!(
                        layout.shows(super::super::animate::cell_of(camel)),
                        "{case}"
                    );
                    assert_eq!(
                        layout.cell_under(layout.cell_at(cell_of(camel)) + 1.0),
                        Some(camel),
                        "{case}"
                    );
                    if let Some(size) = size {
                        assert_eq!(layout.cell, Vec2::splat(f32::from(size)), "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_map_larger_than_the_view_shows_whole_cells_around_the_camel() {
        let layout = Layout::sized(1280.0, 720.0, (64, 40), Some(48), Some(Pos::new(40, 20)));
        assert!(layout.cells.0 < 64 && layout.cells.1 < 40, "{layout:?}");
        assert_eq!(layout.map.w, 48.0 * f32::from(layout.cells.0));
        assert_eq!(layout.map.h, 48.0 * f32::from(layout.cells.1));
        assert_eq!(layout.first.x, 40 - layout.cells.0 / 2);
        assert!(!layout.shows(vec2(0.0, 0.0)));
    }

    #[test]
    fn every_symbol_has_a_glyph() {
        assert_eq!(GLYPHS.len(), Sym::Viper as usize + 1);
    }
}
