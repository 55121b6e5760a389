//! The game controller: a saved game being played, and what each key press makes of it.
//!
//! Keys become commands through the prompt pipeline; each accepted command is on disk
//! before the next key is read; messages queue behind `--more--`; help and "save as" are
//! overlays. Nothing here draws: the window's game screen shows what this holds and
//! animates what a command caused, and the tests press keys on it without a window.

use sandglass_sim::gear::Garment;
use sandglass_sim::geometry::{Direction, Pos};
use sandglass_sim::ids::ActorId;
use sandglass_sim::item::Item;
use sandglass_sim::lore::Boon;
use sandglass_sim::map::Terrain;
use sandglass_sim::message::Msg;
use sandglass_sim::world::{Actor, Condition};
use sandglass_sim::{fold, is_hostile, Change, Command, Observer, State};
use sandglass_store::{GameId, GameMeta, PlayError, Session, Store};

use crate::dealer::{self, Answer, Dealer};
use crate::errand::{known_stairs, on_the_camels_trail, threat, travel_goal, Errand, Running};
use crate::input::intent::{Input, Key};
use crate::input::keymap::Keymap;
use crate::input::keys::{bind, is_any_key, Mode};
use crate::input::messages::{quoted, Messages};
use crate::input::prompt::{self, Apply, Flow, Inventory, ItemView, Prompt, Target};
use crate::look::{creature_lines, desert_lines};
use crate::meetings::Meetings;
use crate::morgue;
use crate::report;
use crate::telling::tell;
use crate::warnings::Warnings;

pub struct GameController {
    session: Session,
    /// The question of a multi-step action, while one is open.
    prompt: Option<Prompt>,
    messages: Messages,
    /// The game's message count already in `messages`.
    seen: u64,
    overlay: Overlay,
    /// Travel, run, explore or rest, under way: the client plays its commands.
    errand: Option<Running>,
    /// What the camel was warned of on this level (stirring sand, dormant eggs), which
    /// errands keep off.
    warnings: Warnings,
    /// The kinds of creature met, each told once (`meetings`).
    met: Meetings,
    /// The final hash has been reported.
    left: bool,
    /// A dealt run's link to its server, which deals the draws of each command.
    dealer: Option<Dealer>,
}

/// What covers the map, waiting for keys of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    /// The help screen: its first page (the keys, time and energy), or its second (the
    /// desert and its creatures, under the rules that have them).
    Help(HelpPage),
    /// Typing the name of a copy of this game.
    SaveAs(String),
    /// The look cursor, on a cell.
    Look(Pos),
    /// The whole message history, scrolled this many lines up from its end.
    History(usize),
    /// Everything carried and worn, in full: the side bar may have room for only part.
    Inventory,
}

/// A page of the help screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelpPage {
    Keys,
    Desert,
    Creatures,
}

/// What a key press came to, for the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reaction {
    /// Nothing beyond what the controller now shows.
    Stay,
    /// A command was played and saved: what it caused is the window's to animate.
    Played,
    /// A dealt run's command went to its server: what it caused comes with the draws
    /// dealt for it (`GameController::poll`).
    Sent,
    /// Back to the start screen.
    Menu,
    /// The options screen, over this one.
    Options,
    /// The game is over and its last words read: on to its summary.
    Over(GameId),
}

/// Lines a page key scrolls the history by.
pub const HISTORY_PAGE: usize = 10;

/// Whether `key` answers `--more--` itself: Space or Enter (the next page), Escape (the
/// rest skipped).
fn is_paging(keymap: &Keymap, key: Key) -> bool {
    matches!(
        bind(keymap, Mode::More, key),
        Some(Input::Space | Input::Confirm | Input::Escape)
    )
}

/// The creature the look cursor goes to from `at` with Tab: the next the camel sees,
/// nearest the camel first, after the one under the cursor (the nearest if none is).
fn next_in_sight(state: &State, at: Pos) -> Option<Pos> {
    let world = state.world();
    let here = world.player()?.pos();
    let mut seen: Vec<(u16, ActorId, Pos)> = world
        .actors()
        .filter(|&(id, a)| !world.is_player(id) && a.is_present() && world.sees_actor(id))
        .map(|(id, a)| (a.pos().distance(here), id, a.pos()))
        .collect();
    seen.sort();
    let next = seen
        .iter()
        .position(|&(_, _, p)| p == at)
        .map_or(0, |i| i + 1);
    seen.get(next % seen.len().max(1)).map(|&(_, _, p)| p)
}

/// What a command is meant as: a step into a closed door the camel can open opens it, as
/// in Brogue (played by eye, bumping a door only said it was closed). A confused camel's
/// step stays a step: where it goes is the desert's to say.
fn as_meant(state: &State, command: Command) -> Command {
    let world = state.world();
    let Command::Move(dir) = command else {
        return command;
    };
    let Some(camel) = world.player() else {
        return command;
    };
    let door = world.map().terrain(camel.pos().step(dir)) == Terrain::DoorClosed;
    let confused = camel.conditions().has(Condition::Confused);
    match door && !confused {
        true => Command::Open(dir),
        false => command,
    }
}

/// Whether the camel has an ally on this level that would not follow it down.
fn ally_left_behind(state: &State) -> bool {
    let world = state.world();
    world
        .actors()
        .any(|(id, a)| a.is_present() && a.is_ally() && !world.follows_down(id))
}

/// Whether more than one item lies where the camel stands.
fn is_pile(state: &State, here: Option<Pos>) -> bool {
    here.is_some_and(|p| state.world().items_at(p).nth(1).is_some())
}

