//! The replay file (`.sgr`) as bytes: a recording (`sandglass_sim::Recording`) in one
//! portable, checksummed file. The layout is written down in `docs/replay-format.md`;
//! keep the two in step.
//!
//! This crate holds every check of that page that needs no file system, and depends on
//! nothing that could read one (no sled, no libc), so that a replay is read the same way
//! in a browser or under WASI as natively. Opening files, and refusing what is not a
//! regular file, is `sandglass_store::sgr`'s part.
//!
//! Draws are uniform 32-bit values, so no encoding stores them in fewer than 4 bytes; the
//! file spends exactly 4 on each, with no tag: events are grouped in steps (a command,
//! then the run of draws it caused), and a run is announced once by its length. In the
//! goldens a command is followed by a median of 84 draws, so the file costs just under 4
//! bytes per event.
//! Draws are stored rather than regenerated from the seed so that a file stays readable,
//! and its desyncs detectable, whatever happens to the generator.

#![forbid(unsafe_code)]

mod error;
pub mod play;
pub mod verdict;

use sandglass_sim::rules::VersionError;
use sandglass_sim::{Command, Event, Header, Recording};
use sandglass_sim::{HeaderError, Rules};
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use error::ReplayError;

/// The first eight bytes of every replay file. Like PNG's: a high byte to catch 7-bit
/// transfers, and CR LF, EOF, LF to catch line-ending conversions.
pub const MAGIC: [u8; 8] = *b"\x89SGR\r\n\x1a\n";

/// The layout version. Bump it (and document the new layout) whenever the layout, or the
/// encoding of `Header` or `Command` inside it, changes.
pub const VERSION: u16 = 1;

/// Magic, version and total length: the bytes a reader looks at before the rest.
pub const PREAMBLE: usize = 8 + 2 + 8;
/// Final hash and checksum.
const TRAILER: usize = 8 + 8;

/// The largest replay file a reader takes: 64 million events, sixty times the longest
/// game yet played, and a bound on what a file may make a reader allocate.
pub const MOST_FILE_BYTES: u64 = 256 << 20;

pub fn to_bytes(recording: &Recording) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + 4 * recording.events.len());
    out.extend(MAGIC);
    out.extend(VERSION.to_le_bytes());
    out.extend([0; 8]); // the total length, filled in below
    put_serde(&mut out, &recording.header);
    put_events(&mut out, &recording.events);
    put_varint(&mut out, recording.checkpoints.len() as u64);
    for &(index, hash) in &recording.checkpoints {
        put_varint(&mut out, index);
        out.extend(hash.to_le_bytes());
    }
    out.extend(recording.final_hash.to_le_bytes());
    let total = (out.len() + 8) as u64;
    out[10..18].copy_from_slice(&total.to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend(checksum.to_le_bytes());
    out
}

/// Parses a replay file's bytes: the preamble and the checksum first, then the header,
/// the events and the checkpoints, each checked for what it may hold; and the whole must
/// be the one encoding of what it holds (`to_bytes` of it), as docs/replay-format.md
/// promises: no over-long number, no second spelling of a header or a command.
pub fn from_bytes(bytes: &[u8]) -> Result<Recording, ReplayError> {
    check_size(bytes.len() as u64)?;
    let recording = parse(bytes)?;
    if to_bytes(&recording) != bytes {
        return Err(ReplayError::Malformed(
            "it is not written the one way its contents are written",
        ));
    }
    Ok(recording)
}

/// A stretch of a game's events on its own, as a live game is streamed: written as a
/// replay file writes its events (their count, then runs of draws between commands), so
/// a stretch may begin or end in the middle of a step.
pub fn events_to_bytes(events: &[Event]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + 4 * events.len());
    put_events(&mut out, events);
    out
}

/// Reads what `events_to_bytes` wrote, and nothing else: every byte accounted for, and
/// written the one way its events are written. The caller bounds the bytes' length.
pub fn events_from_bytes(bytes: &[u8]) -> Result<Vec<Event>, ReplayError> {
    let mut r = Reader { bytes, at: 0 };
    let events = read_events(&mut r)?;
    if r.remaining() != 0 {
        return Err(ReplayError::Malformed(
            "it holds bytes nothing accounts for",
        ));
    }
    if events_to_bytes(&events) != bytes {
        return Err(ReplayError::Malformed(
            "it is not written the one way its contents are written",
        ));
    }
    Ok(events)
}

