//! The creatures of the desert and their numbers, in both rulesets.

use serde::{Deserialize, Serialize};

use crate::energy::Stats;

/// A kind of creature.
///
/// Append-only: a variant's place is its number in the state's encoding and its place in
/// every ordered collection keyed by it; a variant moved or removed changes every golden's
/// hashes. New variants go at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Species {
    Camel,
    Snake,
    Elephant,
    Spider,
    SpiderEgg,
    /// Fast; hunts the camel by sight and memory, and runs when badly hurt.
    Jackal,
    /// Slow; hunts the camel it sees, and its sting poisons.
    Scorpion,
    /// Wanders as a snake does, and spits poison at the camel it sees in a straight line
    /// within reach (rules version 5 on).
    Cobra,
    /// Never sleeps; shrieks when it sees the camel, waking every sleeper in earshot, and
    /// runs (rules version 6 on).
    Meerkat,
    /// Sleeps under the sand, unseen, until the camel steps beside it; then hunts (rules
    /// version 6 on).
    Sandworm,
    /// Runs in a pack of two: one that sees the camel howls to the others, and its bite is
    /// worse while another hyena stands beside the camel too (rules version 7 on).
    Hyena,
    /// A slow giant that grazes and, seeing the camel, lumbers straight at it, trampling
    /// any cactus in its way (rules version 7 on).
    Tortoise,
    /// The deep desert's hunter: faster than the camel and stronger, it cannot be
    /// outrun or kicked to death; spears, allies, flasks and scarabs beat it (rules
    /// version 11 on).
    Lion,
    /// A hunter whose loose, thick hide turns kicks and bites aside (at most
    /// `THICK_HIDE` each); only what is thrown at it hurts it in full (rules version 11
    /// on).
    Ratel,
    /// Faster than the camel; keeps its distance from a camel in good health and comes
    /// down on one that has lost half its hit points (rules version 15 on).
    Vulture,
    /// A swarm that hunts the camel and splits in two when struck and not killed, until a
    /// level holds `SWARMS_MOST` of them: only a blow that kills it whole ends it (rules
    /// version 15 on).
    Locusts,
    /// A thief, faster than the camel: it comes for the camel's bags, not its hide,
    /// snatches one thing and runs with it, dropping it only where it dies (rules version
    /// 16 on).
    Fennec,
    /// Lies under the sand, unseen, as a sandworm does, until the camel steps beside it;
    /// its bite poisons (rules version 16 on).
    Viper,
}

