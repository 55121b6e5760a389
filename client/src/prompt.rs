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

use std::collections::VecDeque;
use std::fmt;

use sandglass_core::command::{Command, Slot};
use sandglass_core::geometry::Direction;

use crate::keys::{Input, Mode};

pub const NEVER_MIND: &str = "Never mind.";
pub const NOT_CARRIED: &str = "You don't have that.";

/// What the prompts need to know about one carried item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemView {
    pub slot: Slot,
    pub name: String,
    pub edible: bool,
    pub throwable: bool,
}

/// The game as the prompts see it.
pub trait Inventory {
    /// The carried items, in slot order.
    fn items(&self) -> Vec<ItemView>;
}

impl Inventory for [ItemView] {
    fn items(&self) -> Vec<ItemView> {
        self.to_vec()
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
}

enum Step {
    Item {
        choices: Vec<(Slot, String)>,
        then: Box<dyn FnOnce(Slot) -> Flow>,
    },
    Direction(Box<dyn FnOnce(Direction) -> Flow>),
    YesNo(Box<dyn FnOnce() -> Flow>),
}

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
            Step::Direction(_) => self.question.to_owned(),
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

    /// How the screen should read the next key.
    pub fn mode(&self) -> Mode {
        match self.step {
            Step::Item { .. } => Mode::Menu,
            Step::Direction(_) => Mode::Direction,
            Step::YesNo(_) => Mode::YesNo,
        }
    }

