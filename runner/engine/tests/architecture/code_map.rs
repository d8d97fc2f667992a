//! docs/ARCHITECTURE.md's code map and its debts, checked against the
//! tree: everything the map names exists, every Rust file of the workspace
//! (library, CLI, tests, examples, fuzz targets) has a place in it, and the
//! functions that still return a `String` error are the ones it names.

use super::{CRATES, files, root};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The code map of `docs/ARCHITECTURE.md`: each root (`runner/engine/src/`) with
/// its entries (`perf/`, `inst.rs, call.rs`), each entry's text
/// (its line and the lines that continue it).
fn code_map(doc: &str) -> Vec<(String, String, Vec<(Vec<String>, String)>)> {
    let block = doc
        .split("## Code map")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_default();
    let mut map: Vec<(String, String, Vec<(Vec<String>, String)>)> = Vec::new();
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        // A name column, then two spaces or more, then the description.
        let (names, text) = match line.trim_start().split_once("  ") {
            Some((names, text)) => (names.trim(), text.trim()),
            None => (line.trim(), ""),
        };
        match indent {
            0 => map.push((names.to_string(), text.to_string(), Vec::new())),
            2 => {
                let names = names.split(", ").map(str::to_string).collect();
                if let Some((_, _, entries)) = map.last_mut() {
                    entries.push((names, text.to_string()));
                }
            }
            _ => match map.last_mut() {
                // Continues the last entry, or the root's own line.
                Some((_, _, entries)) if !entries.is_empty() => {
                    if let Some((_, t)) = entries.last_mut() {
                        t.push(' ');
                        t.push_str(line.trim());
                    }
                }
                Some((_, t, _)) => {
                    t.push(' ');
                    t.push_str(line.trim());
                }
                None => {}
            },
        }
    }
    map
}

