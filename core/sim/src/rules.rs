//! The rules a game is played under: its rules version and its ruleset, both from the
//! tape's header (docs/design.md, "Rules versions").
//!
//! Every recorded game folds under the rules it was recorded with, for as long as its
//! version is kept. Where a later version behaves differently, the simulation asks a named
//! switch (`rules.hunters_search_toward_the_camel()`), never the version number; this file
//! is the one place that says which versions turn which switches on. Each switch is a
//! plain flag read from a small copied value, so keeping the old behaviours costs the fold
//! a load and a branch where they differ, and nothing elsewhere.
//!
//! To change the rules: add the new version to `KEPT`, give each behaviour that changes a
//! switch here (or a table per version for content), record the new version's goldens
//! with `cargo xtask record-goldens`, and leave every older golden as it is.

use thiserror::Error;

use crate::bestiary::{Bestiary, Brood};
use crate::crossing::Crossing;
use crate::item::Item;
use crate::lore::{Boon, VIGOUR_HP};
use crate::rng::Algorithm;
use crate::tape::{Header, Ruleset, TimeModel, FORMAT_VERSION};

/// The rules versions this build plays, oldest to newest. A new game takes the newest.
///
/// Version 1 is not kept. Version 2 rebuilt nearly every rule at once (sight and what the
/// camel remembers, hunters, stacks in the bags, costly actions waiting for energy, the
/// egg's and the knock-out's timings, eight depths) and the state itself: its encoding,
/// and so every hash a version-1 tape records, has no bags, explored cells, kills, kept
/// actions or hunters' memories. Keeping it would take a second simulation behind
/// switches, not a few switches; its tapes are refused, naming the versions kept.
pub const KEPT: [u16; 16] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];

/// The version new games are played under.
pub const NEWEST: u16 = KEPT[KEPT.len() - 1];

/// A rules version this build plays: one of `KEPT`, and only made from one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RulesVersion(u16);

impl RulesVersion {
    pub const NEWEST: RulesVersion = RulesVersion(NEWEST);

    /// `version`, if this build keeps it; otherwise why not, naming what it keeps.
    pub fn kept(version: u16) -> Result<RulesVersion, VersionError> {
        if KEPT.contains(&version) {
            Ok(RulesVersion(version))
        } else if version > NEWEST {
            Err(VersionError::Newer { found: version })
        } else {
            Err(VersionError::Dropped { found: version })
        }
    }

    pub fn number(self) -> u16 {
        self.0
    }

    /// The versions this build plays, oldest first.
    pub fn all() -> impl Iterator<Item = RulesVersion> {
        KEPT.into_iter().map(RulesVersion)
    }
}

/// A rules version this build does not play, with both versions named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum VersionError {
    #[error(
        "recorded under rules version {found}, newer than this build, which plays rules \
         versions {} to {NEWEST}: a newer Sandglass plays it",
        KEPT[0]
    )]
    Newer { found: u16 },
    #[error(
        "recorded under rules version {found}, which this build no longer plays (it plays \
         rules versions {} to {NEWEST})",
        KEPT[0]
    )]
    Dropped { found: u16 },
}

/// The header names a format or rules version this build does not speak, or rules under
/// which the game could not go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum HeaderError {
    #[error("tape format version {found}, but this build reads version {expected}")]
    Format { found: u16, expected: u16 },
    #[error(transparent)]
    Rules(#[from] VersionError),
    #[error(
        "classic rules with gain {gain} and threshold {threshold}: the camel could never act \
         (the gain must be at least 1, the threshold at most {most})"
    )]
    Stalled {
        gain: u16,
        threshold: u16,
        most: u16,
    },
}

/// A header's constructors live with the rules it names (the tape module knows no rules).
impl Header {
    /// The header of a new game of `ruleset`, under the newest rules.
    pub fn new(seed: u64, ruleset: Ruleset, created_at: u64) -> Self {
        Header::of(Rules::newest(ruleset), seed, created_at)
    }

    /// The header of a game played under `rules`.
    pub fn of(rules: Rules, seed: u64, created_at: u64) -> Self {
        Header {
            format_version: FORMAT_VERSION,
            rules_version: rules.version().number(),
            seed,
            ruleset: rules.ruleset(),
            created_at,
        }
    }
}

