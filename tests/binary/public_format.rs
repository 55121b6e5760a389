//! The replay file as a public format (docs/replay-format.md). The document's tables are
//! checked against the code: every command variant has its row, with its index, fields
//! and size; the versions it names are the ones this build reads; its test vectors hold.
//! And the document's own reader, docs/sgr_reader.py (Python's standard library only,
//! written from the document), is checked against `sandglass verify`: the same events,
//! commands, draws and final hash for every golden of every kept rules version, and a
//! refusal by both of every damaged file; and it reads every command the code decodes.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use common::{stdout, BIN};
use sandglass_sim::command::Slot;
use sandglass_sim::geometry::Direction;
use sandglass_sim::lore::Boon;
use sandglass_sim::recording::{Recording, CHECKPOINT_EVERY};
use sandglass_sim::rng::{Algorithm, Generator};
use sandglass_sim::tape::{TimeModel, FORMAT_VERSION};
use sandglass_sim::{bags, rules, Command, Event};
use sandglass_store::sgr;
use serde_json::Value;

const DOCUMENT: &str = include_str!("../../docs/replay-format.md");
const READER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/sgr_reader.py");

/// The rows of the document's table whose header row is `header`, each cell trimmed and
/// stripped of its backticks.
fn table(header: &str) -> Vec<Vec<String>> {
    let mut lines = DOCUMENT.lines().skip_while(|line| *line != header);
    assert!(
        lines.next().is_some(),
        "docs/replay-format.md has no table headed {header:?}"
    );
    lines
        .skip(1) // the `| --- |` line
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.trim_matches('|')
                .split('|')
                .map(|cell| cell.trim().replace('`', ""))
                .collect()
        })
        .collect()
}

/// `"0 to 7"`, `"0 to 25: the letters"`: the range a cell of the field types' table gives.
fn range(cell: &str) -> std::ops::RangeInclusive<u32> {
    let words: Vec<&str> = cell.split([' ', ':']).collect();
    match words[..] {
        [low, "to", high, ..] => low.parse().unwrap()..=high.parse().unwrap(),
        _ => panic!("{cell:?} is not a range"),
    }
}

fn decode(bytes: &[u8]) -> Option<(Command, usize)> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard()).ok()
}

fn encode(value: &impl serde::Serialize) -> Vec<u8> {
    bincode::serde::encode_to_vec(value, bincode::config::standard()).unwrap()
}

/// The types of a command's fields, as the document names them. No `_` arm: a new command
/// does not compile until its fields are named here, and its row is then looked for.
fn field_types(command: Command) -> Vec<&'static str> {
    match command {
        Command::Move(_) | Command::Open(_) | Command::Close(_) => vec!["direction"],
        Command::Drop(_) | Command::Eat(_) | Command::Wear(_) | Command::Use(_) => vec!["slot"],
        Command::Grow(..) => vec!["slot", "boon"],
        Command::TakeOff(_) => vec!["garment"],
        Command::Throw(..) => vec!["slot", "direction"],
        Command::ThrowAt(..) => vec!["slot", "offset", "offset"],
        Command::Rest | Command::PickUp | Command::Descend | Command::Dash | Command::Quit => {
            vec![]
        }
    }
}