/// The words of a description, for names to be found among them.
fn words(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Files every crate has, or that only tests read: no entry needed.
fn exempt(name: &str) -> bool {
    matches!(name, "lib.rs" | "main.rs" | "tests.rs" | "testdata/")
        || name.ends_with("_tests.rs")
        || name.starts_with("test_")
}

/// A folder's modules and subfolders, by name (`mod.rs` and hidden files aside).
fn children(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let path = e.path();
                    if path.is_dir() && !name.starts_with('.') {
                        Some(format!("{name}/"))
                    } else if name.ends_with(".rs") && name != "mod.rs" {
                        Some(name)
                    } else {
                        None
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// docs/ARCHITECTURE.md's code map is true: everything it names exists;
/// every module and folder of a crate's source root has an entry of its
/// own; and every module of a folder with an entry is named in that entry.
pub fn the_code_map_names_every_module_and_nothing_else() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the doc");
    let map = code_map(&doc);
    assert!(map.len() >= 8, "the code map was not found: {map:?}");
    let mut problems = Vec::new();
    for (root_name, about, entries) in &map {
        let dir = root().join(root_name);
        if !dir.exists() {
            problems.push(format!("{root_name} does not exist"));
            continue;
        }
        if !dir.is_dir() {
            continue;
        }
        let named: BTreeSet<&str> = entries
            .iter()
            .flat_map(|(names, _)| names.iter().map(String::as_str))
            .collect();
        for name in &named {
            if !dir.join(name).exists() {
                problems.push(format!(
                    "{root_name}{name} is in the code map but not in the tree"
                ));
            }
        }
        // Crate roots: every module and folder has an entry, or is named
        // in the root's own line.
        if CRATES
            .iter()
            .any(|(_, src)| format!("{src}/") == *root_name)
        {
            let said = words(about);
            for child in children(&dir).into_iter().filter(|c| !exempt(c)) {
                let stem = child.trim_end_matches('/').trim_end_matches(".rs");
                if !named.contains(child.as_str()) && !said.contains(stem) {
                    problems.push(format!("{root_name}{child} has no entry in the code map"));
                }
            }
        }
        // A folder's entry names each of its modules.
        for (names, text) in entries {
            for folder in names.iter().filter(|n| n.ends_with('/')) {
                let said = words(text);
                for child in children(&dir.join(folder))
                    .into_iter()
                    .filter(|c| !exempt(c))
                {
                    let stem = child.trim_end_matches('/').trim_end_matches(".rs");
                    if !said.contains(stem) {
                        problems.push(format!(
                            "{root_name}{folder}{child} is not named in its folder's entry"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md's code map:\n{}",
        problems.join("\n")
    );
}

/// The folders of the workspace's packages: every Rust file under them has
/// a place in the code map.
const PACKAGES: &[&str] = &["runner", "preprocessor", "tests"];

/// Every Rust file under `dir` (build output and hidden folders aside), as
/// paths relative to the workspace root with `/` between parts.
fn rust_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path: PathBuf = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    pending.push(path);
                }
            } else if name.ends_with(".rs") {
                let relative = path.strip_prefix(root()).unwrap_or(&path);
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

/// Where `path` (a Rust file, relative to the workspace root) is placed in
/// `map`, or why it is not: under its nearest root, the entry naming its
/// first part names every deeper folder and the file too; with no such
/// entry, the root's own line names them all.
fn placed(map: &[(String, String, Vec<(Vec<String>, String)>)], path: &str) -> Result<(), String> {
    let Some((root_name, about, entries)) = map
        .iter()
        .filter(|(r, _, _)| r.ends_with('/') && path.starts_with(r.as_str()))
        .max_by_key(|(r, _, _)| r.len())
    else {
        return Err(format!("{path} is under no root of the code map"));
    };
    let parts: Vec<String> = {
        let rest: Vec<&str> = path[root_name.len()..].split('/').collect();
        let last = rest.len() - 1;
        rest.iter()
            .enumerate()
            .map(|(i, p)| {
                if i < last {
                    format!("{p}/")
                } else {
                    p.to_string()
                }
            })
            .collect()
    };
    let stem = |p: &str| p.trim_end_matches('/').trim_end_matches(".rs").to_string();
    let entry = entries.iter().find(|(names, _)| names.contains(&parts[0]));
    let (said, deeper) = match entry {
        Some((_, text)) => (words(text), &parts[1..]),
        None => (words(about), &parts[..]),
    };
    let missing: Vec<String> = deeper
        .iter()
        .map(|p| stem(p))
        .filter(|s| s != "mod" && !said.contains(s.as_str()))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        let place = entry.map_or(root_name.clone(), |(names, _)| {
            format!("{root_name}{}", names.join(", "))
        });
        Err(format!(
            "{path}: {place} does not name {}",
            missing.join(", ")
        ))
    }
}

/// The code map places every Rust file of the workspace: the crates'
/// modules, the CLI, the book tests, the examples and the fuzz targets.
pub fn every_rust_file_has_a_place_in_the_code_map() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the doc");
    let map = code_map(&doc);
    let mut problems = Vec::new();
    let mut seen = 0;
    for package in PACKAGES {
        for path in rust_files(&root().join(package)) {
            let name = path.rsplit('/').next().unwrap_or(&path);
            if exempt(name) || name == "mod.rs" {
                continue;
            }
            seen += 1;
            if let Err(problem) = placed(&map, &path) {
                problems.push(problem);
            }
        }
    }
    assert!(seen > 200, "only {seen} Rust files were found");
    assert!(
        problems.is_empty(),
        "docs/ARCHITECTURE.md's code map:\n{}",
        problems.join("\n")
    );
    // The rule on itself: a file the map does not name is found.
    let unnamed = "runner/engine/src/backend/wgpu/unnamed_module.rs";
    assert!(placed(&map, unnamed).is_err(), "{unnamed} was placed");
}

/// The functions of library code that return `Result<_, String>`, each as
/// `Type::name` (a method) or `module::name`.
fn string_errors() -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (krate, src) in CRATES {
        for f in files(&root().join(src)) {
            let code = &f.code;
            let mut at = 0;
            while let Some(i) = code[at..].find("-> Result<").map(|i| i + at) {
                at = i + "-> Result<".len();
                if !error_is_string(&code[at..]) {
                    continue;
                }
                let before = &code[..i];
                let Some(fn_at) = before.rfind("fn ") else {
                    continue;
                };
                let name: String = before[fn_at + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                // A method's line is indented, under its `impl` at column 0.
                let line_start = before[..fn_at].rfind('\n').map_or(0, |n| n + 1);
                let indented = before[line_start..fn_at].starts_with(' ');
                let owner = match before[..fn_at].rfind("\nimpl") {
                    Some(impl_at) if indented => impl_type(&before[impl_at + 5..]),
                    _ => f
                        .module
                        .last()
                        .cloned()
                        .unwrap_or_else(|| krate.to_string()),
                };
                found.insert(format!("{owner}::{name}"));
            }
        }
    }
    found
}

/// Whether `Result<`'s arguments (the text after it) end in `, String>`.
fn error_is_string(args: &str) -> bool {
    let mut depth = 0usize;
    let mut last_comma = None;
    let bytes = args.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            // `->` inside a closure's type is no bracket.
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' if depth == 0 => {
                return last_comma.is_some_and(|c: usize| args[c + 1..i].trim() == "String");
            }
            b'>' => depth -= 1,
            b',' if depth == 0 => last_comma = Some(i),
            b'{' | b';' => return false,
            _ => {}
        }
    }
    false
}

/// The type an `impl` line is for: `<T> Trait for Type<T> {` → `Type`.
fn impl_type(line: &str) -> String {
    let line = line.lines().next().unwrap_or_default();
    let mut rest = line.trim_start();
    if rest.starts_with('<') {
        rest = rest.split_once('>').map_or(rest, |(_, r)| r.trim_start());
    }
    if let Some((_, ty)) = rest.split_once(" for ") {
        rest = ty.trim_start();
    }
    rest.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// `n` in words, as the doc writes counts.
fn in_words(n: usize) -> String {
    const WORDS: [&str; 11] = [
        "No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// docs/ARCHITECTURE.md names every library function that still returns a
/// `String` error, and says how many there are.
pub fn the_doc_names_every_string_error() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the doc");
    let found = string_errors();
    assert!(
        !found.is_empty(),
        "no `Result<_, String>` was found: the scan is broken"
    );
    // The invariant's paragraph: from its bullet to the next.
    let paragraph = doc
        .split("\n- ")
        .find(|p| p.starts_with("**Errors are typed"))
        .expect("the doc's invariant on errors");
    let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut problems: Vec<String> = found
        .iter()
        .filter(|f| !paragraph.contains(&format!("`{f}`")))
        .map(|f| format!("`{f}` returns a `String` error, and the doc does not name it"))
        .collect();
    let count = format!(
        "{} functions still return a `String` error",
        in_words(found.len())
    );
    if !paragraph.contains(&count) {
        problems.push(format!("the doc should say \"{count}\""));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
