//! The server reads bottom-up (ARCHITECTURE.md, "The server, and beyond one machine": its
//! modules from the bottom up): no module of `src/` imports one that imports it back, by
//! any path; `names` imports nothing of the server; and nothing imports the router,
//! `serve`, which imports the handlers. A review would let an import loop back in one
//! `use` at a time; this test does not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module of `src/` but the crate's roots, with the modules of the crate it names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let module = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if path.extension() != Some("rs".as_ref()) || module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut named = BTreeSet::new();
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            match rest.strip_prefix('{') {
                Some(list) => named.extend(list[..list.find('}').unwrap()].split(',').map(word)),
                None => {
                    named.insert(word(rest));
                }
            }
        }
        named.remove(&module);
        named.remove("");
        graph.insert(module, named);
    }
    graph
}

/// The module a path begins with.
fn word(path: &str) -> String {
    let path = path.trim_start();
    let end = path
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(path.len());
    path[..end].to_owned()
}

/// A way from `from` back to itself through the imports, if there is one.
fn loop_from(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut ways = vec![vec![from.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(way) = ways.pop() {
        for next in &graph[way.last().unwrap()] {
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
    let graph = imports();
    assert!(graph.contains_key("app") && graph["serve"].contains("app"));
    for (module, named) in &graph {
        for other in named {
            assert!(
                graph.contains_key(other),
                "{module} imports {other}, not a module"
            );
        }
        if let Some(way) = loop_from(&graph, module) {
            panic!("an import loop: {}", way.join(" -> "));
        }
    }
}

#[test]
fn names_imports_nothing_of_the_server_and_nothing_imports_the_router() {
    let graph = imports();
    assert_eq!(graph["names"], BTreeSet::new());
    for (module, named) in &graph {
        assert!(!named.contains("serve"), "{module} imports the router");
    }
}

/// The check itself can fail: a loop of two and one of three are each found.
#[test]
fn a_loop_is_found() {
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
    let two = graph(&[("submit", "daily"), ("daily", "submit")]);
    assert_eq!(
        loop_from(&two, "daily").unwrap(),
        ["daily", "submit", "daily"]
    );
    let three = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("a", "d")]);
    assert!(loop_from(&three, "b").is_some());
    let none = graph(&[("a", "b"), ("b", "c"), ("a", "c")]);
    assert!(none.keys().all(|module| loop_from(&none, module).is_none()));
}
