//! Multi-step actions as a small pipeline of prompts.
//!
//! Eating, throwing, dropping, opening, closing and quitting ask the player one or more
//! questions first. Each question is a step that holds the rest of the action as a
//! closure, so steps compose like ordinary function calls (`choose_item(...,
//! |slot| choose_direction(..., move |dir| done(Command::Throw(slot, dir))))`). A step
//! may end the action early with a message; nothing reaches the tape then and no turn is
//! spent. Only a fully answered action comes out, as exactly one `Command`.
//!
//! The prompts see the game through the small `Inventory` view, never the core's state,
//! so they can be tested with a plain list of items.

use std::fmt;

use sandglass_sim::command::{Command, Slot};
use sandglass_sim::gear::Garment;
use sandglass_sim::geometry::{line, Direction, Pos};
use sandglass_sim::lore::Boon;

use super::intent::Input;
use super::keys::Mode;

pub const NEVER_MIND: &str = "Never mind.";
pub const NOT_CARRIED: &str = "You don't have that.";
/// A letter of something carried, that the question does not take: played by eye, a
/// mushroom chosen to throw was answered "You don't have that."
pub const NOT_FOR_THIS: &str = "You have that, but it will not do for this.";

/// What the prompts need to know about one carried item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemView {
    pub slot: Slot,
    pub name: String,
    pub edible: bool,
    pub throwable: bool,
    pub wearable: bool,
    /// What `a` does with it, if anything.
    pub apply: Apply,
}

/// What using an item asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apply {
    /// Nothing: it cannot be used.
    No,
    /// Nothing more: a flask is drunk, a scarab cracked.
    AsItIs,
    /// A choice of how to grow: a desert rose.
    Grow,
}

/// The game as the prompts see it.
pub trait Inventory {
    /// The carried items, in slot order.
    fn items(&self) -> Vec<ItemView>;

    /// The gear worn, with its name.
    fn worn(&self) -> Vec<(Garment, String)>;

    /// What a throw can be aimed at, nearest first: each creature in view on one of the
    /// eight lines from the camel, with the direction that reaches it; where the camel
    /// throws at any cell (`thrower`), each creature in view but its ally. None by default.
    fn targets(&self) -> Vec<Target> {
        vec![]
    }

    /// Where each creature the camel sees stands, and whether it is the camel's ally: a
    /// throw at a cell whose path meets the ally first asks before it goes. None by
    /// default.
    fn standing(&self) -> Vec<(Pos, bool)> {
        vec![]
    }

    /// Where the camel stands, if the rules let it throw at any cell it sees
    /// (`Rules::throws_at_any_cell`): the throw then asks for a cell, not a direction.
    fn thrower(&self) -> Option<Pos> {
        None
    }

    /// The three ways the next desert rose crushed can grow the camel. The first three
    /// boons by default, as every rose offered before rules 12.
    fn offer(&self) -> [Boon; 3] {
        Boon::FIRST_THREE
    }

    /// What `boon` does, as the rules of the game played say it.
    fn describe(&self, boon: Boon) -> String {
        boon.describe()
    }
}

/// A creature a throw can be aimed at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The line that reaches it, where a throw goes along one of the eight.
    pub dir: Option<Direction>,
    pub at: Pos,
    /// Its name, with its article.
    pub name: String,
}

impl Inventory for [ItemView] {
    fn items(&self) -> Vec<ItemView> {
        self.to_vec()
    }

    fn worn(&self) -> Vec<(Garment, String)> {
        vec![]
    }
}