fn parse(bytes: &[u8]) -> Result<Recording, ReplayError> {
    let body = check_frame(bytes)?;
    let mut r = Reader {
        bytes: &body[..body.len() - 8],
        at: PREAMBLE,
    };
    let header: Header = r.serde()?;
    check_header(&header)?;
    let events = read_events(&mut r)?;
    let checkpoints = read_checkpoints(&mut r, events.len() as u64)?;
    if r.remaining() != 0 {
        return Err(ReplayError::Malformed(
            "it holds bytes nothing accounts for",
        ));
    }
    let final_hash = u64::from_le_bytes(body[body.len() - 8..].try_into().unwrap_or_default());
    Ok(Recording {
        header,
        events,
        checkpoints,
        final_hash,
    })
}

/// The file's frame: its preamble, then its checksum. Returns the checksummed part
/// (everything but the checksum).
fn check_frame(bytes: &[u8]) -> Result<&[u8], ReplayError> {
    check_preamble(&bytes[..bytes.len().min(PREAMBLE)], bytes.len() as u64)?;
    let (body, checksum) = bytes.split_at(bytes.len() - 8);
    if xxhash_rust::xxh3::xxh3_64(body)
        != u64::from_le_bytes(checksum.try_into().unwrap_or_default())
    {
        return Err(ReplayError::Checksum);
    }
    Ok(body)
}

/// Refuses a file larger than `MOST_FILE_BYTES` before any of it is read.
pub fn check_size(size: u64) -> Result<(), ReplayError> {
    if size > MOST_FILE_BYTES {
        return Err(ReplayError::TooLarge {
            size,
            most: MOST_FILE_BYTES,
        });
    }
    Ok(())
}

/// The start of a file of `found` bytes (all of it, if it is shorter than the preamble):
/// magic, version and the length it claims, checked in that order against its size.
pub fn check_preamble(bytes: &[u8], found: u64) -> Result<(), ReplayError> {
    if found == 0 {
        return Err(ReplayError::Empty);
    }
    // Too short to say how long it should be: at least as long as the fixed parts.
    let short = || ReplayError::Truncated {
        found,
        expected: (PREAMBLE + TRAILER) as u64,
    };
    if bytes.len() < MAGIC.len() {
        return Err(if MAGIC.starts_with(bytes) {
            short()
        } else {
            ReplayError::Foreign
        });
    }
    if bytes[..MAGIC.len()] != MAGIC {
        return Err(ReplayError::Foreign);
    }
    let mut preamble = Reader {
        bytes,
        at: MAGIC.len(),
    };
    // The version comes before everything else: a newer format may change all of it.
    let version = u16::from_le_bytes(preamble.array().map_err(|_| short())?);
    if version > VERSION {
        return Err(ReplayError::Newer {
            found: version,
            supported: VERSION,
        });
    }
    if version == 0 {
        return Err(ReplayError::Malformed("its format version is 0"));
    }
    let expected = preamble.u64().map_err(|_| short())?;
    if found < expected {
        return Err(ReplayError::Truncated { found, expected });
    }
    if found > expected {
        return Err(ReplayError::Malformed("it goes on past its recorded end"));
    }
    if found < (PREAMBLE + TRAILER) as u64 {
        return Err(ReplayError::Malformed("it is shorter than its fixed parts"));
    }
    Ok(())
}

/// The versions and ruleset a decoded header names: a format or rules version of 0, which
/// no Sandglass ever wrote, is damage (as a layout version of 0 is); any other this build
/// does not read is refused naming it (`HeaderError`).
fn check_header(header: &Header) -> Result<(), ReplayError> {
    match Rules::of(header) {
        Ok(_) => Ok(()),
        Err(HeaderError::Format { found: 0, .. }) => {
            Err(ReplayError::Malformed("its tape format version is 0"))
        }
        Err(HeaderError::Rules(VersionError::Dropped { found: 0 })) => {
            Err(ReplayError::Malformed("its rules version is 0"))
        }
        Err(error) => Err(error.into()),
    }
}