impl Species {
    pub const ALL: [Species; 18] = [
        Species::Camel,
        Species::Snake,
        Species::Elephant,
        Species::Spider,
        Species::SpiderEgg,
        Species::Jackal,
        Species::Scorpion,
        Species::Cobra,
        Species::Meerkat,
        Species::Sandworm,
        Species::Hyena,
        Species::Tortoise,
        Species::Lion,
        Species::Ratel,
        Species::Vulture,
        Species::Locusts,
        Species::Fennec,
        Species::Viper,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Species::Camel => "camel",
            Species::Snake => "snake",
            Species::Elephant => "elephant",
            Species::Spider => "spider",
            Species::SpiderEgg => "spider egg",
            Species::Jackal => "jackal",
            Species::Scorpion => "scorpion",
            Species::Cobra => "cobra",
            Species::Meerkat => "meerkat",
            Species::Sandworm => "sandworm",
            Species::Hyena => "hyena",
            Species::Tortoise => "tortoise",
            Species::Lion => "lion",
            Species::Ratel => "ratel",
            Species::Vulture => "vulture",
            Species::Locusts => "locust swarm",
            Species::Fennec => "fennec",
            Species::Viper => "horned viper",
        }
    }

    pub fn by_name(name: &str) -> Option<Species> {
        Species::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn glyph(self) -> char {
        match self {
            Species::Camel => '@',
            Species::Snake => 's',
            Species::Elephant => 'E',
            Species::Spider => 'x',
            Species::SpiderEgg => 'o',
            Species::Jackal => 'j',
            Species::Scorpion => 'S',
            Species::Cobra => 'c',
            Species::Meerkat => 'm',
            Species::Sandworm => 'W',
            Species::Hyena => 'h',
            Species::Tortoise => 'T',
            Species::Lion => 'L',
            Species::Ratel => 'r',
            Species::Vulture => 'v',
            Species::Locusts => 'l',
            Species::Fennec => 'f',
            Species::Viper => 'V',
        }
    }

    /// Speed for `nethack`; max energy and move cost for `classic`.
    pub fn stats(self) -> Stats {
        let (speed, max_energy, move_cost) = match self {
            // Normal speed; can bank a second move's worth, which is what makes dashing pay.
            Species::Camel => (12, 200, 100),
            // Fast: twice per tick under classic, about 5 actions in 3 ticks under nethack.
            Species::Snake => (20, 100, 50),
            // Slow: every second tick under classic, two ticks in three under nethack.
            Species::Elephant => (8, 150, 150),
            Species::Spider => (12, 100, 100),
            Species::SpiderEgg => (12, 100, 100),
            // Fast: three actions in two ticks under both rulesets.
            Species::Jackal => (18, 200, 67),
            // Slow: two actions in three ticks under nethack, every second tick under classic.
            Species::Scorpion => (8, 150, 150),
            Species::Cobra => (12, 100, 100),
            // Quick: five actions in four ticks under nethack.
            Species::Meerkat => (15, 150, 80),
            Species::Sandworm => (10, 150, 120),
            // Quick: four actions in three ticks under nethack.
            Species::Hyena => (16, 200, 75),
            // Very slow: one action in three ticks under both rulesets.
            Species::Tortoise => (4, 300, 300),
            // Fast: four actions in three ticks under nethack, as a hyena.
            Species::Lion => (16, 200, 75),
            Species::Ratel => (12, 150, 100),
            // Fast: three actions in two ticks, as a jackal.
            Species::Vulture => (18, 200, 67),
            // Quick: five actions in four ticks under nethack, as a meerkat.
            Species::Locusts => (15, 150, 80),
            // Fast: three actions in two ticks, as a jackal: walking, the camel never
            // catches it.
            Species::Fennec => (18, 200, 67),
            // Quick: seven actions in six ticks under nethack.
            Species::Viper => (14, 150, 85),
        };
        Stats {
            speed,
            max_energy,
            move_cost,
        }
    }

    pub fn max_hp(self) -> i16 {
        match self {
            Species::Camel => 30,
            Species::Snake => 4,
            Species::Elephant => 18,
            Species::Spider => 3,
            Species::SpiderEgg => 2,
            Species::Jackal => 7,
            Species::Scorpion => 9,
            Species::Cobra => 5,
            Species::Meerkat => 3,
            Species::Sandworm => 14,
            Species::Hyena => 6,
            Species::Tortoise => 20,
            Species::Lion => 18,
            Species::Ratel => 9,
            Species::Vulture => 8,
            Species::Locusts => 8,
            Species::Fennec => 4,
            Species::Viper => 6,
        }
    }

    /// Damage dealt by a bite, kick or charge, inclusive.
    pub fn damage(self) -> (u32, u32) {
        match self {
            Species::Camel => (2, 5),
            Species::Snake => (1, 3),
            Species::Elephant => (5, 9),
            Species::Spider => (1, 2),
            Species::SpiderEgg => (0, 0),
            Species::Jackal => (1, 3),
            Species::Scorpion => (1, 2),
            Species::Cobra => (1, 2),
            Species::Meerkat => (1, 1),
            Species::Sandworm => (3, 6),
            Species::Hyena => (1, 3),
            Species::Tortoise => (2, 6),
            Species::Lion => (2, 6),
            Species::Ratel => (1, 3),
            Species::Vulture => (2, 4),
            Species::Locusts => (1, 2),
            Species::Fennec => (1, 1),
            Species::Viper => (1, 3),
        }
    }

    pub fn attack_verb(self) -> &'static str {
        match self {
            Species::Camel => "kicks",
            Species::Snake => "bites",
            Species::Elephant => "rams",
            Species::Spider => "bites",
            Species::SpiderEgg => "touches",
            Species::Jackal => "bites",
            Species::Scorpion => "stings",
            Species::Cobra => "spits at",
            Species::Meerkat => "nips",
            Species::Sandworm => "bites",
            Species::Hyena => "bites",
            Species::Tortoise => "crushes",
            Species::Lion => "mauls",
            Species::Ratel => "bites",
            Species::Vulture => "tears at",
            Species::Locusts => "bites",
            Species::Fennec => "nips",
            Species::Viper => "bites",
        }
    }

    /// Whether it hunts the camel: follows it by sight and remembers where it saw it.
    pub fn hunts(self) -> bool {
        matches!(
            self,
            Species::Jackal
                | Species::Scorpion
                | Species::Sandworm
                | Species::Hyena
                | Species::Lion
                | Species::Ratel
                | Species::Locusts
                | Species::Viper
        )
    }

    /// Whether it steals from the camel's bags rather than biting it (rules version 16
    /// on).
    pub fn steals(self) -> bool {
        self == Species::Fennec
    }

    /// Whether a date thrown to it makes it the camel's ally (rules version 8 on).
    pub fn is_tameable(self) -> bool {
        self == Species::Jackal
    }

    /// Whether it runs from the camel when badly hurt.
    pub fn flees(self) -> bool {
        matches!(self, Species::Jackal | Species::Hyena)
    }

    /// Whether the night's cold makes it sluggish (rules version 6 on).
    pub fn is_cold_blooded(self) -> bool {
        matches!(
            self,
            Species::Snake
                | Species::Cobra
                | Species::Scorpion
                | Species::Spider
                | Species::Tortoise
                | Species::Viper
        )
    }

    /// Whether a level may place it asleep (rules version 6 on): a sandworm always is, a
    /// meerkat (the desert's sentry) and an egg never, the others one time in two.
    pub fn sleeps(self) -> Sleep {
        match self {
            Species::Sandworm | Species::Viper => Sleep::Always,
            Species::Camel | Species::Meerkat | Species::SpiderEgg => Sleep::Never,
            _ => Sleep::Often,
        }
    }

    /// How far off, in king moves, a sleeper of this species may hear the camel: a
    /// sandworm under the sand feels only a step beside it, a dormant egg in a nest
    /// (rules version 9 on: `places`; no older level holds one) only two.
    pub const fn hearing(self) -> u16 {
        match self {
            Species::Sandworm | Species::Viper => 1,
            Species::SpiderEgg => 2,
            _ => HEARING,
        }
    }

    /// Whether, asleep, it is out of sight even where the camel sees.
    pub fn hides_asleep(self) -> bool {
        matches!(self, Species::Sandworm | Species::Viper)
    }

    /// Turns of poison its attack gives whoever it hurts, if it is venomous.
    pub fn venom(self) -> Option<u16> {
        match self {
            Species::Scorpion => Some(6),
            Species::Cobra => Some(4),
            Species::Viper => Some(5),
            _ => None,
        }
    }

    /// The most a blow struck beside it (a kick, a bite) takes from it, if its hide turns
    /// such blows aside; what is thrown at it hurts in full.
    pub fn thick_hide(self) -> Option<i16> {
        match self {
            Species::Ratel => Some(THICK_HIDE),
            _ => None,
        }
    }

    /// How far its attack reaches, in king moves: 1 but for a cobra's spit, which flies
    /// along a clear straight line.
    pub fn reach(self) -> u16 {
        match self {
            Species::Cobra => COBRA_REACH,
            _ => 1,
        }
    }
}