fn on_stairs(state: &State, at: Pos) -> bool {
    matches!(state.world().map().terrain(at), Terrain::Stairs)
}

/// Everything a saved game has said, from the first message on: its whole log folded
/// once, for a resumed game's history.
pub fn message_history(store: &Store, id: GameId) -> anyhow::Result<Vec<String>> {
    struct Said(Vec<String>);
    impl Observer for Said {
        const SEES_EACH_WAIT: bool = false;
        fn changed(&mut self, _state: &State, change: &Change) {
            if let Change::Say(msg) = change {
                self.0.push(msg.to_string());
            }
        }
    }
    let meta = store.meta(id)?;
    let mut said = Said(vec![]);
    fold(meta.rules()?, store.events(id)?, &mut said)?;
    Ok(said.0)
}

/// How a game comes to the controller, and so what it says first.
pub enum Start {
    /// Just made: its opening messages are news.
    New,
    /// A saved game played again; with what it said before (`message_history`).
    Resumed(Vec<String>),
    /// A copy of a replay up to a moment, played from there; with what it said before.
    TakenOver(Vec<String>),
}

/// Everything the camel carries, by letter, then what it wears: the inventory's lines.
pub fn inventory_lines(state: &State) -> Vec<String> {
    let world = state.world();
    let mut lines: Vec<String> = world
        .bags()
        .stacks()
        .map(|(slot, stack)| {
            let name = world.counted_items(stack.item, stack.count);
            format!("{} - {name}", slot.letter())
        })
        .collect();
    if lines.is_empty() {
        lines.push("Your bags are empty.".into());
    }
    let worn: Vec<String> = world
        .gear()
        .worn()
        .map(|item| world.describe_item(item))
        .collect();
    if !worn.is_empty() {
        lines.push(String::new());
        lines.push(format!("Wearing {}.", worn.join(", ")));
    }
    lines
}

/// The camel's bags, as the prompts see them.
struct Bags<'a>(&'a State);

impl Inventory for Bags<'_> {
    fn items(&self) -> Vec<ItemView> {
        let world = self.0.world();
        world
            .bags()
            .stacks()
            .map(|(slot, stack)| ItemView {
                slot,
                name: world.counted_items(stack.item, stack.count),
                edible: stack.item.is_edible(),
                throwable: world.can_throw(stack.item),
                wearable: stack.item.is_wearable(),
                apply: match stack.item {
                    Item::Rose => Apply::Grow,
                    usable if usable.is_usable() => Apply::AsItIs,
                    _ => Apply::No,
                },
            })
            .collect()
    }

    fn worn(&self) -> Vec<(Garment, String)> {
        let world = self.0.world();
        let gear = world.gear();
        Garment::ALL
            .into_iter()
            .filter(|g| gear.wears(g.item()))
            .map(|g| (g, world.describe_item(g.item())))
            .collect()
    }

    /// Where the camel throws at any cell, every creature it sees; otherwise, along each
    /// of the eight lines, the first creature a thrown item would meet, if the camel sees
    /// it: a throw flies until it meets a creature or what blocks it. What comes for the
    /// camel first, nearest first, and its ally last.
    fn targets(&self) -> Vec<Target> {
        let world = self.0.world();
        let map = world.map();
        let Some(here) = world.player().map(|c| c.pos()) else {
            return vec![];
        };
        // What comes for the camel first, then the other foes, then the calm, the ally
        // last (a date is thrown to it to feed it): played by eye, the cursor started on
        // a grazing elephant and a snake while a lion hunted the camel.
        let rank = |a: &Actor| match (a.is_ally(), is_hostile(a)) {
            (true, _) => 3,
            (false, false) => 2,
            _ if a.charging().is_some() || on_the_camels_trail(self.0, a) => 0,
            _ => 1,
        };
        let named = |at: Pos, dir| {
            let id = map.occupant(at)?;
            let seen = world.sees_actor(id).then(|| world.actor(id)).flatten()?;
            let name = sandglass_sim::text::a(seen.species().name());
            let target = Target { dir, at, name };
            Some((at.distance(here), rank(seen), target))
        };
        let mut targets: Vec<(u16, u8, Target)> = match self.thrower() {
            Some(_) => world
                .actors()
                .filter(|&(id, _)| !world.is_player(id))
                .filter_map(|(_, a)| named(a.pos(), None))
                .collect(),
            None => Direction::ALL
                .into_iter()
                .filter_map(|dir| {
                    let mut at = here.step(dir);
                    while map.contains(at) && !map.terrain(at).blocks() {
                        if map.occupant(at).is_some() {
                            return named(at, Some(dir));
                        }
                        at = at.step(dir);
                    }
                    None
                })
                .collect(),
        };
        targets.sort_by_key(|(distance, rank, target)| (*rank, *distance, target.dir, target.at));
        targets.into_iter().map(|(_, _, target)| target).collect()
    }

    fn standing(&self) -> Vec<(Pos, bool)> {
        let world = self.0.world();
        world
            .actors()
            .filter(|&(id, _)| !world.is_player(id) && world.sees_actor(id))
            .map(|(_, a)| (a.pos(), a.is_ally()))
            .collect()
    }

    fn thrower(&self) -> Option<Pos> {
        let world = self.0.world();
        let camel = world
            .player()
            .filter(|_| world.rules().throws_at_any_cell())?;
        Some(camel.pos())
    }

    fn offer(&self) -> [Boon; 3] {
        self.0.world().growth().offer()
    }

    fn describe(&self, boon: Boon) -> String {
        self.0.world().rules().describe_boon(boon)
    }
}

