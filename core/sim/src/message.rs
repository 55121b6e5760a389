//! What the player is told. Messages are derived by the fold, never stored on the tape.

use std::collections::VecDeque;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::consistency::{Inconsistency, MOST_COUNT};
use crate::ids::Tick;
use crate::item::{unknown_name, Charm, Draught, Effect, Glass, Item, Look, Stone};
use crate::level::grounds::Ground;
use crate::lore::{
    Boon, ARM_HARM, DEEPER_SIPS, FURY_COST_HP, FURY_KICK, HARDIER_HP, HIDE_TURNS, HUMP_TURNS,
    SINEW_COST_SIPS, SINEW_HP, STRONGER_KICK, VIGOUR_HP,
};
use crate::species::Species;
use crate::text::{a, capitalise};

/// A message, as data: rendering it to text is the reader's business, so the fold does
/// not allocate strings.
///
/// Append-only: a variant's place is its number in the state's encoding (the message log
/// is part of the state, and of its hash); a variant moved or removed changes every
/// golden's hashes. New variants go at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    Welcome {
        depth: u8,
    },
    Hit {
        attacker: Species,
        target: Species,
        damage: i16,
    },
    Killed {
        attacker: Species,
        target: Species,
    },
    Charges,
    Stunned,
    EggLaid,
    Hatched {
        spiders: u8,
    },
    PickedUp(Item),
    Dropped(Item),
    Ate(Item),
    Identified {
        look: Look,
        effect: Effect,
    },
    Thrown {
        item: Item,
        hit: Option<Species>,
    },
    Opened,
    Closed,
    Stumble,
    ConditionEnds(Effect),
    Descended {
        depth: u8,
    },
    Died {
        by: Option<Species>,
    },
    /// The camel cannot afford what it is doing yet, and waits for the energy.
    Gathering,
    Poisoned,
    Won,
    Quit,
    /// A sleeper wakes where the camel sees it.
    Wakes(Species),
    /// A meerkat shrieks where the camel sees it.
    Shrieks,
    /// The camel fills its waterskin.
    Filled,
    WaterLow,
    WaterGone,
    /// The camel's waterskin is empty, and a sip was due.
    Parched,
    /// The camel stepped near a hidden sleeper (a sandworm).
    SandStirs,
    /// A hyena howled: heard wherever the camel is.
    Howls,
    /// A tortoise trampled a cactus where the camel sees it.
    Tramples,
    /// The camel put on a piece of gear.
    PutOn(Item),
    /// A creature caught the date the camel threw it, and is its ally from now on.
    Tamed(Species),
    /// The camel drank a flask, and knows it now (rules version 9 on).
    Drank {
        glass: Glass,
        draught: Draught,
    },
    /// The camel cracked a scarab, and knows it now; a charm of blinking `fizzled` when
    /// no cell was far enough (rules version 9 on).
    Cracked {
        stone: Stone,
        charm: Charm,
        fizzled: bool,
    },
    /// The camel crushed a desert rose and grew (rules version 9 on).
    Grew(Boon),
    /// The camel took off a piece of gear (rules version 9 on).
    TookOff(Item),
    /// A thrown missile hit a creature for `damage` (rules version 9 on; before, the blow
    /// was told as the thrower's own: `Rules::thrown_blows_told_as_thrown`).
    Struck {
        item: Item,
        target: Species,
        damage: i16,
    },
    /// The camel opened a locked door with a key, which stays in the lock.
    Unlocked,
    /// Poison burns the camel for `damage` (rules version 10 on: `Rules::harms_told`).
    Burns {
        damage: i16,
    },
    /// The camel died of a harm no creature dealt (rules version 10 on).
    Perished(Harm),
    /// The camel came to a level of this ground (rules version 10 on: `Rules::grounds`).
    Ground(Ground),
    /// The camel's ally caught a date thrown to it and ate it, healing by `amount` (rules
    /// version 10 on: `Rules::allies_eat_dates`).
    Fed {
        species: Species,
        amount: i16,
    },
    /// The camel came down to where the sun stands higher: its wounds close only every
    /// `heals_every` turns, or (`None`) not at all by themselves (rules version 13 on:
    /// `Crossing::Furnace`).
    Hotter {
        heals_every: Option<u32>,
    },
    /// A thrown spear snapped on the creature it hit, and is gone (rules version 14 on:
    /// `Rules::spears_break`).
    Snapped(Item),
    /// A swarm struck and not killed split in two (rules version 15 on: `Species::Locusts`).
    Split(Species),
    /// A thief snatched `item` from the camel's bags (rules version 16 on:
    /// `Rules::thieves`).
    Stole {
        thief: Species,
        item: Item,
    },
    /// A thief killed let fall what it carried.
    LetFall {
        thief: Species,
        item: Item,
    },
    /// A thrown mushroom burst on a creature, doing to it what it does to whoever eats it
    /// (rules version 16 on: `Rules::mushrooms_burst`).
    Burst {
        look: Look,
        effect: Effect,
        target: Species,
    },
    /// A creature the camel leaves be (asleep, grazing) stepped into the cell the camel
    /// gathered strength to walk to: it stops, and kicks nothing (rules version 17 on:
    /// `Rules::steps_never_become_kicks`).
    InTheWay(Species),
}