/// Where an action stands after the player's last key.
#[derive(Debug)]
pub enum Flow {
    /// Waiting for the player's answer.
    Ask(Prompt),
    /// Every question answered: the one command to hand to the core.
    Command(Command),
    /// Ended early; no turn is spent. The message tells the player why.
    Cancelled(&'static str),
}

/// One open question and what to do with its answer.
pub struct Prompt {
    question: &'static str,
    step: Step,
    /// What a direction may be aimed at with Tab (a throw's), and which is aimed at now.
    targets: Vec<Target>,
    aimed: Option<usize>,
}

enum Step {
    Item {
        choices: Vec<(Slot, String)>,
        /// The letters of everything carried, offered or not.
        carried: Vec<char>,
        then: Box<dyn FnOnce(Slot) -> Flow>,
    },
    Direction(Box<dyn FnOnce(Direction) -> Flow>),
    /// A cell to throw at: directions move the cursor, at most `AIM_REACH` from `from`;
    /// Tab puts it on each target in turn; Enter takes its cell.
    Cell {
        from: Pos,
        cursor: Pos,
        then: Box<dyn FnOnce(Pos) -> Flow>,
    },
    YesNo(Box<dyn FnOnce() -> Flow>),
}

/// Asked before a throw whose path meets the camel's ally first: played by eye, a stone
/// thrown at a spider hit the jackal beside it without a word.
const ALLY_IN_THE_WAY: &str = "Your ally is in the way, and would be hit. Throw anyway?";

/// How far from the camel the throwing cursor goes: as far as the camel sees.
const AIM_REACH: u16 = sandglass_sim::sight::SIGHT_RADIUS as u16;

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("line", &self.line())
            .field("choices", &self.choices())
            .finish()
    }
}

impl Prompt {
    /// The question as shown on the message line, with the accepted answers.
    pub fn line(&self) -> String {
        match &self.step {
            Step::Item { choices, .. } => {
                let letters: String = choices.iter().map(|(slot, _)| slot.letter()).collect();
                format!("{} [{letters}]", self.question)
            }
            Step::Direction(_) => match (self.aimed(), self.targets.len()) {
                (Some(target), _) => format!(
                    "{} [at {}: Enter throws, Tab the next]",
                    self.question, target.name
                ),
                (None, 0) => self.question.to_owned(),
                (None, _) => format!("{} [Tab: aim at a creature]", self.question),
            },
            Step::Cell { .. } => match self.aimed() {
                Some(target) => format!(
                    "{} [at {}: Enter throws, Tab the next, directions move]",
                    self.question, target.name
                ),
                None => format!(
                    "{} [directions move, Tab: a creature, Enter throws]",
                    self.question
                ),
            },
            Step::YesNo(_) => format!("{} [yn]", self.question),
        }
    }

    /// The menu to show under the question: letter and item name. Empty unless the step
    /// asks for an item.
    pub fn choices(&self) -> &[(Slot, String)] {
        match &self.step {
            Step::Item { choices, .. } => choices,
            _ => &[],
        }
    }

    /// The creature aimed at with Tab, if one is.
    pub fn aimed(&self) -> Option<&Target> {
        self.aimed.and_then(|i| self.targets.get(i))
    }

    /// Where a throw at a cell goes from, and the cell under the cursor: the screen draws
    /// the path between them.
    pub fn cell(&self) -> Option<(Pos, Pos)> {
        match self.step {
            Step::Cell { from, cursor, .. } => Some((from, cursor)),
            _ => None,
        }
    }

    /// How the screen should read the next key.
    pub fn mode(&self) -> Mode {
        match self.step {
            Step::Item { .. } => Mode::Menu,
            // The cursor takes the keys a direction does: directions, Tab and Enter.
            Step::Direction(_) | Step::Cell { .. } => Mode::Direction,
            Step::YesNo(_) => Mode::YesNo,
        }
    }