/// Every variant index that decodes has its row, and every row its variant: found by
/// decoding each one-byte index with its fields at 0, so no list here can miss one. Each
/// field takes exactly the values the document says it decodes, each spelt one way.
#[test]
fn every_command_has_its_row_in_the_document() {
    let rows = table("| index | command | fields | bytes | rules versions |");
    let types = table("| type | encoding | decodes | legal |");
    let decodes = |name: &str| {
        let row = types.iter().find(|row| row[0] == name);
        range(&row.unwrap_or_else(|| panic!("no field type {name:?} in the document"))[2])
    };
    let legal = |name: &str| range(&types.iter().find(|row| row[0] == name).unwrap()[3]);
    assert_eq!(legal("direction").count(), Direction::ALL.len());
    assert_eq!(legal("slot").count(), bags::LETTERS);
    let mut found = vec![];
    // Indexes from 251 on take a marker byte and more: no enum here comes near them.
    for index in 0..=250u8 {
        let Some((command, size)) = decode(&[index, 0, 0, 0]) else {
            continue;
        };
        found.push(index.to_string());
        let row = rows
            .iter()
            .find(|row| row[0] == index.to_string())
            .unwrap_or_else(|| {
                panic!("{command:?}, variant {index}, has no row in docs/replay-format.md")
            });
        let name = format!("{command:?}");
        let name = name.split('(').next().unwrap();
        assert_eq!(row[1], name, "the name of variant {index}");
        let fields = field_types(command);
        let listed: Vec<&str> = row[2].split(", ").filter(|f| !f.is_empty()).collect();
        assert_eq!(listed, fields, "the fields of {name}");
        assert_eq!(row[3], size.to_string(), "the bytes of {name}");
        assert_eq!(size, 1 + fields.len(), "{name}: every field is one byte");
        let since: u16 = row[4].split(' ').next().unwrap().parse().unwrap();
        assert!(
            rules::KEPT.contains(&since),
            "{name} came in version {since}"
        );
        for (at, field) in fields.iter().enumerate() {
            spelt_as_the_document_says(index, &fields, at, &types);
            for value in 0..=255u8 {
                let mut bytes = [index, 0, 0, 0];
                bytes[1 + at] = value;
                let decoded = decode(&bytes[..size]);
                assert_eq!(
                    decoded.is_some(),
                    decodes(field).contains(&u32::from(value)),
                    "{name} with {field} {value}"
                );
                if let Some((command, read)) = decoded {
                    assert_eq!((read, encode(&command)), (size, bytes[..size].to_vec()));
                }
            }
        }
    }
    let rows: Vec<String> = rows.into_iter().map(|row| row[0].clone()).collect();
    assert_eq!(
        rows, found,
        "the document's commands against those that decode"
    );
}

/// The encoding the field types' table gives field `at` of variant `index`, against what
/// decodes: a bincode varint takes `FB 01 00` for 1 (a second spelling, which
/// `sgr::to_bytes` writes as `01`); a plain byte takes `FB` as the value 251.
fn spelt_as_the_document_says(index: u8, fields: &[&str], at: usize, types: &[Vec<String>]) {
    let encoding = &types.iter().find(|row| row[0] == fields[at]).unwrap()[1];
    let mut bytes = vec![index];
    let mut shortest = vec![index];
    for (i, _) in fields.iter().enumerate() {
        let field: &[u8] = match i == at {
            true if encoding.starts_with("bincode varint") => &[0xfb, 1, 0],
            true if encoding.starts_with("byte") => &[251],
            true => panic!("{}: no such encoding {encoding:?}", fields[at]),
            false => &[0],
        };
        bytes.extend(field);
        shortest.extend(if field.len() == 3 { &[1] } else { field });
    }
    let decoded = decode(&bytes);
    let (command, read) =
        decoded.unwrap_or_else(|| panic!("{bytes:02x?} does not decode: not a {encoding}"));
    assert_eq!(read, bytes.len(), "{command:?}");
    assert_eq!(encode(&command), shortest, "{command:?} from {bytes:02x?}");
}

#[test]
fn the_document_names_what_this_build_reads() {
    let values = table("| what | value |");
    let value = |what: &str| {
        let row = values.iter().find(|row| row[0] == what);
        row.unwrap_or_else(|| panic!("no {what:?} in the document"))[1].clone()
    };
    let kept: Vec<String> = rules::KEPT.iter().map(u16::to_string).collect();
    assert_eq!(value("layout version"), sgr::VERSION.to_string());
    assert_eq!(value("tape format version"), FORMAT_VERSION.to_string());
    assert_eq!(value("rules versions"), kept.join(", "));
    assert!(value("largest file").starts_with(&format!("{} bytes", sgr::MOST_FILE_BYTES)));
    assert_eq!(
        value("checkpoint spacing when writing"),
        format!("{CHECKPOINT_EVERY} events")
    );
}

