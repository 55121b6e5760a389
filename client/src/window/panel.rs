//! The energy panel (F1): every actor's place in the time system, live.
//!
//! It reads a `State` and nothing else, so the game screen, the replay viewer and the
//! benchmark all show the same panel.

use egui_macroquad::egui::{
    self, Align, Color32, Context, Layout, RichText, Sense, Stroke, Ui, Vec2,
};
use sandglass_sim::ids::ActorId;
use sandglass_sim::tape::TimeModel;
use sandglass_sim::world::Actor;
use sandglass_sim::State;

use super::draw_map::{self, species_color, Scheme, Sight};
use crate::timing::Figures;

const ROW: f32 = 18.0;
const BAR: f32 = 120.0;
/// Column widths: marker, id, name, position, speed, bar, energy, step, ready.
const WIDTHS: [f32; 9] = [12.0, 40.0, 76.0, 50.0, 64.0, BAR, 44.0, 36.0, 60.0];

const WIDTH: f32 = 590.0;

/// Shows the panel while `open`; its close button clears `open`. It first appears in the
/// half of the map the camel is not in, its right edge at the side bar; once moved, it
/// opens where it was put (`at`, updated when the player lets go of it).
pub fn show(
    ctx: &Context,
    state: &State,
    (sight, scheme): (Sight, Scheme),
    open: &mut bool,
    layout: &draw_map::Layout,
    at: &mut Option<[f32; 2]>,
) {
    let start = at.unwrap_or_else(|| first_place(state, layout));
    let shown = egui::Window::new("Energy (F1)")
        .open(open)
        .default_pos(start)
        .default_width(WIDTH)
        .resizable(true)
        .show(ctx, |ui| contents(ui, state, sight, scheme));
    // Remembered only when the player lets go of it somewhere new: egui may nudge a
    // window on its own (to keep it on the screen), and that is not the player's choice.
    if let Some(shown) = shown {
        let rect = shown.response.rect;
        let let_go_here = ctx.input(|i| {
            i.pointer.any_released() && i.pointer.interact_pos().is_some_and(|p| rect.contains(p))
        });
        let corner = [rect.min.x, rect.min.y];
        if let_go_here && corner != start {
            *at = Some(corner);
        }
    }
}

/// The top-left corner for a panel that hides neither the side bar nor the camel.
fn first_place(state: &State, layout: &draw_map::Layout) -> [f32; 2] {
    let x = (layout.side.x - WIDTH - 10.0).max(0.0);
    let camel_y = state
        .world()
        .player()
        .map(|camel| layout.map_origin.y + layout.cell.y * f32::from(camel.pos().y));
    let map = layout.map;
    match camel_y {
        Some(y) if y < map.y + map.h / 2.0 => [x, map.y + map.h / 2.0],
        _ => [x, map.y + 10.0],
    }
}

/// The rows: the actors `sight` shows (the camel and those it sees, or every one).
fn contents(ui: &mut Ui, state: &State, sight: Sight, scheme: Scheme) {
    let time = state.world().time();
    let rules = match time {
        TimeModel::Nethack => format!(
            "{}: gain = speed, threshold {}",
            state.ruleset().name(),
            time.threshold()
        ),
        TimeModel::Classic { gain, threshold } => format!(
            "{}: gain {gain}, threshold {threshold}",
            state.ruleset().name()
        ),
    };
    let world = state.world();
    let shown =
        |id: ActorId| sight == Sight::Everything || world.is_player(id) || world.sees_actor(id);
    let actors: Vec<(ActorId, &Actor)> = world.actors().filter(|&(id, _)| shown(id)).collect();
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("tick {}", state.tick().0)).strong());
        ui.separator();
        ui.label(rules);
        ui.separator();
        match sight {
            Sight::Everything => ui.label(format!("{} actors", actors.len())),
            Sight::Camel => ui.label(format!("{} actors in view", actors.len())),
        };
    });
    ui.label(
        RichText::new("bar: energy; white mark: max energy; yellow mark: needed to act")
            .small()
            .weak(),
    );
    ui.separator();
    ui.horizontal(|ui| {
        let titles = [
            "", "id", "name", "pos", "speed", "energy", "", "step", "ready",
        ];
        for (title, width) in titles.into_iter().zip(WIDTHS) {
            cell(ui, width, RichText::new(title).strong());
        }
    })
    .response
    .on_hover_text(
        "speed: nethack, the speed it acts as often as, haste and slowness counted; \
         classic, its gain against an ordinary action's cost. step: a step onto the \
         ground it stands on, at its pace now (dunes cost more, hardpan less). ready: \
         the first turn it can act if it does nothing before",
    );
    let current = state.current_actor();
    egui::ScrollArea::vertical()
        .auto_shrink([false, true])
        .max_height(ui.ctx().screen_rect().height() * 0.6)
        .show_rows(ui, ROW, actors.len(), |ui, rows| {
            for &(id, actor) in &actors[rows] {
                row(ui, state, (id, actor), current == Some(id), scheme);
            }
        });
}

