//! The first meeting with each kind of creature: a line that says what it is and how it
//! is met, as the game shows it for the first time, so that a new threat is never met
//! unexplained (the look panel, `;`, says the same at any time).

use std::collections::BTreeSet;

use sandglass_sim::species::{Species, COBRA_REACH, SWARMS_MOST, THICK_HIDE};
use sandglass_sim::text::{a, capitalise};
use sandglass_sim::{State, SHRIEK_REACH, VULTURE_KEEPS_OFF};

/// The kinds of creature the camel has seen in this game, as far as this window knows:
/// a game opened again counts as met those in sight and every kind its levels above
/// held.
#[derive(Clone, Debug, Default)]
pub struct Meetings(BTreeSet<Species>);

impl Meetings {
    /// A game opened part way: what is in sight now is not news, nor any kind the levels
    /// above held, which the camel crossed. Played by eye, a game opened again part way
    /// told kinds already met (the snake, the cobra, the fennec) as if new.
    pub fn in_sight(state: &State) -> Meetings {
        let world = state.world();
        let bestiary = world.rules().bestiary();
        let above = (1..world.depth()).flat_map(|depth| bestiary.counts(depth));
        let crossed = above.filter(|&(_, count)| count > 0).map(|(s, _)| s);
        let mut met = Meetings(crossed.collect());
        met.news(state);
        met
    }

    /// A line for each kind of creature in sight for the first time, in the order of
    /// `Species`.
    pub fn news(&mut self, state: &State) -> Vec<String> {
        let world = state.world();
        let seen: BTreeSet<Species> = world
            .actors()
            .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
            .map(|(_, actor)| actor.species())
            .filter(|&species| species != Species::Camel)
            .collect();
        let new: Vec<Species> = seen.difference(&self.0).copied().collect();
        self.0.extend(&new);
        new.into_iter().map(first_meeting).collect()
    }
}

/// "A vulture (v), the first you meet: ..."
fn first_meeting(species: Species) -> String {
    let name = capitalise(&a(species.name()));
    let glyph = species.glyph();
    format!("{name} ({glyph}), the first you meet: {}.", nature(species))
}

/// What a kind of creature is, and how it is met, in a clause.
pub fn nature(species: Species) -> String {
    match species {
        Species::Camel => "a camel like you".into(),
        Species::Snake => "it wanders, and bites whatever it bumps into".into(),
        Species::Elephant => {
            "it grazes, and charges what it sees along a row or column; a cactus stuns it".into()
        }
        Species::Spider => "it bites, and lays eggs that hatch more spiders".into(),
        Species::SpiderEgg => "it hatches spiders in time, or when you come close".into(),
        Species::Jackal => {
            "a fast hunter that runs when badly hurt; a date thrown may win it over".into()
        }
        Species::Scorpion => "a slow hunter that lies in wait; its sting poisons".into(),
        Species::Cobra => format!("it spits poison along a clear line up to {COBRA_REACH} cells"),
        Species::Meerkat => {
            format!("it shrieks on seeing you, waking sleepers within {SHRIEK_REACH} cells")
        }
        Species::Sandworm => {
            "it lies under the sand until you step beside it: where the sand stirs".into()
        }
        Species::Hyena => "hyenas hunt in pairs, and bite harder side by side".into(),
        Species::Tortoise => "harmless until hurt; then slow, hard-hitting, and cacti do not stop it".into(),
        Species::Lion => "faster and stronger than you: you cannot outrun it".into(),
        Species::Ratel => {
            format!("its hide turns kicks and bites aside (at most {THICK_HIDE} each): throw things")
        }
        Species::Vulture => format!(
            "faster than you, it keeps {VULTURE_KEEPS_OFF} cells off until you have lost half your hit points, then comes down"
        ),
        Species::Locusts => format!(
            "a blow that does not kill it splits it in two (up to {SWARMS_MOST} swarms): kill it in one"
        ),
        Species::Fennec => "a thief faster than you: it snatches one thing from your bags and runs, dropping it only where it dies: throw things".into(),
        Species::Viper => {
            "it lies under the sand until you step beside it, where the sand stirs; its bite poisons".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::{Live, Rules, Ruleset};

    /// Every kind of creature has its line, and each line names it.
    #[test]
    fn every_kind_is_told_by_name() {
        for species in Species::ALL {
            let line = first_meeting(species);
            assert!(line.contains(species.name()), "{line}");
            assert!(line.ends_with('.'), "{line}");
        }
        assert_eq!(
            first_meeting(Species::Vulture),
            "A vulture (v), the first you meet: faster than you, it keeps 4 cells off until \
             you have lost half your hit points, then comes down."
        );
    }

    /// A kind is news once: the game's first view tells what is in sight, and the same
    /// view again tells nothing.
    #[test]
    fn a_kind_is_news_once() {
        let rules = Rules::newest(Ruleset::NETHACK);
        let mut seed = 1;
        let live = loop {
            let live = Live::new(rules, seed, &mut (), &mut vec![]);
            if !Meetings::default().news(live.state()).is_empty() {
                break live;
            }
            seed += 1;
        };
        let mut met = Meetings::default();
        assert!(!met.news(live.state()).is_empty());
        assert!(met.news(live.state()).is_empty());
        assert!(Meetings::in_sight(live.state())
            .news(live.state())
            .is_empty());
    }

    /// Regression: a game opened again below the first level counts the kinds of the
    /// levels above as met, and tells none of them again.
    #[test]
    fn a_game_opened_again_knows_the_kinds_of_the_levels_above() {
        use sandglass_sim::bot::Bot;
        use sandglass_sim::LiveTape;
        let rules = Rules::newest(Ruleset::NETHACK);
        let mut game = LiveTape::new(rules, 5);
        let mut bot = Bot::new(5);
        for _ in 0..5_000 {
            if game.state().world().depth() >= 3 {
                break;
            }
            let command = bot.choose(game.state()).expect("the bot plays on");
            game.command(command, &mut ()).unwrap();
        }
        assert_eq!(game.state().world().depth(), 3);
        let met = Meetings::in_sight(game.state());
        for depth in [1, 2] {
            for (species, count) in rules.bestiary().counts(depth) {
                assert!(count == 0 || met.0.contains(&species), "{species:?}");
            }
        }
        assert!(
            !met.0.contains(&Species::Lion),
            "no lion walks above depth 7"
        );
    }
}