    /// Takes the player's answer. Keys that mean nothing here leave the question open.
    pub fn answer(self, input: Input) -> Flow {
        if input == Input::Escape {
            return Flow::Cancelled(NEVER_MIND);
        }
        match (self.step, input) {
            (Step::Item { choices, then }, Input::Letter(c)) => {
                match choices.iter().find(|(slot, _)| slot.letter() == c) {
                    Some(&(slot, _)) => then(slot),
                    None => Flow::Cancelled(NOT_CARRIED),
                }
            }
            (Step::Direction(then), Input::Move(dir)) => then(dir),
            (Step::YesNo(then), Input::Yes) => then(),
            (Step::YesNo(_), Input::No) => Flow::Cancelled(NEVER_MIND),
            (step, _) => Flow::Ask(Prompt {
                question: self.question,
                step,
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
    let choices: Vec<(Slot, String)> = inventory
        .items()
        .into_iter()
        .filter(|item| wanted(item))
        .map(|item| (item.slot, item.name))
        .collect();
    if choices.is_empty() {
        return Flow::Cancelled(nothing);
    }
    let then = Box::new(then);
    Flow::Ask(Prompt {
        question,
        step: Step::Item { choices, then },
    })
}

/// Asks for one of the eight directions.
pub fn choose_direction(
    question: &'static str,
    then: impl FnOnce(Direction) -> Flow + 'static,
) -> Flow {
    let step = Step::Direction(Box::new(then));
    Flow::Ask(Prompt { question, step })
}

/// Asks a yes/no question; "no" ends the action.
pub fn confirm(question: &'static str, then: impl FnOnce() -> Flow + 'static) -> Flow {
    let step = Step::YesNo(Box::new(then));
    Flow::Ask(Prompt { question, step })
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
    choose_item(
        inventory,
        "What do you want to throw?",
        |item| item.throwable,
        "You have nothing to throw.",
        |slot| {
            choose_direction("In what direction?", move |dir| {
                done(Command::Throw(slot, dir))
            })
        },
    )
}

/// Lines shown at once before a `--more--`.
pub const PAGE_LINES: usize = 3;

/// The message line: what is on screen now, what waits behind `--more--`, and the whole
/// history for the log. A message that repeats the one before is counted on that line
/// ("A cactus blocks the way. (x3)") rather than filling the log with copies.
#[derive(Debug, Default)]
pub struct Messages {
    history: Vec<String>,
    page: Vec<String>,
    waiting: VecDeque<String>,
}

impl Messages {
    pub fn push(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.count_repeat(&text) {
            // The line stands where it is if it is on screen or waiting; if it was read,
            // it comes back as news.
            let line = self.history.last().cloned().unwrap_or_default();
            match (self.waiting.back_mut(), self.page.last_mut()) {
                (Some(waiting), _) => *waiting = line,
                (None, Some(on_screen)) => *on_screen = line,
                (None, None) => self.page.push(line),
            }
            return;
        }
        self.history.push(text.clone());
        if self.page.len() < PAGE_LINES && self.waiting.is_empty() {
            self.page.push(text);
        } else {
            self.waiting.push_back(text);
        }
    }

    /// Adds a line to the history only: old news, shown in the log but never paged (the
    /// messages a resumed game had before it was closed).
    pub fn recall(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.count_repeat(&text) {
            self.history.push(text);
        }
    }

    /// If `text` repeats the last line of the history, counts it there ("text (xN)").
    fn count_repeat(&mut self, text: &str) -> bool {
        let Some(last) = self.history.last_mut() else {
            return false;
        };
        let seen = match last.strip_prefix(text) {
            Some("") => Some(1),
            Some(rest) => rest
                .strip_prefix(" (x")
                .and_then(|count| count.strip_suffix(')'))
                .and_then(|count| count.parse::<u32>().ok()),
            None => None,
        };
        let Some(seen) = seen else {
            return false;
        };
        *last = format!("{text} (x{})", seen + 1);
        true
    }

    /// The lines on screen now.
    pub fn page(&self) -> &[String] {
        &self.page
    }

    /// The history up to the end of the page on screen: what the log may show without
    /// giving away lines still waiting behind a `--more--`.
    pub fn shown(&self) -> &[String] {
        &self.history[..self.history.len() - self.waiting.len()]
    }

    /// True while messages wait behind a `--more--`; the screen must read keys in
    /// `Mode::More` until it is false, so no command slips past unread news.
    pub fn has_more(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The lines on screen have been read: show the next page (empty if none waits).
    /// Also called when the player acts, so old lines leave the screen.
    pub fn turn_page(&mut self) {
        let take = self.waiting.len().min(PAGE_LINES);
        self.page = self.waiting.drain(..take).collect();
    }

    /// Escape at `--more--`: drop the rest from the screen; the history keeps them.
    pub fn skip(&mut self) {
        self.page.clear();
        self.waiting.clear();
    }

    /// A key read in `Mode::More`.
    pub fn answer(&mut self, input: Input) {
        match input {
            Input::Escape => self.skip(),
            Input::Space | Input::Confirm => self.turn_page(),
            _ => {}
        }
    }
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
        assert_eq!(drive(&pack(), &inputs), (vec![], vec![NOT_CARRIED]));
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

    fn numbered(count: usize) -> Messages {
        let mut messages = Messages::default();
        for i in 1..=count {
            messages.push(format!("message {i}"));
        }
        messages
    }

    #[test]
    fn seven_messages_make_three_pages() {
        let mut messages = numbered(7);
        let mut pages = vec![messages.page().to_vec()];
        while messages.has_more() {
            messages.answer(Input::Space);
            pages.push(messages.page().to_vec());
        }
        let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
        assert_eq!(sizes, [3, 3, 1]);
        assert_eq!(pages[2], ["message 7"]);
        assert_eq!(messages.history.len(), 7);
    }

    #[test]
    fn three_messages_need_no_more() {
        let messages = numbered(3);
        assert!(!messages.has_more());
        assert_eq!(messages.page().len(), 3);
        assert!(numbered(4).has_more());
    }

    #[test]
    fn escape_at_more_skips_the_rest_but_keeps_the_history() {
        let mut messages = numbered(7);
        messages.answer(Input::Escape);
        assert!(!messages.has_more());
        assert!(messages.page().is_empty());
        assert_eq!(messages.history.len(), 7);
    }

    #[test]
    fn acting_clears_read_lines_and_starts_a_new_batch() {
        let mut messages = numbered(2);
        messages.turn_page();
        assert!(messages.page().is_empty());
        for i in 0..3 {
            messages.push(format!("news {i}"));
        }
        assert_eq!(messages.page(), ["news 0", "news 1", "news 2"]);
        assert!(!messages.has_more());
    }

    #[test]
    fn the_log_shows_nothing_still_waiting() {
        let mut messages = Messages::default();
        messages.recall("from last time");
        assert!(messages.page().is_empty(), "recalled lines are not news");
        for i in 1..=5 {
            messages.push(format!("message {i}"));
        }
        assert_eq!(messages.shown().len(), 4);
        assert_eq!(messages.shown()[0], "from last time");
        messages.turn_page();
        assert_eq!(messages.shown().len(), 6);
        assert_eq!(messages.shown().last().unwrap(), "message 5");
    }

    #[test]
    fn a_repeated_message_is_counted_on_its_line_wherever_it_stands() {
        let mut messages = Messages::default();
        messages.recall("A cactus blocks the way.");
        messages.recall("A cactus blocks the way.");
        assert_eq!(messages.shown(), ["A cactus blocks the way. (x2)"]);
        assert!(messages.page().is_empty(), "recalled lines are not news");
        // Read already: it comes back on screen, counted.
        messages.push("A cactus blocks the way.");
        assert_eq!(messages.page(), ["A cactus blocks the way. (x3)"]);
        messages.push("A cactus blocks the way.");
        assert_eq!(messages.page(), ["A cactus blocks the way. (x4)"]);
        assert_eq!(messages.history, ["A cactus blocks the way. (x4)"]);
        // Waiting behind --more--: counted there.
        for i in 1..=3 {
            messages.push(format!("message {i}"));
        }
        messages.push("message 3");
        assert_eq!(messages.waiting, ["message 3 (x2)"]);
        // Not a repeat: a line that only starts the same, or a count of something else.
        messages.push("message 3 (x2) and more");
        messages.push("message");
        assert_eq!(messages.history.len(), 6);
        messages.turn_page();
        let page = ["message 3 (x2)", "message 3 (x2) and more", "message"];
        assert_eq!(messages.page(), page);
    }

    #[test]
    fn only_paging_keys_turn_the_page() {
        let mut messages = numbered(4);
        messages.answer(Input::Move(Direction::N));
        assert!(messages.has_more());
        messages.answer(Input::Confirm);
        assert_eq!(messages.page(), ["message 4"]);
    }
}