/// An actor's name in the panel, an ally's marked as one.
fn name(state: &State, id: ActorId, actor: &Actor) -> String {
    let name = state.world().name_of(id);
    match actor.is_ally() {
        true => format!("{name} (ally)"),
        false => name.to_owned(),
    }
}

fn row(ui: &mut Ui, state: &State, (id, actor): (ActorId, &Actor), acting: bool, scheme: Scheme) {
    let Some(figures) = Figures::of(state, id) else {
        return;
    };
    let color = species_color(actor.species(), scheme);
    let color = Color32::from_rgb(
        (color.r * 255.0) as u8,
        (color.g * 255.0) as u8,
        (color.b * 255.0) as u8,
    );
    let pos = actor.pos();
    ui.horizontal(|ui| {
        let [w_mark, w_id, w_name, w_pos, w_speed, _, w_energy, w_step, w_ready] = WIDTHS;
        cell(ui, w_mark, RichText::new(if acting { "▶" } else { "" }));
        cell(ui, w_id, RichText::new(format!("#{}", id.0)).monospace());
        cell(
            ui,
            w_name,
            RichText::new(name(state, id, actor)).color(color),
        );
        cell(ui, w_pos, mono(format!("{},{}", pos.x, pos.y)));
        cell(ui, w_speed, mono(figures.speed.clone()));
        energy_bar(ui, &figures, state.world().is_ready(id));
        cell(ui, w_energy, mono(figures.energy.to_string()));
        cell(ui, w_step, mono(figures.step.to_string()));
        cell(ui, w_ready, mono(figures.ready.to_string()));
    });
}

/// Energy against the most the actor can hold when it acts, with marks at what it may
/// carry into the next tick and at what it needs to act.
fn energy_bar(ui: &mut Ui, figures: &Figures, ready: bool) {
    let (rect, _) = ui.allocate_exact_size(Vec2::new(BAR, ROW - 6.0), Sense::hover());
    let scale = f32::from(figures.peak.max(1));
    let x_of = |energy: u16| rect.left() + rect.width() * (f32::from(energy) / scale).min(1.0);
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, Color32::from_gray(40));
    let fill = if ready {
        Color32::from_rgb(90, 190, 90)
    } else {
        Color32::from_rgb(70, 120, 200)
    };
    let mut filled = rect;
    filled.set_right(x_of(figures.energy));
    painter.rect_filled(filled, 2.0, fill);
    for (energy, color) in [
        (figures.carried, Color32::WHITE),
        (figures.needed, Color32::YELLOW),
    ] {
        let x = x_of(energy);
        painter.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            Stroke::new(2.0, color),
        );
    }
}

fn mono(text: String) -> RichText {
    RichText::new(text).monospace()
}

/// A left-aligned cell of a fixed width, so that the rows line up as columns.
fn cell(ui: &mut Ui, width: f32, text: RichText) {
    ui.allocate_ui_with_layout(
        Vec2::new(width, ROW),
        Layout::left_to_right(Align::Center),
        |ui| {
            ui.set_min_width(width);
            ui.add(egui::Label::new(text).truncate());
        },
    );
}
