//! Key bindings as data: which key press means which client intent.
//!
//! A press reaches us as one or two window events: the typed character (with shift and
//! the keyboard layout already applied, so `D`, `?` and `>` are right on any layout) and
//! the physical key code. Printable keys are bound by their character and only the keys
//! that type nothing (arrows, numpad, F1, Enter, Escape) by their code, so one press can
//! never produce two intents.
//!
//! Which key means which action on the map is the player's keymap (`keymap`); the keys of
//! menus, questions and lists are fixed here.

use macroquad::miniquad::{EventHandler, KeyCode, KeyMods};
use sandglass_sim::geometry::Direction;

use super::intent::{Input, Key};
use super::keymap::{key_name, Keymap, ACTIONS};

/// What the screen is waiting for. The same key means different things in each:
/// `y` moves north-west on the map, answers yes to a question and picks item `y` in a
/// menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The map: commands and movement.
    Play,
    /// "In what direction?"
    Direction,
    /// A lettered menu.
    Menu,
    /// A y/n question.
    YesNo,
    /// A `--more--` between pages of messages.
    More,
    /// A list to choose from (the start screen, saved games): arrows move the
    /// highlight, a letter picks directly, Enter takes the highlighted one.
    List,
    /// The look cursor: directions move it, Tab puts it on the next creature in sight,
    /// Escape, Enter or `;` put it away.
    Look,
}

/// The intent of `key` while the screen is in `mode`, or `None` if the key means
/// nothing there. The map, the direction prompt and the look cursor read `keymap`.
pub fn bind(keymap: &Keymap, mode: Mode, key: Key) -> Option<Input> {
    let direction = || keymap.direction(key).map(Input::Move);
    match mode {
        Mode::Play => keymap.input(key).or_else(|| common(key)),
        Mode::Direction => match key {
            Key::Code(KeyCode::Tab) => Some(Input::NextTarget),
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) => Some(Input::Confirm),
            _ => direction().or_else(|| escape(key)),
        },
        Mode::Menu => bind_menu(key),
        Mode::YesNo => bind_yes_no(key),
        Mode::More => common(key),
        Mode::List => bind_list(key),
        // The look key puts the cursor away again; Tab goes to the next creature in sight,
        // as it goes to the next target when throwing.
        Mode::Look => match (keymap.input(key), key) {
            (Some(Input::Look), _) => Some(Input::Escape),
            (_, Key::Code(KeyCode::Tab)) => Some(Input::NextTarget),
            _ => direction().or_else(|| common(key)),
        },
    }
}

/// Arrows and the numpad's up and down, whatever the keymap: every letter is a choice
/// in a list.
fn list_direction(code: KeyCode) -> Option<Direction> {
    match code {
        KeyCode::Up | KeyCode::Kp8 => Some(Direction::N),
        KeyCode::Down | KeyCode::Kp2 => Some(Direction::S),
        _ => None,
    }
}

fn bind_list(key: Key) -> Option<Input> {
    match key {
        Key::Char(c) if c.is_ascii_alphabetic() => Some(Input::Letter(c)),
        Key::Code(code) => list_direction(code)
            .map(Input::Move)
            .or_else(|| common(key)),
        Key::Char(_) => common(key),
        Key::Shift(_) | Key::Ctrl(_) => None,
    }
}

fn bind_menu(key: Key) -> Option<Input> {
    match key {
        Key::Char(c) if c.is_ascii_alphabetic() => Some(Input::Letter(c)),
        _ => common(key),
    }
}

fn bind_yes_no(key: Key) -> Option<Input> {
    match key {
        Key::Char('y' | 'Y') => Some(Input::Yes),
        Key::Char('n' | 'N') => Some(Input::No),
        _ => escape(key),
    }
}

/// Space, Enter and Escape mean the same wherever they are read.
fn common(key: Key) -> Option<Input> {
    match key {
        Key::Char(' ') => Some(Input::Space),
        Key::Code(KeyCode::Enter | KeyCode::KpEnter) => Some(Input::Confirm),
        _ => escape(key),
    }
}

fn escape(key: Key) -> Option<Input> {
    matches!(key, Key::Code(KeyCode::Escape)).then_some(Input::Escape)
}

