//! Sharing a game from the window: `s` on its end screen, `S` on its row of the Load
//! list. The game goes, signed with the player's key, to the server `sandglass submit`
//! named, on a thread of its own so that the window goes on answering; with no server
//! named, nothing is sent and the player is told how to name one.

use std::thread::JoinHandle;

use macroquad::prelude::Color;
use sandglass_claim::server_base;
use sandglass_store::{GameMeta, Status, Stream};

use super::hud::{BAD, DIM, GOOD};
use super::App;
use crate::settings::Settings;

/// Why the window sends nothing: it sends only to a server the player named.
const NO_SERVER: &str = "No server named yet: Daily desert on the start screen names \
     yours, as does `sandglass submit GAME --server URL --name NAME`. Nothing is sent to a \
     server you did not name.";

/// Why nothing can be sent from this system: the player's key is kept in the config folder.
pub const NO_CONFIG: &str = "This system has no config folder to keep a player's key in.";

/// Why a game still in play is not sent: the server ranks only finished games.
const NOT_FINISHED: &str =
    "That game is still in play: finish it first (a game in play is not ranked).";

/// The page of the day's board a daily run is ranked on, from the steps it was sent as
/// it was played: where it is, rather than shared again.
pub fn day_board(stream: &Stream) -> String {
    format!("{}/daily/{}", server_base(&stream.server), stream.day)
}

/// One game's sending, from asked for to what came of it.
#[derive(Default)]
pub enum Share {
    /// Not asked for.
    #[default]
    Idle,
    /// Being exported and sent to the server named.
    Sending(String, JoinHandle<anyhow::Result<String>>),
    /// What came of it, or why it was not sent.
    Said(String, Color),
}

impl Share {
    /// Sends the game `meta` names to the player's server, unless one is on its way.
    pub fn start(&mut self, app: &App, meta: &GameMeta) {
        if self.busy() {
            return;
        }
        if meta.status == Status::Alive {
            self.say(NOT_FINISHED.into(), DIM);
            return;
        }
        if let Ok(Some(stream)) = app.store.stream_of(meta.id) {
            let board = day_board(&stream);
            let why = format!("A daily run is sent as it is played: it is on {board}.");
            self.say(why, DIM);
            return;
        }
        let Some(config) = app.config_dir.clone() else {
            self.say(NO_CONFIG.into(), BAD);
            return;
        };
        let Settings {
            server: Some(server),
            player: Some(name),
            ..
        } = Settings::load(&config)
        else {
            self.say(NO_SERVER.into(), DIM);
            return;
        };
        let (store, id, label) = (app.store.clone(), meta.id, meta.name.clone());
        let to = server.clone();
        let sending = std::thread::spawn(move || {
            let file = store.export(id, &mut |_, _| ())?;
            let bytes = sandglass_replay::to_bytes(&file);
            crate::cli::submit::send(&bytes, &label, &to, &name, &config)
        });
        *self = Share::Sending(server, sending);
    }

    /// Takes in what came of sending the game, once it has.
    pub fn update(&mut self) {
        if !matches!(self, Share::Sending(_, sending) if sending.is_finished()) {
            return;
        }
        let Share::Sending(server, sending) = std::mem::take(self) else {
            return;
        };
        match sending.join() {
            Ok(Ok(words)) => self.say(format!("Shared on {server}: {words}"), GOOD),
            Ok(Err(error)) => self.say(format!("Not shared: {error:#}."), BAD),
            Err(_) => self.say("Not shared: sending it failed.".into(), BAD),
        }
    }

    /// Says what came of sharing, on the screen and on stdout (`share ...`).
    fn say(&mut self, said: String, colour: Color) {
        crate::report::line(&format!("share {said}"));
        *self = Share::Said(said, colour);
    }

    /// Whether a game is on its way, and so the screen needs frames.
    pub fn busy(&self) -> bool {
        matches!(self, Share::Sending(..))
    }

    /// The line to show for it, if any.
    pub fn line(&self) -> Option<(String, Color)> {
        match self {
            Share::Idle => None,
            Share::Sending(server, _) => Some((format!("Sending it to {server}..."), DIM)),
            Share::Said(said, colour) => Some((said.clone(), *colour)),
        }
    }
}