impl GameController {
    /// A game opened as `start` says; reports `game ID hash H`.
    pub fn new(session: Session, start: Start) -> GameController {
        let state = session.state();
        let mut messages = Messages::default();
        let log = state.world().messages();
        let name = &session.meta().name;
        // A game opened before its first command (a daily run the server has just
        // started) is new to the player: nothing to welcome them back to.
        let start = match start {
            Start::Resumed(_) if session.meta().commands == 0 => Start::New,
            start => start,
        };
        let new_game = matches!(start, Start::New);
        match start {
            Start::New => {
                for message in log.recent() {
                    messages.push(message.msg.to_string());
                }
            }
            Start::Resumed(earlier) => {
                for text in earlier {
                    messages.recall(text);
                }
                messages.push(format!("Welcome back to {name}. Every move is saved."));
            }
            Start::TakenOver(earlier) => {
                for text in earlier {
                    messages.recall(text);
                }
                messages.push(format!(
                    "You take over at turn {}, as {name}. Every move is saved.",
                    state.tick().0
                ));
            }
        }
        let met = match new_game {
            true => {
                let mut met = Meetings::default();
                for line in met.news(state) {
                    messages.push(line);
                }
                met
            }
            false => Meetings::in_sight(state),
        };
        let seen = log.total();
        report::game(session.meta().id, state.hash());
        GameController {
            session,
            prompt: None,
            messages,
            seen,
            overlay: Overlay::None,
            errand: None,
            warnings: Warnings::default(),
            met,
            left: false,
            dealer: None,
        }
    }

    /// The controller of a dealt run, whose commands `dealer` sends to be dealt: one a
    /// stop left waiting is sent again now.
    pub fn dealt(mut self, dealer: Dealer) -> GameController {
        if let Some((at, command)) = self.session.sent() {
            dealer.send(at, command);
        }
        self.dealer = Some(dealer);
        self
    }

    /// Whether a dealt run's command waits on its draws: no other is taken meanwhile.
    pub fn waiting(&self) -> bool {
        self.session.sent().is_some()
    }

    /// Whether a dealt run's command waits on a server that cannot be reached now.
    pub fn out_of_reach(&self) -> bool {
        self.waiting() && self.dealer.as_ref().is_some_and(|d| d.trouble().is_some())
    }

    /// How a dealt run's link to its server stands, for the side bar.
    pub fn dealer_line(&self) -> Option<String> {
        let dealer = self.dealer.as_ref()?;
        // An answer on its way is not worth a word: said at every step, it flickers.
        Some(match (self.waiting(), dealer.trouble()) {
            (true, Some(why)) => format!("Daily run: waiting for the server ({why})"),
            _ => "Daily run: dealt by the server, step by step".to_owned(),
        })
    }

    /// The draws the server dealt for the command sent, once they have come: the
    /// command is played with them, watched by `obs`.
    pub fn poll(&mut self, store: &Store, obs: &mut impl Observer) -> anyhow::Result<Reaction> {
        let Some(answer) = self.dealer.as_ref().and_then(Dealer::answer) else {
            return Ok(Reaction::Stay);
        };
        let dealt = match answer {
            Answer::Dealt(dealt) => dealt,
            Answer::Refused(why) => {
                self.errand = None;
                self.messages
                    .push(quoted(&format!("The server refused the command: {why}")));
                return Ok(Reaction::Stay);
            }
        };
        match dealer::take(&mut self.session, &dealt, obs) {
            Ok(_) => Ok(self.told(store)),
            Err(error) => {
                self.errand = None;
                self.messages.push(quoted(&format!("{error:#}")));
                Ok(Reaction::Stay)
            }
        }
    }

    pub fn state(&self) -> &State {
        self.session.state()
    }

    pub fn meta(&self) -> &GameMeta {
        self.session.meta()
    }