/// What changed between kept versions: a flag for each behaviour, a table for content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Switches {
    told_only_what_is_seen: bool,
    elephants_charge_only_in_sight: bool,
    hunters_search_toward_the_camel: bool,
    desert_clock: bool,
    gear: bool,
    hunters_step_only_onto_free_cells: bool,
    allies: bool,
    finds: bool,
    thrown_blows_told_as_thrown: bool,
    places: bool,
    grounds: bool,
    roses_along_the_way: bool,
    harms_told: bool,
    keeps_the_camels_command: bool,
    allies_eat_dates: bool,
    forking_growth: bool,
    letters_kept: bool,
    ends_told_after_the_last_harm: bool,
    spears_break: bool,
    brood_gives_no_vigour: bool,
    throws_at_any_cell: bool,
    javelins_break: bool,
    vigour_only_from_hunters: bool,
    mushrooms_burst: bool,
    thieves: bool,
    allies_follow_from_near: bool,
    steps_never_become_kicks: bool,
    bestiary: Bestiary,
    brood: Brood,
    crossing: Crossing,
    algorithm: Algorithm,
}

/// Each kept version's switches, a version taking the one before it and naming what it
/// changed.
const fn switches(version: RulesVersion) -> Switches {
    const V2: Switches = Switches {
        told_only_what_is_seen: false,
        elephants_charge_only_in_sight: false,
        hunters_search_toward_the_camel: false,
        desert_clock: false,
        gear: false,
        hunters_step_only_onto_free_cells: false,
        allies: false,
        finds: false,
        thrown_blows_told_as_thrown: false,
        places: false,
        grounds: false,
        roses_along_the_way: false,
        harms_told: false,
        keeps_the_camels_command: false,
        allies_eat_dates: false,
        forking_growth: false,
        letters_kept: false,
        ends_told_after_the_last_harm: false,
        spears_break: false,
        brood_gives_no_vigour: false,
        throws_at_any_cell: false,
        javelins_break: false,
        vigour_only_from_hunters: false,
        mushrooms_burst: false,
        thieves: false,
        allies_follow_from_near: false,
        steps_never_become_kicks: false,
        bestiary: Bestiary::Desert,
        brood: Brood::Swarming,
        crossing: Crossing::Short,
        algorithm: Algorithm::Pcg32,
    };
    const V3: Switches = Switches {
        told_only_what_is_seen: true,
        elephants_charge_only_in_sight: true,
        ..V2
    };
    const V4: Switches = Switches {
        hunters_search_toward_the_camel: true,
        ..V3
    };
    const V5: Switches = Switches {
        bestiary: Bestiary::Cobras,
        ..V4
    };
    const V6: Switches = Switches {
        desert_clock: true,
        bestiary: Bestiary::Burrows,
        ..V5
    };
    const V7: Switches = Switches {
        gear: true,
        bestiary: Bestiary::Herds,
        ..V6
    };
    const V8: Switches = Switches {
        hunters_step_only_onto_free_cells: true,
        allies: true,
        ..V7
    };
    const V9: Switches = Switches {
        finds: true,
        thrown_blows_told_as_thrown: true,
        places: true,
        ..V8
    };
    const V10: Switches = Switches {
        grounds: true,
        roses_along_the_way: true,
        harms_told: true,
        keeps_the_camels_command: true,
        allies_eat_dates: true,
        brood: Brood::Bounded,
        ..V9
    };
    const V11: Switches = Switches {
        bestiary: Bestiary::Deep,
        crossing: Crossing::Long,
        ..V10
    };
    const V12: Switches = Switches {
        forking_growth: true,
        letters_kept: true,
        brood: Brood::Clutch,
        ..V11
    };
    const V13: Switches = Switches {
        ends_told_after_the_last_harm: true,
        crossing: Crossing::Furnace,
        ..V12
    };
    const V14: Switches = Switches {
        spears_break: true,
        brood_gives_no_vigour: true,
        throws_at_any_cell: true,
        crossing: Crossing::Lean,
        ..V13
    };
    const V15: Switches = Switches {
        javelins_break: true,
        vigour_only_from_hunters: true,
        bestiary: Bestiary::Hunted,
        algorithm: Algorithm::ChaCha20,
        ..V14
    };
    const V16: Switches = Switches {
        mushrooms_burst: true,
        thieves: true,
        bestiary: Bestiary::Thieves,
        ..V15
    };
    const V17: Switches = Switches {
        allies_follow_from_near: true,
        steps_never_become_kicks: true,
        bestiary: Bestiary::Wakeful,
        crossing: Crossing::Sparse,
        ..V16
    };
    match version.0 {
        2 => V2,
        3 => V3,
        4 => V4,
        5 => V5,
        6 => V6,
        7 => V7,
        8 => V8,
        9 => V9,
        10 => V10,
        11 => V11,
        12 => V12,
        13 => V13,
        14 => V14,
        15 => V15,
        16 => V16,
        17 => V17,
        // A `RulesVersion` is made only from `KEPT`, and every kept version has its arm
        // above (the check below fails the build otherwise), so a new version can never
        // play, or record goldens, as the one before it.
        _ => panic!("a rules version outside KEPT"),
    }
}