/// What hurts the camel without a blow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Harm {
    Poison,
    Thirst,
}

impl Harm {
    pub fn name(self) -> &'static str {
        match self {
            Harm::Poison => "poison",
            Harm::Thirst => "thirst",
        }
    }
}

/// The fold's own words name a find by its look (`unknown_name`): a message does not know
/// what the camel learns after it.
impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.words(unknown_name).fmt(f)
    }
}

/// A message in words, each find it names called by `name`.
pub struct Words<'a, N> {
    msg: &'a Msg,
    name: N,
}

impl Msg {
    /// This message in words, each find it names called by `name`: a reader that knows
    /// what the camel knew as it happened names a known flask by its draught.
    pub fn words<N: Fn(Item) -> String>(&self, name: N) -> Words<'_, N> {
        Words { msg: self, name }
    }
}

impl<N: Fn(Item) -> String> fmt::Display for Words<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |item| a(&(self.name)(item));
        let who = |s: Species| {
            if s == Species::Camel {
                "you".to_string()
            } else {
                format!("the {}", s.name())
            }
        };
        match *self.msg {
            Msg::Welcome { depth } => {
                write!(f, "You enter the desert, depth {depth}. Find the stairs.")
            }
            Msg::Hit {
                attacker,
                target,
                damage,
            } => {
                let verb = if attacker == Species::Camel {
                    "kick"
                } else {
                    attacker.attack_verb()
                };
                write!(
                    f,
                    "{} {} {} ({}).",
                    capitalise(&who(attacker)),
                    verb,
                    who(target),
                    damage
                )
            }
            Msg::Killed { attacker, target } => {
                write!(
                    f,
                    "{} {} {}.",
                    capitalise(&who(attacker)),
                    if attacker == Species::Camel {
                        "kill"
                    } else {
                        "kills"
                    },
                    who(target)
                )
            }
            Msg::Charges => write!(f, "The elephant charges!"),
            Msg::Stunned => write!(f, "The elephant crashes into a cactus and is stunned."),
            Msg::EggLaid => write!(f, "A spider lays an egg."),
            Msg::Hatched { spiders } => write!(f, "The egg hatches! {spiders} spiders crawl out."),
            Msg::PickedUp(item) => write!(f, "You pick up {}.", name(item)),
            Msg::Dropped(item) => write!(f, "You drop {}.", name(item)),
            Msg::Ate(item) => write!(f, "You eat {}.", name(item)),
            Msg::Identified { look, effect } => write!(
                f,
                "The {} mushroom was a mushroom of {}!",
                look.name(),
                effect.name()
            ),
            Msg::Thrown {
                item,
                hit: Some(target),
            } if item.is_throwable() => {
                write!(f, "The {} hits the {}.", item.noun(), target.name())
            }
            Msg::Thrown {
                item,
                hit: Some(target),
            } => write!(
                f,
                "The {} sniffs at the {} and leaves it.",
                target.name(),
                item.noun()
            ),
            Msg::Thrown { item, hit: None } => {
                write!(f, "The {} lands in the sand.", item.noun())
            }
            Msg::Opened => write!(f, "The door opens."),
            Msg::Closed => write!(f, "The door closes."),
            Msg::Stumble => write!(f, "You stumble about, confused."),
            Msg::ConditionEnds(effect) => write!(f, "The {} wears off.", effect.name()),
            Msg::Descended { depth } => write!(f, "You climb down to depth {depth}."),
            Msg::Died { by: Some(s) } => write!(f, "You die, killed by {}.", a(s.name())),
            Msg::Died { by: None } => write!(f, "You die."),
            Msg::Gathering => write!(f, "You gather your strength."),
            Msg::Poisoned => write!(f, "You are poisoned!"),
            Msg::Won => write!(f, "You reach the oasis! You win."),
            Msg::Quit => write!(f, "You give up the crossing."),
            // An egg does not sleep but lies dormant until the camel comes near.
            Msg::Wakes(Species::SpiderEgg) => write!(f, "A spider egg quivers!"),
            Msg::Wakes(species) => write!(f, "The {} wakes up!", species.name()),
            Msg::Shrieks => write!(f, "The meerkat shrieks! Sleepers stir."),
            Msg::Filled => write!(f, "You fill your waterskin."),
            Msg::WaterLow => write!(f, "Your waterskin is nearly empty."),
            Msg::WaterGone => write!(f, "You drink the last of your water."),
            Msg::Parched => write!(f, "You are parched, and weaken (1)."),
            Msg::SandStirs => write!(f, "The sand stirs nearby. Something lies beneath."),
            Msg::Howls => write!(f, "A hyena howls, and the pack answers."),
            Msg::Tramples => write!(f, "The tortoise tramples a cactus flat."),
            Msg::PutOn(item) => write!(f, "You put on {}.", name(item)),
            Msg::Tamed(s) => write!(
                f,
                "The {} gobbles the date and falls in at your side.",
                s.name()
            ),
            Msg::Drank { glass, draught } => {
                let what = match draught {
                    Draught::Sweet => "Your waterskin fills, and you feel better.",
                    Draught::Vision => "The whole level shows itself to your mind's eye.",
                    Draught::Brackish => "You retch, and your waterskin is spoilt.",
                };
                let name = glass.name();
                write!(f, "You drink the {name} flask: {}! {what}", draught.name())
            }
            Msg::Cracked {
                stone,
                charm,
                fizzled,
            } => {
                let what = match (charm, fizzled) {
                    (Charm::Slumber, _) => "The creatures about you fall asleep.",
                    (Charm::Blink, false) => "The desert folds, and you stand elsewhere.",
                    (Charm::Blink, true) => "The air shimmers, but you stay where you are.",
                    (Charm::Alarm, _) => "A shrill whine rings out, and the whole level wakes.",
                };
                let name = stone.name();
                write!(f, "You crack the {name} scarab: {}! {what}", charm.name())
            }
            Msg::Grew(boon) => match boon {
                Boon::Hardier => write!(
                    f,
                    "You crush the desert rose and grow hardier ({HARDIER_HP} more hit points)."
                ),
                Boon::Stronger => write!(
                    f,
                    "You crush the desert rose and grow stronger (kicks harm {STRONGER_KICK} more)."
                ),
                Boon::Deeper => write!(
                    f,
                    "You crush the desert rose, and your waterskin holds {DEEPER_SIPS} sips more."
                ),
                Boon::Hide => write!(
                    f,
                    "You crush the desert rose, and your hide thickens (blows harm you \
                     {HIDE_TURNS} less)."
                ),
                Boon::Arm => write!(
                    f,
                    "You crush the desert rose, and your throws grow strong (thrown things \
                     harm {ARM_HARM} more)."
                ),
                Boon::Hump => write!(
                    f,
                    "You crush the desert rose, and your hump fattens (a sip {HUMP_TURNS} \
                     turns later)."
                ),
                Boon::Sage => write!(
                    f,
                    "You crush the desert rose, and the desert's lore is yours: you know \
                     every flask and scarab."
                ),
                Boon::Vigour => write!(
                    f,
                    "You crush the desert rose, and grow vigorous (each kill gives back \
                     {VIGOUR_HP} hit points)."
                ),
                Boon::Fury => write!(
                    f,
                    "You crush the desert rose, and fury fills you (kicks harm {FURY_KICK} \
                     more; {FURY_COST_HP} fewer hit points)."
                ),
                Boon::Sinew => write!(
                    f,
                    "You crush the desert rose, and grow sinewy ({SINEW_HP} more hit points; \
                     your waterskin holds {SINEW_COST_SIPS} sips fewer)."
                ),
            },
            Msg::TookOff(item) => write!(f, "You take off {}.", name(item)),
            Msg::Struck {
                item,
                target,
                damage,
            } => write!(
                f,
                "The {} hits the {} ({damage}).",
                item.noun(),
                target.name()
            ),
            Msg::Unlocked => write!(f, "The key turns in the lock, and the door swings open."),
            Msg::Burns { damage } => write!(f, "The poison burns you ({damage})."),
            Msg::Perished(harm) => write!(f, "You die of {}.", harm.name()),
            Msg::Fed { species, amount } => write!(
                f,
                "Your {} catches the date and eats it ({amount} hit points back).",
                species.name()
            ),
            Msg::Ground(ground) => {
                write!(f, "{}: {}.", capitalise(&a(ground.name())), ground.hint())
            }
            Msg::Hotter {
                heals_every: Some(turns),
            } => write!(
                f,
                "The sun stands higher here: a wound closes by itself only every {turns} turns."
            ),
            Msg::Hotter { heals_every: None } => write!(
                f,
                "The furnace: the air burns, and no wound closes by itself here. Only food, \
                 drink, a mushroom or a boon heals you."
            ),
            Msg::Snapped(item) => write!(f, "The {} snaps.", item.noun()),
            Msg::Split(species) => write!(f, "The {} splits in two.", species.name()),
            Msg::InTheWay(species) => {
                write!(f, "The {} is in your way: you stop.", species.name())
            }
            Msg::Stole { thief, item } => write!(
                f,
                "The {} snatches {} from your bags and runs!",
                thief.name(),
                name(item)
            ),
            Msg::LetFall { thief, item } => {
                write!(f, "The {} lets fall {}.", thief.name(), name(item))
            }
            Msg::Burst {
                look,
                effect,
                target,
            } => {
                let what = match effect {
                    Effect::Heal => "it looks the better for it",
                    Effect::Poison => "it is poisoned",
                    Effect::Haste => "it speeds up",
                    Effect::Slow => "it slows down",
                    Effect::Confusion => "it reels, confused",
                };
                write!(
                    f,
                    "The {} bursts on the {}: {what}!",
                    (self.name)(Item::Mushroom(look)),
                    target.name()
                )
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub tick: Tick,
    pub msg: Msg,
}

/// The newest messages, oldest first; old ones fall off so memory stays flat in long games.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageLog {
    recent: VecDeque<Message>,
    /// Every message ever logged, including those that fell off.
    total: u64,
}