    /// Takes the player's answer. Keys that mean nothing here leave the question open.
    pub fn answer(self, input: Input) -> Flow {
        if input == Input::Escape {
            return Flow::Cancelled(NEVER_MIND);
        }
        match (self.step, input) {
            (
                Step::Item {
                    choices,
                    then,
                    carried,
                },
                Input::Letter(c),
            ) => match choices.iter().find(|(slot, _)| slot.letter() == c) {
                Some(&(slot, _)) => then(slot),
                None if carried.contains(&c) => Flow::Cancelled(NOT_FOR_THIS),
                None => Flow::Cancelled(NOT_CARRIED),
            },
            (Step::Direction(then), Input::Move(dir)) => then(dir),
            (Step::Direction(then), Input::Confirm) if self.aimed.is_some() => {
                match self.aimed.and_then(|i| self.targets.get(i)?.dir) {
                    Some(dir) => then(dir),
                    None => Flow::Cancelled(NEVER_MIND),
                }
            }
            (Step::Cell { cursor, then, .. }, Input::Confirm) => then(cursor),
            (Step::Cell { from, cursor, then }, Input::Move(dir)) => {
                let moved = Some(cursor.step(dir)).filter(|at| at.distance(from) <= AIM_REACH);
                let cursor = moved.unwrap_or(cursor);
                let aimed = self.targets.iter().position(|t| t.at == cursor);
                Flow::Ask(Prompt {
                    question: self.question,
                    step: Step::Cell { from, cursor, then },
                    targets: self.targets,
                    aimed,
                })
            }
            (Step::Cell { from, then, .. }, Input::NextTarget) if !self.targets.is_empty() => {
                let next = self.aimed.map_or(0, |i| (i + 1) % self.targets.len());
                let cursor = self.targets[next].at;
                Flow::Ask(Prompt {
                    question: self.question,
                    step: Step::Cell { from, cursor, then },
                    targets: self.targets,
                    aimed: Some(next),
                })
            }
            (step @ Step::Direction(_), Input::NextTarget) if !self.targets.is_empty() => {
                let next = self.aimed.map_or(0, |i| (i + 1) % self.targets.len());
                Flow::Ask(Prompt {
                    question: self.question,
                    step,
                    targets: self.targets,
                    aimed: Some(next),
                })
            }
            (Step::YesNo(then), Input::Yes) => then(),
            (Step::YesNo(_), Input::No) => Flow::Cancelled(NEVER_MIND),
            (step, _) => Flow::Ask(Prompt {
                question: self.question,
                step,
                targets: self.targets,
                aimed: self.aimed,
            }),
        }
    }
}

/// The last step of every action.
pub fn done(command: Command) -> Flow {
    Flow::Command(command)
}

/// Asks for one of the carried items that `wanted` accepts; ends at once with `nothing`
/// if there is none.
pub fn choose_item(
    inventory: &(impl Inventory + ?Sized),
    question: &'static str,
    wanted: impl Fn(&ItemView) -> bool,
    nothing: &'static str,
    then: impl FnOnce(Slot) -> Flow + 'static,
) -> Flow {
    let items = inventory.items();
    let carried = items.iter().map(|item| item.slot.letter()).collect();
    let choices: Vec<(Slot, String)> = items
        .into_iter()
        .filter(|item| wanted(item))
        .map(|item| (item.slot, item.name))
        .collect();
    if choices.is_empty() {
        return Flow::Cancelled(nothing);
    }
    let then = Box::new(then);
    let step = Step::Item {
        choices,
        carried,
        then,
    };
    Flow::Ask(Prompt::new(question, step))
}

/// Asks for one of `options`, lettered from `a`, and goes on with its index.
pub fn choose_option(
    question: &'static str,
    options: Vec<String>,
    then: impl FnOnce(usize) -> Flow + 'static,
) -> Flow {
    // The menu letters its choices as it letters the bags: `a`, `b`, `c`.
    let choices = (0..).map(Slot).zip(options).collect();
    let then = Box::new(move |slot: Slot| then(usize::from(slot.0)));
    let step = Step::Item {
        choices,
        carried: vec![],
        then,
    };
    Flow::Ask(Prompt::new(question, step))
}

/// Asks for one of the eight directions.
pub fn choose_direction(
    question: &'static str,
    then: impl FnOnce(Direction) -> Flow + 'static,
) -> Flow {
    aim(question, vec![], then)
}

/// Asks for one of the eight directions, or (Tab, then Enter) the one that reaches one of
/// `targets`.
fn aim(
    question: &'static str,
    targets: Vec<Target>,
    then: impl FnOnce(Direction) -> Flow + 'static,
) -> Flow {
    let step = Step::Direction(Box::new(then));
    Flow::Ask(Prompt {
        targets,
        ..Prompt::new(question, step)
    })
}

