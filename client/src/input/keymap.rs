//! Which keys do what on the map: one table from each action's name to its default keys
//! (`ACTIONS`), and the player's own choices, read from a keymap file beside
//! `settings.json` or made on the options screen.
//!
//! The file is plain lines, `action = key key ...`, `#` starting a comment line:
//!
//! ```text
//! explore = x
//! move_west = h Left Kp4
//! ```
//!
//! An action left out keeps its default keys, less any the file gives to another action,
//! so a file written by an older client still works when actions are added. A file that
//! names an unknown action or key, or gives one key to two actions, is refused whole, in
//! words that say which line and why; the caller then plays with the defaults.

use std::fmt;
use std::fs;
use std::io;
use std::path::Path;

use macroquad::miniquad::KeyCode;
use sandglass_sim::geometry::Direction;

use super::intent::{Input, Key};

pub const FILE_NAME: &str = "keys.txt";

/// An action the player can bind keys to.
pub struct Action {
    /// Its name in the keymap file.
    pub name: &'static str,
    pub input: Input,
    /// Its keys unless the player says otherwise, by their names in the file.
    pub defaults: &'static [&'static str],
    /// What the help and the options screen call it.
    pub what: &'static str,
}

const fn action(
    name: &'static str,
    input: Input,
    defaults: &'static [&'static str],
    what: &'static str,
) -> Action {
    Action {
        name,
        input,
        defaults,
        what,
    }
}

use Direction::{E, N, NE, NW, S, SE, SW, W};

/// Every action that has keys of its own on the map, in the order the help and the
/// options screen list them. Moves and runs come in the vi-keys' order, `hjklyubn`.
/// (PageUp and PageDown move diagonally, as the numpad does with Num Lock off, so the
/// glyph size has only the Control keys here.)
// One line an action, so that the table reads as one.
#[rustfmt::skip]
pub const ACTIONS: &[Action] = &[
    action("move_west", Input::Move(W), &["h", "Left", "Kp4"], "move west"),
    action("move_south", Input::Move(S), &["j", "Down", "Kp2"], "move south"),
    action("move_north", Input::Move(N), &["k", "Up", "Kp8"], "move north"),
    action("move_east", Input::Move(E), &["l", "Right", "Kp6"], "move east"),
    action("move_north_west", Input::Move(NW), &["y", "Home", "Kp7"], "move north-west"),
    action("move_north_east", Input::Move(NE), &["u", "PageUp", "Kp9"], "move north-east"),
    action("move_south_west", Input::Move(SW), &["b", "End", "Kp1"], "move south-west"),
    action("move_south_east", Input::Move(SE), &["n", "PageDown", "Kp3"], "move south-east"),
    action("run_west", Input::Run(W), &["H", "Shift+Left", "Shift+Kp4"], "run west"),
    action("run_south", Input::Run(S), &["J", "Shift+Down", "Shift+Kp2"], "run south"),
    action("run_north", Input::Run(N), &["K", "Shift+Up", "Shift+Kp8"], "run north"),
    action("run_east", Input::Run(E), &["L", "Shift+Right", "Shift+Kp6"], "run east"),
    action("run_north_west", Input::Run(NW), &["Y", "Shift+Home", "Shift+Kp7"], "run north-west"),
    action("run_north_east", Input::Run(NE), &["U", "Shift+PageUp", "Shift+Kp9"], "run north-east"),
    action("run_south_west", Input::Run(SW), &["B", "Shift+End", "Shift+Kp1"], "run south-west"),
    action("run_south_east", Input::Run(SE), &["N", "Shift+PageDown", "Shift+Kp3"], "run south-east"),
    action("rest", Input::Rest, &[".", "Kp5"], "rest"),
    action("inventory", Input::Inventory, &["i"], "inventory"),
    action("rest_until_healed", Input::RestLong, &["R"], "rest until healed"),
    action("explore", Input::Explore, &["x"], "explore"),
    action("travel", Input::Travel, &["_"], "travel to the stairs"),
    action("look", Input::Look, &[";"], "look around"),
    action("pick_up", Input::PickUp, &[","], "pick up"),
    action("drop", Input::Drop, &["d"], "drop"),
    action("eat", Input::Eat, &["e"], "eat"),
    action("wear", Input::Wear, &["W"], "wear"),
    action("take_off", Input::TakeOff, &["T"], "take off"),
    action("apply", Input::Apply, &["a"], "use: drink, crack, crush"),
    action("throw", Input::Throw, &["t"], "throw (Tab aims, Enter throws)"),
    action("open", Input::Open, &["o"], "open"),
    action("close", Input::Close, &["c"], "close"),
    action("descend", Input::Descend, &[">"], "descend, or travel to the stairs"),
    action("dash", Input::Dash, &["D"], "dash"),
    action("help", Input::Help, &["?"], "help"),
    action("options", Input::Options, &["O"], "options: size, colours, keys"),
    action("save_as", Input::SaveAs, &["S"], "save as"),
    action("quit", Input::Quit, &["Q"], "quit"),
    action("history", Input::History, &["Ctrl+p"], "message history"),
    action("energy_panel", Input::TogglePanel, &["F1"], "energy panel"),
    action("full_screen", Input::ToggleFullScreen, &["F11"], "full screen (Alt+Enter too)"),
    action("glyphs_bigger", Input::Bigger, &["Ctrl+Plus"], "bigger glyphs"),
    action("glyphs_smaller", Input::Smaller, &["Ctrl+Minus"], "smaller glyphs"),
    action("glyphs_fit", Input::FitMap, &["Ctrl+0"], "glyphs as large as fit the map"),
];

