//! The server's modules import each other without cycles: for every module,
//! none of the modules it names (`crate::x`, `super::x`, `self::x` or a
//! child `x::`, in `use` lines and in code) names it back, directly or
//! through others.
//!
//! Leaf parts (the connection's outbox, accounts, the store, the lobby) are
//! composed at the top (`boot`, `lib.rs`); a part that reached back up
//! would tie every part to every other. This test reads the source: a
//! module is a file (`store/sqlite/mod.rs` is `store::sqlite`), a path
//! counts for the deepest module it names, and comments, strings and
//! `#[cfg(test)]` code do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Edges that may stay for now: (from, to), `from` also covering its
/// submodules. The table actor reaches `Shared` while `table` is being
/// rewritten into a pure state machine and a thin actor.
const ALLOWED: &[(&str, &str)] = &[("table", "state")];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(graph.contains_key("store::sqlite"), "{graph:?}");
    let cycles = cycles(&graph);
    assert!(
        cycles.is_empty(),
        "module cycles (each line: a module, then a path back to it):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_checker_sees_cycles_and_strips_what_does_not_count() {
    let text = r#"
        use crate::{a::{self, X}, b};
        // use crate::c;
        fn f() -> &'static str { let _ = crate::d::run(); "crate::e" }
        #[cfg(test)]
        mod tests { use crate::f; }
    "#;
    let mut names = paths(&strip(text));
    names.retain(|p| p.starts_with("crate::"));
    assert_eq!(
        names,
        ["crate::a", "crate::a::X", "crate::b", "crate::d::run"],
        "{names:?}"
    );
    let mut graph = Graph::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("table", "state")] {
        graph.entry(from.into()).or_default().insert(to.into());
    }
    graph
        .entry("state".into())
        .or_default()
        .insert("table".into());
    assert_eq!(cycles(&graph), ["a -> b -> c -> a"]);
}

/// Every module (by path, `crate` for `lib.rs`) and the modules it names.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    walk(src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files
        .into_iter()
        .filter_map(|file| Some((module_of(src, &file)?, file)))
        .collect();
    let test_only: BTreeSet<String> = modules
        .iter()
        .flat_map(|(module, file)| {
            let text = std::fs::read_to_string(file).expect("readable source");
            test_only_children(&text)
                .into_iter()
                .map(|child| join(module, &child))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut graph = Graph::new();
    for (module, file) in &modules {
        if test_only
            .iter()
            .any(|t| module == t || module.starts_with(&format!("{t}::")))
        {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("readable source");
        let uses = graph.entry(module.clone()).or_default();
        for path in paths(&strip(&text)) {
            if let Some(target) = resolve(module, &path, &modules) {
                if target != *module {
                    uses.insert(target);
                }
            }
        }
    }
    graph
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `lib.rs` is `crate`, `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?.with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(match parts.as_slice() {
        [only] if only == "lib" => "crate".into(),
        _ => parts.join("::"),
    })
}

fn join(module: &str, child: &str) -> String {
    if module == "crate" {
        child.to_owned()
    } else {
        format!("{module}::{child}")
    }
}

fn parent(module: &str) -> String {
    module
        .rsplit_once("::")
        .map_or_else(|| "crate".to_owned(), |(p, _)| p.to_owned())
}

/// The deepest module `path` names, seen from `module`.
fn resolve(module: &str, path: &str, modules: &BTreeMap<String, PathBuf>) -> Option<String> {
    let mut parts = path.split("::").peekable();
    let mut base = match *parts.peek()? {
        "crate" => "crate".to_owned(),
        "self" => module.to_owned(),
        "super" => parent(module),
        // A child module, named as it is from its parent (`use child::X`).
        child if modules.contains_key(&join(module, child)) => module.to_owned(),
        _ => return None,
    };
    if matches!(parts.peek(), Some(&("crate" | "self" | "super"))) {
        parts.next();
    }
    let mut rest: Vec<&str> = parts.collect();
    while rest.first() == Some(&"super") {
        base = parent(&base);
        rest.remove(0);
    }
    let mut found = base.clone();
    let mut at = base;
    for part in rest {
        at = join(&at, part);
        if modules.contains_key(&at) {
            found.clone_from(&at);
        } else {
            break;
        }
    }
    Some(found)
}

/// The child modules declared `#[cfg(test)] mod x;` in a file.
fn test_only_children(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(3)
        .filter(|w| w[0] == "#[cfg(test)]" && w[1] == "mod" && w[2].ends_with(';'))
        .map(|w| w[2].trim_end_matches(';').to_owned())
        .collect()
}

/// The text without comments, string and character literals, and
/// `#[cfg(test)]` items.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1).copied()) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            ('r', Some('#' | '"')) if is_raw_string(&chars, i) => {
                let mut hashes = 0;
                i += 1;
                while chars.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                i += 1;
                let close: String = std::iter::once('"')
                    .chain((0..hashes).map(|_| '#'))
                    .collect();
                while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&close)
                {
                    i += 1;
                }
                i += close.len();
                out.push_str("\"\"");
            }
            ('"', _) => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            ('\'', Some('\\')) => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            ('\'', Some(_)) if chars.get(i + 2) == Some(&'\'') => i += 3,
            _ => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    without_test_items(&out)
}

