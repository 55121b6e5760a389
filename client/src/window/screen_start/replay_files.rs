//! The start screen's list of replay files (`.sgr`): those here, in `./replays` and in its
//! folders, and the keys that open one on a timeline.

use std::path::{Path, PathBuf};

use super::{moved, Rows};
use crate::input::intent::Input;
use crate::window::hud::TEXT;
use crate::window::{App, Go, Tape};

/// The replay files here, in `./replays` and in its folders.
pub(super) fn found() -> Vec<PathBuf> {
    let folders = replay_folders(Path::new("."));
    replay_files(&folders.iter().map(PathBuf::as_path).collect::<Vec<_>>())
}

/// Keys on the replay files: Enter opens one on the timeline; `None` once Escape closes
/// them.
pub(super) fn files_key(files: &mut (Vec<PathBuf>, usize), input: Input) -> Option<Go> {
    let mut rows = Some(std::mem::take(files));
    let go = browse(&mut rows, input, |path| Go::Watch(Tape::File(path.clone())));
    *files = rows?;
    Some(go)
}

/// Keys on a list open over the menu: arrows move the highlight, Enter or Space opens
/// the highlighted row with `open`, Escape closes the list.
fn browse<T>(rows: &mut Option<(Vec<T>, usize)>, input: Input, open: impl Fn(&T) -> Go) -> Go {
    if input == Input::Escape {
        *rows = None;
        return Go::Stay;
    }
    let Some((items, choice)) = rows else {
        return Go::Stay;
    };
    match input {
        Input::Move(dir) => {
            *choice = moved(*choice, items.len(), dir);
            Go::Stay
        }
        Input::Confirm | Input::Space => open(&items[*choice]),
        _ => Go::Stay,
    }
}

/// The replay files (`.sgr`) directly in each of `dirs`, each folder's sorted by name;
/// a folder that cannot be read has none.
fn replay_files(dirs: &[&Path]) -> Vec<PathBuf> {
    let mut found = vec![];
    for dir in dirs {
        let Ok(listing) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut here: Vec<PathBuf> = listing
            .filter_map(|entry| Some(entry.ok()?.path()))
            .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "sgr"))
            .collect();
        here.sort();
        found.extend(here);
    }
    found
}

/// Where replay files are looked for: `here`, its `replays` folder, and the folders in
/// that (the golden replays lie in one per rules version, `v2`, `v3`, ...), by name.
fn replay_folders(here: &Path) -> Vec<PathBuf> {
    let replays = here.join("replays");
    let mut inside: Vec<PathBuf> = std::fs::read_dir(&replays)
        .into_iter()
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.is_dir())
        .collect();
    inside.sort();
    [vec![here.to_owned(), replays], inside].concat()
}

/// The replay files, from `x`, `y` down, scrolled to the chosen one.
pub(super) fn draw_files(app: &App, files: &[PathBuf], choice: usize, x: f32, y: f32, size: f32) {
    let mut rows = Rows::titled(app, "Replay files", x, y, size, choice, 3);
    for (i, path) in files.iter().enumerate().skip(rows.first).take(rows.rows) {
        let shown = path.strip_prefix(".").unwrap_or(path).display().to_string();
        rows.row(app, i, &shown, TEXT);
    }
    rows.footer(
        app,
        "From here, ./replays and its folders. Enter opens one on a timeline. Escape: back.",
    );
}

#[cfg(test)]
mod tests {
    use sandglass_sim::geometry::Direction;

    use super::*;

    #[test]
    fn escape_closes_a_list_and_enter_opens_its_row() {
        let mut rows = Some((vec![10, 20, 30], 0));
        assert!(matches!(
            browse(&mut rows, Input::Move(Direction::S), |_| Go::Exit),
            Go::Stay
        ));
        assert!(matches!(
            browse(&mut rows, Input::Confirm, |&n| if n == 20 {
                Go::Exit
            } else {
                Go::Menu
            }),
            Go::Exit
        ));
        browse(&mut rows, Input::Escape, |_| Go::Exit);
        assert!(rows.is_none());
    }

    #[test]
    fn replay_files_are_looked_for_here_in_replays_and_in_its_version_folders() {
        let root = tempfile::tempdir().unwrap();
        let replays = root.path().join("replays");
        for folder in ["v3", "v2"] {
            std::fs::create_dir_all(replays.join(folder)).unwrap();
        }
        std::fs::write(replays.join("notes.sgr"), b"").unwrap();
        assert_eq!(
            replay_folders(root.path()),
            [
                root.path().to_owned(),
                replays.clone(),
                replays.join("v2"),
                replays.join("v3")
            ]
        );
    }

    #[test]
    fn replay_files_are_the_sgr_files_of_each_folder_in_order() {
        let root = tempfile::tempdir().unwrap();
        let sub = root.path().join("replays");
        std::fs::create_dir(&sub).unwrap();
        for name in ["b.sgr", "a.sgr", "notes.txt", "c.SGR.bak"] {
            std::fs::write(root.path().join(name), b"").unwrap();
        }
        std::fs::create_dir(root.path().join("d.sgr")).unwrap();
        std::fs::write(sub.join("golden.sgr"), b"").unwrap();
        let missing = root.path().join("nowhere");
        let found = replay_files(&[root.path(), &sub, &missing]);
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            names,
            [
                PathBuf::from("a.sgr"),
                PathBuf::from("b.sgr"),
                PathBuf::from("replays/golden.sgr")
            ]
        );
    }
}