    /// What the camel was warned of on this level: the map shows the ground it keeps off.
    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }

    pub fn messages(&self) -> &Messages {
        &self.messages
    }

    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    pub fn overlay(&self) -> &Overlay {
        &self.overlay
    }

    pub fn is_over(&self) -> bool {
        self.state().outcome().is_some()
    }

    /// Whether an errand (travel, run, explore, rest) is under way.
    pub fn is_running(&self) -> bool {
        self.errand.is_some()
    }

    /// The errand's next command, played like a key's; or the errand ends, saying why.
    /// Called by the window at the pace it shows steps at.
    pub fn step(&mut self, store: &Store, obs: &mut impl Observer) -> anyhow::Result<Reaction> {
        if self.waiting() {
            return Ok(Reaction::Stay);
        }
        let Some(errand) = &mut self.errand else {
            return Ok(Reaction::Stay);
        };
        // What an errand's own steps bring (an item picked up, strength gathered in the
        // heat) is shown as it comes, not held behind `--more--` at every few steps: the
        // errand stops by itself for what matters (a threat, a hurt), and the history
        // keeps every line.
        while self.messages.has_more() {
            self.messages.turn_page();
        }
        match errand.next(self.session.state(), &self.warnings) {
            Ok(command) => {
                let played = self.play(store, command, obs)?;
                if !matches!(played, Reaction::Played | Reaction::Sent) {
                    self.errand = None;
                }
                Ok(played)
            }
            Err(stop) => {
                self.errand = None;
                if let Some(message) = stop.message() {
                    self.messages.push(message);
                }
                Ok(Reaction::Stay)
            }
        }
    }

    /// A click on a cell: travel there, or to the nearest cell to it the camel knows a
    /// way to.
    pub fn click(&mut self, pos: Pos) {
        if self.mode() != Mode::Play || self.overlay != Overlay::None {
            return;
        }
        let here = self.state().world().player().map(|c| c.pos());
        match travel_goal(self.state(), &self.warnings, pos) {
            Some(goal) if Some(goal) == here => {
                self.messages.push("You know no nearer way there.");
            }
            Some(goal) => self.run(Errand::Travel(goal)),
            None => self.messages.push("You know no way there."),
        }
    }

    fn run(&mut self, errand: Errand) {
        self.messages.turn_page();
        if let Some(threat) = threat(self.session.state()) {
            self.messages.push(format!("Not now: {threat}."));
            return;
        }
        self.errand = Some(Running::start(errand, self.session.state(), &self.warnings));
    }

    /// How the next key is read.
    pub fn mode(&self) -> Mode {
        if matches!(self.overlay, Overlay::Look(_)) {
            Mode::Look
        } else if self.messages.has_more() || self.is_over() {
            Mode::More
        } else if let Some(prompt) = &self.prompt {
            prompt.mode()
        } else {
            Mode::Play
        }
    }

    /// Takes one key press, read by `keymap`; a command it completes is played with
    /// `obs` watching.
    pub fn key(
        &mut self,
        store: &Store,
        keymap: &Keymap,
        key: Key,
        obs: &mut impl Observer,
    ) -> anyhow::Result<Reaction> {
        // A key press stops an errand, and is spent doing so. (Not the second event of a
        // press, nor a modifier: those are no press of their own.)
        if is_any_key(keymap, key) && self.errand.take().is_some() {
            return Ok(Reaction::Stay);
        }
        match std::mem::replace(&mut self.overlay, Overlay::None) {
            Overlay::Help(page) => {
                let next = match page {
                    HelpPage::Keys if !desert_lines(self.state()).is_empty() => {
                        Some(HelpPage::Desert)
                    }
                    HelpPage::Desert if !creature_lines(self.state()).is_empty() => {
                        Some(HelpPage::Creatures)
                    }
                    _ => None,
                };
                if !is_any_key(keymap, key) {
                    self.overlay = Overlay::Help(page);
                } else if let Some(next) = next.filter(|_| key == Key::Char(' ')) {
                    self.overlay = Overlay::Help(next);
                }
                return Ok(Reaction::Stay);
            }
            Overlay::SaveAs(name) => return Ok(self.save_as_key(store, key, name)),
            Overlay::Look(at) => {
                self.look_key(keymap, key, at);
                return Ok(Reaction::Stay);
            }
            Overlay::History(up) => {
                self.history_key(key, up);
                return Ok(Reaction::Stay);
            }
            Overlay::Inventory => {
                if !is_any_key(keymap, key) {
                    self.overlay = Overlay::Inventory;
                }
                return Ok(Reaction::Stay);
            }
            Overlay::None => {}
        }
        if self.messages.has_more()
            && !self.is_over()
            && is_any_key(keymap, key)
            && !is_paging(keymap, key)
        {
            // Any other key at `--more--` dismisses the rest of the news (the history
            // keeps it, Ctrl-P) and is then taken as it would have been: a command
            // typed over the prompt is never lost. (A game's last words wait for a
            // paging key: they lead to its summary.)
            self.messages.skip();
        }
        let mode = self.mode();
        let Some(input) = bind(keymap, mode, key) else {
            return Ok(Reaction::Stay);
        };
        if mode == Mode::More {
            return Ok(self.more_key(input));
        }
        let flow = match self.prompt.take() {
            Some(prompt) => prompt.answer(input),
            None if input == Input::Escape => {
                self.leave();
                return Ok(Reaction::Menu);
            }
            None if input == Input::Options => return Ok(Reaction::Options),
            None => match self.map_key(store, input)? {
                Some(flow) => flow,
                None => return Ok(Reaction::Stay),
            },
        };
        match flow {
            Flow::Ask(prompt) => self.prompt = Some(prompt),
            Flow::Cancelled(why) => self.messages.push(why),
            Flow::Command(command) => return self.play(store, command, obs),
        }
        Ok(Reaction::Stay)
    }

    /// A key at `--more--`: the next page, or, once the game is over and its last words
    /// read, the summary.
    fn more_key(&mut self, input: Input) -> Reaction {
        if self.messages.has_more() {
            self.messages.answer(input);
            Reaction::Stay
        } else if matches!(input, Input::Space | Input::Confirm | Input::Escape) {
            self.leave();
            Reaction::Over(self.meta().id)
        } else {
            Reaction::Stay
        }
    }

    /// A key on the map with no question open: the start of an action, or `None` for a
    /// key that opens an overlay or means nothing here.
    fn map_key(&mut self, store: &Store, input: Input) -> anyhow::Result<Option<Flow>> {
        let state = self.session.state();
        let here = state.world().player().map(|c| c.pos());
        match input {
            Input::Help => self.overlay = Overlay::Help(HelpPage::Keys),
            Input::SaveAs => self.overlay = Overlay::SaveAs(store.free_name(&self.meta().name)?),
            Input::Look => self.overlay = Overlay::Look(here.unwrap_or(Pos::new(0, 0))),
            Input::History => self.overlay = Overlay::History(0),
            Input::Inventory => self.overlay = Overlay::Inventory,
            Input::Explore => self.run(Errand::Explore),
            // A pile is taken whole, as an errand; one item, or any with a threat near,
            // as one command.
            Input::PickUp if is_pile(state, here) && threat(state).is_none() => {
                self.run(Errand::Gather)
            }
            Input::RestLong => self.run(Errand::Rest),
            Input::Run(dir) => self.run(Errand::Run(dir)),
            Input::Travel => self.travel_to_stairs(),
            Input::Descend if here.is_some_and(|p| !on_stairs(state, p)) => {
                self.travel_to_stairs();
            }
            // Only an ally near the camel goes down with it (`World::follows_down`):
            // leaving one behind is asked, never done by a key meant for the stairs alone.
            Input::Descend if ally_left_behind(state) => {
                self.messages.turn_page();
                return Ok(Some(prompt::confirm(
                    "Your ally is too far off to follow you and will stay behind. Go down anyway?",
                    || prompt::done(Command::Descend),
                )));
            }
            _ => {
                let flow = prompt::start(input, &Bags(self.state()));
                if flow.is_some() {
                    // A new action: the last one's lines leave the screen.
                    self.messages.turn_page();
                }
                return Ok(flow);
            }
        }
        Ok(None)
    }

    /// Hands a fully answered command to the game; it is validated, played and flushed to
    /// disk before this returns; a dealt run's is validated, marked as sent and sent, and
    /// is played when its draws come (`poll`). A refusal costs nothing and writes nothing. A command
    /// that ends the game writes its morgue (`morgue::write`) and says where.
    fn play(
        &mut self,
        store: &Store,
        command: Command,
        obs: &mut impl Observer,
    ) -> anyhow::Result<Reaction> {
        let command = as_meant(self.state(), command);
        if let Some(dealer) = &self.dealer {
            if self.waiting() {
                self.messages
                    .push("Waiting for the server's answer to your last command.");
                return Ok(Reaction::Stay);
            }
            return match self.session.send(command) {
                Ok(at) => {
                    dealer.send(at, command);
                    Ok(Reaction::Sent)
                }
                Err(PlayError::Rejected(why)) => {
                    self.messages.push(why.to_string());
                    Ok(Reaction::Stay)
                }
                Err(PlayError::Store(error)) => Err(error.into()),
            };
        }
        match self.session.command(command, obs) {
            Ok(_) => Ok(self.told(store)),
            Err(PlayError::Rejected(why)) => {
                self.messages.push(why.to_string());
                Ok(Reaction::Stay)
            }
            // The session refuses further commands: nothing more can be saved.
            Err(PlayError::Store(error)) => Err(error.into()),
        }
    }

    /// What a command just played and saved brought, told: its messages, creatures met
    /// for the first time, warnings noted, and the morgue if it ended the game.
    fn told(&mut self, store: &Store) -> Reaction {
        let commands = self.session.meta().commands;
        report::ack(commands, self.session.state().hash());
        let log = self.session.state().world().messages();
        // An errand's steps gather strength at every step in the heat: the side
        // bar says so while it lasts, and a line a step would bury the news.
        let errand = self.errand.is_some();
        let said: Vec<Msg> = log
            .since(self.seen)
            .map(|m| m.msg)
            .filter(|&msg| !(errand && msg == Msg::Gathering))
            .collect();
        for line in tell(self.session.state().world(), &said) {
            self.messages.push(line);
        }
        for line in self.met.news(self.session.state()) {
            self.messages.push(line);
        }
        self.warnings.note(self.session.state(), &said);
        self.seen = log.total();
        if self.is_over() {
            // The game is saved whatever becomes of its morgue.
            let said = match morgue::write(store, self.session.meta()) {
                Ok(path) => format!("Your morgue is in {}.", path.display()),
                Err(error) => format!("No morgue was written: {error:#}."),
            };
            self.messages.push(quoted(&said));
        }
        Reaction::Played
    }

    fn travel_to_stairs(&mut self) {
        match known_stairs(self.session.state()) {
            Some(stairs) => self.run(Errand::Travel(stairs)),
            None => {
                let world = self.session.state().world();
                let last = world.depth() == world.rules().crossing().deepest();
                self.messages.push(match last {
                    true => "You have not found the oasis yet.",
                    false => "You have not found the way down yet.",
                });
            }
        }
    }

    /// The look cursor moves with the direction keys; anything else puts it away.
    fn look_key(&mut self, keymap: &Keymap, key: Key, at: Pos) {
        match bind(keymap, Mode::Look, key) {
            Some(Input::Move(dir)) => {
                let next = at.step(dir);
                let map = self.state().world().map();
                self.overlay = Overlay::Look(if map.contains(next) { next } else { at });
            }
            Some(Input::NextTarget) => {
                self.overlay = Overlay::Look(next_in_sight(self.state(), at).unwrap_or(at))
            }
            Some(_) => {}
            None => self.overlay = Overlay::Look(at),
        }
    }

    /// The history scrolls with the arrows and page keys; Escape closes it.
    fn history_key(&mut self, key: Key, up: usize) {
        use macroquad::miniquad::KeyCode;
        let lines = self.messages.history().len();
        let up = match key {
            Key::Code(KeyCode::Up) | Key::Char('k') => up + 1,
            Key::Code(KeyCode::Down) | Key::Char('j') => up.saturating_sub(1),
            Key::Code(KeyCode::PageUp) => up + HISTORY_PAGE,
            Key::Code(KeyCode::PageDown) => up.saturating_sub(HISTORY_PAGE),
            Key::Code(KeyCode::Escape | KeyCode::Enter) | Key::Char(' ') | Key::Ctrl('p') => {
                return;
            }
            _ => up,
        };
        self.overlay = Overlay::History(up.min(lines.saturating_sub(1)));
    }

    fn save_as_key(&mut self, store: &Store, key: Key, mut name: String) -> Reaction {
        use macroquad::miniquad::KeyCode;
        match key {
            Key::Char(c) if !c.is_control() && name.chars().count() < 64 => name.push(c),
            Key::Code(KeyCode::Backspace) => {
                name.pop();
            }
            Key::Code(KeyCode::Escape) => {
                self.messages.push(prompt::NEVER_MIND);
                return Reaction::Stay;
            }
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) => {
                let meta = self.session.meta();
                let said = match store.fork(meta.id, &name, meta.events) {
                    Ok(_) => format!("Saved a copy as {name}; you play on in {}.", meta.name),
                    Err(error) => quoted(&format!("Not saved: {error}.")),
                };
                self.messages.turn_page();
                self.messages.push(said);
                return Reaction::Stay;
            }
            _ => {}
        }
        self.overlay = Overlay::SaveAs(name);
        Reaction::Stay
    }

    /// Reports the final hash once, whether the player left for the menu, the game
    /// ended, or the window was closed.
    pub fn leave(&mut self) {
        if !self.left {
            self.left = true;
            report::hash(self.state().hash());
        }
    }
}

