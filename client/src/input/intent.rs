//! The words of input: a key press as the bindings see it, and what the player means by
//! it. Both the bindings (`keys`) and the player's keymap (`keymap`) speak them.

use macroquad::miniquad::KeyCode;
use sandglass_sim::geometry::Direction;

/// One key press as the bindings see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// A typed character, layout-aware, shift already applied.
    Char(char),
    /// A physical key; only keys that type nothing are bound this way.
    Code(KeyCode),
    /// A key that types nothing, pressed with Shift (Shift and an arrow runs).
    Shift(KeyCode),
    /// A letter, `+`, `-` or `0` pressed with Control (Ctrl-P: the message history;
    /// Ctrl and Plus: bigger glyphs).
    Ctrl(char),
}

/// What the player means by a key press, before any game rule is consulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Move(Direction),
    /// Keep moving one way until something happens.
    Run(Direction),
    Rest,
    /// Rest until healed.
    RestLong,
    /// Travel to the stairs.
    Travel,
    Explore,
    Look,
    /// The whole message history.
    History,
    /// Everything the camel carries and wears, in full.
    Inventory,
    PickUp,
    Drop,
    Eat,
    Wear,
    /// Take off a piece of gear.
    TakeOff,
    /// Drink a flask, crack a scarab or crush a desert rose.
    Apply,
    Throw,
    Open,
    Close,
    Descend,
    Dash,
    Help,
    SaveAs,
    Quit,
    TogglePanel,
    /// Full screen on or off (F11, Alt+Enter).
    ToggleFullScreen,
    /// The options screen.
    Options,
    /// The map's glyphs a step bigger, a step smaller, or as large as fit the whole map.
    Bigger,
    Smaller,
    FitMap,
    /// Aim at the next creature in line (Tab, while a throw asks its direction).
    NextTarget,
    /// A menu choice.
    Letter(char),
    Yes,
    No,
    Escape,
    Confirm,
    Space,
}
