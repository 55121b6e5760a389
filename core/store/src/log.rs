//! A game's log in the database: one value per step, a step being a command and the draws
//! it caused (the first step, the first level's draws, has no command). Keyed by the game
//! and the index of the step's first event (`layout::key`: big-endian, so a game's log is
//! one range of keys, in tape order).
//!
//! A value is an 8-byte checksum (xxh3-64 of the rest, little-endian), then the command in
//! bincode's standard encoding (absent in the first step), then each draw as 4
//! little-endian bytes: the packing of a `.sgr` file. A draw costs 4 bytes and a step a
//! single key, where a key per event cost sled about 30 times the draw. Every value is
//! checked before it is decoded, and must be the one encoding of what it holds.

use sandglass_sim::{Command, Event};
use sled::Tree;

use crate::error::StoreError;
use crate::layout;
use crate::GameId;

/// A step holds one command, so no more draws than a command can cause: generous, and a
/// bound on what a damaged length could make a reader allocate.
const MOST_DRAWS: usize = 1 << 20;

/// The value of one step: `events` is a command and the draws after it, or (the first
/// step) draws alone.
pub fn encode(events: &[Event]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4 * events.len() + 4);
    for event in events {
        match event {
            Event::Command(command) => {
                bincode::serde::encode_into_std_write(command, &mut body, config())
                    .expect("a command always encodes");
            }
            Event::Draw(draw) => body.extend(draw.to_le_bytes()),
        }
    }
    let mut value = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
    value.extend(body);
    value
}

/// The events of the step stored at `index` (which says whether it starts with a
/// command), or why the value is not one.
pub fn decode(index: u64, value: &[u8]) -> Result<Vec<Event>, &'static str> {
    let (sum, body) = value.split_first_chunk::<8>().ok_or("it is too short")?;
    if xxhash_rust::xxh3::xxh3_64(body) != u64::from_le_bytes(*sum) {
        return Err("its checksum does not match");
    }
    let mut events = vec![];
    let mut draws = body;
    if index > 0 {
        let (command, read): (Command, usize) = bincode::serde::decode_from_slice(body, config())
            .map_err(|_| "its command does not decode")?;
        events.push(Event::Command(command));
        draws = &body[read..];
    }
    if draws.len() % 4 != 0 || draws.len() / 4 > MOST_DRAWS {
        return Err("its draws do not come in whole");
    }
    events.extend(
        draws
            .chunks_exact(4)
            .map(|d| Event::Draw(u32::from_le_bytes([d[0], d[1], d[2], d[3]]))),
    );
    // One tape, one encoding: a command written any other way is not this log's.
    if encode(&events) != value {
        return Err("it is not in the log's encoding");
    }
    Ok(events)
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<64>()
}

/// The steps of a tape: its first events up to the first command, then each command with
/// the draws after it. Keys are the index of each step's first event.
pub fn steps(events: &[Event]) -> impl Iterator<Item = (u64, &[Event])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= events.len() {
            return None;
        }
        let rest = &events[at..];
        let len = 1 + rest[1..]
            .iter()
            .position(|e| matches!(e, Event::Command(_)))
            .unwrap_or(rest.len() - 1);
        let start = at;
        at += len;
        Some((start as u64, &rest[..len]))
    })
}

/// Events `from..to` of `game`'s log in `tree` (`steps`), both ends step boundaries,
/// every step present and in order. `read_to` is told the index of the next event to read
/// after each step.
pub(crate) fn read(
    tree: &Tree,
    game: GameId,
    from: u64,
    to: u64,
    name: &str,
    read_to: &mut dyn FnMut(u64),
) -> Result<Vec<Event>, StoreError> {
    let damaged = |what: String| StoreError::Damaged {
        name: name.to_owned(),
        what,
    };
    // The count comes from disk: bound the allocation by what a sane tape could hold.
    let mut out = Vec::with_capacity(to.saturating_sub(from).min(1 << 20) as usize);
    let mut next = from;
    for entry in tree.range(layout::keys(game, from, to)) {
        let (k, v) = entry?;
        let index = layout::split_key(&k)
            .map(|(_, index)| index)
            .ok_or_else(|| damaged("a step's key is not an index".into()))?;
        if index != next {
            return Err(damaged(format!("the step at event {next} is missing")));
        }
        let step = decode(index, &v)
            .map_err(|why| damaged(format!("the step at event {index}: {why}")))?;
        next = index + step.len() as u64;
        out.extend(step);
        read_to(next);
    }
    if next != to {
        return Err(damaged(format!("the step at event {next} is missing")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::geometry::Direction;

    fn tape() -> Vec<Event> {
        let mut events = vec![Event::Draw(7), Event::Draw(u32::MAX)];
        events.push(Event::Command(Command::Move(Direction::E)));
        events.extend((0..5).map(Event::Draw));
        events.push(Event::Command(Command::Rest));
        events.push(Event::Command(Command::Dash));
        events.push(Event::Draw(1));
        events
    }

    #[test]
    fn a_tape_splits_into_steps_at_its_commands_and_reads_back() {
        let events = tape();
        let steps: Vec<(u64, usize)> = steps(&events).map(|(k, s)| (k, s.len())).collect();
        assert_eq!(steps, [(0, 2), (2, 6), (8, 1), (9, 2)]);
        for (index, step) in super::steps(&events) {
            assert_eq!(decode(index, &encode(step)).unwrap(), step);
        }
        // 4 bytes a draw, a checksum and a command's byte or two a step.
        let size: usize = super::steps(&events).map(|(_, s)| encode(s).len()).sum();
        assert_eq!(size, 4 * 8 + 8 * 4 + 2 + 1 + 1);
    }

    #[test]
    fn a_damaged_or_second_encoding_of_a_step_is_refused() {
        let events = tape();
        let value = encode(&events[2..8]);
        let mut flipped = value.clone();
        flipped[10] ^= 1;
        assert_eq!(decode(2, &flipped), Err("its checksum does not match"));
        assert_eq!(decode(2, &value[..5]), Err("it is too short"));
        // Three bytes of draw: the checksum recomputed, the shape still wrong.
        let mut body = value[8..value.len() - 1].to_vec();
        let mut odd = xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes().to_vec();
        odd.append(&mut body);
        assert_eq!(decode(2, &odd), Err("its draws do not come in whole"));
    }

    #[test]
    fn a_log_with_a_step_missing_is_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let tree = db.open_tree("log").unwrap();
        let events = tape();
        // Another game's log on either side, which a read of this one never reaches into.
        for game in [GameId(1), GameId(2), GameId(3)] {
            for (index, step) in steps(&events) {
                tree.insert(layout::key(game, index), encode(step)).unwrap();
            }
        }
        let game = GameId(2);
        assert_eq!(read(&tree, game, 0, 11, "g", &mut |_| ()).unwrap(), events);
        assert_eq!(
            read(&tree, game, 2, 9, "g", &mut |_| ()).unwrap(),
            events[2..9]
        );
        tree.remove(layout::key(game, 8)).unwrap();
        let error = read(&tree, game, 0, 11, "g", &mut |_| ())
            .unwrap_err()
            .to_string();
        assert!(error.contains("the step at event 8 is missing"), "{error}");
        let error = read(&tree, game, 0, 8, "g", &mut |_| ()).map(|e| e.len());
        assert_eq!(error.unwrap(), 8);
        tree.remove(layout::key(game, 0)).unwrap();
        let error = read(&tree, game, 0, 8, "g", &mut |_| ()).unwrap_err();
        assert!(error.to_string().contains("event 0 is missing"), "{error}");
    }
}