/// `text` without the items that follow `#[cfg(test)]`: a braced module or
/// function up to its matching brace, or a declaration up to its `;`.
fn without_test_items(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = match (rest.find('{'), rest.find(';')) {
            (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                let mut depth = 0;
                let mut end = rest.len();
                for (i, c) in rest.char_indices().skip(open) {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                end
            }
            (_, Some(semi)) => semi + 1,
            _ => rest.len(),
        };
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Whether a raw string literal (`r"…"`, `r#"…"#`) starts at `chars[i]`
/// (not a raw identifier such as `r#type`, nor a name ending in `r`).
fn is_raw_string(chars: &[char], i: usize) -> bool {
    let after = chars[i + 1..].iter().find(|&&c| c != '#');
    (i == 0 || !is_ident(chars[i - 1])) && after == Some(&'"')
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths (`a::b`) in `text`, with `use` groups spelled out
/// (`use crate::{a, b::c}` names `crate::a` and `crate::b::c`).
fn paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // A `use` tree, its words joined (`as` marked `@`), until its `;`.
    let mut in_use: Option<String> = None;
    for word in text.split_whitespace() {
        match &mut in_use {
            Some(tree) => {
                tree.push_str(if word == "as" { "@" } else { word });
                if tree.ends_with(';') {
                    expand("", tree.trim_end_matches(';'), &mut out);
                    in_use = None;
                }
            }
            None if word == "use" => in_use = Some(String::new()),
            None => out.extend(code_paths(word)),
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The `crate::`, `self::` and `super::` paths inside a word of code.
fn code_paths(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if is_ident(c) {
            path.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            path.push_str("::");
        } else {
            if path.contains("::") {
                out.push(path.trim_end_matches("::").to_owned());
            }
            path.clear();
        }
    }
    if path.contains("::") {
        out.push(path.trim_end_matches("::").to_owned());
    }
    out
}

/// Spells out one `use` tree (without spaces) under `prefix`.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim_matches(',');
    if tree.is_empty() {
        return;
    }
    let full = |p: &str| {
        if prefix.is_empty() {
            p.to_owned()
        } else if p == "self" {
            prefix.to_owned()
        } else {
            format!("{prefix}::{p}")
        }
    };
    match tree.find('{') {
        Some(open) if tree.ends_with('}') => {
            let head = full(tree[..open].trim_end_matches("::"));
            for item in split_top(&tree[open + 1..tree.len() - 1]) {
                expand(&head, item, out);
            }
        }
        _ => {
            let path = tree.split('@').next().unwrap_or(tree);
            out.push(full(path.trim_end_matches("::*")));
        }
    }
}

/// Splits `a,b::{c,d},e` at the commas outside braces.
fn split_top(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
}

fn allowed(from: &str, to: &str) -> bool {
    ALLOWED
        .iter()
        .any(|(f, t)| to == *t && (from == *f || from.starts_with(&format!("{f}::"))))
}

/// Each module that can reach itself again, with one path back to it;
/// one line per cycle (the smallest module of each cycle starts it).
fn cycles(graph: &Graph) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        if let Some(path) = path_back(graph, start) {
            let members: BTreeSet<&String> = path.iter().collect();
            if members.iter().next() == Some(&start) {
                found.insert(path.join(" -> "));
            }
        }
    }
    found.into_iter().collect()
}

/// A shortest path from `start` back to `start`, if any (breadth first).
fn path_back(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_owned()]);
    while let Some(at) = queue.pop_front() {
        for next in graph.get(&at).into_iter().flatten() {
            if allowed(&at, next) {
                continue;
            }
            if next == start {
                // `at` back to `start` (which has no predecessor), then
                // the edge from `at` that closes the cycle.
                let mut path = vec![at.clone()];
                while let Some(prev) = came_from.get(path.last()?) {
                    path.push(prev.clone());
                }
                path.reverse();
                path.push(start.to_owned());
                return Some(path);
            }
            if !came_from.contains_key(next) && next != start {
                came_from.insert(next.clone(), at.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}