/// The events: their count, then runs of draws between commands.
fn read_events(r: &mut Reader) -> Result<Vec<Event>, ReplayError> {
    let count = r.varint()?;
    // Every event takes at least one byte: a count beyond that is a lie.
    if count > r.remaining() as u64 {
        return Err(ReplayError::Malformed(
            "it claims more events than it holds",
        ));
    }
    let mut events = Vec::with_capacity(count as usize);
    r.draws(&mut events, count)?;
    while (events.len() as u64) < count {
        let command: Command = r.serde()?;
        events.push(Event::Command(command));
        r.draws(&mut events, count)?;
    }
    Ok(events)
}

/// The checkpoints: their count, then each one's event index and hash, in increasing
/// order of index, none at 0 or past the last of `events` events.
fn read_checkpoints(r: &mut Reader, events: u64) -> Result<Vec<(u64, u64)>, ReplayError> {
    let count = r.varint()?;
    if count > r.remaining() as u64 / 9 {
        return Err(ReplayError::Malformed(
            "it claims more checkpoints than it holds",
        ));
    }
    let mut checkpoints: Vec<(u64, u64)> = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let index = r.varint()?;
        let hash = r.u64()?;
        let after_previous = checkpoints.last().map_or(index > 0, |&(p, _)| index > p);
        if !after_previous || index > events {
            return Err(ReplayError::Malformed("its checkpoints are out of order"));
        }
        checkpoints.push((index, hash));
    }
    Ok(checkpoints)
}

/// The events: their count, then the run of draws before the first command, then each
/// command and the run of draws after it.
fn put_events(out: &mut Vec<u8>, events: &[Event]) {
    put_varint(out, events.len() as u64);
    let mut rest = put_draws(out, events);
    while let Some((&first, after)) = rest.split_first() {
        // `put_draws` stops only at a command or at the end.
        if let Event::Command(command) = first {
            put_serde(out, &command);
        }
        rest = put_draws(out, after);
    }
}

/// Writes the run of draws at the start of `events` (its length, then each draw as 4
/// little-endian bytes) and returns what follows it.
fn put_draws<'e>(out: &mut Vec<u8>, events: &'e [Event]) -> &'e [Event] {
    let run = events
        .iter()
        .take_while(|e| matches!(e, Event::Draw(_)))
        .count();
    put_varint(out, run as u64);
    for event in &events[..run] {
        if let Event::Draw(value) = event {
            out.extend(value.to_le_bytes());
        }
    }
    &events[run..]
}

/// Unsigned LEB128: seven bits a byte, low bits first, high bit set on all but the last.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A header or a command in bincode 2's standard configuration, as the file writes it.
fn serde_bytes(value: &impl Serialize) -> Vec<u8> {
    let mut out = vec![];
    put_serde(&mut out, value);
    out
}

/// bincode 2's standard configuration (varint integers), as the event log uses.
fn put_serde(out: &mut Vec<u8>, value: &impl Serialize) {
    bincode::serde::encode_into_std_write(value, out, bincode::config::standard())
        .expect("headers and commands always encode");
}

