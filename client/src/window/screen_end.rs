//! The end of a game: how it went, and what next (watch the replay, a new game, the menu).

use std::collections::BTreeMap;

use macroquad::prelude::*;
use sandglass_sim::message::Msg;
use sandglass_sim::species::Species;
use sandglass_sim::text::a;
use sandglass_sim::Change;
use sandglass_sim::{fold, Observer, State};
use sandglass_store::{GameId, GameMeta, Status};

use super::animate::Frame;
use super::draw_map::{Layout, Sight};
use super::hud::{self, ASK, BAD, DIM, GOOD, TEXT};
use super::{App, Go, Tape};
use crate::input::keys::{bind, Input, Key, Mode};

pub struct EndScreen {
    meta: GameMeta,
    state: State,
    tally: Tally,
}

/// What the camel did, counted from the messages of a fold of the whole tape (the state
/// keeps only the newest messages).
#[derive(Default)]
struct Tally {
    kills: BTreeMap<Species, u32>,
    dealt: i32,
    taken: i32,
    eaten: u32,
    death: Option<Death>,
    /// The last thing said was that the camel is parched and weakens.
    parched: bool,
}

/// What killed the camel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Death {
    By(Species),
    Thirst,
    Poison,
}

impl Death {
    /// How the end screen says it: "killed by an elephant", "of thirst".
    fn words(self) -> String {
        match self {
            Death::By(species) => format!("killed by {}", a(species.name())),
            Death::Thirst => "of thirst".into(),
            Death::Poison => "of poison".into(),
        }
    }
}

impl Observer for Tally {
    fn changed(&mut self, state: &State, change: &Change) {
        match change {
            // A death no creature dealt is thirst's (told just before) or poison's: the
            // only hurts that come from no one (`perform`).
            Change::Say(Msg::Died { by: None }) => {
                self.death = Some(match self.parched {
                    true => Death::Thirst,
                    false => Death::Poison,
                });
            }
            Change::Say(msg) => self.said(*msg),
            &Change::Hurt { actor, amount } if Some(actor) == state.world().player_id() => {
                // Every hurt counts, blows and poison alike, but only as far as the camel
                // had hit points to lose: the blow that kills takes what was left.
                let after = state.world().actor(actor).map_or(0, |camel| camel.hp());
                let before = i32::from(after) + i32::from(amount);
                self.taken += i32::from(amount).min(before.max(0));
            }
            _ => {}
        }
    }
}

impl Tally {
    fn said(&mut self, msg: Msg) {
        self.parched = msg == Msg::Parched;
        match msg {
            Msg::Killed {
                attacker: Species::Camel,
                target,
            } => *self.kills.entry(target).or_default() += 1,
            Msg::Hit {
                attacker: Species::Camel,
                damage,
                ..
            } => self.dealt += i32::from(damage),
            Msg::Ate(_) => self.eaten += 1,
            Msg::Died { by: Some(by) } => self.death = Some(Death::By(by)),
            _ => {}
        }
    }
}

impl EndScreen {
    pub fn new(app: &App, id: GameId) -> anyhow::Result<EndScreen> {
        let meta = app.store.meta(id)?;
        let events = app.store.events(id)?;
        let mut tally = Tally::default();
        let state = fold(meta.rules()?, events, &mut tally)?;
        Ok(EndScreen { meta, state, tally })
    }

    pub fn key(&mut self, key: Key) -> Go {
        match bind(Mode::List, key) {
            Some(Input::Letter('r')) => Go::Watch(Tape::Game(self.meta.id)),
            Some(Input::Letter('n')) => Go::NewGame {
                seed: None,
                ruleset: self.meta.header.ruleset,
            },
            Some(Input::Letter('q')) => Go::Exit,
            Some(Input::Confirm | Input::Escape | Input::Space) => Go::Menu,
            _ => Go::Stay,
        }
    }