/// Whether an action works on every screen (the start screen, the replay, while a name
/// is typed), not only on the map: its keys must be keys that type nothing.
pub fn is_global(input: Input) -> bool {
    matches!(
        input,
        Input::TogglePanel
            | Input::ToggleFullScreen
            | Input::Bigger
            | Input::Smaller
            | Input::FitMap
    )
}

/// Keys no action may take: Escape leaves and Enter confirms wherever they are read.
const RESERVED: [Key; 3] = [
    Key::Code(KeyCode::Escape),
    Key::Code(KeyCode::Enter),
    Key::Code(KeyCode::KpEnter),
];

/// The keys of every action in `ACTIONS`, in its order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    keys: Vec<Vec<Key>>,
}

/// Why a key, or a line of a keymap file, is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeymapError {
    /// A line with no `=` between an action and its keys.
    NoEquals,
    UnknownAction(String),
    UnknownKey(String),
    /// The same action on two lines.
    Repeated(&'static str),
    /// An action given no key.
    NoKeys(&'static str),
    /// One key for two actions.
    Conflict {
        key: Key,
        first: &'static str,
        second: &'static str,
    },
    Reserved(Key),
    /// A key that types something, for an action that works on every screen.
    Typed {
        key: Key,
        action: &'static str,
    },
}

/// A keymap file refused: the line and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    pub line: usize,
    pub error: KeymapError,
}