// Evaluated as the crate builds: a version added to `KEPT` without its arm in `switches`
// is a compile error, not a game played under the previous version's rules.
const _: () = {
    let mut i = 0;
    while i < KEPT.len() {
        switches(RulesVersion(KEPT[i]));
        i += 1;
    }
};

/// The rules of one game: its version's behaviours and its ruleset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    version: RulesVersion,
    ruleset: Ruleset,
    switches: Switches,
}

impl Rules {
    pub const fn new(version: RulesVersion, ruleset: Ruleset) -> Rules {
        Rules {
            version,
            ruleset,
            switches: switches(version),
        }
    }

    /// The newest rules, for a new game.
    pub const fn newest(ruleset: Ruleset) -> Rules {
        Rules::new(RulesVersion::NEWEST, ruleset)
    }

    /// The rules a tape's header names, if this build reads its format, plays its rules
    /// version, and its ruleset lets a camel act.
    pub fn of(header: &Header) -> Result<Rules, HeaderError> {
        if header.format_version != FORMAT_VERSION {
            return Err(HeaderError::Format {
                found: header.format_version,
                expected: FORMAT_VERSION,
            });
        }
        let version = RulesVersion::kept(header.rules_version)?;
        // Ticks would follow ticks for ever, waiting for a camel that can never be ready.
        if let TimeModel::Classic { gain, threshold } = header.ruleset.time {
            let most = crate::species::Species::Camel.stats().max_energy;
            if gain == 0 || threshold > most {
                return Err(HeaderError::Stalled {
                    gain,
                    threshold,
                    most,
                });
            }
        }
        Ok(Rules::new(version, header.ruleset))
    }

    #[inline]
    pub fn version(&self) -> RulesVersion {
        self.version
    }

    #[inline]
    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// Introduced in 3: blows and deaths between creatures, eggs laid and hatched,
    /// charges and crashes are told to the camel only when it sees where they happen
    /// (what touches the camel it always knows of). Before, the log reported a hatching
    /// on the far side of the level.
    #[inline]
    pub fn told_only_what_is_seen(&self) -> bool {
        self.switches.told_only_what_is_seen
    }

    /// Introduced in 3: an elephant sees the camel along its row or column only within
    /// the camel's own (symmetric) sight. Before, it charged from beyond the edge of what
    /// the player could see.
    #[inline]
    pub fn elephants_charge_only_in_sight(&self) -> bool {
        self.switches.elephants_charge_only_in_sight
    }

    /// The creatures the levels hold (a table per version): cobras came in 5, to give a
    /// threat that strikes from a distance, answered by keeping out of its lines;
    /// sleepers in 6, with meerkats, sentries that wake them, and sandworms, an ambush
    /// under the sand: a careful camel can pass a sleeper by; hyenas and tortoises in 7,
    /// a pack best met in a gap and a giant the cacti do not stop; ratels and lions in
    /// 11, a hide kicks do not get through and a hunter the camel cannot outrun; in 15
    /// locust swarms that split when struck, vultures that wait for a weakened camel, and
    /// twice the lions and packs on the last three depths.
    #[inline]
    pub fn bestiary(&self) -> Bestiary {
        self.switches.bestiary
    }

    /// Introduced in 4: a hunter's path search settles cells by their cost so far plus
    /// the least the rest of the way can cost (A*), a quarter of the work. The walk found
    /// is as cheap, but of equally cheap walks another may be taken. Before, it settled
    /// cells by their cost alone.
    #[inline]
    pub fn hunters_search_toward_the_camel(&self) -> bool {
        self.switches.hunters_search_toward_the_camel
    }

