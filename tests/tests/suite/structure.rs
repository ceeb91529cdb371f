//! The module graph of every crate has no cycle. Reads each crate's sources
//! (not a server): a module is a file (`a.rs` or `a/mod.rs`), and it uses
//! another where its code names a path into it (`crate::a::b`, `super::b`,
//! `self::b`, one level of `{…}` groups expanded; comments skipped; test
//! modules included, since they are part of the graph a reader follows).
//! Two modules are in a cycle when, under their common parent, the branch
//! holding one uses the branch holding the other and back (the way
//! `arena ↔ arena_work` was one: a file deep in each named the other).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path from its crate's root (`[]` for `lib.rs`/`main.rs`).
type Module = Vec<String>;

/// Each workspace crate's source folder.
const CRATES: &[&str] = &[
    "contract/src",
    "engine/src",
    "store/src",
    "bots/src",
    "arena/src",
    "server/src",
    "client-cli/src",
    "tests/src",
    "python/src",
];

#[test]
fn no_crate_has_a_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in CRATES {
        let src = root.join(krate);
        assert!(src.is_dir(), "{} is not a folder", src.display());
        for cycle in cycles(&src) {
            found.push(format!("{krate}: {cycle}"));
        }
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

#[test]
fn a_cycle_is_found_where_there_is_one() {
    let dir = std::env::temp_dir().join(format!("druids-structure-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod deep;\n").unwrap();
    // A file deep inside `a` uses `b`, and `b` uses `a` through a group.
    std::fs::write(dir.join("a/deep.rs"), "use crate::b::Thing;\n").unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "// crate::c in a comment is no use\nuse crate::{a::deep, x};\n",
    )
    .unwrap();
    let found = cycles(&dir);
    std::fs::write(dir.join("b.rs"), "pub struct Thing;\n").unwrap();
    let none = cycles(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found, ["crate: a ↔ b"]);
    assert!(none.is_empty(), "{none:?}");
}

/// The cycles among sibling modules, each as "parent: a ↔ b ↔ …".
fn cycles(src: &Path) -> Vec<String> {
    let files = module_files(src);
    let mut modules: BTreeSet<Module> = BTreeSet::new();
    for m in files.keys() {
        for n in 0..=m.len() {
            modules.insert(m[..n].to_vec());
        }
    }
    // Under each parent, which child branch uses which.
    let mut under: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, file) in &files {
        let code = std::fs::read_to_string(file).unwrap();
        for path in named_paths(&code) {
            let Some(to) = resolve(from, &path, &modules) else {
                continue;
            };
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                under
                    .entry(from[..common].to_vec())
                    .or_default()
                    .entry(from[common].clone())
                    .or_default()
                    .insert(to[common].clone());
            }
        }
    }
    let mut found = Vec::new();
    for (parent, uses) in &under {
        for component in strongly_connected(uses) {
            let parent = if parent.is_empty() {
                "crate".to_string()
            } else {
                parent.join("::")
            };
            found.push(format!("{parent}: {}", component.join(" ↔ ")));
        }
    }
    found
}

/// Every `.rs` file under `src`, by the module it is.
fn module_files(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut files = BTreeMap::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            if module == ["lib"] || module == ["main"] {
                module.clear();
            }
            files.insert(module, path);
        }
    }
    files
}

/// The paths that start at `crate`, `super` or `self` in `code`, comments
/// left out, one level of `{a, b::c}` groups expanded.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut paths = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let starts = ["crate", "super", "self"]
            .into_iter()
            .find(|w| code[i..].starts_with(w) && (i == 0 || !ident(bytes[i - 1])));
        let Some(word) = starts else {
            i += 1;
            continue;
        };
        let mut path = vec![word.to_string()];
        let mut j = i + word.len();
        while code[j..].starts_with("::") {
            j += 2;
            if code[j..].starts_with('{') {
                let end = code[j..].find('}').map_or(code.len(), |e| j + e);
                for item in code[j + 1..end].split(',') {
                    let item = item.split(" as ").next().unwrap_or("").trim();
                    if item.is_empty() || item == "self" || item.contains('{') {
                        continue;
                    }
                    let mut grouped = path.clone();
                    grouped.extend(item.split("::").map(|s| s.trim().to_string()));
                    paths.push(grouped);
                }
                j = end;
                break;
            }
            let start = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            if start == j {
                break;
            }
            path.push(code[start..j].to_string());
        }
        if path.len() > 1 {
            paths.push(path);
        }
        i = j.max(i + 1);
    }
    paths
}

/// The longest module `path` (seen from `from`) names, if any.
fn resolve(from: &Module, path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut base: Module = match path[0].as_str() {
        "crate" => Vec::new(),
        "self" => from.clone(),
        _ => from[..from.len().saturating_sub(1)].to_vec(),
    };
    let mut rest = &path[1..];
    while path[0] == "super" && rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut best = None;
    for segment in rest {
        base.push(segment.clone());
        if modules.contains(&base) {
            best = Some(base.clone());
        } else {
            break;
        }
    }
    best
}

/// Tarjan's strongly connected components of more than one node, each sorted.
fn strongly_connected(uses: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        uses: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.uses.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().rposition(|s| *s == v).unwrap();
                let mut component: Vec<String> =
                    self.stack.drain(at..).map(str::to_string).collect();
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        uses,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in uses.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}