impl fmt::Display for KeymapError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        use KeymapError::*;
        match self {
            NoEquals => write!(f, "write an action, `=`, then its keys"),
            UnknownAction(name) => write!(
                f,
                "no action is called \"{name}\" (`sandglass keys` lists them)"
            ),
            UnknownKey(name) => write!(
                f,
                "no key is called \"{name}\" (a character such as x or ?, a name such as \
                 Left, Kp4, F5 or Space, or Shift+ or Ctrl+ before one)"
            ),
            Repeated(action) => write!(f, "{action} is given keys twice"),
            NoKeys(action) => write!(
                f,
                "{action} has no key (leave its line out for its default)"
            ),
            Conflict { key, first, second } => write!(
                f,
                "{} is already {first}'s key, so it cannot be {second}'s too",
                key_name(*key)
            ),
            Reserved(key) => write!(f, "{} is kept for leaving and confirming", key_name(*key)),
            Typed { key, action } => write!(
                f,
                "{action} works on every screen, where {} would be typed: give it a key \
                 that types nothing (F5, Ctrl+g)",
                key_name(*key)
            ),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl std::error::Error for FileError {}
impl std::error::Error for KeymapError {}

impl Default for Keymap {
    fn default() -> Keymap {
        Keymap {
            keys: ACTIONS
                .iter()
                .map(|a| {
                    a.defaults
                        .iter()
                        .filter_map(|name| parse_key(name))
                        .collect()
                })
                .collect(),
        }
    }
}

impl Keymap {
    /// The action `key` stands for on the map.
    pub fn input(&self, key: Key) -> Option<Input> {
        self.keys
            .iter()
            .position(|keys| keys.contains(&key))
            .map(|at| ACTIONS[at].input)
    }

    /// The keys of the action that means `input`, first the one the help shows first.
    pub fn keys_of(&self, input: Input) -> &[Key] {
        ACTIONS
            .iter()
            .position(|a| a.input == input)
            .map_or(&[], |at| &self.keys[at])
    }

    /// The keys of the action that means `input` by their names, as the help and the
    /// options screen show them.
    pub fn names_of(&self, input: Input) -> String {
        let names: Vec<String> = self.keys_of(input).iter().map(|&k| key_name(k)).collect();
        match names.is_empty() {
            true => "(no key)".to_owned(),
            false => names.join(", "),
        }
    }

    /// The direction a movement key points in.
    pub fn direction(&self, key: Key) -> Option<Direction> {
        match self.input(key) {
            Some(Input::Move(dir)) => Some(dir),
            _ => None,
        }
    }

    /// The keymap a file's text describes.
    pub fn parse(text: &str) -> Result<Keymap, FileError> {
        let mut given: Vec<Option<Vec<Key>>> = vec![None; ACTIONS.len()];
        let mut owner: Vec<(Key, usize)> = vec![];
        for (index, raw) in text.lines().enumerate() {
            let raw = raw.trim();
            if raw.is_empty() || raw.starts_with('#') {
                continue;
            }
            let at_line = |error| FileError {
                line: index + 1,
                error,
            };
            let (at, keys) = parse_line(raw, &given, &mut owner).map_err(at_line)?;
            given[at] = Some(keys);
        }
        let defaults = Keymap::default();
        let keys = given
            .into_iter()
            .zip(defaults.keys)
            .map(|(given, defaults)| {
                given.unwrap_or_else(|| {
                    defaults
                        .into_iter()
                        .filter(|key| !owner.iter().any(|(k, _)| k == key))
                        .collect()
                })
            })
            .collect();
        Ok(Keymap { keys })
    }

    /// The keymap as a file's text, with a header saying how to write one.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# Sandglass's keys: an action, `=`, then its keys, separated by spaces.\n\
             # A key is a character (x, ?, >), a name (Left, Kp4, F5, PageUp, Space, Tab,\n\
             # Home, End, Insert, Delete, Backspace), or Shift+ or Ctrl+ before one\n\
             # (Shift+Left, Ctrl+p, Ctrl+Plus). An action left out keeps its default keys.\n\
             # Escape and Enter cannot be bound: they leave and confirm everywhere.\n",
        );
        for (action, keys) in ACTIONS.iter().zip(&self.keys) {
            let names: Vec<String> = keys.iter().map(|&k| key_name(k)).collect();
            text.push_str(&format!("{} = {}\n", action.name, names.join(" ")));
        }
        text
    }

    /// Makes `key` the first key of action `at` (the one the help shows), keeping its
    /// others; refused, with nothing changed, if another action has it.
    pub fn rebind(&mut self, at: usize, key: Key) -> Result<(), KeymapError> {
        check_key(at, key)?;
        if let Some(other) = self.keys.iter().position(|keys| keys.contains(&key)) {
            if other != at {
                return Err(KeymapError::Conflict {
                    key,
                    first: ACTIONS[other].name,
                    second: ACTIONS[at].name,
                });
            }
        }
        let keys = &mut self.keys[at];
        keys.retain(|&k| k != key);
        keys.insert(0, key);
        if keys.len() > ACTIONS[at].defaults.len().max(1) {
            keys.remove(1);
        }
        Ok(())
    }

    /// The keymap in `dir`'s keymap file: the defaults if there is none, and the defaults
    /// with the reason if it cannot be read or is refused.
    pub fn load(dir: &Path) -> (Keymap, Option<String>) {
        let path = dir.join(FILE_NAME);
        let refused = |why: String| {
            let said = format!(
                "{}: {why}. The default keys are used instead.",
                path.display()
            );
            (Keymap::default(), Some(said))
        };
        match fs::read(&path) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => (Keymap::default(), None),
            Err(error) => refused(error.to_string()),
            Ok(bytes) => match String::from_utf8(bytes) {
                Err(_) => refused("it is not UTF-8 text".to_owned()),
                Ok(text) => match Keymap::parse(&text) {
                    Ok(keymap) => (keymap, None),
                    Err(error) => refused(error.to_string()),
                },
            },
        }
    }

    /// Writes the keymap file in `dir`, creating `dir` if needed; beside its final name
    /// and then renamed over it, so a crash leaves the old file whole.
    pub fn save(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        let partial = dir.join(format!("{FILE_NAME}.partial"));
        fs::write(&partial, self.to_text())?;
        fs::rename(&partial, dir.join(FILE_NAME))
    }
}