    /// Introduced in 6: the desert has a clock (`desert`). Heat at noon makes the camel's
    /// steps cost more and its water go twice as fast; cold at night makes the
    /// cold-blooded sluggish; the camel carries a waterskin it drinks from as it goes and
    /// fills beside water, and without water it weakens. Before, time of day and water
    /// did not exist, and the camel never thirsted.
    #[inline]
    pub fn desert_clock(&self) -> bool {
        self.switches.desert_clock
    }

    /// Introduced in 7: gear for the camel to wear (`gear`), a saddle blanket on depth 2
    /// and boots on depth 4, placed after every other item. Before, there was nothing
    /// to wear.
    #[inline]
    pub fn gear(&self) -> bool {
        self.switches.gear
    }

    /// Introduced in 8: a hunter never steps onto a cell another creature stands on.
    /// Before, a hunter beside the cell where it last saw the camel stepped onto it even
    /// when another creature had come to stand there since: the two shared the cell,
    /// the map named only the newcomer, and once either left, the map named neither (a
    /// state those versions' snapshots must still be able to hold: `World::check`).
    #[inline]
    pub fn hunters_step_only_onto_free_cells(&self) -> bool {
        self.switches.hunters_step_only_onto_free_cells
    }

    /// Introduced in 8: a date thrown to a jackal tames it (`decide::ally`). An ally
    /// keeps near the camel, bites the creatures that come for it, and goes down the
    /// stairs with it from beside it; hunters bite an ally in their way. Before, a date
    /// could only be eaten.
    #[inline]
    pub fn allies(&self) -> bool {
        self.switches.allies
    }

    /// Introduced in 9: more to find, and choices in what to do with it. Javelins (a
    /// lighter spear thrown in half the time), flasks and scarabs known only once used
    /// (`lore`), a rare desert rose that makes the camel stronger in the one way it
    /// chooses (`Command::Grow`), and bronze barding that softens blows but weighs on
    /// everything the camel does; gear can be taken off (`Command::TakeOff`). Before,
    /// none of these existed and gear once worn stayed on.
    #[inline]
    pub fn finds(&self) -> bool {
        self.switches.finds
    }

    /// Introduced in 9: a thrown missile's blow is told as the missile's ("The spear hits
    /// the spider (7)."). Before, it was told as the thrower's own blow, after the throw:
    /// "The spear hits the spider. You kick the spider (7)."
    #[inline]
    pub fn thrown_blows_told_as_thrown(&self) -> bool {
        self.switches.thrown_blows_told_as_thrown
    }

    /// Introduced in 9: from depth 2 a level holds one or two special places
    /// (`places`): a ruin whose locked cache opens with a key lying elsewhere on the
    /// level, a flooded oasis where water and fruit draw creatures, a nest of spider
    /// eggs around a prize. Before, every level was open desert with a few plain ruins.
    #[inline]
    pub fn places(&self) -> bool {
        self.switches.places
    }

    /// Introduced in 10: levels come in kinds of ground (`level::grounds`): the open erg,
    /// canyons whose ridges of cactus are crossed only by narrow passes, a dune sea, a
    /// ruined town of walled houses, an oasis basin round a great lake. Each changes how
    /// a fight goes: a pack met in a pass comes one at a time, an elephant sees far over
    /// the dunes. The camel is told which it has come to. Before, every level was the
    /// open erg.
    #[inline]
    pub fn grounds(&self) -> bool {
        self.switches.grounds
    }

    /// Introduced in 10: a desert rose on depths 2, 4 and 6 (`Crossing::roses_on`; from 11 depths 3, 6 and 9), so that
    /// the camel grows three times in a crossing, each time choosing how. Before, one
    /// rose lay on depth 5, and a crossing gave one choice.
    #[inline]
    pub fn roses_along_the_way(&self) -> bool {
        self.switches.roses_along_the_way
    }

    /// Introduced in 10: every hurt is told with its cause and amount ("The poison
    /// burns you (1)."), and a death with what caused it, a creature, poison or thirst.
    /// Before, poison hurt without a word, and a death it caused was "You die."
    #[inline]
    pub fn harms_told(&self) -> bool {
        self.switches.harms_told
    }