/// Reads a checksummed body; a failure here means a file written wrongly, not damaged
/// in transit (the checksum rules that out), but it is an error all the same.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], ReplayError> {
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or(ReplayError::Malformed("it ends in the middle of a field"))?;
        self.at += N;
        Ok(slice.try_into().unwrap_or([0; N]))
    }

    fn u64(&mut self) -> Result<u64, ReplayError> {
        self.array().map(u64::from_le_bytes)
    }

    fn varint(&mut self) -> Result<u64, ReplayError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let [byte] = self.array()?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                break;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ReplayError::Malformed("a number in it is too long"))
    }

    fn serde<T: DeserializeOwned>(&mut self) -> Result<T, ReplayError> {
        let (value, read) =
            bincode::serde::decode_from_slice(&self.bytes[self.at..], bincode::config::standard())
                .map_err(|_| ReplayError::Malformed("a header or command does not decode"))?;
        self.at += read;
        Ok(value)
    }

    /// A run of draws: its length, then the draws, which must not overrun `count` events.
    fn draws(&mut self, events: &mut Vec<Event>, count: u64) -> Result<(), ReplayError> {
        let run = self.varint()?;
        if run > count - events.len() as u64 {
            return Err(ReplayError::Malformed(
                "it holds more events than it claims",
            ));
        }
        for _ in 0..run {
            events.push(Event::Draw(u32::from_le_bytes(self.array()?)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::recording::CHECKPOINT_EVERY;
    use sandglass_sim::{bot::Bot, LiveTape, Ruleset};

    fn bot_recording(seed: u64, commands: u64) -> Recording {
        let rules = Rules::newest(Ruleset::NETHACK);
        let tape = Bot::new(seed).record(rules, seed, commands);
        Recording::record(tape.header, tape.events).unwrap()
    }

    /// A bot game's recording of at least `events` events, the bot lingering on each level.
    fn long_recording(seed: u64, events: u64) -> Recording {
        let rules = Rules::newest(Ruleset::NETHACK);
        let mut game = LiveTape::new(rules, seed);
        Bot::lingering(seed, 10_000)
            .play_until(&mut game, |s| s.events_folded() >= events)
            .unwrap();
        let tape = game.into_tape();
        Recording::record(tape.header, tape.events).unwrap()
    }

    fn small() -> Recording {
        bot_recording(3, 20)
    }

    #[test]
    fn a_file_reads_back_as_it_was_written() {
        let file = long_recording(1, 2 * CHECKPOINT_EVERY);
        assert!(
            file.events.len() as u64 > CHECKPOINT_EVERY,
            "too short to hold a checkpoint"
        );
        assert!(!file.checkpoints.is_empty());
        let back = from_bytes(&to_bytes(&file)).unwrap();
        assert_eq!(back, file);
        assert_eq!(back.replay(|_| ()).unwrap().hash(), file.final_hash);
    }

    #[test]
    fn any_stretch_of_events_reads_back_as_it_was_written_and_damage_is_refused() {
        let events = bot_recording(5, 40).events;
        for (from, to) in [(0, 0), (0, 1), (1, 7), (3, 90), (0, events.len())] {
            let stretch = &events[from..to.min(events.len())];
            let bytes = events_to_bytes(stretch);
            assert_eq!(events_from_bytes(&bytes).unwrap(), stretch);
            for cut in 0..bytes.len() {
                assert!(events_from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(events_from_bytes(&longer).is_err());
        }
        // A count spelled with a needless continuation byte is a second spelling.
        assert!(events_from_bytes(&[0x80, 0x00, 0x00]).is_err());
    }

    #[test]
    fn a_bot_game_costs_less_than_four_bytes_per_event() {
        let file = long_recording(2, 2 * CHECKPOINT_EVERY);
        let per_event = to_bytes(&file).len() as f64 / file.events.len() as f64;
        assert!(per_event < 4.0, "{per_event} bytes per event");
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = to_bytes(&small());
        for len in 1..bytes.len() {
            match from_bytes(&bytes[..len]) {
                Err(ReplayError::Truncated { found, .. }) => assert_eq!(found, len as u64),
                other => panic!("cut at {len}: {other:?}"),
            }
        }
        assert!(matches!(from_bytes(&[]), Err(ReplayError::Empty)));
    }

    #[test]
    fn every_single_bit_flip_is_an_error() {
        let bytes = to_bytes(&small());
        for at in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[at] ^= 1 << bit;
                assert!(
                    from_bytes(&flipped).is_err(),
                    "bit {bit} of byte {at} went unnoticed"
                );
            }
        }
    }

    #[test]
    fn foreign_and_newer_files_are_named_as_such() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert!(matches!(from_bytes(png), Err(ReplayError::Foreign)));
        assert!(matches!(from_bytes(b"hi"), Err(ReplayError::Foreign)));
        let mut newer = to_bytes(&small());
        newer[8..10].copy_from_slice(&(VERSION + 1).to_le_bytes());
        assert!(matches!(
            from_bytes(&newer),
            Err(ReplayError::Newer { found, supported: VERSION }) if found == VERSION + 1
        ));
    }

    #[test]
    fn a_tape_of_a_newer_format_is_refused() {
        let mut file = small();
        file.header.format_version += 1;
        assert!(matches!(
            from_bytes(&to_bytes(&file)),
            Err(ReplayError::Header(_))
        ));
    }

    /// 0 was never a tape format or rules version: a header naming it is damage, as a
    /// layout version of 0 is, not a version this build happens not to read.
    #[test]
    fn a_header_version_of_0_is_damage() {
        let mut file = small();
        file.header.format_version = 0;
        assert!(matches!(
            from_bytes(&to_bytes(&file)),
            Err(ReplayError::Malformed(why)) if why.contains("format version is 0")
        ));
        let mut file = small();
        file.header.rules_version = 0;
        assert!(matches!(
            from_bytes(&to_bytes(&file)),
            Err(ReplayError::Malformed(why)) if why.contains("rules version is 0")
        ));
        // The format version is looked at first: with both wrong, the format is named.
        file.header.format_version += 1;
        assert!(matches!(
            from_bytes(&to_bytes(&file)),
            Err(ReplayError::Header(HeaderError::Format { .. }))
        ));
        file.header.format_version -= 1;
        file.header.rules_version = 1;
        assert!(matches!(
            from_bytes(&to_bytes(&file)),
            Err(ReplayError::Header(HeaderError::Rules(
                VersionError::Dropped { found: 1 }
            )))
        ));
    }

    /// A file that reads cleanly can still be wrong: it is checked by folding it.
    #[test]
    fn a_changed_draw_reads_but_does_not_check_out() {
        let mut file = small();
        let at = file
            .events
            .iter()
            .rposition(|e| matches!(e, Event::Draw(_)))
            .unwrap();
        if let Event::Draw(value) = &mut file.events[at] {
            *value ^= 0x8000_0000;
        }
        let back = from_bytes(&to_bytes(&file)).unwrap();
        assert!(back.replay(|_| ()).is_err());
    }

    #[test]
    fn varints_round_trip_at_their_edges() {
        for value in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = vec![];
            put_varint(&mut out, value);
            let mut r = Reader { bytes: &out, at: 0 };
            assert_eq!(r.varint().unwrap(), value);
            assert_eq!(r.remaining(), 0);
        }
        let too_long = [0xff; 11];
        assert!(Reader {
            bytes: &too_long,
            at: 0
        }
        .varint()
        .is_err());
    }

    /// The file with its length and checksum made to fit its bytes again, as a crafter
    /// would.
    fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
        bytes.truncate(bytes.len() - 8);
        let total = (bytes.len() + 8) as u64;
        bytes[10..18].copy_from_slice(&total.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
        bytes.extend(sum.to_le_bytes());
        bytes
    }

    /// Where the event count starts: right after the header.
    fn event_count_at(file: &Recording) -> usize {
        let mut header = vec![];
        put_serde(&mut header, &file.header);
        PREAMBLE + header.len()
    }

    #[test]
    fn a_second_spelling_of_the_same_tape_is_refused() {
        let file = small();
        let bytes = to_bytes(&file);
        assert_eq!(from_bytes(&resealed(bytes.clone())).unwrap(), file);
        // The event count as an over-long varint: one more byte, the same number.
        let at = event_count_at(&file);
        let mut count = vec![];
        put_varint(&mut count, file.events.len() as u64);
        let last = count.len() - 1;
        count[last] |= 0x80;
        count.push(0);
        let mut longer = bytes[..at].to_vec();
        longer.extend(&count);
        longer.extend(&bytes[at + count.len() - 1..]);
        assert!(matches!(
            parse(&resealed(longer.clone())),
            Ok(ref back) if *back == file
        ));
        assert!(matches!(
            from_bytes(&resealed(longer)),
            Err(ReplayError::Malformed(why)) if why.contains("one way")
        ));
    }

    /// Bytes from anywhere (a browser's dropped file) are held to the limit a file is.
    #[test]
    fn bytes_past_the_size_limit_are_refused_before_they_are_read() {
        let huge = vec![0; MOST_FILE_BYTES as usize + 1];
        assert!(matches!(
            from_bytes(&huge),
            Err(ReplayError::TooLarge { size, .. }) if size == MOST_FILE_BYTES + 1
        ));
    }
}