/// Whether a key counts for "press any key": a typed character, or a key that types
/// nothing but means something (Enter, Escape, arrows). Not the second event of a
/// press that has already counted, nor a modifier on its own: either would close a
/// screen the same press just opened.
pub fn is_any_key(keymap: &Keymap, key: Key) -> bool {
    match key {
        // Enter and Escape also type a control character; their key code counts instead.
        Key::Char(c) => !c.is_control(),
        Key::Code(_) | Key::Shift(_) | Key::Ctrl(_) => bind(keymap, Mode::Play, key).is_some(),
    }
}

/// The keys of a few actions as the help shows them: a single character each run
/// together (`hjkl`), anything longer apart.
fn first_keys(keymap: &Keymap, inputs: &[Input]) -> String {
    let names: Vec<String> = inputs
        .iter()
        .filter_map(|&input| keymap.keys_of(input).first().map(|&k| key_name(k)))
        .collect();
    let glue = if names.iter().all(|n| n.chars().count() == 1) {
        ""
    } else {
        " "
    };
    names.join(glue)
}

/// One line per action, with its keys as bound, for the help screen: the eight moves on
/// one line and the eight runs on another, then every other action.
pub fn help_lines(keymap: &Keymap) -> Vec<(String, String)> {
    let pair = |keys: String, what: &str| (keys, what.to_owned());
    let moves: Vec<Input> = ACTIONS
        .iter()
        .filter(|a| matches!(a.input, Input::Move(_)))
        .map(|a| a.input)
        .collect();
    let runs: Vec<Input> = ACTIONS
        .iter()
        .filter(|a| matches!(a.input, Input::Run(_)))
        .map(|a| a.input)
        .collect();
    let default_arrows = keymap.direction(Key::Code(KeyCode::Left)) == Some(Direction::W);
    let shift_runs = keymap.input(Key::Shift(KeyCode::Left)) == Some(Input::Run(Direction::W));
    let mut lines = vec![
        pair(first_keys(keymap, &moves), "move, or attack"),
        pair(
            first_keys(keymap, &runs),
            if shift_runs {
                "run (Shift+arrow too)"
            } else {
                "run"
            },
        ),
    ];
    if default_arrows {
        lines.push(pair("arrows, numpad".to_owned(), "move too"));
    }
    lines.push(pair("click".to_owned(), "travel to a place you know"));
    for action in ACTIONS
        .iter()
        .filter(|a| !matches!(a.input, Input::Move(_) | Input::Run(_)))
    {
        lines.push(pair(keymap.names_of(action.input), action.what));
    }
    lines.push(pair("Escape".to_owned(), "menu (the game is saved)"));
    lines
}

/// The letter a key types, for Control and a letter.
fn letter(code: KeyCode) -> Option<char> {
    let letters = [
        (KeyCode::A, 'a'),
        (KeyCode::B, 'b'),
        (KeyCode::C, 'c'),
        (KeyCode::D, 'd'),
        (KeyCode::E, 'e'),
        (KeyCode::F, 'f'),
        (KeyCode::G, 'g'),
        (KeyCode::H, 'h'),
        (KeyCode::I, 'i'),
        (KeyCode::J, 'j'),
        (KeyCode::K, 'k'),
        (KeyCode::L, 'l'),
        (KeyCode::M, 'm'),
        (KeyCode::N, 'n'),
        (KeyCode::O, 'o'),
        (KeyCode::P, 'p'),
        (KeyCode::Q, 'q'),
        (KeyCode::R, 'r'),
        (KeyCode::S, 's'),
        (KeyCode::T, 't'),
        (KeyCode::U, 'u'),
        (KeyCode::V, 'v'),
        (KeyCode::W, 'w'),
        (KeyCode::X, 'x'),
        (KeyCode::Y, 'y'),
        (KeyCode::Z, 'z'),
    ];
    letters.iter().find(|(k, _)| *k == code).map(|(_, c)| *c)
}

/// What a key reads as with Control held: its letter, or `+`, `-` or `0` from the main
/// keys (`=` is `+` unshifted) or the numpad's.
fn with_ctrl(code: KeyCode) -> Option<char> {
    match code {
        KeyCode::Equal | KeyCode::KpAdd => Some('+'),
        KeyCode::Minus | KeyCode::KpSubtract => Some('-'),
        KeyCode::Key0 | KeyCode::Kp0 => Some('0'),
        _ => letter(code),
    }
}