/// Asks for a cell to throw at from `from`, the cursor on the nearest of `targets` (or on
/// `from` if there is none), and goes on with the cell chosen.
fn aim_at_cell(
    question: &'static str,
    from: Pos,
    targets: Vec<Target>,
    then: impl FnOnce(Pos) -> Flow + 'static,
) -> Flow {
    let aimed = (!targets.is_empty()).then_some(0);
    let cursor = targets.first().map_or(from, |target| target.at);
    let then = Box::new(then);
    let step = Step::Cell { from, cursor, then };
    Flow::Ask(Prompt {
        targets,
        aimed,
        ..Prompt::new(question, step)
    })
}

/// Asks a yes/no question; "no" ends the action.
pub fn confirm(question: &'static str, then: impl FnOnce() -> Flow + 'static) -> Flow {
    let step = Step::YesNo(Box::new(then));
    Flow::Ask(Prompt::new(question, step))
}

impl Prompt {
    fn new(question: &'static str, step: Step) -> Prompt {
        Prompt {
            question,
            step,
            targets: vec![],
            aimed: None,
        }
    }
}

/// Starts the action a key asks for on the map. `None` for intents that are not game
/// commands (help, the panel, save as, menu keys): the screen handles those itself.
pub fn start(input: Input, inventory: &(impl Inventory + ?Sized)) -> Option<Flow> {
    let flow = match input {
        Input::Move(dir) => done(Command::Move(dir)),
        Input::Rest => done(Command::Rest),
        Input::PickUp => done(Command::PickUp),
        Input::Descend => done(Command::Descend),
        Input::Dash => done(Command::Dash),
        Input::Eat => eat(inventory),
        Input::Wear => wear(inventory),
        Input::TakeOff => take_off(inventory),
        Input::Apply => apply(inventory),
        Input::Drop => drop_item(inventory),
        Input::Throw => throw(inventory),
        Input::Open => choose_direction("Open in what direction?", |d| done(Command::Open(d))),
        Input::Close => choose_direction("Close in what direction?", |d| done(Command::Close(d))),
        Input::Quit => confirm("Really quit?", || done(Command::Quit)),
        _ => return None,
    };
    Some(flow)
}

fn eat(inventory: &(impl Inventory + ?Sized)) -> Flow {
    choose_item(
        inventory,
        "What do you want to eat?",
        |item| item.edible,
        "You have nothing to eat.",
        |slot| done(Command::Eat(slot)),
    )
}

fn wear(inventory: &(impl Inventory + ?Sized)) -> Flow {
    choose_item(
        inventory,
        "What do you want to wear?",
        |item| item.wearable,
        "You have nothing to wear.",
        |slot| done(Command::Wear(slot)),
    )
}

fn take_off(inventory: &(impl Inventory + ?Sized)) -> Flow {
    let worn = inventory.worn();
    if worn.is_empty() {
        return Flow::Cancelled("You are wearing nothing to take off.");
    }
    let (garments, names): (Vec<Garment>, Vec<String>) = worn.into_iter().unzip();
    choose_option("What do you want to take off?", names, move |i| {
        done(Command::TakeOff(garments[i]))
    })
}

/// `a`: a flask is drunk and a scarab cracked at once; a desert rose asks how to grow,
/// of the three ways it offers.
fn apply(inventory: &(impl Inventory + ?Sized)) -> Flow {
    let offer = inventory.offer();
    let described = offer.map(|boon| inventory.describe(boon));
    let roses: Vec<Slot> = inventory
        .items()
        .iter()
        .filter(|item| item.apply == Apply::Grow)
        .map(|item| item.slot)
        .collect();
    choose_item(
        inventory,
        "What do you want to use?",
        |item| item.apply != Apply::No,
        "You have nothing to drink, crack or crush.",
        move |slot| {
            if !roses.contains(&slot) {
                return done(Command::Use(slot));
            }
            let options = described.to_vec();
            choose_option("Grow how?", options, move |i| {
                done(Command::Grow(slot, offer[i]))
            })
        },
    )
}

fn drop_item(inventory: &(impl Inventory + ?Sized)) -> Flow {
    choose_item(
        inventory,
        "What do you want to drop?",
        |_| true,
        "You have nothing to drop.",
        |slot| done(Command::Drop(slot)),
    )
}

