//! The written invariants a review would otherwise hold by habit (ARCHITECTURE.md,
//! "Invariants"): the simulation reads no clock, no file, no OS randomness and no float,
//! and iterates no hash map; and in no crate does a module import one that imports it back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Every `.rs` file under `dir`, in a fixed order.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = vec![];
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension() == Some("rs".as_ref()) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A file's code without its tests (what follows `#[cfg(test)]` at the start of a line,
/// by this workspace's habit the file's last item) and without its comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("\n#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `word` stands in `text` as a word of its own, not inside a longer name.
fn has_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// What the simulation may not name: each would make a fold differ between machines or
/// runs. Its own tests (`src/tests/`, `tests.rs`, and each file's test module) may.
#[test]
fn the_simulation_reads_no_clock_file_randomness_or_float_and_iterates_no_hash_map() {
    const FORBIDDEN: [&str; 11] = [
        "f32",
        "f64",
        "Instant",
        "SystemTime",
        "std::time",
        "std::fs",
        "std::env",
        "HashMap",
        "HashSet",
        "getrandom",
        "thread_rng",
    ];
    let src = root().join("core/sim/src");
    let mut read = 0;
    for path in sources(&src) {
        let relative = path.strip_prefix(&src).unwrap();
        if relative.starts_with("tests") || relative == Path::new("tests.rs") {
            continue;
        }
        let code = code(&path);
        for word in FORBIDDEN {
            assert!(
                !has_word(&code, word),
                "core/sim/src/{} names {word}",
                relative.display()
            );
        }
        read += 1;
    }
    assert!(read > 40, "read {read} files of the simulation");
    assert!(has_word("let x: f64 = 1.0;", "f64") && !has_word("of64", "f64"));
}

/// A crate's modules, each named by its path (`window::screen_game`; a folder's `mod.rs`
/// by the folder), with the modules of the crate its code names.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let module_of = |path: &Path| -> Vec<String> {
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = relative
            .iter()
            .map(|p| p.to_str().unwrap().to_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        parts
    };
    let files = sources(src);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|p| module_of(p)).collect();
    let mut graph = BTreeMap::new();
    for path in &files {
        let me = module_of(path);
        let mut named = BTreeSet::new();
        for full in paths(&code(path), &me) {
            // The longest beginning of the path that is a module of the crate.
            let module = (1..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|prefix| modules.contains(prefix));
            if let Some(module) = module {
                named.insert(module.join("::"));
            }
        }
        graph
            .entry(me.join("::"))
            .or_insert_with(BTreeSet::new)
            .extend(named);
    }
    graph
}

/// Every path into the crate that `code`, the module `me`, names, made whole: `crate::a::b`
/// as `[a, b]`, `super::c` from `a::b` as `[a, c]`, `self::d` as `[a, b, d]`, and each
/// branch of a `use` tree (`use crate::{a, b::{c, d}}`) on its own.
fn paths(code: &str, me: &[String]) -> Vec<Vec<String>> {
    let mut found = vec![];
    let starts = ["crate::", "super::", "self::"];
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let start = starts.iter().find(|s| rest.starts_with(*s));
        let part_of_a_name = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        match start {
            Some(start) if !part_of_a_name => {
                let mut base: Vec<String> = match *start {
                    "crate::" => vec![],
                    "self::" => me.to_vec(),
                    _ => me[..me.len().saturating_sub(1)].to_vec(),
                };
                let mut tail = &rest[start.len()..];
                // `super::super::`
                while let Some(more) = tail.strip_prefix("super::") {
                    base.pop();
                    tail = more;
                }
                let used = tree(tail);
                at += start.len() + used.1;
                found.extend(used.0.into_iter().map(|p| [base.clone(), p].concat()));
            }
            _ => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    found
}

/// The paths of a use tree at the start of `text` (`a::b`, `{a, b::{c, d}}`), and how many
/// bytes it took.
fn tree(text: &str) -> (Vec<Vec<String>>, usize) {
    let mut segments = vec![];
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let skipped = rest.len() - rest.trim_start().len();
        at += skipped;
        let rest = &text[at..];
        if let Some(inner) = rest.strip_prefix('{') {
            at += 1;
            let mut branches = vec![];
            let mut inner_at = 0;
            loop {
                let (paths, used) = tree(&inner[inner_at..]);
                branches.extend(paths);
                inner_at += used;
                let after = inner[inner_at..].trim_start();
                inner_at += inner[inner_at..].len() - after.len();
                match after.chars().next() {
                    Some(',') => inner_at += 1,
                    Some('}') => {
                        inner_at += 1;
                        break;
                    }
                    _ => break,
                }
            }
            at += inner_at;
            let whole = branches
                .into_iter()
                .map(|b| [segments.clone(), b].concat())
                .collect();
            return (whole, at);
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            return (vec![segments], at);
        }
        segments.push(rest[..end].to_owned());
        at += end;
        match text[at..].strip_prefix("::") {
            Some(_) => at += 2,
            None => return (vec![segments], at),
        }
    }
}

