//! The box where a player names their server and themselves, the first time the window
//! needs them (the daily desert): what `sandglass daily --server URL --name NAME` names in
//! the terminal. Nothing is remembered until the server takes them.

use macroquad::miniquad::KeyCode;
use sandglass_claim::check_name;
use sandglass_sim::text::capitalise;

use crate::input::intent::Key;
use crate::settings::Settings;

/// The longest address the box takes, in characters.
const ADDRESS_LENGTH: usize = 200;

/// The server's address and the player's name, as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerEntry {
    pub server: String,
    pub name: String,
    /// Whether the name, rather than the address, is being typed.
    pub on_name: bool,
    /// Why Enter did not go on: what is wrong with what was typed.
    pub problem: Option<String>,
}

/// What a key in the box comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum Entered {
    /// Still typing.
    Typing,
    /// Escape: the box closes.
    Closed,
    /// Enter on a good address and name.
    Named { server: String, name: String },
}

impl ServerEntry {
    /// The box, with what the settings already name filled in.
    pub fn new(settings: &Settings) -> ServerEntry {
        ServerEntry {
            server: settings.server.clone().unwrap_or_default(),
            name: settings.player.clone().unwrap_or_default(),
            on_name: settings.server.is_some(),
            problem: None,
        }
    }

    /// A key in the box: text typed or erased in the field being typed, Tab or Up/Down to
    /// the other field, Enter to the name and then to start, Escape to close.
    pub fn key(&mut self, key: Key) -> Entered {
        let (field, most) = match self.on_name {
            false => (&mut self.server, ADDRESS_LENGTH),
            true => (&mut self.name, sandglass_claim::MOST_NAME_CHARS),
        };
        match key {
            Key::Char(c) if c.is_control() || c.is_whitespace() => {}
            Key::Char(c) if field.chars().count() < most => field.push(c),
            Key::Code(KeyCode::Backspace) => {
                field.pop();
            }
            Key::Code(KeyCode::Tab | KeyCode::Up | KeyCode::Down) => self.on_name = !self.on_name,
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) if !self.on_name => self.on_name = true,
            Key::Code(KeyCode::Enter | KeyCode::KpEnter) => return self.named(),
            Key::Code(KeyCode::Escape) => return Entered::Closed,
            _ => {}
        }
        Entered::Typing
    }

    /// The address and name, if both are good; otherwise the box says why and puts the
    /// cursor where the fault is.
    fn named(&mut self) -> Entered {
        let server = self.server.trim();
        let problem = if !(server.starts_with("http://") || server.starts_with("https://")) {
            self.on_name = false;
            "The server's address starts with http:// or https://.".to_owned()
        } else if let Err(error) = check_name(&self.name) {
            format!("{}.", capitalise(&error.to_string()))
        } else {
            self.problem = None;
            return Entered::Named {
                server: server.to_owned(),
                name: self.name.clone(),
            };
        };
        self.problem = Some(problem);
        Entered::Typing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(entry: &mut ServerEntry, text: &str) {
        for c in text.chars() {
            assert_eq!(entry.key(Key::Char(c)), Entered::Typing);
        }
    }

    const ENTER: Key = Key::Code(KeyCode::Enter);

    #[test]
    fn an_address_then_a_name_are_typed_and_enter_names_them() {
        let mut entry = ServerEntry::new(&Settings::default());
        assert!(!entry.on_name);
        typed(&mut entry, "http://localhost:8080/");
        assert_eq!(entry.key(ENTER), Entered::Typing);
        assert!(entry.on_name);
        typed(&mut entry, "camel x");
        entry.key(Key::Code(KeyCode::Backspace));
        assert_eq!(
            entry.key(ENTER),
            Entered::Named {
                server: "http://localhost:8080/".into(),
                name: "camel".into()
            }
        );
    }

    #[test]
    fn a_bad_address_or_name_is_said_and_escape_closes() {
        let mut entry = ServerEntry::new(&Settings::default());
        typed(&mut entry, "localhost:8080");
        entry.key(Key::Code(KeyCode::Tab));
        typed(&mut entry, "camel");
        assert_eq!(entry.key(ENTER), Entered::Typing);
        assert!(!entry.on_name, "back on the address");
        assert!(entry.problem.as_deref().unwrap().contains("http://"));
        let settings = Settings {
            server: Some("https://sand.example".into()),
            ..Settings::default()
        };
        let mut entry = ServerEntry::new(&settings);
        assert!(entry.on_name, "the address is known: the name is asked");
        typed(&mut entry, "n@me");
        assert_eq!(entry.key(ENTER), Entered::Typing);
        assert!(entry
            .problem
            .as_deref()
            .unwrap()
            .starts_with("A player's name is"));
        assert_eq!(entry.key(Key::Code(KeyCode::Escape)), Entered::Closed);
    }
}