    /// Introduced in 10: a command the camel cannot afford yet is kept until it has the
    /// energy and carries it out, whatever the other creatures do meanwhile (docs/design.md,
    /// "Time"). Before, the camel gathered strength for it, and the first creature
    /// to act after that dropped it: the camel was asked for a command again, the one
    /// given never done ("You gather your strength." and no mushroom eaten).
    #[inline]
    pub fn keeps_the_camels_command(&self) -> bool {
        self.switches.keeps_the_camels_command
    }

    /// Introduced in 10: a date thrown to the camel's ally is caught and eaten, and
    /// heals it as a date heals the camel: an ally can be kept going. Before, it landed
    /// at the ally's feet ("The jackal sniffs at the date and leaves it.").
    #[inline]
    pub fn allies_eat_dates(&self) -> bool {
        self.switches.allies_eat_dates
    }

    /// Introduced in 12: a desert rose offers three boons of ten (`lore::Offers`), drawn
    /// once a game, some with a cost, so that two runs grow differently. Before, every
    /// rose offered the same three: more hit points, harder kicks, a deeper waterskin.
    #[inline]
    pub fn forking_growth(&self) -> bool {
        self.switches.forking_growth
    }

    /// Introduced in 12: a letter of the bags stays with the kind of item that first took
    /// it for the whole run (`Bags`), so that the dates found again are where the last
    /// were. Before, a letter was freed when its stack ran out, and the next new kind
    /// took it: a throw typed from memory threw something else.
    #[inline]
    pub fn letters_kept(&self) -> bool {
        self.switches.letters_kept
    }

    /// How spiders breed (a table per version): from 10 a brood is bounded, a nest
    /// holding one egg and spiders laying no more once a level holds six of them and
    /// their eggs, so that a hatched nest is a fight and not the bulk of every game's
    /// kills (70% of the bot's kills under 9, a third under 10: BENCHMARKS.md). An egg
    /// still hatches a spider on every free cell about it. Before, a nest held three to
    /// five eggs, and spiders laid until a level held forty.
    #[inline]
    pub fn brood(&self) -> Brood {
        self.switches.brood
    }

    /// Introduced in 13: a condition's end ("The poison wears off.") is told after the
    /// turn's last harm from it, not before: the camel read that the poison wore off, and
    /// then that it burned.
    #[inline]
    pub fn ends_told_after_the_last_harm(&self) -> bool {
        self.switches.ends_told_after_the_last_harm
    }

    /// Introduced in 14: a thrown spear that hits a creature snaps, and is gone; one that
    /// misses lands as before. Played by eye under 13, spears thrown and picked up again
    /// after every fight won every deep fight: three spears carried a run to the oasis.
    #[inline]
    pub fn spears_break(&self) -> bool {
        self.switches.spears_break
    }

    /// Introduced in 14: vigour (`Boon::Vigour`) gives nothing back for a spider or an
    /// egg. Played by eye under 13, a vigorous camel healed where no wound closes by
    /// itself by killing the spiders a nest kept hatching.
    #[inline]
    pub fn brood_gives_no_vigour(&self) -> bool {
        self.switches.brood_gives_no_vigour
    }

    /// Introduced in 14: the camel may throw at any cell it sees (`Command::ThrowAt`), not
    /// only along the eight lines: a fight was stepping sideways until the target lined
    /// up.
    #[inline]
    pub fn throws_at_any_cell(&self) -> bool {
        self.switches.throws_at_any_cell
    }

    /// Introduced in 15: a thrown javelin that hits a creature snaps too, as a spear does
    /// from 14 (`spears_break`). Played by eye under 14, javelins picked up after every
    /// fight took the spears' place and carried two of three won runs.
    #[inline]
    pub fn javelins_break(&self) -> bool {
        self.switches.javelins_break
    }

    /// Whether a thrown `item` that hits a creature snaps on it, and is gone.
    pub fn snaps_on_a_hit(&self, item: Item) -> bool {
        match item {
            Item::Spear => self.spears_break(),
            Item::Javelin => self.javelins_break(),
            _ => false,
        }
    }

    /// Introduced in 15: vigour (`Boon::Vigour`) gives hit points back only for a hunter
    /// killed (`Species::hunts`), not for a snake, a grazing beast or the brood. Played by
    /// eye under 14, vigour healed a camel on the last depths, where no wound closes by
    /// itself, on every snake it met.
    #[inline]
    pub fn vigour_only_from_hunters(&self) -> bool {
        self.switches.vigour_only_from_hunters
    }