/// One line of a keymap file: the action it names and its keys, each checked against
/// the keys of the lines before it (`owner`).
fn parse_line(
    raw: &str,
    given: &[Option<Vec<Key>>],
    owner: &mut Vec<(Key, usize)>,
) -> Result<(usize, Vec<Key>), KeymapError> {
    let (name, keys) = raw.split_once('=').ok_or(KeymapError::NoEquals)?;
    let name = name.trim();
    let at = ACTIONS
        .iter()
        .position(|a| a.name == name)
        .ok_or_else(|| KeymapError::UnknownAction(name.to_owned()))?;
    let action = ACTIONS[at].name;
    if given[at].is_some() {
        return Err(KeymapError::Repeated(action));
    }
    let mut bound = vec![];
    for word in keys.split_whitespace() {
        let key = parse_key(word).ok_or_else(|| KeymapError::UnknownKey(word.to_owned()))?;
        check_key(at, key)?;
        match owner.iter().find(|(k, _)| *k == key) {
            Some(&(_, other)) if other != at => {
                return Err(KeymapError::Conflict {
                    key,
                    first: ACTIONS[other].name,
                    second: action,
                })
            }
            // The same key twice for one action is no conflict.
            Some(_) => continue,
            None => owner.push((key, at)),
        }
        bound.push(key);
    }
    if bound.is_empty() {
        return Err(KeymapError::NoKeys(action));
    }
    Ok((at, bound))
}

/// Whether `key` may be action `at`'s at all, whoever else has it.
fn check_key(at: usize, key: Key) -> Result<(), KeymapError> {
    if RESERVED.contains(&key) {
        return Err(KeymapError::Reserved(key));
    }
    let action = &ACTIONS[at];
    if is_global(action.input) && matches!(key, Key::Char(_)) {
        return Err(KeymapError::Typed {
            key,
            action: action.name,
        });
    }
    Ok(())
}

/// Keys that type nothing, by their names in the file.
const CODE_NAMES: [(KeyCode, &str); 46] = [
    (KeyCode::Up, "Up"),
    (KeyCode::Down, "Down"),
    (KeyCode::Left, "Left"),
    (KeyCode::Right, "Right"),
    (KeyCode::Home, "Home"),
    (KeyCode::End, "End"),
    (KeyCode::PageUp, "PageUp"),
    (KeyCode::PageDown, "PageDown"),
    (KeyCode::Insert, "Insert"),
    (KeyCode::Delete, "Delete"),
    (KeyCode::Backspace, "Backspace"),
    (KeyCode::Tab, "Tab"),
    (KeyCode::Escape, "Escape"),
    (KeyCode::Enter, "Enter"),
    (KeyCode::KpEnter, "KpEnter"),
    (KeyCode::Kp0, "Kp0"),
    (KeyCode::Kp1, "Kp1"),
    (KeyCode::Kp2, "Kp2"),
    (KeyCode::Kp3, "Kp3"),
    (KeyCode::Kp4, "Kp4"),
    (KeyCode::Kp5, "Kp5"),
    (KeyCode::Kp6, "Kp6"),
    (KeyCode::Kp7, "Kp7"),
    (KeyCode::Kp8, "Kp8"),
    (KeyCode::Kp9, "Kp9"),
    (KeyCode::KpAdd, "KpAdd"),
    (KeyCode::KpSubtract, "KpSubtract"),
    (KeyCode::KpMultiply, "KpMultiply"),
    (KeyCode::KpDivide, "KpDivide"),
    (KeyCode::KpDecimal, "KpDecimal"),
    (KeyCode::F1, "F1"),
    (KeyCode::F2, "F2"),
    (KeyCode::F3, "F3"),
    (KeyCode::F4, "F4"),
    (KeyCode::F5, "F5"),
    (KeyCode::F6, "F6"),
    (KeyCode::F7, "F7"),
    (KeyCode::F8, "F8"),
    (KeyCode::F9, "F9"),
    (KeyCode::F10, "F10"),
    (KeyCode::F11, "F11"),
    (KeyCode::F12, "F12"),
    (KeyCode::Pause, "Pause"),
    (KeyCode::ScrollLock, "ScrollLock"),
    (KeyCode::PrintScreen, "PrintScreen"),
    (KeyCode::Menu, "Menu"),
];