#[test]
fn the_documents_test_vectors_hold() {
    for (header, algorithm) in [
        ("| seed | first four draws |", Algorithm::Pcg32),
        ("| seed | first four ChaCha20 draws |", Algorithm::ChaCha20),
    ] {
        let draws = table(header);
        assert!(draws.len() >= 3);
        for row in draws {
            let mut generator = Generator::new(algorithm, row[0].parse().unwrap());
            let first: Vec<String> = (0..4).map(|_| generator.next_draw().to_string()).collect();
            assert_eq!(row[1], first.join(", "), "{algorithm:?}, seed {}", row[0]);
        }
    }
    let sums = table("| n | XXH3-64 |");
    assert!(sums.len() >= 3);
    for row in sums {
        let n: usize = row[0].parse().unwrap();
        let bytes: Vec<u8> = (0..n).map(|i| i as u8).collect();
        let sum = format!("{:#018x}", xxhash_rust::xxh3::xxh3_64(&bytes));
        assert_eq!(row[1], sum, "{n} bytes");
    }
}

/// `python3 docs/sgr_reader.py FILES`: one JSON object per file.
fn reader(files: &[String]) -> Vec<Value> {
    let output = Process::new("python3")
        .arg(READER)
        .args(files)
        .output()
        .unwrap_or_else(|e| {
            panic!("python3 is needed to run docs/sgr_reader.py ({e}); .ci/run installs it")
        });
    let lines = json_lines(&stdout(&output), files.len());
    let refused = lines.iter().any(|line| line["ok"] == false);
    assert_eq!(output.status.code(), Some(i32::from(refused)), "{output:?}");
    lines
}

/// `sandglass verify --json FILES`: one JSON object per file.
fn verify(files: &[String]) -> Vec<Value> {
    let output = Process::new(BIN)
        .arg("verify")
        .arg("--json")
        .args(files)
        .output()
        .unwrap();
    json_lines(&stdout(&output), files.len())
}

fn json_lines(text: &str, count: usize) -> Vec<Value> {
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(lines.len(), count, "{text}");
    lines
}

