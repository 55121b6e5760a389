//! Scenarios: a ruleset, an ASCII map and some actors, with no player, for watching and
//! tuning the time system. They are written as TOML files (`docs/scenarios.md`); the
//! simulation takes them already parsed (`serde` derives the shape; whoever reads the
//! file parses it) and builds the state through the same changes as a game.

use serde::Deserialize;
use thiserror::Error;

use crate::energy::Stats;
use crate::geometry::Pos;
use crate::ids::ActorId;
use crate::map::{Map, Terrain};
use crate::rules::Rules;
use crate::species::{Behaviour, Species};
use crate::state::State;
use crate::tape::{Ruleset, TimeModel, TurnOrder};
use crate::world::Change;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub ruleset: String,
    /// `classic` only.
    pub gain: Option<u16>,
    /// `classic` only.
    pub threshold: Option<u16>,
    /// "initiative" (default) or "weighted".
    pub order: Option<String>,
    /// Seeds the generator that answers the scenario's draws.
    #[serde(default)]
    pub seed: u64,
    pub map: String,
    #[serde(default, rename = "actor")]
    pub actors: Vec<ActorSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorSpec {
    pub name: String,
    pub at: [i16; 2],
    pub species: Option<String>,
    pub behaviour: Option<String>,
    pub speed: Option<u16>,
    pub max_energy: Option<u16>,
    pub move_cost: Option<u16>,
}

#[derive(Debug, Error)]
pub enum ScenarioError {
    #[error("unknown ruleset {0:?}: expected \"classic\" or \"nethack\"")]
    Ruleset(String),
    #[error("unknown order {0:?}: expected \"initiative\" or \"weighted\"")]
    Order(String),
    #[error("`gain` and `threshold` apply to the classic ruleset only")]
    ClassicOnly,
    #[error("map line {line}: unknown terrain {glyph:?}")]
    Terrain { line: usize, glyph: char },
    #[error("the map is empty or larger than 1000 x 1000")]
    MapSize,
    #[error("actor {name:?}: {problem}")]
    Actor { name: String, problem: String },
}

impl Scenario {
    /// The scenario's starting state. Draws are answered by `drive::Live::resume` with
    /// the scenario's seed.
    pub fn build(&self) -> Result<State, ScenarioError> {
        let ruleset = self.ruleset()?;
        let names = (0..)
            .map(ActorId)
            .zip(self.actors.iter().map(|spec| spec.name.clone()))
            .collect();
        // Scenarios are read afresh by each build: they play under its newest rules.
        let rules = Rules::newest(ruleset);
        let mut state = State::without_player(rules, parse_map(&self.map)?, names);
        for spec in &self.actors {
            let actor = ActorId(state.world().actor_count() as u32);
            let (species, behaviour, stats, at) = spec.actor(ruleset.time, state.world().map())?;
            state.set_up(Change::Spawn {
                actor,
                species,
                behaviour,
                stats,
                at,
            });
        }
        Ok(state)
    }

    fn ruleset(&self) -> Result<Ruleset, ScenarioError> {
        let order = match self.order.as_deref() {
            None | Some("initiative") => TurnOrder::Initiative,
            Some("weighted") => TurnOrder::WeightedEachTick,
            Some(other) => return Err(ScenarioError::Order(other.into())),
        };
        let time = match self.ruleset.as_str() {
            "classic" => TimeModel::Classic {
                gain: self.gain.unwrap_or(100),
                threshold: self.threshold.unwrap_or(100),
            },
            "nethack" if self.gain.is_some() || self.threshold.is_some() => {
                return Err(ScenarioError::ClassicOnly)
            }
            "nethack" => TimeModel::Nethack,
            other => return Err(ScenarioError::Ruleset(other.into())),
        };
        Ok(Ruleset { time, order })
    }
}

fn parse_map(text: &str) -> Result<Map, ScenarioError> {
    let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    if rows.is_empty() || width == 0 || width > 1000 || rows.len() > 1000 {
        return Err(ScenarioError::MapSize);
    }
    let mut map = Map::filled(width as u16, rows.len() as u16, Terrain::Sand);
    for (y, row) in rows.iter().enumerate() {
        for (x, glyph) in row.chars().enumerate() {
            let terrain =
                Terrain::from_glyph(glyph).ok_or(ScenarioError::Terrain { line: y + 1, glyph })?;
            map.set_terrain(Pos::new(x as i16, y as i16), terrain);
        }
    }
    Ok(map)
}

impl ActorSpec {
    /// The actor's species, behaviour, stats and place.
    fn actor(
        &self,
        time: TimeModel,
        map: &Map,
    ) -> Result<(Species, Behaviour, Stats, Pos), ScenarioError> {
        let problem = |problem: String| ScenarioError::Actor {
            name: self.name.clone(),
            problem,
        };
        let named_species = |name: &str| {
            Species::by_name(name).ok_or_else(|| problem(format!("unknown species {name:?}")))
        };
        let mut species = self.species.as_deref().map(named_species).transpose()?;
        let behaviour = match self.behaviour.as_deref() {
            None if species.is_some() => Behaviour::Natural,
            None | Some("idle") => Behaviour::Idle,
            Some("rest") => Behaviour::Rest,
            Some("wander") => Behaviour::Wander,
            Some(name) => {
                let as_species = named_species(name).map_err(|_| {
                    problem(format!(
                        "unknown behaviour {name:?}: expected idle, wander, rest or a species"
                    ))
                })?;
                if species.is_some_and(|s| s != as_species) {
                    return Err(problem(format!(
                        "behaves as a {name} but is another species"
                    )));
                }
                species = Some(as_species);
                Behaviour::Natural
            }
        };
        // Without a species, an actor is a plain camel-sized creature.
        let species = species.unwrap_or(Species::Camel);
        let base = species.stats();
        let stats = Stats {
            speed: self.speed.unwrap_or(base.speed),
            max_energy: self.max_energy.unwrap_or(base.max_energy),
            move_cost: self.move_cost.unwrap_or(base.move_cost),
        };
        if stats.speed == 0 || stats.move_cost == 0 {
            return Err(problem("speed and move_cost must be at least 1".into()));
        }
        if let TimeModel::Classic { threshold, .. } = time {
            if stats.max_energy < stats.move_cost.max(threshold) {
                return Err(problem(format!(
                    "max_energy {} is below what one action needs ({}): it could never act",
                    stats.max_energy,
                    stats.move_cost.max(threshold)
                )));
            }
        }
        let at = Pos::new(self.at[0], self.at[1]);
        if !map.is_free(at) {
            return Err(problem(format!(
                "cannot stand at [{}, {}]: outside the map, blocked or taken",
                at.x, at.y
            )));
        }
        Ok((species, behaviour, stats, at))
    }
}

/// An id by scenario name (for tests).
pub fn find(state: &State, name: &str) -> Option<ActorId> {
    state
        .world()
        .names()
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(&id, _)| id)
}