/// A way from `from` back to itself through the imports, if there is one. A module and
/// the modules inside it are one room: a folder's `mod.rs` declares its children and keeps
/// what they share, so what passes between them is not a way out and back.
fn loop_from(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let nested = |a: &str, b: &str| {
        let inside =
            |outer: &str, inner: &str| outer.is_empty() || inner.starts_with(&format!("{outer}::"));
        inside(a, b) || inside(b, a)
    };
    let mut ways = vec![vec![from.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(way) = ways.pop() {
        let last = way.last().unwrap();
        for next in graph.get(last).into_iter().flatten() {
            if next == last || nested(last, next) {
                continue;
            }
            let mut longer = way.clone();
            longer.push(next.clone());
            if next == from {
                return Some(longer);
            }
            if seen.insert(next.clone()) {
                ways.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let crates = [
        "core/sim",
        "core/replay",
        "core/claim",
        "core/protocol",
        "core/store",
        "client",
        "server",
        "xtask",
    ];
    let mut all = vec![];
    for krate in crates {
        let graph = imports(&root().join(krate).join("src"));
        assert!(!graph.is_empty(), "{krate}: no modules read");
        for module in graph.keys() {
            if let Some(way) = loop_from(&graph, module) {
                all.push(format!("{krate}: {}", way.join(" -> ")));
            }
        }
    }
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// The server reads bottom-up (ARCHITECTURE.md, "The server, and beyond one machine"):
/// `names` imports nothing of the server, and nothing imports the router, `serve`, which
/// imports the handlers.
#[test]
fn the_servers_names_import_nothing_and_nothing_imports_its_router() {
    let graph = imports(&root().join("server/src"));
    assert!(graph["serve"].contains("app"), "the router is read");
    assert_eq!(graph["names"], BTreeSet::new());
    for (module, named) in &graph {
        assert!(!named.contains("serve"), "{module} imports the router");
    }
}

/// The checks themselves can fail: a loop of two and one of three are found, a module and
/// its own children are not a loop, and a use tree is read branch by branch.
#[test]
fn a_loop_is_found_and_a_use_tree_read() {
    let graph = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            graph.entry(to.to_string()).or_default();
            graph
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string());
        }
        graph
    };
    let two = graph(&[
        ("input::keys", "input::keymap"),
        ("input::keymap", "input::keys"),
    ]);
    assert_eq!(
        loop_from(&two, "input::keys").unwrap(),
        ["input::keys", "input::keymap", "input::keys"]
    );
    let three = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("a", "d")]);
    assert!(loop_from(&three, "b").is_some());
    let nested = graph(&[("window", "window::hud"), ("window::hud", "window")]);
    assert!(loop_from(&nested, "window").is_none());
    let me = ["window".to_owned(), "hud".to_owned()];
    let words = |paths: Vec<Vec<String>>| -> Vec<String> {
        paths.into_iter().map(|p| p.join("::")).collect()
    };
    assert_eq!(
        words(paths(
            "use crate::{a, b::{c, d::E}};\nuse super::f::G;",
            &me
        )),
        ["a", "b::c", "b::d::E", "window::f::G"]
    );
    assert_eq!(
        words(paths("x = self::g(sandglass::crate::h)", &me)),
        ["window::hud::g"]
    );
}
