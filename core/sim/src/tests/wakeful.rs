//! The wakeful deep (rules version 17): the deep desert's creatures are placed awake more
//! often, and its levels hold one mushroom where they held two.

use super::version;
use crate::bestiary::Bestiary;
use crate::crossing::{Crossing, DEEP_DESERT, FURNACE};
use crate::item::Item;
use crate::level::{generate, Contents};
use crate::species::{Behaviour, Sleep};

/// Of the creatures that often sleep, how many of `seeds`' levels at `depth` place asleep
/// and how many in all.
fn sleepers(contents: Contents, depth: u8, seeds: std::ops::Range<u64>) -> (usize, usize) {
    let (mut asleep, mut all) = (0, 0);
    for seed in seeds {
        let level = generate(seed, depth, contents);
        for &(species, _, behaviour) in &level.creatures {
            if species.sleeps() == Sleep::Often {
                all += 1;
                asleep += usize::from(behaviour == Behaviour::Asleep);
            }
        }
    }
    (asleep, all)
}

/// Above the deep desert a creature that often sleeps is asleep one time in two, as
/// under 16; in the deep desert's first three depths about one in four; on the last three
/// never. A sandworm or a viper is asleep under the sand at every depth.
#[test]
fn the_deep_desert_is_wakeful_and_its_last_depths_sleepless() {
    let contents = Contents::of(&version(17));
    let (asleep, all) = sleepers(contents, DEEP_DESERT - 1, 0..60);
    assert!(
        asleep * 10 > all * 4 && asleep * 10 < all * 6,
        "{asleep} of {all}"
    );
    let (asleep, all) = sleepers(contents, DEEP_DESERT, 0..60);
    assert!(
        asleep * 10 > all && asleep * 10 < all * 4,
        "{asleep} of {all}"
    );
    for depth in FURNACE..=Crossing::Sparse.deepest() {
        assert_eq!(sleepers(contents, depth, 0..30).0, 0, "depth {depth}");
    }
    for depth in 2..=Crossing::Sparse.deepest() {
        for seed in 0..5 {
            let level = generate(seed, depth, contents);
            let buried = level
                .creatures
                .iter()
                .filter(|c| c.0.sleeps() == Sleep::Always);
            assert!(
                buried.clone().all(|c| c.2 == Behaviour::Asleep),
                "depth {depth}"
            );
        }
    }
    assert_eq!(Bestiary::Wakeful.counts(11), Bestiary::Thieves.counts(11));
}

/// The sparse crossing is the lean one with one mushroom a level from the deep desert
/// down, where it held two.
#[test]
fn the_sparse_crossing_holds_one_mushroom_a_level_in_the_deep_desert() {
    for depth in 1..=Crossing::Sparse.deepest() {
        let (sparse, lean) = (
            Crossing::Sparse.supplies(depth),
            Crossing::Lean.supplies(depth),
        );
        let mushrooms = if depth >= DEEP_DESERT { 1 } else { 2 };
        assert_eq!(sparse.mushrooms, mushrooms, "depth {depth}");
        assert_eq!(
            crate::crossing::Supplies { mushrooms, ..lean },
            sparse,
            "depth {depth}"
        );
    }
    // A place's prize may be a mushroom too; the open ground's are fewer over many levels.
    let mushrooms = |v: u16| -> usize {
        let contents = Contents::of(&version(v));
        let level = |seed| generate(seed, FURNACE, contents);
        let on = |seed| {
            level(seed)
                .items
                .iter()
                .filter(|(_, i)| matches!(i, Item::Mushroom(_)))
                .count()
        };
        (0..20).map(on).sum()
    };
    let (under_16, under_17) = (mushrooms(16), mushrooms(17));
    assert!(
        under_17 + 10 < under_16,
        "{under_17} under 17, {under_16} under 16"
    );
}