    /// Introduced in 16: a mushroom may be thrown, and bursts on the creature it hits with
    /// what it would do to whoever ate it (a poison mushroom poisons a lion, a slowing one
    /// slows it); the camel knows its kind from then on. Played by eye under 15, the
    /// harmful mushrooms were never needed: they could only be eaten, and were carried to
    /// the end.
    #[inline]
    pub fn mushrooms_burst(&self) -> bool {
        self.switches.mushrooms_burst
    }

    /// Introduced in 16: fennecs (`Species::Fennec`) snatch a thing from the camel's
    /// bags and run, carrying it until they are killed (the world keeps what each
    /// carries: `World::loot`). Played by eye under 15, a careful player's bags were never
    /// in danger: only hit points were.
    #[inline]
    pub fn thieves(&self) -> bool {
        self.switches.thieves
    }

    /// Introduced in 17: an ally the camel sees within `world::FOLLOWS_FROM` goes down
    /// the stairs with it. Before, only one beside it did; an ally keeps within two cells
    /// of the camel, so played by eye under 16 it was left behind, or asked about, at
    /// nearly every stairs.
    #[inline]
    pub fn allies_follow_from_near(&self) -> bool {
        self.switches.allies_follow_from_near
    }

    /// Introduced in 17: a step the camel gathers strength for, into a cell a creature it
    /// leaves be (asleep, a grazing tortoise) has since stepped into, stops there
    /// (`Msg::InTheWay`) and the camel is asked again. Before, the command was resolved
    /// afresh into a kick: played by eye under 17's first build, travel over dunes
    /// kicked a grazing tortoise that wandered into its way, and enraged it.
    #[inline]
    pub fn steps_never_become_kicks(&self) -> bool {
        self.switches.steps_never_become_kicks
    }

    /// What `boon` does under these rules, as the player chooses it: vigour gives nothing
    /// for the brood from 14 (`brood_gives_no_vigour`), and from 15 only for hunters
    /// (`vigour_only_from_hunters`).
    pub fn describe_boon(&self, boon: Boon) -> String {
        match boon {
            Boon::Vigour if self.vigour_only_from_hunters() => {
                format!("vigour: {VIGOUR_HP} hit points back for each hunter you kill")
            }
            Boon::Vigour if self.brood_gives_no_vigour() => format!(
                "vigour: {VIGOUR_HP} hit points back for each kill but a spider's or an egg's"
            ),
            _ => boon.describe(),
        }
    }

    /// Which algorithm expands the seed into the draws (a table per version): PCG32 to
    /// 14, ChaCha20 from 15, whose draws say nothing of the next without the seed, so
    /// that a server may deal a run's draws a step at a time and keep its seed until the
    /// run is over (`rng`).
    #[inline]
    pub fn algorithm(&self) -> Algorithm {
        self.switches.algorithm
    }

    /// Whether a run under these rules can be dealt: its draws say nothing of the next
    /// (ChaCha20), where PCG32's state follows from a few of its outputs.
    pub fn can_be_dealt(&self) -> bool {
        self.algorithm() == Algorithm::ChaCha20
    }

