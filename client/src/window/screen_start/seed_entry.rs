//! The start screen's box for a new seeded game: the seed as typed, the number it comes
//! to, and the ruleset chosen.

use sandglass_sim::Ruleset;

use super::Rows;
use crate::input::intent::Key;
use crate::seed::seed_of;
use crate::window::hud::{DIM, TEXT};
use crate::window::{App, Go};

/// A new seeded game's seed, as typed, and its ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SeedEntry {
    text: String,
    ruleset: Ruleset,
}

/// The longest seed the box takes, in characters.
const SEED_LENGTH: usize = 64;

impl SeedEntry {
    pub(super) fn new() -> SeedEntry {
        SeedEntry {
            text: String::new(),
            ruleset: Ruleset::NETHACK,
        }
    }

    /// A key in the box: text typed or erased, Tab or Left/Right for the next or the
    /// previous ruleset, Enter to start (`Go::NewGame`), Escape to close the box (`None`).
    pub(super) fn key(&mut self, key: Key) -> Option<Go> {
        use macroquad::miniquad::KeyCode;
        let named = Ruleset::NAMED;
        let at = named.iter().position(|&r| r == self.ruleset).unwrap_or(0);
        match key {
            Key::Char(c) if !c.is_control() && self.text.chars().count() < SEED_LENGTH => {
                self.text.push(c)
            }
            Key::Code(KeyCode::Backspace) => {
                self.text.pop();
            }
            Key::Code(KeyCode::Tab | KeyCode::Right) => {
                self.ruleset = named[(at + 1) % named.len()];
            }
            Key::Code(KeyCode::Left) => {
                self.ruleset = named[(at + named.len() - 1) % named.len()];
            }
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) => {
                if let Some(seed) = seed_of(&self.text) {
                    return Some(Go::NewGame {
                        seed: Some(seed),
                        ruleset: self.ruleset,
                    });
                }
            }
            Key::Code(KeyCode::Escape) => return None,
            _ => {}
        }
        Some(Go::Stay)
    }

    /// What the box says of the seed typed: the number it starts.
    fn meaning(&self) -> String {
        match seed_of(&self.text) {
            None => {
                "Type digits, or any words: the same text always starts the same game.".to_owned()
            }
            Some(seed) if self.text.trim().bytes().all(|b| b.is_ascii_digit()) => {
                format!("Seed {seed}.")
            }
            Some(seed) => format!("Seed {seed} (xxh3-64 of the text)."),
        }
    }
}

/// The box of a new seeded game, from `x`, `y` down: the seed typed, what it comes to,
/// the ruleset.
pub(super) fn draw_seed_entry(app: &App, entry: &SeedEntry, x: f32, y: f32, size: f32) {
    let mut rows = Rows::titled(app, "New seeded game", x, y, size, usize::MAX, 3);
    rows.text(app, &format!("Seed:     {}_", entry.text), TEXT);
    rows.text(app, &entry.meaning(), DIM);
    rows.text(app, "", TEXT);
    rows.text(
        app,
        &format!("Ruleset:  {}   (Tab or Left/Right)", entry.ruleset.name()),
        TEXT,
    );
    rows.footer(
        app,
        "Enter starts the game. The end screen and `sandglass saves` show its seed. Escape: back.",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Typing a seed, choosing the ruleset, starting: all without a window.
    #[test]
    fn a_seeded_game_starts_from_the_text_typed_and_the_ruleset_chosen() {
        use macroquad::miniquad::KeyCode;
        let mut entry = SeedEntry::new();
        let typed = |entry: &mut SeedEntry, text: &str| {
            for c in text.chars() {
                assert!(matches!(entry.key(Key::Char(c)), Some(Go::Stay)));
            }
        };
        // Enter with nothing typed starts nothing.
        assert!(matches!(
            entry.key(Key::Code(KeyCode::Enter)),
            Some(Go::Stay)
        ));
        typed(&mut entry, "camelx");
        entry.key(Key::Code(KeyCode::Backspace));
        assert_eq!(entry.text, "camel");
        // A control character (Enter's own) is not text.
        entry.key(Key::Char('\r'));
        assert_eq!(entry.text, "camel");
        assert_eq!(
            entry.meaning(),
            format!("Seed {} (xxh3-64 of the text).", 0x7090_a850_f133_8e75_u64)
        );
        entry.key(Key::Code(KeyCode::Tab));
        assert_eq!(entry.ruleset, Ruleset::NAMED[1]);
        entry.key(Key::Code(KeyCode::Left));
        entry.key(Key::Code(KeyCode::Left));
        assert_eq!(entry.ruleset, Ruleset::NAMED[1], "round the ends");
        match entry.key(Key::Code(KeyCode::Enter)) {
            Some(Go::NewGame { seed, ruleset }) => {
                assert_eq!(seed, Some(0x7090_a850_f133_8e75));
                assert_eq!(ruleset, Ruleset::NAMED[1]);
            }
            _ => panic!("Enter starts the game"),
        }
        let mut digits = SeedEntry::new();
        typed(&mut digits, "12345");
        assert_eq!(digits.meaning(), "Seed 12345.");
        assert!(matches!(
            digits.key(Key::Code(KeyCode::KpEnter)),
            Some(Go::NewGame {
                seed: Some(12345),
                ..
            })
        ));
        // Escape closes the box; the text has a length limit.
        assert!(digits.key(Key::Code(KeyCode::Escape)).is_none());
        typed(&mut digits, &"9".repeat(SEED_LENGTH));
        assert_eq!(digits.text.chars().count(), SEED_LENGTH);
    }
}