/// Characters that read better by a name after `Ctrl+`.
const CTRL_NAMES: [(char, &str); 2] = [('+', "Plus"), ('-', "Minus")];

fn code_named(name: &str) -> Option<KeyCode> {
    CODE_NAMES
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|(code, _)| *code)
}

/// The key a name in the file stands for: a character, a key that types nothing by its
/// name, `Space`, `Shift+` and a key that types nothing, or `Ctrl+` and a letter, `Plus`,
/// `Minus` or `0` (the keys the window reads with Control held).
pub fn parse_key(name: &str) -> Option<Key> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return (!c.is_control() && !c.is_whitespace()).then_some(Key::Char(c));
    }
    if name.eq_ignore_ascii_case("Space") {
        return Some(Key::Char(' '));
    }
    if let Some(rest) = strip_prefix(name, "Shift+") {
        return code_named(rest).map(Key::Shift);
    }
    if let Some(rest) = strip_prefix(name, "Ctrl+") {
        let named = CTRL_NAMES
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(rest))
            .map(|(c, _)| *c);
        let mut chars = rest.chars();
        let c = match (chars.next(), chars.next()) {
            (Some(c), None) => c.to_ascii_lowercase(),
            _ => named?,
        };
        return (c.is_ascii_lowercase() || matches!(c, '+' | '-' | '0')).then_some(Key::Ctrl(c));
    }
    code_named(name).map(Key::Code)
}

fn strip_prefix<'a>(name: &'a str, prefix: &str) -> Option<&'a str> {
    let head = name.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &name[prefix.len()..])
}

