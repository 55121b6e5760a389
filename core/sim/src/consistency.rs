//! What a state must be for a game to be in it, and the bounds its counts and its
//! encoding are held to. Low in the crate: the map, the bags, the messages, the world and
//! the machine each check their own part against these when a state is decoded, and none
//! of them needs the encoding for it.

use thiserror::Error;

/// What makes a state that parses one that no game can be in. Each is a rule the fold
/// relies on without checking it (an index, an `unwrap`, a loop that ends only because
/// the rule holds): a damaged or crafted snapshot breaking one would panic or hang when
/// played on. They are checked once, when decoding, each beside what it is about (the
/// map's in `map`, the world's in `world`, the machine's in `state`), so that folding never
/// has to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum Inconsistency {
    #[error("its rules could never let a camel act")]
    Rules,
    #[error("its map is empty, larger than any, or holds more or fewer cells than its size")]
    MapSize,
    #[error("the cells the camel has explored are not those of its map")]
    Explored,
    #[error("an actor stands outside the map")]
    OutsideMap,
    #[error("the map's occupants are not the actors standing on it")]
    Occupants,
    #[error("an item lies outside the map")]
    FloorOutsideMap,
    #[error("the camel's bags hold an empty stack")]
    EmptyStack,
    #[error("the floor and the bags hold more items than a game can count")]
    Items,
    #[error(
        "a name or a newcomer waiting for its initiative is given to an actor that does not exist"
    )]
    UnknownActor,
    #[error("the turn order names an actor twice, or one that does not exist")]
    TurnOrder,
    #[error("the turn order is said to be up to date but leaves out an actor that is there")]
    StaleOrder,
    #[error("an actor waits twice for its initiative, or is gone, or its rules draw none")]
    Unrolled,
    #[error(
        "it has no camel, or its camel is not one that plays, or another actor asks for commands"
    )]
    Player,
    #[error("the camel is gone, yet did not die, or died and is still there")]
    PlayerGone,
    #[error("its depth is not one of the game's levels")]
    Depth,
    #[error("the camel never gains the energy to act")]
    Stalled,
    #[error("an actor's stats are none its rules can count with (no gain, free actions, or more actions a tick than any creature takes)")]
    Stats,
    #[error("an actor holds more energy than it ever can")]
    Energy,
    #[error("an actor's hit points are out of bounds")]
    HitPoints,
    #[error("an action an actor keeps for later names a cell outside the map, an actor that does not exist, or a roll no die makes")]
    KeptAction,
    #[error("a hunter remembers the camel outside the map")]
    LastSeen,
    #[error("a creature is the camel's ally under rules that have no allies")]
    Ally,
    #[error(
        "something is carried by a creature that is not there, or under rules that have no thieves"
    )]
    Loot,
    #[error("the camel has killed more creatures than there have been")]
    Kills,
    #[error("the camel's waterskin holds more than it can")]
    Water,
    #[error("two flasks or two scarabs of different looks are said to do the same")]
    Lore,
    #[error("a desert rose offers one boon twice")]
    Offers,
    #[error("a count has grown too large to go on counting")]
    Count,
    #[error("the message log keeps more messages than it may, or more than it has counted")]
    Messages,
    #[error("the machine's phase does not fit the world")]
    Phase,
    #[error("what the machine waits for does not fit its phase")]
    Need,
    #[error("an order key names an actor that does not exist, or not the one in its slot")]
    OrderKeys,
    #[error("more draws wait for the step than any step takes")]
    Draws,
    #[error("a locked door or a key is found under rules that have no places")]
    Places,
}

/// The most bytes a state's encoding may take: a crowded level's state takes under a
/// megabyte. Longer input is refused before it is parsed, and the parser may claim no
/// more than this for what a length field announces (the only such fields are the
/// scenario names, read in place from the input; sequences are built as their elements
/// arrive).
pub const MOST_STATE_BYTES: usize = 16 << 20;

/// The most a count that only grows (ticks, events, messages) may hold: ages of play
/// (2^48 events at a million a second is nine years), and far enough from the top of its
/// type that counting on can never overflow.
pub(crate) const MOST_COUNT: u64 = 1 << 48;
