//! What the camel was warned of on the level, remembered so that errands keep off it:
//! where the sand stirred (a sandworm lies beneath) and where it saw a dormant egg; and
//! where it put something down, which exploring does not go back for.
//!
//! The stirring comes where the camel stands within `STIR_REACH` of a hidden sleeper, and
//! a sandworm wakes to a camel beside it, so the cells within `KEEP_OFF` of a stirring may
//! wake it. A cell where the camel stood and the sand was still has no sleeper that near:
//! it is safe ground even inside that ring, and the way the camel came is the way out.
//!
//! An egg is kept off while it is remembered, not only while it is in view: a walk that
//! steered round it only while it saw it turned back each time the egg came into view and
//! went on each time it left it, back and forth until the camel died of thirst. An egg is
//! forgotten once its cell is seen without it (it hatched). A stirring is forgotten once a
//! sandworm is seen awake near it: the sleeper beneath came out, and a walk told to step
//! by hand round a worm already dead kept saying so.
//!
//! What the camel learnt is kept while the game is open; a game loaded again starts with
//! the level's warnings forgotten, as its message line does.

use std::collections::BTreeSet;

use sandglass_sim::geometry::Pos;
use sandglass_sim::message::Msg;
use sandglass_sim::species::{Species, STIR_REACH};
use sandglass_sim::State;

/// How near a stirring a cell may lie beside the sleeper that made it.
const KEEP_OFF: u16 = STIR_REACH + Species::Sandworm.hearing();

/// The warnings of the level the camel is on.
#[derive(Clone, Debug, Default)]
pub struct Warnings {
    depth: u8,
    /// Where the camel stood when the sand stirred.
    spots: Vec<Pos>,
    /// Where it stood and the sand was still.
    calm: BTreeSet<Pos>,
    /// Where it saw a dormant egg, and has not seen its cell empty since.
    eggs: BTreeSet<Pos>,
    /// Where it dropped something: exploring, which picks up what it finds, would walk
    /// back for it.
    left: BTreeSet<Pos>,
}

impl Warnings {
    /// Takes in what the last command's `messages` said, where the camel now stands, and
    /// the eggs it sees.
    pub fn note(&mut self, state: &State, messages: &[Msg]) {
        let world = state.world();
        let Some(camel) = world.player() else {
            return;
        };
        if world.depth() != self.depth {
            *self = Warnings {
                depth: world.depth(),
                ..Warnings::default()
            };
        }
        let here = camel.pos();
        if messages.iter().any(|m| matches!(m, Msg::Dropped(_))) {
            self.left.insert(here);
        }
        // A sandworm the camel sees is one out of the sand: asleep, it is hidden.
        let risen = world
            .actors()
            .filter(|&(id, a)| a.species() == Species::Sandworm && world.sees_actor(id));
        for (_, worm) in risen {
            self.forget_stirrings_near(worm.pos());
        }
        if messages.contains(&Msg::SandStirs) {
            // A sleeper may come to lie near ground that was calm: a worm that woke and
            // burrowed again.
            self.calm.remove(&here);
            if !self.spots.contains(&here) {
                self.spots.push(here);
            }
        } else {
            self.calm.insert(here);
        }
        let egg_at = |p: Pos| {
            let id = world.map().occupant(p);
            id.and_then(|id| world.actor(id))
                .is_some_and(|a| a.species() == Species::SpiderEgg)
        };
        self.eggs.retain(|&p| !world.sees(p) || egg_at(p));
        let seen = world
            .actors()
            .filter(|&(id, a)| a.species() == Species::SpiderEgg && world.sees_actor(id));
        self.eggs.extend(seen.map(|(_, a)| a.pos()));
    }

    /// Forgets the stirrings a sandworm seen awake at `worm` may have made: it lay
    /// within `STIR_REACH` of where the camel stood.
    fn forget_stirrings_near(&mut self, worm: Pos) {
        self.spots.retain(|spot| spot.distance(worm) > KEEP_OFF);
    }

    /// Whether the camel dropped something at `p` on this level: exploring leaves it.
    pub fn left_at(&self, p: Pos) -> bool {
        self.left.contains(&p)
    }

    /// How many times the sand has stirred on this level: an errand stops when it grows.
    pub fn count(&self) -> usize {
        self.spots.len()
    }

    /// Whether a walk keeps off `p`: near where the sand stirred, and not where the camel
    /// stood calm.
    pub fn keeps_off(&self, p: Pos) -> bool {
        !self.calm.contains(&p) && self.spots.iter().any(|s| s.distance(p) <= KEEP_OFF)
    }

    /// The dormant eggs the camel remembers on this level.
    pub fn eggs(&self) -> impl Iterator<Item = Pos> + '_ {
        self.eggs.iter().copied()
    }

    /// These warnings with the stirrings forgotten, the eggs kept: to tell whether it is
    /// the stirring sand that stands in a walk's way.
    pub fn without_stirrings(&self) -> Warnings {
        Warnings {
            spots: vec![],
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(spots: &[Pos], calm: &[Pos]) -> Warnings {
        Warnings {
            depth: 1,
            spots: spots.to_vec(),
            calm: calm.iter().copied().collect(),
            eggs: BTreeSet::new(),
            left: BTreeSet::new(),
        }
    }

    /// The ring about a stirring is kept off, but for the ground the camel stood calm on.
    #[test]
    fn a_walk_keeps_off_the_ring_about_a_stirring_but_for_calm_ground() {
        let spot = Pos::new(10, 10);
        let came_from = Pos::new(9, 10);
        let warnings = with(&[spot], &[came_from]);
        assert!(warnings.keeps_off(Pos::new(11, 10)));
        assert!(warnings.keeps_off(Pos::new(10 + KEEP_OFF as i16, 10)));
        assert!(!warnings.keeps_off(Pos::new(11 + KEEP_OFF as i16, 10)));
        assert!(!warnings.keeps_off(came_from));
        assert!(!with(&[], &[]).keeps_off(spot));
    }

    /// A worm seen awake takes with it the stirrings it could have made, and no other.
    #[test]
    fn a_worm_seen_awake_takes_its_stirrings_with_it() {
        let (near, far) = (Pos::new(10, 10), Pos::new(30, 10));
        let mut warnings = with(&[near, far], &[]);
        warnings.forget_stirrings_near(Pos::new(12, 11));
        assert_eq!(warnings.count(), 1);
        assert!(!warnings.keeps_off(Pos::new(11, 10)));
        assert!(warnings.keeps_off(Pos::new(31, 10)));
    }
}