/// A key's name, as the file, the help and the options screen write it.
pub fn key_name(key: Key) -> String {
    let code = |code: KeyCode| {
        CODE_NAMES
            .iter()
            .find(|(c, _)| *c == code)
            .map_or_else(|| format!("{code:?}"), |(_, n)| (*n).to_owned())
    };
    match key {
        Key::Char(' ') => "Space".to_owned(),
        Key::Char(c) => c.to_string(),
        Key::Code(c) => code(c),
        Key::Shift(c) => format!("Shift+{}", code(c)),
        Key::Ctrl(c) => match CTRL_NAMES.iter().find(|(k, _)| *k == c) {
            Some((_, n)) => format!("Ctrl+{n}"),
            None => format!("Ctrl+{c}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_key_parses_and_no_two_actions_share_one() {
        let defaults = Keymap::default();
        for (action, keys) in ACTIONS.iter().zip(&defaults.keys) {
            assert_eq!(keys.len(), action.defaults.len(), "{}", action.name);
        }
        assert_eq!(Keymap::parse(&defaults.to_text()), Ok(defaults.clone()));
        assert_eq!(Keymap::parse(""), Ok(defaults));
    }

    #[test]
    fn key_names_read_back_as_the_same_key() {
        for name in [
            "x",
            "?",
            ">",
            "Space",
            "Left",
            "Kp4",
            "F5",
            "Shift+Left",
            "Ctrl+p",
        ] {
            let key = parse_key(name).unwrap();
            assert_eq!(parse_key(&key_name(key)), Some(key), "{name}");
        }
        assert_eq!(parse_key("Ctrl+Plus"), Some(Key::Ctrl('+')));
        assert_eq!(parse_key("ctrl++"), Some(Key::Ctrl('+')));
        assert_eq!(parse_key("left"), Some(Key::Code(KeyCode::Left)));
        assert_eq!(key_name(Key::Ctrl('-')), "Ctrl+Minus");
    }

    #[test]
    fn a_rebound_key_does_its_new_action_and_the_others_keep_theirs() {
        let keymap = Keymap::parse("# mine\nexplore = z\n\nmove_west = a Left\n").unwrap();
        assert_eq!(keymap.input(Key::Char('z')), Some(Input::Explore));
        assert_eq!(keymap.input(Key::Char('x')), None);
        assert_eq!(keymap.direction(Key::Char('a')), Some(W));
        assert_eq!(keymap.direction(Key::Code(KeyCode::Kp4)), None);
        assert_eq!(keymap.input(Key::Char('d')), Some(Input::Drop));
    }

    #[test]
    fn a_key_the_file_takes_from_a_default_leaves_that_default() {
        // `d` drops by default; given to dash, drop keeps no key rather than two actions
        // sharing one.
        let keymap = Keymap::parse("dash = d").unwrap();
        assert_eq!(keymap.input(Key::Char('d')), Some(Input::Dash));
        assert!(keymap.keys_of(Input::Drop).is_empty());
    }

    #[test]
    fn an_unknown_key_name_is_refused_in_words() {
        let error = Keymap::parse("explore = x\nrest = Banana").unwrap_err();
        assert_eq!(
            error,
            FileError {
                line: 2,
                error: KeymapError::UnknownKey("Banana".to_owned())
            }
        );
        assert!(error
            .to_string()
            .starts_with("line 2: no key is called \"Banana\""));
        assert!(
            Keymap::parse("rest = Shift+x").is_err(),
            "Shift+ a letter is X"
        );
        assert!(
            Keymap::parse("rest = Ctrl+5").is_err(),
            "never read with Control"
        );
    }

    #[test]
    fn an_unknown_action_is_refused_in_words() {
        let error = Keymap::parse("jump = j").unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 1: no action is called \"jump\" (`sandglass keys` lists them)"
        );
    }

    #[test]
    fn a_conflict_is_refused_in_words() {
        let error = Keymap::parse("explore = z\ndrop = z").unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 2: z is already explore's key, so it cannot be drop's too"
        );
        let again = Keymap::parse("explore = z\nexplore = q").unwrap_err();
        assert_eq!(again.to_string(), "line 2: explore is given keys twice");
    }

    #[test]
    fn reserved_keys_and_typed_keys_for_every_screen_are_refused() {
        let error = Keymap::parse("rest = Escape").unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 1: Escape is kept for leaving and confirming"
        );
        let error = Keymap::parse("full_screen = f").unwrap_err().error;
        assert!(matches!(error, KeymapError::Typed { .. }), "{error}");
        assert!(Keymap::parse("full_screen = F5").is_ok());
    }

    #[test]
    fn a_broken_file_gives_the_defaults_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Keymap::load(dir.path()), (Keymap::default(), None));
        for junk in ["explore x", "explore = ", "\u{0}\u{1} = ?", "rest = . ."] {
            std::fs::write(dir.path().join(FILE_NAME), junk).unwrap();
            let (keymap, said) = Keymap::load(dir.path());
            if junk == "rest = . ." {
                // A key repeated for one action is no conflict.
                assert_eq!(said, None);
                continue;
            }
            assert_eq!(keymap, Keymap::default(), "{junk:?}");
            let said = said.unwrap();
            assert!(said.contains("keys.txt: line 1: "), "{said}");
            assert!(
                said.ends_with("The default keys are used instead."),
                "{said}"
            );
        }
        std::fs::write(dir.path().join(FILE_NAME), [0xff, 0xfe, b'=']).unwrap();
        let (keymap, said) = Keymap::load(dir.path());
        assert_eq!(keymap, Keymap::default());
        assert!(said.unwrap().contains("not UTF-8"));
    }

    #[test]
    fn saved_keys_load_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut keymap = Keymap::default();
        let explore = ACTIONS
            .iter()
            .position(|a| a.input == Input::Explore)
            .unwrap();
        keymap.rebind(explore, Key::Char('z')).unwrap();
        keymap.save(dir.path()).unwrap();
        assert_eq!(Keymap::load(dir.path()), (keymap, None));
    }

    #[test]
    fn rebinding_replaces_the_first_key_and_refuses_a_taken_one() {
        let mut keymap = Keymap::default();
        let west = ACTIONS.iter().position(|a| a.name == "move_west").unwrap();
        keymap.rebind(west, Key::Char('q')).unwrap();
        assert_eq!(
            keymap.keys_of(Input::Move(W)),
            [
                Key::Char('q'),
                Key::Code(KeyCode::Left),
                Key::Code(KeyCode::Kp4)
            ]
        );
        let before = keymap.clone();
        let error = keymap.rebind(west, Key::Char('x')).unwrap_err();
        assert_eq!(
            error.to_string(),
            "x is already explore's key, so it cannot be move_west's too"
        );
        assert_eq!(keymap, before);
    }
}
