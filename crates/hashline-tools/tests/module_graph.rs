//! The crate's top-level modules import each other in one direction only: no cycle among
//! them (a `tools/` module counts as `tools`). Read from the sources: every `crate::<module>`
//! outside comments is an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module → the modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text of `source` without `//` comments (line and doc comments).
fn code_of(source: &str) -> String {
    source.lines().map(|line| line.split_once("//").map_or(line, |(code, _)| code)).collect::<Vec<_>>().join("\n")
}

/// The module names `code` refers to as `crate::<name>`.
fn referred(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            names.insert(name);
        }
    }
    names
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let first = rel.components().next().expect("a component").as_os_str().to_string_lossy().into_owned();
        let module = first.trim_end_matches(".rs").to_owned();
        if module == "lib" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).expect("readable"));
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(referred(&code).into_iter().filter(|name| *name != module));
    }
    graph
}

/// A cycle through `graph`, if there is one (depth-first search).
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(node: &str, graph: &Graph, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_top_level_modules_form_no_cycle() {
    let graph = graph();
    assert!(graph.len() > 10, "{graph:?}");
    assert!(graph["session"].contains("result"), "the graph is read: {graph:?}");
    assert_eq!(cycle(&graph), None, "{graph:#?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut graph = Graph::new();
    graph.entry("session".into()).or_default().insert("log".into());
    graph.entry("log".into()).or_default().insert("result".into());
    graph.entry("result".into()).or_default().insert("session".into());
    let found = cycle(&graph).expect("a cycle");
    assert_eq!(found.first(), found.last());
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(referred(&code_of("use crate::a::B; // crate::c\n/// crate::d\nlet x = crate::e::f();")), {
        ["a", "e"].iter().map(|s| s.to_string()).collect::<BTreeSet<_>>()
    });
}