impl MessageLog {
    pub const KEEP: usize = 64;

    pub(crate) fn push(&mut self, message: Message) {
        if self.recent.len() == Self::KEEP {
            self.recent.pop_front();
        }
        self.recent.push_back(message);
        self.total += 1;
    }

    /// Whether a decoded log is one `push` could have made: it keeps at most `KEEP`
    /// (it drops the oldest only when it holds exactly that many, so it would grow
    /// without end past it), no more than it has counted, and a count that can go on.
    pub(crate) fn check(&self) -> Result<(), Inconsistency> {
        let kept = self.recent.len() as u64;
        let sound =
            self.recent.len() <= Self::KEEP && kept <= self.total && self.total <= MOST_COUNT;
        sound.then_some(()).ok_or(Inconsistency::Messages)
    }

    pub fn recent(&self) -> impl DoubleEndedIterator<Item = &Message> + ExactSizeIterator {
        self.recent.iter()
    }

    /// A count that only grows: a reader remembers it to find the messages that are new.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The messages logged after the reader's count `seen`, as many as are still kept.
    pub fn since(&self, seen: u64) -> impl Iterator<Item = &Message> {
        let new = self
            .total
            .saturating_sub(seen)
            .min(self.recent.len() as u64) as usize;
        self.recent.iter().skip(self.recent.len() - new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(tick: u64) -> Message {
        Message {
            tick: Tick(tick),
            msg: Msg::Charges,
        }
    }

    /// A mushroom bursting on a creature is named as every other find is: by its look to
    /// the fold, by what it is to a reader who knows it.
    #[test]
    fn a_mushroom_bursting_is_named_by_what_the_reader_knows() {
        let burst = Msg::Burst {
            look: Look::Brown,
            effect: Effect::Confusion,
            target: Species::Lion,
        };
        assert_eq!(
            burst.to_string(),
            "The brown mushroom bursts on the lion: it reels, confused!"
        );
        let known = |_| "mushroom of confusion".to_string();
        assert_eq!(
            burst.words(known).to_string(),
            "The mushroom of confusion bursts on the lion: it reels, confused!"
        );
    }

    /// A log `push` makes is sound at every length; one keeping more than `KEEP` (it would
    /// never drop another), or more than it counted, is not.
    #[test]
    fn a_log_keeping_more_than_it_may_or_than_it_counted_is_refused() {
        let mut log = MessageLog::default();
        for tick in 0..100 {
            assert_eq!(log.check(), Ok(()));
            log.push(message(tick));
        }
        assert_eq!(log.recent.len(), MessageLog::KEEP);
        let mut crowded = log.clone();
        crowded.recent.push_back(message(100));
        crowded.total += 1;
        assert_eq!(crowded.check(), Err(Inconsistency::Messages));
        let mut uncounted = log.clone();
        uncounted.total = 3;
        assert_eq!(uncounted.check(), Err(Inconsistency::Messages));
        let mut endless = log;
        endless.total = u64::MAX;
        assert_eq!(endless.check(), Err(Inconsistency::Messages));
    }
}