/// What the client's tests of a game share.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use sandglass_sim::{Header, Ruleset};

    /// A new game in a fresh data directory, its controller, and the store.
    pub(crate) fn new_game() -> (tempfile::TempDir, Store, GameController) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let session = store
            .create("camel", Header::new(7, Ruleset::NETHACK, 0), &mut ())
            .unwrap();
        (dir, store, GameController::new(session, Start::New))
    }
}

#[cfg(test)]
mod tests {
    use super::testing::new_game;
    use super::*;
    use macroquad::miniquad::KeyCode;
    use sandglass_sim::geometry::Direction;

    fn press(game: &mut GameController, store: &Store, keys: &[Key]) -> Reaction {
        let mut last = Reaction::Stay;
        for &key in keys {
            last = game.key(store, &Keymap::default(), key, &mut ()).unwrap();
        }
        last
    }

    /// The bot plays the game of `new_game` on until `done` says so (at most 2,000
    /// commands), paging through the news on the way.
    fn bot_plays_until(game: &mut GameController, store: &Store, done: impl Fn(&State) -> bool) {
        let mut bot = sandglass_sim::bot::Bot::new(7);
        let mut commands = 0;
        while !done(game.state()) {
            read_all(game, store);
            let command = bot.choose(game.state()).unwrap();
            game.play(store, command, &mut ()).unwrap();
            commands += 1;
            assert!(commands < 2000, "the bot's game never came to it");
        }
    }