fn throw(inventory: &(impl Inventory + ?Sized)) -> Flow {
    let (targets, thrower) = (inventory.targets(), inventory.thrower());
    let standing = inventory.standing();
    let food: Vec<Slot> = inventory
        .items()
        .iter()
        .filter(|item| item.edible)
        .map(|item| item.slot)
        .collect();
    choose_item(
        inventory,
        "What do you want to throw?",
        |item| item.throwable,
        "You have nothing to throw.",
        move |slot| match thrower {
            Some(from) => aim_at_cell("Throw it where?", from, targets, move |at| {
                // Food thrown to the ally feeds it (a date is the one food thrown).
                let feeds = food.contains(&slot);
                let east = i8::try_from(at.x - from.x);
                let south = i8::try_from(at.y - from.y);
                let (Ok(east), Ok(south)) = (east, south) else {
                    return Flow::Cancelled(NEVER_MIND);
                };
                let throw = Command::ThrowAt(slot, east, south);
                // The first creature on the way takes the throw.
                let met = line(from, at)
                    .into_iter()
                    .find_map(|p| standing.iter().find(|(at, _)| *at == p));
                match met {
                    Some(&(_, true)) if !feeds => confirm(ALLY_IN_THE_WAY, move || done(throw)),
                    _ => done(throw),
                }
            }),
            None => aim("In what direction?", targets, move |dir| {
                done(Command::Throw(slot, dir))
            }),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(slot: u8, name: &str, edible: bool, throwable: bool) -> ItemView {
        let name = name.to_owned();
        ItemView {
            slot: Slot(slot),
            name,
            edible,
            throwable,
            wearable: false,
            apply: Apply::No,
        }
    }

    fn pack() -> Vec<ItemView> {
        vec![
            item(0, "a date", true, false),
            item(1, "a stone", false, true),
            item(2, "a spear", false, true),
            item(3, "a speckled mushroom", true, false),
        ]
    }

    /// Plays intents through the pipeline as the screen will: a map key starts an
    /// action, later keys answer its questions. Returns the commands that came out and
    /// the messages of actions that ended early.
    fn drive(items: &[ItemView], inputs: &[Input]) -> (Vec<Command>, Vec<&'static str>) {
        let (mut commands, mut messages) = (Vec::new(), Vec::new());
        let mut open: Option<Prompt> = None;
        for &input in inputs {
            let flow = match open.take() {
                Some(prompt) => prompt.answer(input),
                None => start(input, items).expect("a game command"),
            };
            match flow {
                Flow::Ask(prompt) => open = Some(prompt),
                Flow::Command(command) => commands.push(command),
                Flow::Cancelled(message) => messages.push(message),
            }
        }
        assert!(open.is_none(), "a question was left open: {open:?}");
        (commands, messages)
    }

    fn asked(flow: Flow) -> Prompt {
        match flow {
            Flow::Ask(prompt) => prompt,
            other => panic!("expected a question, got {other:?}"),
        }
    }

    #[test]
    fn nothing_to_choose_ends_at_once_with_a_message() {
        let stones = [item(0, "a stone", false, true)];
        assert_eq!(
            drive(&stones, &[Input::Eat]),
            (vec![], vec!["You have nothing to eat."])
        );
        let dates = [item(0, "a date", true, false)];
        let nothing_to_throw = vec!["You have nothing to throw."];
        assert_eq!(drive(&dates, &[Input::Throw]), (vec![], nothing_to_throw));
        assert_eq!(
            drive(&[], &[Input::Drop]),
            (vec![], vec!["You have nothing to drop."])
        );
    }

    #[test]
    fn eat_offers_only_what_is_edible() {
        let prompt = asked(start(Input::Eat, pack().as_slice()).unwrap());
        assert_eq!(prompt.line(), "What do you want to eat? [ad]");
        assert_eq!(prompt.mode(), Mode::Menu);
        let names: Vec<&str> = prompt.choices().iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["a date", "a speckled mushroom"]);
    }

    #[test]
    fn eat_completes_with_one_command() {
        let inputs = [Input::Eat, Input::Letter('d')];
        assert_eq!(
            drive(&pack(), &inputs),
            (vec![Command::Eat(Slot(3))], vec![])
        );
    }

    #[test]
    fn drop_completes_with_one_command() {
        let inputs = [Input::Drop, Input::Letter('b')];
        assert_eq!(
            drive(&pack(), &inputs),
            (vec![Command::Drop(Slot(1))], vec![])
        );
    }

    /// Tab aims at each creature in line in turn, and Enter throws the way that reaches
    /// the one aimed at: the tape holds one throw in a direction, as ever.
    #[test]
    fn tab_aims_a_throw_and_enter_throws() {
        struct Aiming(Vec<ItemView>);
        impl Inventory for Aiming {
            fn items(&self) -> Vec<ItemView> {
                self.0.clone()
            }
            fn worn(&self) -> Vec<(Garment, String)> {
                vec![]
            }
            fn targets(&self) -> Vec<Target> {
                let target = |dir, x, name: &str| Target {
                    dir: Some(dir),
                    at: Pos::new(x, 0),
                    name: name.into(),
                };
                vec![
                    target(Direction::E, 2, "a snake"),
                    target(Direction::W, -4, "a jackal"),
                ]
            }
        }
        let bags = Aiming(pack());
        let prompt = asked(start(Input::Throw, &bags).unwrap());
        let prompt = asked(prompt.answer(Input::Letter('c')));
        assert_eq!(prompt.line(), "In what direction? [Tab: aim at a creature]");
        // Enter before aiming throws nothing.
        let prompt = asked(prompt.answer(Input::Confirm));
        let prompt = asked(prompt.answer(Input::NextTarget));
        assert_eq!(prompt.aimed().unwrap().name, "a snake");
        let prompt = asked(prompt.answer(Input::NextTarget));
        assert_eq!(
            prompt.line(),
            "In what direction? [at a jackal: Enter throws, Tab the next]"
        );
        let prompt = asked(prompt.answer(Input::NextTarget));
        assert_eq!(prompt.aimed().unwrap().name, "a snake", "Tab goes round");
        let prompt = asked(prompt.answer(Input::NextTarget));
        match prompt.answer(Input::Confirm) {
            Flow::Command(command) => assert_eq!(command, Command::Throw(Slot(2), Direction::W)),
            other => panic!("{other:?}"),
        }
    }

    /// Where the rules let the camel throw at any cell, the cursor starts on the nearest
    /// creature, directions move it (no further than the camel sees), Tab puts it on each
    /// creature in turn, and Enter throws at its cell: the tape holds the cell's offset.
    /// A way that meets the camel's ally first is asked about.
    #[test]
    fn a_throw_at_a_cell_starts_on_the_nearest_creature_and_goes_where_the_cursor_is() {
        struct Cells(Vec<ItemView>);
        impl Inventory for Cells {
            fn items(&self) -> Vec<ItemView> {
                self.0.clone()
            }
            fn worn(&self) -> Vec<(Garment, String)> {
                vec![]
            }
            fn targets(&self) -> Vec<Target> {
                let target = |x, y, name: &str| Target {
                    dir: None,
                    at: Pos::new(x, y),
                    name: name.into(),
                };
                vec![target(12, 11, "a snake"), target(7, 13, "a lion")]
            }
            fn thrower(&self) -> Option<Pos> {
                Some(Pos::new(10, 10))
            }
            fn standing(&self) -> Vec<(Pos, bool)> {
                vec![
                    (Pos::new(12, 11), false),
                    (Pos::new(7, 13), false),
                    (Pos::new(9, 10), true),
                ]
            }
        }
        let bags = Cells(pack());
        let prompt = asked(start(Input::Throw, &bags).unwrap());
        let prompt = asked(prompt.answer(Input::Letter('c')));
        assert_eq!(prompt.mode(), Mode::Direction);
        assert_eq!(prompt.cell(), Some((Pos::new(10, 10), Pos::new(12, 11))));
        assert_eq!(
            prompt.line(),
            "Throw it where? [at a snake: Enter throws, Tab the next, directions move]"
        );
        let prompt = asked(prompt.answer(Input::NextTarget));
        assert_eq!(prompt.cell().unwrap().1, Pos::new(7, 13));
        let mut prompt = asked(prompt.answer(Input::Move(Direction::N)));
        assert_eq!(prompt.aimed(), None, "off the lion");
        for _ in 0..20 {
            prompt = asked(prompt.answer(Input::Move(Direction::W)));
        }
        assert_eq!(
            prompt.cell().unwrap().1,
            Pos::new(2, 12),
            "no further than sight"
        );
        // The way west passes the ally beside the camel: it is asked about first.
        let asked_first = asked(prompt.answer(Input::Confirm));
        assert_eq!(asked_first.line(), format!("{ALLY_IN_THE_WAY} [yn]"));
        match asked_first.answer(Input::Yes) {
            Flow::Command(command) => assert_eq!(command, Command::ThrowAt(Slot(2), -8, 2)),
            other => panic!("{other:?}"),
        }
        // At the snake, the way is clear.
        let prompt = asked(start(Input::Throw, &bags).unwrap());
        match asked(prompt.answer(Input::Letter('c'))).answer(Input::Confirm) {
            Flow::Command(command) => assert_eq!(command, Command::ThrowAt(Slot(2), 2, 1)),
            other => panic!("{other:?}"),
        }
        // A date thrown the same way past the ally feeds it: nothing is asked.
        let dates = Cells(vec![item(0, "a date", true, true)]);
        let prompt = asked(start(Input::Throw, &dates).unwrap());
        let prompt = asked(prompt.answer(Input::Letter('a')));
        let prompt = asked(prompt.answer(Input::NextTarget));
        let mut prompt = asked(prompt.answer(Input::Move(Direction::N)));
        for _ in 0..20 {
            prompt = asked(prompt.answer(Input::Move(Direction::W)));
        }
        match prompt.answer(Input::Confirm) {
            Flow::Command(command) => assert_eq!(command, Command::ThrowAt(Slot(0), -8, 2)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn throw_asks_for_an_item_then_a_direction() {
        let prompt = asked(start(Input::Throw, pack().as_slice()).unwrap());
        assert_eq!(prompt.line(), "What do you want to throw? [bc]");
        let prompt = asked(prompt.answer(Input::Letter('c')));
        assert_eq!(prompt.mode(), Mode::Direction);
        assert!(prompt.choices().is_empty());
        let inputs = [Input::Throw, Input::Letter('c'), Input::Move(Direction::E)];
        let throw = Command::Throw(Slot(2), Direction::E);
        assert_eq!(drive(&pack(), &inputs), (vec![throw], vec![]));
    }

    #[test]
    fn a_flask_is_used_at_once_and_a_rose_asks_how_to_grow() {
        let mut items = pack();
        items.push(ItemView {
            apply: Apply::AsItIs,
            ..item(4, "an amber flask", false, false)
        });
        items.push(ItemView {
            apply: Apply::Grow,
            ..item(5, "a desert rose", false, false)
        });
        let prompt = asked(start(Input::Apply, items.as_slice()).unwrap());
        assert_eq!(prompt.line(), "What do you want to use? [ef]");
        let prompt = asked(prompt.answer(Input::Letter('f')));
        assert_eq!(prompt.line(), "Grow how? [abc]");
        assert_eq!(prompt.choices()[1].1, Boon::Stronger.describe());
        let inputs = [
            Input::Apply,
            Input::Letter('e'),
            Input::Apply,
            Input::Letter('f'),
            Input::Letter('c'),
        ];
        let commands = vec![Command::Use(Slot(4)), Command::Grow(Slot(5), Boon::Deeper)];
        assert_eq!(drive(&items, &inputs), (commands, vec![]));
        let nothing = vec!["You have nothing to drink, crack or crush."];
        assert_eq!(drive(&pack(), &[Input::Apply]), (vec![], nothing));
    }

    /// The bags of `pack`, with the camel wearing boots and barding.
    struct Dressed;

    impl Inventory for Dressed {
        fn items(&self) -> Vec<ItemView> {
            pack()
        }

        fn worn(&self) -> Vec<(Garment, String)> {
            vec![
                (Garment::Boots, "a pair of boots".into()),
                (Garment::Barding, "a bronze barding".into()),
            ]
        }
    }

    #[test]
    fn take_off_offers_what_is_worn() {
        let prompt = asked(start(Input::TakeOff, &Dressed).unwrap());
        assert_eq!(prompt.line(), "What do you want to take off? [ab]");
        let flow = prompt.answer(Input::Letter('b'));
        assert!(matches!(
            flow,
            Flow::Command(Command::TakeOff(Garment::Barding))
        ));
        let nothing = vec!["You are wearing nothing to take off."];
        assert_eq!(drive(&pack(), &[Input::TakeOff]), (vec![], nothing));
    }

    #[test]
    fn open_and_close_ask_for_a_direction() {
        let inputs = [
            Input::Open,
            Input::Move(Direction::N),
            Input::Close,
            Input::Move(Direction::SW),
        ];
        let commands = vec![Command::Open(Direction::N), Command::Close(Direction::SW)];
        assert_eq!(drive(&[], &inputs), (commands, vec![]));
    }

    #[test]
    fn quit_needs_a_yes() {
        let prompt = asked(start(Input::Quit, pack().as_slice()).unwrap());
        assert_eq!(
            (prompt.line().as_str(), prompt.mode()),
            ("Really quit? [yn]", Mode::YesNo)
        );
        assert_eq!(
            drive(&[], &[Input::Quit, Input::Yes]),
            (vec![Command::Quit], vec![])
        );
        assert_eq!(
            drive(&[], &[Input::Quit, Input::No]),
            (vec![], vec![NEVER_MIND])
        );
    }

    #[test]
    fn escape_cancels_at_every_step() {
        let flows: [&[Input]; 6] = [
            &[Input::Eat, Input::Escape],
            &[Input::Drop, Input::Escape],
            &[Input::Throw, Input::Escape],
            &[Input::Throw, Input::Letter('b'), Input::Escape],
            &[Input::Open, Input::Escape],
            &[Input::Quit, Input::Escape],
        ];
        for inputs in flows {
            assert_eq!(
                drive(&pack(), inputs),
                (vec![], vec![NEVER_MIND]),
                "{inputs:?}"
            );
        }
    }

    #[test]
    fn a_letter_not_offered_ends_the_action() {
        // The stone is carried but is not food.
        let inputs = [Input::Eat, Input::Letter('b')];
        assert_eq!(drive(&pack(), &inputs), (vec![], vec![NOT_FOR_THIS]));
        let inputs = [Input::Drop, Input::Letter('z')];
        assert_eq!(drive(&pack(), &inputs), (vec![], vec![NOT_CARRIED]));
    }

    #[test]
    fn keys_that_mean_nothing_keep_the_question_open() {
        let prompt = asked(start(Input::Eat, pack().as_slice()).unwrap());
        let prompt = asked(prompt.answer(Input::Space));
        let prompt = asked(prompt.answer(Input::Move(Direction::N)));
        assert_eq!(prompt.line(), "What do you want to eat? [ad]");
        let inputs = [Input::Open, Input::Confirm, Input::Move(Direction::E)];
        assert_eq!(
            drive(&[], &inputs),
            (vec![Command::Open(Direction::E)], vec![])
        );
    }

    #[test]
    fn one_key_commands_need_no_questions() {
        let inputs = [
            Input::Move(Direction::NW),
            Input::Rest,
            Input::PickUp,
            Input::Descend,
            Input::Dash,
        ];
        let commands = vec![
            Command::Move(Direction::NW),
            Command::Rest,
            Command::PickUp,
            Command::Descend,
            Command::Dash,
        ];
        assert_eq!(drive(&[], &inputs), (commands, vec![]));
    }

    #[test]
    fn screen_intents_are_not_game_commands() {
        let screen = [
            Input::Help,
            Input::SaveAs,
            Input::TogglePanel,
            Input::Letter('a'),
            Input::Yes,
            Input::Escape,
            Input::Space,
        ];
        for input in screen {
            assert!(start(input, pack().as_slice()).is_none(), "{input:?}");
        }
    }
}