/// Key presses in the order they happened. The window feeds it once a frame with
/// `macroquad::input::utils::repeat_all_miniquad_input(&mut queue, subscriber)`; held
/// keys repeat, so holding an arrow keeps walking.
#[derive(Debug, Default)]
pub struct KeyQueue {
    keys: Vec<Key>,
}

impl KeyQueue {
    /// The presses since the last call, oldest first.
    pub fn take(&mut self) -> Vec<Key> {
        std::mem::take(&mut self.keys)
    }
}

impl EventHandler for KeyQueue {
    fn update(&mut self) {}

    fn draw(&mut self) {}

    fn char_event(&mut self, character: char, mods: KeyMods, _repeat: bool) {
        // With Control held the key is read as Ctrl and a letter, from its code.
        if !mods.ctrl {
            self.keys.push(Key::Char(character));
        }
    }

    fn key_down_event(&mut self, code: KeyCode, mods: KeyMods, _repeat: bool) {
        let key = match with_ctrl(code) {
            Some(c) if mods.ctrl => Key::Ctrl(c),
            // Alt+Enter is full screen, as F11 is, in every screen.
            _ if mods.alt && matches!(code, KeyCode::Enter | KeyCode::KpEnter) => {
                Key::Code(KeyCode::F11)
            }
            _ if mods.shift => Key::Shift(code),
            _ => Key::Code(code),
        };
        self.keys.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(key: Key) -> Option<Input> {
        bind(&Keymap::default(), Mode::Play, key)
    }

    /// Feeds window events to a queue and binds what comes out, as the screen will.
    fn press(mode: Mode, events: &[Key]) -> Vec<Input> {
        let mut queue = KeyQueue::default();
        let mods = KeyMods::default();
        let shift = KeyMods {
            shift: true,
            ..mods
        };
        let ctrl = KeyMods { ctrl: true, ..mods };
        for event in events {
            match *event {
                Key::Char(c) => queue.char_event(c, mods, false),
                Key::Code(code) => queue.key_down_event(code, mods, false),
                Key::Shift(code) => queue.key_down_event(code, shift, false),
                Key::Ctrl('p') => {
                    // Control held: the control character it types, then its code.
                    queue.char_event('\u{10}', ctrl, false);
                    queue.key_down_event(KeyCode::P, ctrl, false);
                }
                Key::Ctrl(other) => unimplemented!("no test presses Ctrl-{other}"),
            }
        }
        queue
            .take()
            .into_iter()
            .filter_map(|key| bind(&Keymap::default(), mode, key))
            .collect()
    }

    #[test]
    fn vi_keys_move() {
        let expected = [
            ('h', Direction::W),
            ('j', Direction::S),
            ('k', Direction::N),
            ('l', Direction::E),
            ('y', Direction::NW),
            ('u', Direction::NE),
            ('b', Direction::SW),
            ('n', Direction::SE),
        ];
        for (c, dir) in expected {
            assert_eq!(play(Key::Char(c)), Some(Input::Move(dir)), "{c}");
        }
    }

    fn assert_codes(expected: &[(KeyCode, Direction)]) {
        for &(code, dir) in expected {
            assert_eq!(play(Key::Code(code)), Some(Input::Move(dir)), "{code:?}");
        }
    }

    #[test]
    fn arrows_move() {
        assert_codes(&[
            (KeyCode::Up, Direction::N),
            (KeyCode::Down, Direction::S),
            (KeyCode::Left, Direction::W),
            (KeyCode::Right, Direction::E),
        ]);
    }

    #[test]
    fn numpad_moves_and_five_rests() {
        let expected = [
            (KeyCode::Kp1, Input::Move(Direction::SW)),
            (KeyCode::Kp2, Input::Move(Direction::S)),
            (KeyCode::Kp3, Input::Move(Direction::SE)),
            (KeyCode::Kp4, Input::Move(Direction::W)),
            (KeyCode::Kp5, Input::Rest),
            (KeyCode::Kp6, Input::Move(Direction::E)),
            (KeyCode::Kp7, Input::Move(Direction::NW)),
            (KeyCode::Kp8, Input::Move(Direction::N)),
            (KeyCode::Kp9, Input::Move(Direction::NE)),
        ];
        for (code, input) in expected {
            assert_eq!(play(Key::Code(code)), Some(input), "{code:?}");
        }
    }

    #[test]
    fn numpad_with_num_lock_off_still_moves_diagonally() {
        assert_codes(&[
            (KeyCode::Home, Direction::NW),
            (KeyCode::PageUp, Direction::NE),
            (KeyCode::End, Direction::SW),
            (KeyCode::PageDown, Direction::SE),
        ]);
    }

    #[test]
    fn command_keys_from_the_design() {
        let expected = [
            ('.', Input::Rest),
            (',', Input::PickUp),
            ('d', Input::Drop),
            ('e', Input::Eat),
            ('t', Input::Throw),
            ('o', Input::Open),
            ('c', Input::Close),
            ('>', Input::Descend),
            ('?', Input::Help),
            (' ', Input::Space),
        ];
        for (c, input) in expected {
            assert_eq!(play(Key::Char(c)), Some(input), "{c:?}");
        }
    }

    #[test]
    fn shifted_keys_are_their_own_commands() {
        assert_eq!(play(Key::Char('D')), Some(Input::Dash));
        assert_eq!(play(Key::Char('d')), Some(Input::Drop));
        assert_eq!(play(Key::Char('S')), Some(Input::SaveAs));
        assert_eq!(play(Key::Char('Q')), Some(Input::Quit));
        assert_eq!(play(Key::Char('?')), Some(Input::Help));
        assert_eq!(play(Key::Char('>')), Some(Input::Descend));
        assert_eq!(play(Key::Char('s')), None);
        assert_eq!(play(Key::Char('q')), None);
    }

    #[test]
    fn f1_toggles_the_panel_and_enter_escape_work_on_the_map() {
        assert_eq!(play(Key::Code(KeyCode::F1)), Some(Input::TogglePanel));
        assert_eq!(play(Key::Code(KeyCode::F11)), Some(Input::ToggleFullScreen));
        assert_eq!(play(Key::Code(KeyCode::Escape)), Some(Input::Escape));
        assert_eq!(play(Key::Code(KeyCode::Enter)), Some(Input::Confirm));
    }

    #[test]
    fn a_press_that_types_a_character_gives_one_intent() {
        // The order X11 delivers them in: the character first, then the key code.
        let dash = [Key::Char('D'), Key::Code(KeyCode::D)];
        assert_eq!(press(Mode::Play, &dash), [Input::Dash]);
        let help = [Key::Char('?'), Key::Code(KeyCode::Slash)];
        assert_eq!(press(Mode::Play, &help), [Input::Help]);
        let space = [Key::Char(' '), Key::Code(KeyCode::Space)];
        assert_eq!(press(Mode::Play, &space), [Input::Space]);
    }

    #[test]
    fn numpad_with_num_lock_on_gives_one_intent() {
        let kp1 = [Key::Char('1'), Key::Code(KeyCode::Kp1)];
        assert_eq!(press(Mode::Play, &kp1), [Input::Move(Direction::SW)]);
        let kp5 = [Key::Char('5'), Key::Code(KeyCode::Kp5)];
        assert_eq!(press(Mode::Play, &kp5), [Input::Rest]);
    }

    #[test]
    fn control_characters_are_left_to_their_key_codes() {
        let enter = [Key::Char('\r'), Key::Code(KeyCode::Enter)];
        assert_eq!(press(Mode::Menu, &enter), [Input::Confirm]);
        let escape = [Key::Char('\u{1b}'), Key::Code(KeyCode::Escape)];
        assert_eq!(press(Mode::Menu, &escape), [Input::Escape]);
    }

    #[test]
    fn shift_and_a_direction_runs_and_ctrl_p_shows_the_history() {
        assert_eq!(play(Key::Char('L')), Some(Input::Run(Direction::E)));
        assert_eq!(play(Key::Char('Y')), Some(Input::Run(Direction::NW)));
        assert_eq!(
            press(Mode::Play, &[Key::Shift(KeyCode::Left)]),
            [Input::Run(Direction::W)]
        );
        // Shift and `/` types `?` and is help, once.
        let help = [Key::Char('?'), Key::Shift(KeyCode::Slash)];
        assert_eq!(press(Mode::Play, &help), [Input::Help]);
        assert_eq!(press(Mode::Play, &[Key::Ctrl('p')]), [Input::History]);
        assert_eq!(play(Key::Char('R')), Some(Input::RestLong));
        assert_eq!(play(Key::Char('x')), Some(Input::Explore));
        assert_eq!(play(Key::Char('_')), Some(Input::Travel));
        assert_eq!(play(Key::Char(';')), Some(Input::Look));
    }

    #[test]
    fn the_look_cursor_moves_with_directions_and_goes_with_escape_or_semicolon() {
        assert_eq!(
            bind(&Keymap::default(), Mode::Look, Key::Char('h')),
            Some(Input::Move(Direction::W))
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Look, Key::Code(KeyCode::Up)),
            Some(Input::Move(Direction::N))
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Look, Key::Char(';')),
            Some(Input::Escape)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Look, Key::Code(KeyCode::Escape)),
            Some(Input::Escape)
        );
    }

    #[test]
    fn queue_keeps_presses_in_order_and_empties() {
        let keys = [
            Key::Char('h'),
            Key::Code(KeyCode::H),
            Key::Code(KeyCode::Up),
        ];
        let moves = [Input::Move(Direction::W), Input::Move(Direction::N)];
        assert_eq!(press(Mode::Play, &keys), moves);
        assert!(KeyQueue::default().take().is_empty());
    }

    #[test]
    fn menus_take_every_letter() {
        for c in ['a', 'd', 'y', 'n', 'h', 'z', 'A'] {
            assert_eq!(
                bind(&Keymap::default(), Mode::Menu, Key::Char(c)),
                Some(Input::Letter(c))
            );
        }
        assert_eq!(
            bind(&Keymap::default(), Mode::Menu, Key::Code(KeyCode::Escape)),
            Some(Input::Escape)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Menu, Key::Code(KeyCode::Enter)),
            Some(Input::Confirm)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Menu, Key::Char(' ')),
            Some(Input::Space)
        );
        assert_eq!(bind(&Keymap::default(), Mode::Menu, Key::Char('.')), None);
        assert_eq!(
            bind(&Keymap::default(), Mode::Menu, Key::Code(KeyCode::Up)),
            None
        );
    }

    #[test]
    fn yes_no_questions_take_y_n_and_escape() {
        assert_eq!(
            bind(&Keymap::default(), Mode::YesNo, Key::Char('y')),
            Some(Input::Yes)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::YesNo, Key::Char('Y')),
            Some(Input::Yes)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::YesNo, Key::Char('n')),
            Some(Input::No)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::YesNo, Key::Char('N')),
            Some(Input::No)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::YesNo, Key::Code(KeyCode::Escape)),
            Some(Input::Escape)
        );
        assert_eq!(bind(&Keymap::default(), Mode::YesNo, Key::Char('q')), None);
    }

    #[test]
    fn direction_prompts_take_movement_keys_only() {
        let w = Some(Input::Move(Direction::W));
        assert_eq!(bind(&Keymap::default(), Mode::Direction, Key::Char('h')), w);
        assert_eq!(
            bind(
                &Keymap::default(),
                Mode::Direction,
                Key::Code(KeyCode::Left)
            ),
            w
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Direction, Key::Code(KeyCode::Kp4)),
            w
        );
        let escape = Some(Input::Escape);
        assert_eq!(
            bind(
                &Keymap::default(),
                Mode::Direction,
                Key::Code(KeyCode::Escape)
            ),
            escape
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Direction, Key::Char('d')),
            None
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::Direction, Key::Code(KeyCode::Kp5)),
            None
        );
    }

    #[test]
    fn more_waits_for_space_enter_or_escape() {
        assert_eq!(
            bind(&Keymap::default(), Mode::More, Key::Char(' ')),
            Some(Input::Space)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::More, Key::Code(KeyCode::Enter)),
            Some(Input::Confirm)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::More, Key::Code(KeyCode::Escape)),
            Some(Input::Escape)
        );
        // A movement key must not slip past unread messages.
        assert_eq!(bind(&Keymap::default(), Mode::More, Key::Char('h')), None);
        assert_eq!(
            bind(&Keymap::default(), Mode::More, Key::Code(KeyCode::Up)),
            None
        );
    }

    #[test]
    fn lists_move_with_arrows_and_pick_with_letters() {
        let up = Some(Input::Move(Direction::N));
        let down = Some(Input::Move(Direction::S));
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Up)),
            up
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Kp8)),
            up
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Down)),
            down
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Kp2)),
            down
        );
        // j and k are choices here, not movement.
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Char('j')),
            Some(Input::Letter('j'))
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Char('k')),
            Some(Input::Letter('k'))
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Left)),
            None
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Enter)),
            Some(Input::Confirm)
        );
        assert_eq!(
            bind(&Keymap::default(), Mode::List, Key::Code(KeyCode::Escape)),
            Some(Input::Escape)
        );
    }

    #[test]
    fn any_key_is_one_per_press() {
        // Shift, then `?`, then the code of the key it is on: one press.
        let press = [
            Key::Code(KeyCode::LeftShift),
            Key::Char('?'),
            Key::Code(KeyCode::Slash),
        ];
        let counted: Vec<Key> = press
            .into_iter()
            .filter(|&k| is_any_key(&Keymap::default(), k))
            .collect();
        assert_eq!(counted, [Key::Char('?')]);
        let escape = [Key::Char('\u{1b}'), Key::Code(KeyCode::Escape)];
        let counted: Vec<Key> = escape
            .into_iter()
            .filter(|&k| is_any_key(&Keymap::default(), k))
            .collect();
        assert_eq!(counted, [Key::Code(KeyCode::Escape)]);
        assert!(is_any_key(&Keymap::default(), Key::Code(KeyCode::Enter)));
        assert!(is_any_key(&Keymap::default(), Key::Code(KeyCode::Down)));
    }

    #[test]
    fn help_lists_every_command_key() {
        let help: String = help_lines(&Keymap::default())
            .iter()
            .map(|(keys, what)| format!("{keys} {what}\n"))
            .collect();
        assert!(
            help.starts_with("hjklyubn move, or attack\nHJKLYUBN run"),
            "{help}"
        );
        let lines = help_lines(&Keymap::default());
        for action in ACTIONS
            .iter()
            .filter(|a| !matches!(a.input, Input::Move(_) | Input::Run(_)))
        {
            let line = lines.iter().find(|(_, what)| what == action.what);
            let keys = &line.expect(action.name).0;
            assert!(
                keys.starts_with(action.defaults[0]),
                "{}: {keys}",
                action.name
            );
        }
        assert!(help.contains("F1"));
    }

    #[test]
    fn the_help_shows_the_keys_as_bound() {
        let keymap = Keymap::parse("explore = z\nmove_west = a\nrun_west = A").unwrap();
        let help = help_lines(&keymap);
        assert!(
            help.contains(&("z".to_owned(), "explore".to_owned())),
            "{help:?}"
        );
        assert_eq!(help[0].0, "ajklyubn");
        assert_eq!(help[1].0, "AJKLYUBN");
        assert!(help.iter().all(|(keys, _)| keys != "arrows, numpad"));
    }

    #[test]
    fn control_and_plus_minus_or_zero_size_the_glyphs() {
        let mut queue = KeyQueue::default();
        let ctrl = KeyMods {
            ctrl: true,
            ..KeyMods::default()
        };
        let shift_ctrl = KeyMods {
            shift: true,
            ..ctrl
        };
        queue.char_event('+', shift_ctrl, false);
        queue.key_down_event(KeyCode::Equal, shift_ctrl, false);
        queue.key_down_event(KeyCode::KpSubtract, ctrl, false);
        queue.key_down_event(KeyCode::Key0, ctrl, false);
        let inputs: Vec<Option<Input>> = queue
            .take()
            .into_iter()
            .map(|key| bind(&Keymap::default(), Mode::Play, key))
            .collect();
        assert_eq!(
            inputs,
            [
                Some(Input::Bigger),
                Some(Input::Smaller),
                Some(Input::FitMap)
            ]
        );
    }
}
