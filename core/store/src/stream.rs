//! Games streamed to a server as they are played: a daily run (its server, its number
//! there, the player's name and its day). Written down in `layout::STREAMS` before the
//! game's first record, so that a run continued later, or after a crash, goes on being
//! sent to the same run; nothing else in the store depends on it.

use serde::{Deserialize, Serialize};

use super::db::Store;
use super::error::StoreError;
use super::GameId;

/// Where a game is streamed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stream {
    /// The server's URL, as the player named it.
    pub server: String,
    /// The run's number on that server.
    pub run: i64,
    /// The name the player plays under there.
    pub player: String,
    /// The UTC day of the desert, `YYYY-MM-DD`.
    pub day: String,
}

/// bincode's standard encoding, bounded: a URL, a name and a day, each short.
fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<4096>()
}

/// The longest server URL kept, in characters.
const MOST_URL_CHARS: usize = 1000;

impl Store {
    /// Writes down that game `id`, about to be recorded, is streamed.
    pub(super) fn mark_stream(&self, id: GameId, stream: &Stream) -> Result<(), StoreError> {
        if stream.server.chars().count() > MOST_URL_CHARS {
            return Err(StoreError::BadStream("the server's URL is too long"));
        }
        let value = bincode::serde::encode_to_vec(stream, config())
            .map_err(|_| StoreError::BadStream("the name or day is too long"))?;
        self.streams.insert(id.key(), value)?;
        Ok(())
    }

    /// Where game `id` is streamed, if it is; `None` too for a mark that does not
    /// decode (the game plays on, unsent, and says so).
    pub fn stream_of(&self, id: GameId) -> Result<Option<Stream>, StoreError> {
        let Some(value) = self.streams.get(id.key())? else {
            return Ok(None);
        };
        Ok(match bincode::serde::decode_from_slice(&value, config()) {
            Ok((stream, read)) if read == value.len() => Some(stream),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::{bot::Bot, Header, Rules, Ruleset};

    #[test]
    fn a_streamed_game_keeps_where_it_goes_and_reads_its_events_from_any_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let stream = Stream {
            server: "http://127.0.0.1:8080".into(),
            run: 7,
            player: "camel".into(),
            day: "2026-11-26".into(),
        };
        let header = Header::of(Rules::newest(Ruleset::NETHACK), 99, 0);
        let mut session = store
            .create_streamed("daily", header, Some(&stream), &mut ())
            .unwrap();
        Bot::new(99).play(&mut session, 30).unwrap();
        let id = session.meta().id;
        drop(session);
        let plain = store
            .create(
                "plain",
                Header::of(Rules::newest(Ruleset::NETHACK), 1, 0),
                &mut (),
            )
            .unwrap()
            .meta()
            .id;
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.stream_of(id).unwrap(), Some(stream));
        assert_eq!(store.stream_of(plain).unwrap(), None);
        let events = store.events(id).unwrap();
        for from in [
            0,
            1,
            5,
            events.len() as u64 / 2,
            events.len() as u64,
            1 << 40,
        ] {
            let at = (from as usize).min(events.len());
            assert_eq!(
                store.events_from(id, from).unwrap(),
                events[at..],
                "from {from}"
            );
        }
        store.delete(id).unwrap();
        assert_eq!(store.stream_of(id).unwrap(), None);
    }
}