    /// Pages through whatever waits behind `--more--`.
    fn read_all(game: &mut GameController, store: &Store) {
        while game.messages().has_more() {
            press(game, store, &[Key::Char(' ')]);
        }
    }

    /// No errand starts with a creature that could hurt the camel near: the key says why
    /// and plays nothing. With none near, exploring starts.
    #[test]
    fn no_errand_starts_with_a_threat_near() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        assert_eq!(threat(game.state()), None);
        press(&mut game, &store, &[Key::Char('x')]);
        assert!(game.is_running());
        // The bot plays on until something comes for the camel.
        let (_dir, store, mut game) = new_game();
        bot_plays_until(&mut game, &store, |state| threat(state).is_some());
        read_all(&mut game, &store);
        let events = game.state().events_folded();
        press(&mut game, &store, &[Key::Char('x')]);
        assert!(!game.is_running());
        assert_eq!(game.state().events_folded(), events);
        let said = game.messages().history().last().unwrap();
        assert!(
            said.starts_with("Not now: ")
                && (said.ends_with(" is beside you.") || said.ends_with(" is coming for you.")),
            "{said}"
        );
    }

    /// A direction the camel may step in, and the vi-key that steps there.
    fn open_step(game: &GameController) -> (Direction, Key) {
        let camel = game.state().world().player().unwrap().pos();
        let open = Direction::ALL
            .into_iter()
            .find(|&d| game.state().world().map().is_free(camel.step(d)))
            .unwrap();
        (open, step_key(open))
    }

    /// The vi-key that steps in `dir`.
    fn step_key(dir: Direction) -> Key {
        "hjklyubn"
            .chars()
            .map(Key::Char)
            .find(|&k| bind(&Keymap::default(), Mode::Play, k) == Some(Input::Move(dir)))
            .unwrap()
    }

    #[test]
    fn a_movement_key_plays_and_saves_one_command() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        let camel = game.state().world().player().unwrap().pos();
        let (open, key) = open_step(&game);
        assert_eq!(press(&mut game, &store, &[key]), Reaction::Played);
        assert_eq!(store.meta(game.meta().id).unwrap().commands, 1);
        assert_eq!(
            game.state().world().player().unwrap().pos(),
            camel.step(open)
        );
    }

    /// A movement key into a closed door opens it, and the tape keeps the opening.
    #[test]
    fn a_step_into_a_closed_door_opens_it() {
        let door_beside = |state: &State| {
            let world = state.world();
            let Some(camel) = world.player().filter(|_| state.outcome().is_none()) else {
                return false;
            };
            let calm = !camel.conditions().has(Condition::Confused);
            let door = Direction::ALL
                .into_iter()
                .any(|d| world.map().terrain(camel.pos().step(d)) == Terrain::DoorClosed);
            calm && door && threat(state).is_none()
        };
        // The first of a few seeds whose bot comes to a door.
        let game = (1..30).find_map(|seed| {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            let header = sandglass_sim::Header::new(seed, sandglass_sim::Ruleset::NETHACK, 0);
            let session = store.create("camel", header, &mut ()).unwrap();
            let mut game = GameController::new(session, Start::New);
            let mut bot = sandglass_sim::bot::Bot::new(seed);
            for _ in 0..2000 {
                read_all(&mut game, &store);
                if door_beside(game.state()) {
                    return Some((dir, store, game));
                }
                let command = bot.choose(game.state())?;
                game.play(&store, command, &mut ()).unwrap();
            }
            None
        });
        let (_dir, store, mut game) = game.expect("a bot comes to a closed door");
        let camel = game.state().world().player().unwrap().pos();
        let world = game.state().world();
        let dir = Direction::ALL
            .into_iter()
            .find(|&d| world.map().terrain(camel.step(d)) == Terrain::DoorClosed)
            .unwrap();
        assert_eq!(press(&mut game, &store, &[step_key(dir)]), Reaction::Played);
        let world = game.state().world();
        assert_eq!(world.map().terrain(camel.step(dir)), Terrain::DoorOpen);
        assert_eq!(
            world.player().unwrap().pos(),
            camel,
            "it opened, and did not step"
        );
    }

    /// A key typed over `--more--` is not lost: the news is put away (the history keeps
    /// it) and the key is taken as a command. Space still only turns the page.
    #[test]
    fn a_command_typed_at_more_is_taken() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        let news = |game: &mut GameController| {
            for line in ["one", "two", "three", "four", "five"] {
                game.messages.push(line);
            }
            assert!(game.messages().has_more());
        };
        news(&mut game);
        let events = game.state().events_folded();
        while game.messages().has_more() {
            press(&mut game, &store, &[Key::Char(' ')]);
        }
        assert_eq!(game.messages().page().last().unwrap(), "five");
        assert_eq!(game.state().events_folded(), events, "Space played nothing");
        news(&mut game);
        let camel = game.state().world().player().unwrap().pos();
        let (open, key) = open_step(&game);
        assert_eq!(press(&mut game, &store, &[key]), Reaction::Played);
        assert_eq!(
            game.state().world().player().unwrap().pos(),
            camel.step(open)
        );
        assert!(game.messages().history().iter().any(|l| l == "five"));
        // A menu key, too: the eat menu opens at once.
        news(&mut game);
        press(&mut game, &store, &[Key::Char('e')]);
        assert_eq!(game.mode(), Mode::Menu);
    }

    #[test]
    fn eating_asks_which_and_escape_asks_nothing_more() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        let dates = |game: &GameController| {
            let slot = game
                .state()
                .world()
                .bags()
                .slot_for(sandglass_sim::item::Item::Date);
            game.state()
                .world()
                .bags()
                .get(slot.unwrap())
                .map_or(0, |s| s.count)
        };
        let before = dates(&game);
        press(&mut game, &store, &[Key::Char('e')]);
        assert_eq!(game.mode(), Mode::Menu);
        let choices = game.prompt().unwrap().choices().to_vec();
        assert!(
            choices.iter().any(|(_, name)| name == "2 dates"),
            "{choices:?}"
        );
        press(&mut game, &store, &[Key::Code(KeyCode::Escape)]);
        assert_eq!(game.mode(), Mode::Play);
        assert_eq!(game.messages().page().last().unwrap(), prompt::NEVER_MIND);
        let date = choices[0].0.letter();
        let played = press(&mut game, &store, &[Key::Char('e'), Key::Char(date)]);
        assert_eq!(played, Reaction::Played);
        assert_eq!(dates(&game), before - 1);
    }

    #[test]
    fn quitting_needs_a_yes_and_ends_on_the_summary() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        press(&mut game, &store, &[Key::Char('Q'), Key::Char('n')]);
        assert!(!game.is_over());
        press(&mut game, &store, &[Key::Char('Q'), Key::Char('y')]);
        assert!(game.is_over());
        assert_eq!(game.mode(), Mode::More);
        read_all(&mut game, &store);
        let id = game.meta().id;
        assert_eq!(
            press(&mut game, &store, &[Key::Char(' ')]),
            Reaction::Over(id)
        );
    }

    /// A game that ends writes its morgue beside the saves, and says where.
    #[test]
    fn a_game_that_ends_leaves_its_morgue() {
        let (dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        let path = morgue::path(dir.path(), game.meta());
        press(&mut game, &store, &[Key::Char('.')]);
        assert!(!path.exists(), "no morgue while the game goes on");
        press(&mut game, &store, &[Key::Char('Q'), Key::Char('y')]);
        let dump = std::fs::read_to_string(&path).unwrap();
        assert!(dump.contains("Gave up the crossing on depth 1."), "{dump}");
        let said = format!("Your morgue is in {}.", path.display());
        assert!(game.messages().history().contains(&said));
    }

    /// `i` shows every stack the camel carries, however many the side bar has room
    /// for; any key puts it away and plays nothing.
    #[test]
    fn the_inventory_lists_every_stack() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        press(&mut game, &store, &[Key::Char('i')]);
        assert_eq!(game.overlay(), &Overlay::Inventory);
        let lines = inventory_lines(game.state());
        let stacks = game.state().world().bags().stacks().count();
        assert_eq!(lines.len(), stacks);
        assert!(lines[0].starts_with("a - "), "{lines:?}");
        let events = game.state().events_folded();
        press(&mut game, &store, &[Key::Char('h')]);
        assert_eq!(game.overlay(), &Overlay::None);
        assert_eq!(game.state().events_folded(), events);
    }

    /// Tab in the look cursor goes from creature to creature in sight, nearest the camel
    /// first, and round again (played by eye, it did nothing there though it does when
    /// throwing).
    #[test]
    fn tab_in_the_look_cursor_goes_round_the_creatures_in_sight() {
        let (_dir, store, mut game) = new_game();
        let seen = |state: &State| -> Vec<Pos> {
            let world = state.world();
            let creatures = world.actors().filter(|&(id, _)| !world.is_player(id));
            let in_sight = creatures.filter(|&(id, a)| a.is_present() && world.sees_actor(id));
            in_sight.map(|(_, a)| a.pos()).collect()
        };
        bot_plays_until(&mut game, &store, |state| seen(state).len() >= 2);
        read_all(&mut game, &store);
        let mut in_sight = seen(game.state());
        let here = game.state().world().player().unwrap().pos();
        press(&mut game, &store, &[Key::Char(';')]);
        let mut cursor = vec![];
        for _ in 0..=in_sight.len() {
            press(&mut game, &store, &[Key::Code(KeyCode::Tab)]);
            match game.overlay() {
                Overlay::Look(at) => cursor.push(*at),
                other => panic!("{other:?}"),
            }
        }
        // Round again to the first, having been on each once, nearest first.
        assert_eq!(cursor.first(), cursor.last());
        cursor.pop();
        let distances: Vec<u16> = cursor.iter().map(|p| p.distance(here)).collect();
        assert!(distances.is_sorted(), "{distances:?}");
        cursor.sort_by_key(|p| (p.x, p.y));
        in_sight.sort_by_key(|p| (p.x, p.y));
        assert_eq!(cursor, in_sight);
    }

    #[test]
    fn help_closes_on_any_key_and_escape_goes_to_the_menu() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        press(&mut game, &store, &[Key::Char('?')]);
        assert_eq!(game.overlay(), &Overlay::Help(HelpPage::Keys));
        // The shift of `?` alone is no key press.
        press(&mut game, &store, &[Key::Code(KeyCode::LeftShift)]);
        assert_eq!(game.overlay(), &Overlay::Help(HelpPage::Keys));
        press(&mut game, &store, &[Key::Char('x')]);
        assert_eq!(game.overlay(), &Overlay::None);
        // Space turns to the desert's page (a new game has the desert's clock), and any
        // key closes that.
        press(&mut game, &store, &[Key::Char('?'), Key::Char(' ')]);
        assert_eq!(game.overlay(), &Overlay::Help(HelpPage::Desert));
        // Space again turns to its creatures' page, and any key closes that.
        press(&mut game, &store, &[Key::Char(' ')]);
        assert_eq!(game.overlay(), &Overlay::Help(HelpPage::Creatures));
        press(&mut game, &store, &[Key::Char(' ')]);
        assert_eq!(game.overlay(), &Overlay::None);
        let menu = press(&mut game, &store, &[Key::Code(KeyCode::Escape)]);
        assert_eq!(menu, Reaction::Menu);
    }

    #[test]
    fn save_as_names_a_copy_and_play_goes_on_here() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        press(&mut game, &store, &[Key::Char('S')]);
        assert_eq!(game.overlay(), &Overlay::SaveAs("camel-2".into()));
        let erase = Key::Code(KeyCode::Backspace);
        press(&mut game, &store, &[erase, erase, Key::Char('!')]);
        press(&mut game, &store, &[Key::Code(KeyCode::Enter)]);
        assert_eq!(game.overlay(), &Overlay::None);
        let copy = store.find("camel!").unwrap();
        assert_eq!(copy.last_hash, game.state().hash());
        assert_eq!(game.meta().name, "camel");
        let said = game.messages().page().last().unwrap();
        assert_eq!(said, "Saved a copy as camel!; you play on in camel.");
    }
    #[test]
    fn a_resumed_game_welcomes_back_and_a_taken_over_one_says_where_it_starts() {
        let (_dir, store, mut game) = new_game();
        read_all(&mut game, &store);
        press(&mut game, &store, &[Key::Char('.'), Key::Char('.')]);
        let id = game.meta().id;
        let turn = game.state().tick().0;
        drop(game);
        let last = |start| {
            let game = GameController::new(store.resume(id).unwrap(), start);
            game.messages().page().last().unwrap().clone()
        };
        assert_eq!(
            last(Start::Resumed(vec![])),
            "Welcome back to camel. Every move is saved."
        );
        assert_eq!(
            last(Start::TakenOver(vec![])),
            format!("You take over at turn {turn}, as camel. Every move is saved.")
        );
    }

    #[test]
    fn a_game_opened_before_its_first_command_greets_as_a_new_one() {
        let (_dir, store, game) = new_game();
        let id = game.meta().id;
        let greeting = game.messages().page().to_vec();
        drop(game);
        let opened = GameController::new(store.resume(id).unwrap(), Start::Resumed(vec![]));
        assert_eq!(opened.messages().page(), greeting);
        assert!(greeting
            .iter()
            .all(|line| !line.starts_with("Welcome back")));
    }
}
