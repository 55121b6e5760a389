//! What a game's camel did, counted by an observer over a fold of its whole log: the
//! state keeps only its newest messages and a count of kills, not who was killed, what
//! killed the camel or when it grew. The end screen, the morgue and the bot's play report
//! (`cargo xtask play-report`) all count with this one `Tally`.

use std::collections::BTreeMap;

use sandglass_sim::lore::Boon;
use sandglass_sim::message::{Harm, Msg};
use sandglass_sim::species::Species;
use sandglass_sim::text::a;
use sandglass_sim::{Change, Observer, State};

/// What the camel did over a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// The camel's kills, by the species killed: every death the camel dealt, seen or
    /// not (the figure the state's own count of kills keeps).
    pub kills: BTreeMap<Species, u32>,
    /// Hit points the camel's blows took.
    pub dealt: i32,
    /// Hit points the camel lost, to blows and harms alike.
    pub taken: i32,
    /// Things the camel ate.
    pub eaten: u32,
    /// What killed the camel, if something did.
    pub death: Option<Death>,
    /// Each growth, in order: the depth it was chosen on, and how the camel grew.
    pub growth: Vec<(u8, Boon)>,
    /// The last thing said was that the camel is parched and weakens.
    parched: bool,
}

/// What killed the camel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Death {
    By(Species),
    Of(Harm),
}

impl Death {
    /// How a summary says it: "killed by an elephant", "of thirst".
    pub fn words(self) -> String {
        match self {
            Death::By(species) => format!("killed by {}", a(species.name())),
            Death::Of(harm) => format!("of {}", harm.name()),
        }
    }

    /// Its name in a list of causes: "elephant", "thirst".
    pub fn name(self) -> &'static str {
        match self {
            Death::By(species) => species.name(),
            Death::Of(harm) => harm.name(),
        }
    }
}

impl Observer for Tally {
    fn changed(&mut self, state: &State, change: &Change) {
        let world = state.world();
        match *change {
            Change::Say(msg) => self.said(world.depth(), msg),
            Change::Die {
                actor,
                by: Some(Species::Camel),
            } if !world.is_player(actor) => {
                if let Some(killed) = world.actor(actor) {
                    *self.kills.entry(killed.species()).or_default() += 1;
                }
            }
            Change::Hurt { actor, amount } if Some(actor) == world.player_id() => {
                // Every hurt counts, blows and poison alike, but only as far as the camel
                // had hit points to lose: the blow that kills takes what was left.
                let after = world.actor(actor).map_or(0, |camel| camel.hp());
                let before = i32::from(after) + i32::from(amount);
                self.taken += i32::from(amount).min(before.max(0));
            }
            _ => {}
        }
    }
}

impl Tally {
    /// The kills as a summary says them: "2 snakes, 1 jackal", or "none".
    pub fn kills_words(&self) -> String {
        if self.kills.is_empty() {
            return "none".to_owned();
        }
        let plural = |name: &str, n: u32| match n {
            1 => name.to_owned(),
            _ => format!("{name}s"),
        };
        let kills: Vec<String> = self
            .kills
            .iter()
            .map(|(species, &n)| format!("{n} {}", plural(species.name(), n)))
            .collect();
        kills.join(", ")
    }

    fn said(&mut self, depth: u8, msg: Msg) {
        match msg {
            Msg::Hit {
                attacker: Species::Camel,
                damage,
                ..
            } => self.dealt += i32::from(damage),
            Msg::Ate(_) => self.eaten += 1,
            Msg::Died { by: Some(by) } => self.death = Some(Death::By(by)),
            // Rules version 10 names a death no creature dealt (`Rules::harms_told`).
            Msg::Perished(harm) => self.death = Some(Death::Of(harm)),
            // Before, it was "You die." alone: thirst's is told just before (`Parched`),
            // and the only other hurt that comes from no one is poison's (`perform`).
            Msg::Died { by: None } => {
                self.death = Some(Death::Of(match self.parched {
                    true => Harm::Thirst,
                    false => Harm::Poison,
                }));
            }
            Msg::Grew(boon) => self.growth.push((depth, boon)),
            _ => {}
        }
        self.parched = msg == Msg::Parched;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::bot::Bot;
    use sandglass_sim::{fold, Rules, Ruleset};

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

    /// The kills by species add up to the state's own count, and a dead camel's death has
    /// a cause, whichever rules version told it.
    #[test]
    fn kills_add_up_to_the_states_count_and_every_death_has_a_cause() {
        for (version, seed) in [(9, 30), (10, 30), (10, 31)] {
            let version = sandglass_sim::RulesVersion::kept(version).unwrap();
            let rules = Rules::new(version, Ruleset::NETHACK);
            let tape = Bot::new(seed).record(rules, seed, u64::MAX);
            let mut tally = Tally::default();
            let state = fold(rules, tape.events.iter().copied(), &mut tally).unwrap();
            let kills: u32 = tally.kills.values().sum();
            assert_eq!(kills, state.world().kills());
            let died = state.outcome() == Some(sandglass_sim::Outcome::Died);
            assert_eq!(tally.death.is_some(), died, "seed {seed}");
        }
    }

    #[test]
    fn deaths_are_told_with_their_article() {
        assert_eq!(
            Death::By(Species::Elephant).words(),
            "killed by an elephant"
        );
        assert_eq!(Death::Of(Harm::Thirst).words(), "of thirst");
        assert_eq!(Death::Of(Harm::Poison).name(), "poison");
    }
}