    /// How long the crossing is and what its levels give (a table per version): from 11
    /// twelve depths, supplies that thin out with depth, and a hotter deep desert
    /// (`crossing`). Before, eight depths, each stocked as the first: the first two
    /// runs played to win were won with bags full of food and healing never needed. From
    /// 13 the furnace: wounds close more slowly from depth 4 and not by themselves on the
    /// last three depths, and a level holds one stone. From 14 the lean crossing: the
    /// furnace with fewer dates and no cactus fruit in the deep desert.
    #[inline]
    pub fn crossing(&self) -> Crossing {
        self.switches.crossing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_versions_are_in_order_and_the_newest_is_last() {
        assert!(KEPT.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(RulesVersion::all().last(), Some(RulesVersion::NEWEST));
    }

    #[test]
    fn a_version_not_kept_is_refused_naming_both() {
        assert_eq!(
            RulesVersion::kept(1),
            Err(VersionError::Dropped { found: 1 })
        );
        let newer = RulesVersion::kept(NEWEST + 1).unwrap_err();
        assert_eq!(newer, VersionError::Newer { found: NEWEST + 1 });
        let words = newer.to_string();
        assert!(
            words.contains(&format!("version {}", NEWEST + 1)),
            "{words}"
        );
        assert!(words.contains(&format!("to {NEWEST}")), "{words}");
        let words = VersionError::Dropped { found: 1 }.to_string();
        assert!(
            words.contains("version 1,") && words.contains("2 to"),
            "{words}"
        );
    }

    #[test]
    fn each_switch_turns_on_in_the_version_that_brought_it() {
        let on = |version: u16| {
            let rules = Rules::new(RulesVersion::kept(version).unwrap(), Ruleset::NETHACK);
            [
                rules.told_only_what_is_seen(),
                rules.elephants_charge_only_in_sight(),
                rules.hunters_search_toward_the_camel(),
                rules.desert_clock(),
                rules.gear(),
                rules.hunters_step_only_onto_free_cells(),
                rules.allies(),
                rules.finds(),
                rules.thrown_blows_told_as_thrown(),
                rules.places(),
                rules.grounds(),
                rules.roses_along_the_way(),
                rules.harms_told(),
                rules.keeps_the_camels_command(),
                rules.allies_eat_dates(),
                rules.forking_growth(),
                rules.letters_kept(),
                rules.ends_told_after_the_last_harm(),
                rules.spears_break(),
                rules.brood_gives_no_vigour(),
                rules.throws_at_any_cell(),
                rules.javelins_break(),
                rules.vigour_only_from_hunters(),
                rules.mushrooms_burst(),
                rules.thieves(),
            ]
        };
        let (t, f) = (true, false);
        assert_eq!(
            on(2),
            [f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(3),
            [t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(4),
            [t, t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(5),
            [t, t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(6),
            [t, t, t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(7),
            [t, t, t, t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(8),
            [t, t, t, t, t, t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(9),
            [t, t, t, t, t, t, t, t, t, t, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(10),
            [t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, f, f, f, f, f, f, f, f, f, f]
        );
        assert_eq!(on(11), on(10));
        assert_eq!(
            on(12),
            [t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, f, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(13),
            [t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, f, f, f, f, f, f, f]
        );
        assert_eq!(
            on(14),
            [t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, f, f, f, f]
        );
        assert_eq!(
            on(15),
            [t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, f, f]
        );
        assert_eq!(
            on(16),
            [t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t, t]
        );
        assert_eq!(on(17), on(16));
        let brood = |v| Rules::new(RulesVersion::kept(v).unwrap(), Ruleset::NETHACK).brood();
        assert_eq!(brood(9), Brood::Swarming);
        assert_eq!(brood(10), Brood::Bounded);
        assert_eq!(brood(12), Brood::Clutch);
        let bestiary = |v| Rules::new(RulesVersion::kept(v).unwrap(), Ruleset::NETHACK).bestiary();
        assert_eq!(bestiary(4), Bestiary::Desert);
        assert_eq!(bestiary(5), Bestiary::Cobras);
        assert_eq!(bestiary(6), Bestiary::Burrows);
        assert_eq!(bestiary(7), Bestiary::Herds);
        assert_eq!(bestiary(9), Bestiary::Herds);
        assert_eq!(bestiary(10), Bestiary::Herds);
        assert_eq!(bestiary(11), Bestiary::Deep);
        assert_eq!(bestiary(14), Bestiary::Deep);
        assert_eq!(bestiary(15), Bestiary::Hunted);
        assert_eq!(bestiary(16), Bestiary::Thieves);
        assert_eq!(bestiary(17), Bestiary::Wakeful);
        let crossing = |v| Rules::new(RulesVersion::kept(v).unwrap(), Ruleset::NETHACK).crossing();
        assert_eq!(crossing(10), Crossing::Short);
        assert_eq!(crossing(11), Crossing::Long);
        assert_eq!(crossing(12), Crossing::Long);
        assert_eq!(crossing(13), Crossing::Furnace);
        assert_eq!(crossing(14), Crossing::Lean);
        assert_eq!(crossing(15), Crossing::Lean);
        assert_eq!(crossing(16), Crossing::Lean);
        assert_eq!(crossing(17), Crossing::Sparse);
        let algorithm =
            |v| Rules::new(RulesVersion::kept(v).unwrap(), Ruleset::NETHACK).algorithm();
        assert_eq!(algorithm(14), Algorithm::Pcg32);
        assert_eq!(algorithm(15), Algorithm::ChaCha20);
        assert_eq!(algorithm(16), Algorithm::ChaCha20);
        assert_eq!(algorithm(17), Algorithm::ChaCha20);
    }
}
