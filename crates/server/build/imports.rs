//! The static imports of the UI's ES modules, and the module graph they
//! make, so that `build.rs` can list every module the page needs as a
//! `<link rel="modulepreload">`: the browser then asks for all of them at
//! once, instead of finding them one import at a time (a round trip per
//! level of the graph).
//!
//! Static `import` and `export … from` declarations may only stand at a
//! module's top level, and in `web/` each begins a line; so a scan of the
//! lines that begin with `import` or `export` finds them all, without
//! parsing JavaScript (strings, comments, regular expressions). A dynamic
//! `import(…)` is not followed: what it loads is not needed at first. A
//! declaration may run over several lines (`import {` … `} from './x.js';`).
//!
//! The browser test `e2e/tests/firstload.spec.js` checks the result against
//! the graph the browser itself loads, so a module this scan misses fails it.

use std::collections::{BTreeSet, VecDeque};

/// A declaration longer than this many lines is not one (a safeguard).
const MAX_DECLARATION_LINES: usize = 64;

/// The specifiers of the static imports of `source`, in order:
/// `import { a } from './a.js'`, `import './b.js'`, `export * from './c.js'`.
pub(crate) fn static_imports(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        let Some(kind) = declaration(line) else {
            continue;
        };
        let mut text = line.to_owned();
        for _ in 0..MAX_DECLARATION_LINES {
            match specifier(kind, &text) {
                Scan::Found(spec) => {
                    found.push(spec);
                    break;
                }
                Scan::None => break,
                Scan::More => match lines.next() {
                    Some(next) => {
                        text.push('\n');
                        text.push_str(next);
                    }
                    None => break,
                },
            }
        }
    }
    found
}

/// Which declaration a line begins, if any.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// `import …`: its specifier comes first (`import './x.js'`) or after `from`.
    Import,
    /// `export { … } from` or `export * from`: a re-export.
    Export,
}

/// What the text of a declaration read so far says.
#[derive(Debug, PartialEq)]
enum Scan {
    /// The module it names.
    Found(String),
    /// It ended without naming one (`export { a };`).
    None,
    /// It goes on in the next line.
    More,
}

fn declaration(line: &str) -> Option<Kind> {
    let (kind, rest) = if let Some(rest) = line.strip_prefix("import") {
        (Kind::Import, rest)
    } else if let Some(rest) = line.strip_prefix("export") {
        (Kind::Export, rest)
    } else {
        return None;
    };
    let next = rest.trim_start().chars().next();
    let spaced = rest.starts_with(char::is_whitespace);
    match (kind, next) {
        // `import(` and `import.meta` are expressions, `imports` a name.
        (Kind::Import, Some('\'' | '"' | '{' | '*')) => Some(kind),
        (Kind::Import, Some(c)) if spaced && (c.is_alphabetic() || c == '_' || c == '$') => {
            Some(kind)
        }
        (Kind::Export, Some('{' | '*')) => Some(kind),
        _ => None,
    }
}

fn specifier(kind: Kind, text: &str) -> Scan {
    let body = text[6..].trim_start();
    if kind == Kind::Import {
        if let Some(spec) = literal(body) {
            return Scan::Found(spec);
        }
    }
    let mut at = 0;
    while let Some(found) = body[at..].find("from") {
        let start = at + found;
        at = start + 4;
        let before = body[..start].chars().next_back();
        let boundary = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'));
        if let Some(spec) = literal(body[at..].trim_start()).filter(|_| boundary) {
            return Scan::Found(spec);
        }
    }
    if body.contains(';') {
        Scan::None
    } else {
        Scan::More
    }
}

/// The string literal `text` begins with, if it begins with one.
fn literal(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &text[1..];
    rest.find(quote).map(|end| rest[..end].to_owned())
}

/// The path (relative to `web/`) that `spec`, imported by the module at
/// `from`, names; `None` for a bare name or a full URL, which are not ours.
pub(crate) fn resolve(from: &str, spec: &str) -> Option<String> {
    let mut parts: Vec<&str> = if let Some(root) = spec.strip_prefix('/') {
        return (!root.starts_with('/')).then(|| root.to_owned());
    } else if spec.starts_with("./") || spec.starts_with("../") {
        from.split('/').collect()
    } else {
        return None;
    };
    parts.pop(); // the importing file's own name
    for part in spec.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// Every module reachable from `entries` by static imports, nearest first,
/// the entries left out. `source` gives a module's text by its path, or
/// `None` if there is no such file: such a module is left out (the browser
/// would get a 404 for it either way).
pub(crate) fn graph<'a>(
    entries: &[String],
    source: impl Fn(&str) -> Option<&'a str>,
) -> Vec<String> {
    let mut seen: BTreeSet<String> = entries.iter().cloned().collect();
    let mut queue: VecDeque<String> = entries.iter().cloned().collect();
    let mut order = Vec::new();
    while let Some(module) = queue.pop_front() {
        let Some(text) = source(&module) else {
            continue;
        };
        for spec in static_imports(text) {
            let Some(path) = resolve(&module, &spec) else {
                continue;
            };
            if source(&path).is_some() && seen.insert(path.clone()) {
                order.push(path.clone());
                queue.push_back(path);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_form_of_static_import_and_only_those() {
        let source = "// @ts-check\n\
            // import { no } from './comment.js';\n\
            import { a, b } from './a.js';\n\
            import * as c from \"./c.js\";\n\
            import './side.js';\n\
            import d from './d.js'\n\
            import {\n  e,\n  fromage,\n} from './e.js';\n\
            export { f } from './f.js';\n\
            export * from './g.js';\n\
            export { local };\n\
            export function h() { return import('./lazy.js'); }\n\
            const x = import.meta.url;\n\
            /** @typedef {import('./protocol.js').T} T */\n\
            \x20 import { indented } from './indented.js';\n";
        assert_eq!(
            static_imports(source),
            [
                "./a.js",
                "./c.js",
                "./side.js",
                "./d.js",
                "./e.js",
                "./f.js",
                "./g.js"
            ]
        );
    }

    #[test]
    fn resolves_relative_and_rooted_specifiers() {
        assert_eq!(
            resolve("js/main.js", "./net.js").as_deref(),
            Some("js/net.js")
        );
        assert_eq!(resolve("js/a/b.js", "../c.js").as_deref(), Some("js/c.js"));
        assert_eq!(
            resolve("js/main.js", "/lib/x.js").as_deref(),
            Some("lib/x.js")
        );
        assert_eq!(resolve("js/main.js", "lodash"), None);
        assert_eq!(resolve("js/main.js", "//cdn.example/x.js"), None);
        assert_eq!(resolve("js/main.js", "https://cdn.example/x.js"), None);
    }

    #[test]
    fn the_graph_is_breadth_first_without_repeats_or_entries() {
        let files = [
            ("js/main.js", "import './a.js';\nimport './b.js';\n"),
            ("js/a.js", "import './c.js';\nimport './main.js';\n"),
            ("js/b.js", "import './c.js';\nimport './gone.js';\n"),
            ("js/c.js", ""),
        ];
        let source = |path: &str| files.iter().find(|(p, _)| *p == path).map(|(_, s)| *s);
        assert_eq!(
            graph(&["js/main.js".to_owned()], source),
            ["js/a.js", "js/b.js", "js/c.js"]
        );
    }
}