    fn lines(&self) -> (String, Vec<(String, Color)>) {
        let meta = &self.meta;
        let t = &self.tally;
        let title = match meta.status {
            Status::Dead => match t.death {
                Some(death) => format!("You died on depth {}, {}.", meta.depth, death.words()),
                None => format!("You died on depth {}.", meta.depth),
            },
            Status::Won => "You reached the oasis!".to_owned(),
            Status::Quit => format!("You gave up the crossing on depth {}.", meta.depth),
            Status::Alive => format!("{} goes on.", meta.name),
        };
        let kills = if t.kills.is_empty() {
            "none".to_owned()
        } else {
            t.kills
                .iter()
                .map(|(s, n)| format!("{n} {}", plural(s.name(), *n)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let hp = self.state.world().player().map_or(0, |c| c.hp().max(0));
        let verdict = match meta.status {
            Status::Won => GOOD,
            Status::Dead => BAD,
            _ => TEXT,
        };
        let lines = vec![
            (
                format!(
                    "Game {} ({}, seed {})",
                    meta.name,
                    meta.header.ruleset.name(),
                    meta.header.seed
                ),
                DIM,
            ),
            (String::new(), TEXT),
            (format!("Turns          {}", meta.turns), TEXT),
            (format!("Commands       {}", meta.commands), TEXT),
            (format!("Deepest level  {}", meta.depth), TEXT),
            (format!("Hit points     {hp}"), verdict),
            (format!("Killed         {kills}"), TEXT),
            (
                format!("Damage dealt   {}, taken {}", t.dealt, t.taken),
                TEXT,
            ),
            (format!("Things eaten   {}", t.eaten), TEXT),
            (format!("Final hash     0x{:016x}", self.state.hash()), DIM),
            (String::new(), TEXT),
            ("r  watch the replay".to_owned(), ASK),
            ("n  new game".to_owned(), TEXT),
            ("Enter  back to the menu".to_owned(), TEXT),
            ("q  quit".to_owned(), TEXT),
        ];
        (title, lines)
    }

    pub fn draw(&self, app: &mut App) {
        let map = self.state.world().map();
        let layout = Layout::new(screen_width(), screen_height(), map.width(), map.height());
        app.painter.draw(
            &self.state,
            &Frame::still(&self.state),
            &layout,
            Sight::Everything,
        );
        // The last sight of the desert, dimmed behind the summary.
        draw_rectangle(
            0.0,
            0.0,
            screen_width(),
            screen_height(),
            Color::new(0.0, 0.0, 0.0, 0.55),
        );
        let (title, lines) = self.lines();
        let area = Rect::new(0.0, 0.0, screen_width(), screen_height());
        hud::dialog(&app.text, area, layout.text, &title, &lines);
    }
}

fn plural(name: &str, n: u32) -> String {
    if n == 1 {
        name.to_owned()
    } else {
        format!("{name}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{Rules, Ruleset};

    /// Counts what the messages say the camel took from blows, and whether it was ever
    /// poisoned.
    #[derive(Default)]
    struct Blows {
        taken: i32,
        poisoned: bool,
    }

    impl Observer for Blows {
        fn changed(&mut self, _state: &State, change: &Change) {
            match change {
                Change::Say(Msg::Hit {
                    target: Species::Camel,
                    damage,
                    ..
                }) => self.taken += i32::from(*damage),
                Change::Say(Msg::Poisoned) => self.poisoned = true,
                _ => {}
            }
        }
    }

    #[test]
    fn damage_taken_counts_poison_as_well_as_blows() {
        let poisoned = (0..40).find_map(|seed| {
            let rules = Rules::newest(Ruleset::NETHACK);
            let tape = Bot::new(seed).record(rules, seed, 3000);
            let mut tally = Tally::default();
            let mut blows = Blows::default();
            fold(rules, tape.events.iter().copied(), &mut tally).unwrap();
            fold(rules, tape.events.iter().copied(), &mut blows).unwrap();
            blows.poisoned.then_some((tally, blows))
        });
        let (tally, blows) = poisoned.expect("a camel poisoned in 40 bot games");
        assert!(
            tally.taken > blows.taken,
            "poison hurts beyond the blows: {} against {}",
            tally.taken,
            blows.taken
        );
    }
    #[test]
    fn the_summary_names_the_killer_with_its_article_and_quotes_no_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = sandglass_store::Store::open(dir.path()).unwrap();
        let tape = Bot::new(30).record(Rules::newest(Ruleset::NETHACK), 3, u64::MAX);
        let recording = sandglass_sim::Recording::record(tape.header, tape.events).unwrap();
        let meta = store
            .import(&recording, "last crossing", &mut |_, _| ())
            .unwrap();
        let mut end = EndScreen {
            meta,
            state: State::new(Rules::newest(Ruleset::NETHACK), &mut ()),
            tally: Tally::default(),
        };
        end.tally.death = Some(Death::By(Species::Elephant));
        end.meta.status = Status::Dead;
        let (title, lines) = end.lines();
        assert_eq!(
            title,
            format!(
                "You died on depth {}, killed by an elephant.",
                end.meta.depth
            )
        );
        assert!(lines[0]
            .0
            .starts_with("Game last crossing (nethack, seed 3)"));
        assert!(lines.iter().all(|(l, _)| !l.contains('`')), "{lines:?}");
    }
}