/// How near a hidden sleeper the camel feels the sand stir: one step short of where it
/// may wake the sleeper (`Species::hearing`).
pub const STIR_REACH: u16 = 2;

/// The most a kick or a bite takes from a ratel: its hide is loose and thick.
pub const THICK_HIDE: i16 = 2;

/// The most locust swarms a level holds: one that would split past it is only hurt.
pub const SWARMS_MOST: usize = 8;

/// How far a cobra spits, in cells along a row, column or diagonal.
pub const COBRA_REACH: u16 = 4;

/// Extra damage a hyena's bite does while another hyena stands beside its victim: a
/// pack in the open pulls the camel down, one at a time in a gap it does not.
pub const PACK_BITE: i16 = 1;

/// How far a hyena's howl carries, in king moves: packmates within it wake and learn
/// where the camel is.
pub const HOWL_REACH: u16 = 20;

/// How far a sleeper hears the camel, in king moves: it wakes with a chance of
/// `(hearing + 1 - distance) / (hearing + 1)` each of its turns.
pub const HEARING: u16 = 7;

/// How readily a level places a creature asleep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sleep {
    Never,
    Often,
    Always,
}

/// How an actor decides what to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Behaviour {
    /// Asks for a command: `Need::Command`.
    Player,
    /// Spends one action of its base cost every time it can (scenarios, benchmarks).
    Idle,
    /// Always rests.
    Rest,
    /// Steps in a random direction each action, attacking nothing.
    Wander,
    /// As its species does in the game.
    Natural,
    /// Asleep until it hears the camel or is hurt; then `Natural` (rules version 6 on).
    Asleep,
    /// The camel's friend: it keeps near the camel and bites its foes (rules version 8
    /// on: `Rules::allies`).
    Ally,
    /// In a charmed sleep that only a blow or an alarm ends (a scarab of slumber: rules
    /// version 9 on); then `Natural`.
    Slumber,
}

impl Behaviour {
    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Player => "player",
            Behaviour::Idle => "idle",
            Behaviour::Rest => "rest",
            Behaviour::Wander => "wander",
            Behaviour::Natural => "natural",
            Behaviour::Asleep => "asleep",
            Behaviour::Ally => "ally",
            Behaviour::Slumber => "slumber",
        }
    }
}
