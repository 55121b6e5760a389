//! The energy panel (F1): every actor's place in the time system, live.
//!
//! It reads a `State` and nothing else, so the game screen, the replay viewer and the
//! benchmark all show the same panel.

use egui_macroquad::egui::{
    self, Align, Color32, Context, Layout, RichText, Sense, Stroke, Ui, Vec2,
};
use sandglass_sim::energy::Cost;
use sandglass_sim::ids::ActorId;
use sandglass_sim::tape::TimeModel;
use sandglass_sim::world::Actor;
use sandglass_sim::State;

use super::draw_map::species_color;

const ROW: f32 = 18.0;
const BAR: f32 = 120.0;
/// Column widths: marker, id, name, position, speed, bar, energy, next cost, ready.
const WIDTHS: [f32; 9] = [12.0, 40.0, 76.0, 50.0, 44.0, BAR, 52.0, 36.0, 44.0];

const WIDTH: f32 = 570.0;

/// Shows the panel while `open`; its close button clears `open`. It first appears with
/// its right edge at `right`, so as not to cover the side bar.
pub fn show(ctx: &Context, state: &State, open: &mut bool, right: f32) {
    egui::Window::new("Energy (F1)")
        .open(open)
        .default_pos([(right - WIDTH - 10.0).max(0.0), 30.0])
        .default_width(WIDTH)
        .resizable(true)
        .show(ctx, |ui| contents(ui, state));
}

fn contents(ui: &mut Ui, state: &State) {
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
    let actors: Vec<(ActorId, &Actor)> = state.world().actors().collect();
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("tick {}", state.tick().0)).strong());
        ui.separator();
        ui.label(rules);
        ui.separator();
        ui.label(format!("{} actors", actors.len()));
    });
    ui.label(
        RichText::new("bar: energy; white mark: max energy; yellow mark: needed to act")
            .small()
            .weak(),
    );
    ui.separator();
    ui.horizontal(|ui| {
        let titles = [
            "", "id", "name", "pos", "speed", "energy", "", "cost", "ready",
        ];
        for (title, width) in titles.into_iter().zip(WIDTHS) {
            cell(ui, width, RichText::new(title).strong());
        }
    })
    .response
    .on_hover_text(
        "cost: an ordinary action at the actor's pace now (steps onto dunes cost more, \
         onto hardpan less); ready: the first tick it can act if it does nothing before",
    );
    let current = state.current_actor();
    egui::ScrollArea::vertical()
        .auto_shrink([false, true])
        .max_height(ui.ctx().screen_rect().height() * 0.6)
        .show_rows(ui, ROW, actors.len(), |ui, rows| {
            for &(id, actor) in &actors[rows] {
                row(ui, state, id, actor, current == Some(id));
            }
        });
}

fn row(ui: &mut Ui, state: &State, id: ActorId, actor: &Actor, acting: bool) {
    let time = state.world().time();
    let stats = actor.stats();
    let color = species_color(actor.species());
    let color = Color32::from_rgb(
        (color.r * 255.0) as u8,
        (color.g * 255.0) as u8,
        (color.b * 255.0) as u8,
    );
    let speed = match time {
        TimeModel::Nethack => stats.speed.to_string(),
        TimeModel::Classic { gain, .. } => format!("{gain}/{}", stats.move_cost),
    };
    let max = time.max_energy(&stats);
    let cost = time.cost(&stats, Cost::Action, state.world().pace(id));
    let ready = if acts_this_tick(state, id) {
        "now".to_owned()
    } else {
        match state.next_ready_tick(id) {
            Some(tick) => tick.0.to_string(),
            None => "-".to_owned(),
        }
    };
    let pos = actor.pos();
    ui.horizontal(|ui| {
        let [w_mark, w_id, w_name, w_pos, w_speed, _, w_energy, w_cost, w_ready] = WIDTHS;
        cell(ui, w_mark, RichText::new(if acting { "▶" } else { "" }));
        cell(ui, w_id, RichText::new(format!("#{}", id.0)).monospace());
        cell(
            ui,
            w_name,
            RichText::new(state.world().name_of(id)).color(color),
        );
        cell(ui, w_pos, mono(format!("{},{}", pos.x, pos.y)));
        cell(ui, w_speed, mono(speed));
        energy_bar(ui, state, id, actor);
        cell(
            ui,
            w_energy,
            mono(format!("{}/{max}", state.world().energy(id).0)),
        );
        cell(ui, w_cost, mono(cost.to_string()));
        cell(ui, w_ready, mono(ready));
    });
}

/// Ready, and its turn in this tick's order is now or still to come.
fn acts_this_tick(state: &State, id: ActorId) -> bool {
    let order = state.world().turn_order();
    let (Some(current), Some(mine)) = (
        state
            .current_actor()
            .and_then(|c| order.iter().position(|&a| a == c)),
        order.iter().position(|&a| a == id),
    ) else {
        return false;
    };
    mine >= current && state.world().is_ready(id)
}

/// Energy against the most the actor can hold when it acts, with marks at its max
/// energy (what it may carry into the next tick) and at what it needs to act.
fn energy_bar(ui: &mut Ui, state: &State, id: ActorId, actor: &Actor) {
    let time = state.world().time();
    let stats = actor.stats();
    let energy = state.world().energy(id);
    let (rect, _) = ui.allocate_exact_size(Vec2::new(BAR, ROW - 6.0), Sense::hover());
    let scale = f32::from(time.peak(&stats).max(1));
    let x_of = |energy: u16| rect.left() + rect.width() * (f32::from(energy) / scale).min(1.0);
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, Color32::from_gray(40));
    let ready = state.world().is_ready(id);
    let fill = if ready {
        Color32::from_rgb(90, 190, 90)
    } else {
        Color32::from_rgb(70, 120, 200)
    };
    let mut filled = rect;
    filled.set_right(x_of(energy.0));
    painter.rect_filled(filled, 2.0, fill);
    for (energy, color) in [
        (time.max_energy(&stats), Color32::WHITE),
        (time.ready_at(&stats), Color32::YELLOW),
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