fn goldens() -> Vec<String> {
    let replays = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays");
    let mut files = vec![];
    for version in rules::KEPT {
        for entry in fs::read_dir(replays.join(format!("v{version}"))).unwrap() {
            let path = entry.unwrap().path().to_string_lossy().into_owned();
            if path.ends_with(".sgr") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_documents_reader_and_verify_agree_on_every_golden() {
    let files = goldens();
    assert!(files.len() >= 4 * rules::KEPT.len());
    let read = reader(&files);
    let verified = verify(&files);
    for ((file, read), verified) in files.iter().zip(&read).zip(&verified) {
        assert_eq!(verified["ok"], true, "{verified}");
        assert_eq!(
            read["ok"], true,
            "docs/sgr_reader.py refuses {file}: {read}"
        );
        for key in [
            "replay",
            "rules_version",
            "events",
            "commands",
            "draws",
            "hash",
        ] {
            assert_eq!(read[key], verified[key], "{key} of {file}");
        }
    }
}

/// A damaged copy of a golden: what to call it, its bytes, a phrase both refusals must
/// hold (if there is one both say), and whether both must name the same event.
struct Damage {
    name: &'static str,
    bytes: Vec<u8>,
    both_say: Option<String>,
    same_event: bool,
}

fn damage(name: &'static str, bytes: Vec<u8>, both_say: &str) -> Damage {
    Damage {
        name,
        bytes,
        both_say: Some(both_say.to_owned()),
        same_event: false,
    }
}

fn leb128(mut value: u64) -> Vec<u8> {
    let mut out = vec![];
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
    out
}

/// The file with its length and checksum made to fit its bytes again, as a crafter would.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.truncate(bytes.len() - 8);
    let length = bytes.len() as u64 + 8;
    bytes[10..18].copy_from_slice(&length.to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
    bytes.extend(sum.to_le_bytes());
    bytes
}

/// Every kind of damage the document names, to one small golden. The recording's own
/// changes are written by `sgr::to_bytes`, which seals them; the byte-level ones are
/// resealed, so that only the check meant is left to catch them.
fn damaged_files(golden: &Recording) -> Vec<Damage> {
    let with = |change: &dyn Fn(&mut Recording)| {
        let mut recording = golden.clone();
        change(&mut recording);
        sgr::to_bytes(&recording)
    };
    let first_run = golden
        .events
        .iter()
        .take_while(|e| matches!(e, Event::Draw(_)))
        .count();
    let middle_draw = (golden.events.len() / 2..)
        .find(|&i| matches!(golden.events[i], Event::Draw(_)))
        .unwrap();
    // The bytes damaged below: the golden with its first command made a move north
    // (`00 00`), so that the command's bytes are known.
    let bytes = with(&|r| r.events[first_run] = Event::Command(Command::Move(Direction::N)));
    let header = encode(&golden.header).len();
    let count = leb128(golden.events.len() as u64);
    let command = 18 + header + count.len() + leb128(first_run as u64).len() + 4 * first_run;
    let replaced = |at: usize, old: usize, new: &[u8]| {
        resealed([&bytes[..at], new, &bytes[at + old..]].concat())
    };
    let patched = |at: usize, new: &[u8]| replaced(at, new.len(), new);
    let unknown = (0..=250).find(|&i| decode(&[i, 0, 0]).is_none()).unwrap();
    let newer = rules::NEWEST + 1;
    let mut over_long = count.clone();
    *over_long.last_mut().unwrap() |= 0x80;
    over_long.push(0);
    let more = leb128(golden.events.len() as u64 + 1);
    assert_eq!(more.len(), count.len());
    let seed = golden.header.seed;
    assert!(seed < 251, "the seed is one byte");
    let seed_at = 18 + encode(&(golden.header.format_version, golden.header.rules_version)).len();
    let length = bytes.len() as u64;
    let header_at = |at: usize, old: usize, new: &[u8]| replaced(18 + at, old, new);
    let preamble = |version: u16, length: u64, size: usize| {
        let mut file = [
            &sgr::MAGIC[..],
            &version.to_le_bytes(),
            &length.to_le_bytes(),
        ]
        .concat();
        file.resize(size, 0);
        file
    };
    vec![
        damage("empty", vec![], "empty"),
        damage(
            "cut in half",
            bytes[..bytes.len() / 2].to_vec(),
            "truncated",
        ),
        damage(
            "cut to the magic's first bytes",
            bytes[..5].to_vec(),
            "truncated",
        ),
        damage(
            "a foreign magic",
            patched(1, b"PNG"),
            "not a Sandglass replay file",
        ),
        damage("a newer layout", patched(8, &[2, 0]), "newer Sandglass"),
        damage("layout 0", patched(8, &[0, 0]), "damaged"),
        // Steps 4 to 6, in the order the document gives: the file's size and the length
        // field, each outcome as it says.
        damage("the magic alone", sgr::MAGIC.to_vec(), "truncated"),
        damage(
            "the magic and one byte",
            [&sgr::MAGIC[..], &[1]].concat(),
            "needs at least 34",
        ),
        damage(
            "10 bytes of layout 1",
            preamble(1, 0, 10),
            "needs at least 34",
        ),
        damage(
            "10 bytes of layout 2",
            preamble(2, 0, 10),
            "newer Sandglass",
        ),
        damage(
            "17 bytes of layout 2",
            preamble(2, 0, 17),
            "newer Sandglass",
        ),
        damage("17 bytes of layout 0", preamble(0, 0, 17), "damaged"),
        damage(
            "17 bytes of layout 1",
            preamble(1, 17, 17),
            "needs at least 34",
        ),
        damage(
            "20 bytes whose length says 30",
            preamble(1, 30, 20),
            "truncated: it holds 20 bytes and needs at least 30",
        ),
        damage(
            "20 bytes whose length says 20",
            preamble(1, 20, 20),
            "shorter than its fixed parts",
        ),
        damage(
            "20 bytes whose length says 10",
            preamble(1, 10, 20),
            "past its recorded end",
        ),
        damage(
            "33 bytes whose length says 33",
            preamble(1, 33, 33),
            "shorter than its fixed parts",
        ),
        damage(
            "a newer layout whose length is wrong",
            preamble(2, 50, 40),
            "newer Sandglass",
        ),
        damage(
            "a length past the end",
            [&bytes[..10], &(length + 1).to_le_bytes(), &bytes[18..]].concat(),
            "truncated",
        ),
        damage(
            "a byte past the length",
            [&bytes[..], &[0]].concat(),
            "past its recorded end",
        ),
        damage(
            "a byte flipped",
            {
                let mut flipped = bytes.clone();
                flipped[bytes.len() / 2] ^= 0x04;
                flipped
            },
            "checksum",
        ),
        damage(
            "a wrong checksum",
            [&bytes[..bytes.len() - 1], &[!bytes[bytes.len() - 1]]].concat(),
            "checksum",
        ),
        damage(
            "a newer format version",
            with(&|r| r.header.format_version = FORMAT_VERSION + 1),
            &format!("format version {}", FORMAT_VERSION + 1),
        ),
        // Step 8: a version of 0 is damage; the format version is looked at first; the
        // header is decoded whole, its values checked after.
        damage(
            "format version 0",
            with(&|r| r.header.format_version = 0),
            "damaged: its tape format version is 0",
        ),
        damage(
            "rules version 0",
            with(&|r| r.header.rules_version = 0),
            "damaged: its rules version is 0",
        ),
        damage(
            "a newer format version and rules version 0",
            with(&|r| {
                r.header.format_version = FORMAT_VERSION + 1;
                r.header.rules_version = 0;
            }),
            &format!("format version {}", FORMAT_VERSION + 1),
        ),
        damage(
            "a newer rules version spelt long",
            header_at(1, 1, &[251, newer as u8, 0]),
            &format!("rules version {newer}"),
        ),
        damage(
            "a newer format version and an unknown ruleset",
            header_at(0, 4, &[2, 9, 2, 7]),
            "damaged",
        ),
        // Short files: the checksum's paths for up to 128 and up to 240 bytes.
        damage(
            "rules version 1, no events",
            with(&|r| {
                r.header.rules_version = 1;
                r.events.clear();
                r.checkpoints.clear();
            }),
            "rules version 1",
        ),
        damage(
            "a newer rules version, 40 events",
            with(&|r| {
                r.header.rules_version = newer;
                r.events.truncate(40);
                r.checkpoints.clear();
            }),
            &format!("rules version {newer}"),
        ),
        damage(
            "a classic ruleset that never lets the camel act",
            with(&|r| {
                r.header.ruleset.time = TimeModel::Classic {
                    gain: 0,
                    threshold: 100,
                }
            }),
            "gain 0",
        ),
        damage(
            "a seed spelt long",
            replaced(seed_at, 1, &[251, seed as u8, 0]),
            "damaged",
        ),
        damage(
            "the event count spelt long",
            replaced(18 + header, count.len(), &over_long),
            "damaged",
        ),
        damage(
            "an unknown command",
            patched(command, &[unknown]),
            "damaged",
        ),
        damage(
            "a move in direction 8",
            patched(command + 1, &[8]),
            "damaged",
        ),
        // A direction is a bincode varint: `FB 00 00` is north spelt long.
        damage(
            "a move north spelt long",
            replaced(command + 1, 1, &[0xfb, 0, 0]),
            "damaged",
        ),
        damage(
            "a move in direction 8 spelt long",
            replaced(command + 1, 1, &[0xfb, 8, 0]),
            "damaged",
        ),
        damage(
            "more events claimed than held",
            patched(18 + header, &more),
            "damaged",
        ),
        damage(
            "bytes nothing accounts for",
            replaced(bytes.len() - 16, 0, &[0]),
            "nothing accounts for",
        ),
        damage(
            "checkpoints out of order",
            with(&|r| r.checkpoints = vec![(20, 0), (10, 0)]),
            "out of order",
        ),
        Damage {
            name: "a drop from slot 26",
            bytes: patched(command, &[3, 26]),
            both_say: Some("illegal command".to_owned()),
            same_event: true,
        },
        // A slot is a plain byte: `FB` is slot 251, not a marker.
        Damage {
            name: "a drop from slot 251",
            bytes: patched(command, &[3, 251]),
            both_say: Some("illegal command".to_owned()),
            same_event: true,
        },
        Damage {
            name: "a draw the seed does not give",
            bytes: with(&|r| {
                if let Event::Draw(draw) = &mut r.events[middle_draw] {
                    *draw ^= 0x0001_0000;
                }
            }),
            both_say: Some("differs from the generator's".to_owned()),
            same_event: true,
        },
    ]
}

/// A small golden of the newest rules version.
fn small_golden() -> Recording {
    let path = format!("../replays/v{}/classic-short-2.sgr", rules::NEWEST);
    sgr::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The goldens hold only some commands (none closes a door): the reader is given a file
/// holding each one that decodes, with its fields at their least and at their most legal
/// values. Only the rules can say whether the command is legal there, so the reader,
/// which checks no more than the document lets it, reads each one.
#[test]
fn the_documents_reader_reads_every_command() {
    let golden = small_golden();
    let first = golden
        .events
        .iter()
        .position(|e| matches!(e, Event::Command(_)));
    let mut commands = vec![];
    for index in 0..=250 {
        for [low, high] in [[0, 0], [7, 0], [25, 7]] {
            match decode(&[index, low, high]) {
                Some((command, _)) if !commands.contains(&command) => commands.push(command),
                _ => {}
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![];
    for (i, &command) in commands.iter().enumerate() {
        let mut recording = golden.clone();
        recording.events[first.unwrap()] = Event::Command(command);
        let path = dir.path().join(format!("{i}.sgr"));
        fs::write(&path, sgr::to_bytes(&recording)).unwrap();
        files.push(path.to_string_lossy().into_owned());
    }
    assert!(
        commands.contains(&Command::Close(Direction::NW)),
        "{commands:?}"
    );
    for (command, read) in commands.iter().zip(reader(&files)) {
        assert_eq!(read["ok"], true, "{command:?}: {read}");
    }
}

#[test]
fn every_damaged_file_is_refused_by_both_readers() {
    let golden = small_golden();
    let dir = tempfile::tempdir().unwrap();
    let damages = damaged_files(&golden);
    let mut files: Vec<String> = damages
        .iter()
        .enumerate()
        .map(|(i, damage)| {
            let path = dir.path().join(format!("{i:02}.sgr"));
            fs::write(&path, &damage.bytes).unwrap();
            path.to_string_lossy().into_owned()
        })
        .collect();
    // And paths that name no regular file.
    let folder: PathBuf = dir.path().join("folder.sgr");
    fs::create_dir(&folder).unwrap();
    files.push(folder.to_string_lossy().into_owned());
    files.push(dir.path().join("gone.sgr").to_string_lossy().into_owned());
    // Symbolic links are followed: to a folder, to nothing.
    let to_folder = dir.path().join("to-folder.sgr");
    std::os::unix::fs::symlink(&folder, &to_folder).unwrap();
    files.push(to_folder.to_string_lossy().into_owned());
    let dangling = dir.path().join("dangling.sgr");
    std::os::unix::fs::symlink(dir.path().join("gone.sgr"), &dangling).unwrap();
    files.push(dangling.to_string_lossy().into_owned());
    let mut says: Vec<Option<String>> = damages.iter().map(|d| d.both_say.clone()).collect();
    says.push(Some("not a regular file".to_owned()));
    says.push(Some("no file".to_owned()));
    says.push(Some("not a regular file".to_owned()));
    says.push(Some("no file".to_owned()));
    let read = reader(&files);
    let verified = verify(&files);
    for (i, (read, verified)) in read.iter().zip(&verified).enumerate() {
        let name = damages.get(i).map_or(files[i].as_str(), |d| d.name);
        assert_eq!(read["ok"], false, "docs/sgr_reader.py reads {name}: {read}");
        assert_eq!(
            verified["ok"], false,
            "sandglass verify passes {name}: {verified}"
        );
        if let Some(phrase) = &says[i] {
            for error in [&read["error"], &verified["error"]] {
                let error = error.as_str().unwrap();
                assert!(error.contains(phrase.as_str()), "{name}: {error:?}");
            }
        }
        if damages.get(i).is_some_and(|d| d.same_event) {
            assert!(read["event"].is_u64(), "{name}: {read}");
            assert_eq!(read["event"], verified["event"], "{name}");
        }
    }
}

/// A boon that came with rules version 12 (thick hide), in a tape of 11: both readers
/// refuse the file as an illegal command, at the same event; the same command in a tape of
/// 12 reads (`the_documents_reader_reads_every_command`).
#[test]
fn a_later_boon_in_an_older_tape_is_refused_by_both_readers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../replays/v11/classic-short-2.sgr");
    let mut recording = sgr::read(&path).unwrap();
    let first = recording
        .events
        .iter()
        .position(|e| matches!(e, Event::Command(_)))
        .unwrap();
    let hide = Command::Grow(Slot(0), Boon::Hide);
    recording.events[first] = Event::Command(hide);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hide-in-11.sgr");
    fs::write(&file, sgr::to_bytes(&recording)).unwrap();
    let files = [file.to_string_lossy().into_owned()];
    let (read, verified) = (&reader(&files)[0], &verify(&files)[0]);
    for said in [read, verified] {
        assert_eq!(said["ok"], false, "{said}");
        let error = said["error"].as_str().unwrap();
        assert!(error.contains("illegal command"), "{error:?}");
    }
    assert_eq!(read["event"], verified["event"]);
}

/// A symbolic link is followed: a link to a golden is read as the golden, by both readers.
#[test]
fn both_readers_follow_a_symbolic_link_to_a_replay() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../replays/v{}/classic-short-2.sgr", rules::NEWEST));
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.sgr");
    std::os::unix::fs::symlink(&golden, &link).unwrap();
    let files = [
        golden.to_string_lossy().into_owned(),
        link.to_string_lossy().into_owned(),
    ];
    let read = reader(&files);
    let verified = verify(&files);
    for lines in [&read, &verified] {
        assert_eq!(lines[1]["ok"], true, "{}", lines[1]);
        assert_eq!(lines[1]["hash"], lines[0]["hash"]);
    }
    assert_eq!(read[1]["hash"], verified[1]["hash"]);
}

/// The body is read the same whatever the rules version: a command the tape's rules do
/// not have (its row's "rules versions" later than the header's) decodes, and the fold
/// refuses it as an illegal command at its event. Each such command, with its fields at
/// 0 and (a slot's) at 1, put in place of the first command of a golden of every older
/// kept version; the document's reader refuses it at the same event in the same words.
#[test]
fn a_command_newer_than_the_tapes_rules_is_an_illegal_command_at_its_event() {
    let rows = table("| index | command | fields | bytes | rules versions |");
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![];
    let mut at = vec![];
    for version in rules::KEPT {
        let path = format!("../replays/v{version}/classic-short-2.sgr");
        let golden = sgr::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
        let first = golden
            .events
            .iter()
            .position(|e| matches!(e, Event::Command(_)))
            .unwrap();
        for row in &rows {
            let since: u16 = row[4].split(' ').next().unwrap().parse().unwrap();
            if since <= version {
                continue;
            }
            let index: u8 = row[0].parse().unwrap();
            for field in [0, 1] {
                let Some((command, _)) = decode(&[index, field, 0]) else {
                    continue;
                };
                let mut recording = golden.clone();
                recording.events[first] = Event::Command(command);
                let file = dir.path().join(format!("{version}-{index}-{field}.sgr"));
                fs::write(&file, sgr::to_bytes(&recording)).unwrap();
                files.push(file.to_string_lossy().into_owned());
                at.push(first);
            }
        }
    }
    assert!(files.len() >= 4 * 7, "{files:?}");
    let read = reader(&files);
    let verified = verify(&files);
    for (((file, read), verified), at) in files.iter().zip(&read).zip(&verified).zip(at) {
        for line in [read, verified] {
            assert_eq!(line["ok"], false, "{file}: {line}");
            assert_eq!(line["event"], at, "{file}: {line}");
            let error = line["error"].as_str().unwrap();
            assert!(error.starts_with("illegal command "), "{file}: {error}");
        }
    }
}
