//! The shape of the engine, checked: the invariants `docs/ARCHITECTURE.md`
//! states, measured on the source tree.
//!
//! - no import cycle between modules, in any crate of the engine;
//! - no source file over 700 lines of library code (every line but those
//!   of its inline test modules: see `source`);
//! - the engine (`runner`) declares no public module but its facades (see
//!   `boundary`);
//! - docs/ARCHITECTURE.md's code map places every Rust file, and names the
//!   functions that still return a `String` error (see `code_map`);
//! - the core (`runner/core`), the checker (`runner/wgsl-sim`) and the browser's
//!   module (`runner/web`) touch no files,
//!   processes, threads, environment or clock, and depend on nothing that
//!   does, so they compile to WebAssembly and judge a kernel in a browser as
//!   they do in the CLI; the CUDA checker (`runner/ptx-sim`) keeps the same
//!   rules as WGSL's, an interpreter that knows no files.
//!
//! A "module" here is a file together with its private child files (`mod x;`
//! without `pub`): one type's methods split over several files are one unit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod boundary;
mod code_map;
mod source;

use boundary::the_engine_is_reached_through_its_facades_alone;

use code_map::{
    every_rust_file_has_a_place_in_the_code_map, the_code_map_names_every_module_and_nothing_else,
    the_doc_names_every_string_error,
};

/// The crates of the engine, by source root.
const CRATES: &[(&str, &str)] = &[
    ("puzzle_core", "runner/core/src"),
    ("gpu_hazard", "runner/hazard/src"),
    ("wgsl_sim", "runner/wgsl-sim/src"),
    ("ptx_sim", "runner/ptx-sim/src"),
    ("puzzle_web", "runner/web/src"),
    ("runner", "runner/engine/src"),
    ("runner_cli", "runner/cli/src"),
    ("mdbook_puzzles", "preprocessor/src"),
    ("puzzle_fuzz", "runner/fuzz/src"),
];

/// A source file over this many lines of library code is doing too much.
const MAX_LINES: usize = 700;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("workspace root")
        .to_path_buf()
}

/// One source file of a crate.
struct File {
    /// Module path from the crate root (`["spec", "resolve"]`; the root is `[]`).
    module: Vec<String>,
    /// Its text without its inline test modules, comments removed.
    code: String,
    /// Its lines, those of its inline test modules aside.
    lines: usize,
    /// Child modules it declares privately (`mod x;`), and those only for tests.
    private_children: BTreeSet<String>,
    test_children: BTreeSet<String>,
}

fn files(src: &Path) -> Vec<File> {
    let mut found = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(read(src, &path));
            }
        }
    }
    // Files declared for tests only are tests, not modules of the engine.
    let tests: BTreeSet<Vec<String>> = found
        .iter()
        .flat_map(|f| {
            f.test_children.iter().map(|c| {
                let mut m = f.module.clone();
                m.push(c.clone());
                m
            })
        })
        .collect();
    found.retain(|f| !tests.contains(&f.module));
    found
}

fn read(src: &Path, path: &Path) -> File {
    let text = std::fs::read_to_string(path).unwrap();
    let relative = path.strip_prefix(src).unwrap();
    parse(module_path(relative), &text)
}

/// The module path of a file, from its path under the crate's source root.
fn module_path(relative: &Path) -> Vec<String> {
    let mut module: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        module.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        module.pop();
    }
    module
}

/// One file's text as the rules read it: every line but those of its
/// inline test modules (a `mod tests;` declaration cuts nothing).
fn parse(module: Vec<String>, text: &str) -> File {
    let library = source::library_text(text);
    let body = library.as_str();
    let mut private_children = BTreeSet::new();
    let mut test_children = BTreeSet::new();
    let mut previous = "";
    for line in body.lines() {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            if previous == "#[cfg(test)]" {
                test_children.insert(name.to_string());
            } else {
                private_children.insert(name.to_string());
            }
        }
        previous = line;
    }
    let code: String = body
        .lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    File {
        module,
        code,
        lines: source::library_lines(text),
        private_children,
        test_children,
    }
}

/// Every module path that `code` (in `module`) names through `crate::`,
/// `super::` or `self::`, as written (possibly ending in an item's name).
fn paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut at = 0;
        while let Some(i) = code[at..].find(start).map(|i| i + at) {
            at = i + start.len();
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            // `super::` names the parent of the module the code is in.
            let mut base: Vec<String> = match start {
                "crate::" => vec![],
                "self::" => module.to_vec(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            // Chains of `super::super::`.
            let mut rest = &code[at..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            for path in expand(rest) {
                let mut full = base.clone();
                full.extend(path);
                found.push(full);
            }
        }
    }
    found
}

/// `a::b::{c, d::E}` → [a,b,c], [a,b,d,E]; stops at the first character
/// that cannot continue a path.
fn expand(text: &str) -> Vec<Vec<String>> {
    let mut head = Vec::new();
    let mut word = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek().map(|&(_, c)| c) == Some(':') {
            chars.next();
            head.push(std::mem::take(&mut word));
        } else if c == '{' && word.is_empty() {
            // A group: split at the commas of this level.
            let inner = &text[i + 1..];
            let mut depth = 0;
            let mut parts = Vec::new();
            let mut from = 0;
            for (j, d) in inner.char_indices() {
                match d {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        parts.push(&inner[from..j]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        parts.push(&inner[from..j]);
                        from = j + 1;
                    }
                    _ => {}
                }
            }
            let mut all = Vec::new();
            for part in parts {
                for tail in expand(part.trim()) {
                    let mut p = head.clone();
                    p.extend(tail);
                    all.push(p);
                }
            }
            return all;
        } else {
            break;
        }
    }
    if !word.is_empty() && word != "self" {
        head.push(word);
    }
    vec![head]
}

/// The modules of one crate, each mapped to its unit (a module with its
/// private children), and the edges between units.
fn graph(src: &Path) -> (Vec<File>, BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) {
    let files = files(src);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    // A private child belongs to its parent's unit.
    let unit = |m: &[String]| -> Vec<String> {
        let mut m = m.to_vec();
        loop {
            let Some((last, parent)) = m.split_last() else {
                return m;
            };
            let private = files
                .iter()
                .find(|f| f.module == parent)
                .is_some_and(|f| f.private_children.contains(last));
            if !private {
                return m;
            }
            m = parent.to_vec();
        }
    };
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in &files {
        let from = unit(&f.module);
        for path in paths(&f.module, &f.code) {
            // The longest prefix that is a module is the module named.
            let Some(target) = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p))
            else {
                continue;
            };
            let to = unit(&target);
            if to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    (files, edges)
}

/// A cycle in `edges`, if there is one.
fn cycle(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<Vec<String>>> {
    fn visit(
        node: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let from = stack.iter().position(|n| n == node).unwrap_or(0);
                let mut found = stack[from..].to_vec();
                found.push(node.clone());
                return Some(found);
            }
            _ => {}
        }
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if let Some(c) = visit(node, edges, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

fn show(module: &[String]) -> String {
    if module.is_empty() {
        "(crate root)".into()
    } else {
        module.join("::")
    }
}

fn no_module_imports_another_that_imports_it_back() {
    let mut cycles = Vec::new();
    for (name, src) in CRATES {
        let (_, edges) = graph(&root().join(src));
        if let Some(c) = cycle(&edges) {
            let c: Vec<String> = c.iter().map(|m| show(m)).collect();
            cycles.push(format!("{name}: {}", c.join(" → ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The folders of each crate depend on one another in one direction too
/// (`spec` never imports `chapter`, which imports `spec`).
fn no_folder_imports_another_that_imports_it_back() {
    let mut cycles = Vec::new();
    for (name, src) in CRATES {
        let (_, edges) = graph(&root().join(src));
        let mut folders: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (from, tos) in &edges {
            for to in tos {
                let (a, b) = (
                    from[..from.len().min(1)].to_vec(),
                    to[..to.len().min(1)].to_vec(),
                );
                if a != b && !a.is_empty() && !b.is_empty() {
                    folders.entry(a).or_default().insert(b);
                }
            }
        }
        if let Some(c) = cycle(&folders) {
            let c: Vec<String> = c.iter().map(|m| show(m)).collect();
            cycles.push(format!("{name}: {}", c.join(" → ")));
        }
    }
    assert!(cycles.is_empty(), "folder cycles:\n{}", cycles.join("\n"));
}

/// The size rule: a file's library lines over the cap, if they are.
fn too_long(f: &File) -> Option<usize> {
    (f.lines > MAX_LINES).then_some(f.lines)
}

fn no_source_file_is_over_700_lines() {
    let mut long = Vec::new();
    for (_, src) in CRATES {
        let dir = root().join(src);
        for f in files(&dir) {
            if let Some(lines) = too_long(&f) {
                long.push(format!("{src}/{}: {lines} lines", show(&f.module)));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The size rule reads every line of library code: a test module is cut
/// where its braces close (not where it starts, not at a `mod tests;`
/// declaration), whatever strings, characters or comments it holds.
fn the_size_rule_counts_every_library_line() {
    let code = |n: usize| "fn f() {}\n".repeat(n);
    let long_tests = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", code(800));
    let cases: Vec<(&str, String, usize)> = vec![
        (
            "a declaration of tests cuts nothing",
            format!("#[cfg(test)]\nmod tests;\n\n{}", code(720)),
            723,
        ),
        (
            "an inline test module is cut",
            format!("{}\n{long_tests}", code(10)),
            10,
        ),
        (
            "code after an inline test module counts",
            format!("{}\n{long_tests}\n{}", code(10), code(720)),
            733,
        ),
        (
            "braces in literals and comments do not end the module early",
            format!(
                "{}\n#[cfg(test)]\npub(crate) mod tests {{\n    const A: &str = \"}}\";\n    \
                 const B: char = '}}';\n    const C: &str = r#\"}}\"#;\n    // }}\n    \
                 /* }} /* }} */ */\n    fn g<'a>(x: &'a str) -> &'a str {{ x }}\n}}\n{}",
                code(5),
                code(3)
            ),
            10,
        ),
        (
            "attributes after cfg(test)",
            format!(
                "{}\n#[cfg(test)]\n#[allow(dead_code)]\nmod checks {{\n{}}}\n",
                code(4),
                code(900)
            ),
            4,
        ),
        (
            "cfg(test) on a function is library-sized code still",
            format!("#[cfg(test)]\nfn helper() {{}}\n{}", code(699)),
            701,
        ),
    ];
    for (what, text, want) in &cases {
        assert_eq!(source::library_lines(text), *want, "{what}");
    }
    // A 700-line module behind a `mod tests;` declaration breaks the rule.
    let hidden = parse(vec!["bus".into()], &cases[0].1);
    assert_eq!(
        too_long(&hidden),
        Some(723),
        "the declaration hid the module"
    );
    assert!(hidden.test_children.contains("tests"));
}

/// What code that runs in a browser may not use: files, processes, the
/// environment, threads, std's clock.
const OUTSIDE: &[&str] = &[
    "std::fs",
    "std::process",
    "std::env::var",
    "std::thread",
    "Instant::now",
    "SystemTime",
];

/// What the checkers and the crate below them may not use: the core's
/// list, and no environment, no paths at all.
const KNOWS_NO_FILES: &[&str] = &[
    "std::fs",
    "std::process",
    "std::env",
    "std::thread",
    "Instant::now",
    "SystemTime",
    "Path",
];

/// (crate folder, dependencies it may have, words its code may not use)
const CONTAINED: &[(&str, &[&str], &[&str])] = &[
    (
        "runner/core",
        &[
            // bf16 and f16 to and from f64: arithmetic only, no_std.
            "half",
            // e4m3 to and from f64, the same way.
            "float8",
            // Integers to text, for the access diagram's SVG: no I/O.
            "itoa",
            // Transcendental functions, identical on every platform.
            "libm",
            "naga",
            "pulldown-cmark",
            "serde",
            "serde-saphyr",
            "serde_json",
            "thiserror",
            "wgsl-sim",
            // The kinds of finding and the seeded generator, shared with the checkers.
            "gpu-hazard",
        ],
        OUTSIDE,
    ),
    // The browser's module: the core, and JSON to the page (its bindings
    // to JavaScript are dependencies of the wasm32 target only).
    (
        "runner/web",
        &["puzzle-core", "serde", "serde_json"],
        OUTSIDE,
    ),
    // What both checkers and the core share: kinds of finding, the generator.
    ("runner/hazard", &["serde"], KNOWS_NO_FILES),
    (
        "runner/wgsl-sim",
        &["libm", "naga", "gpu-hazard"],
        KNOWS_NO_FILES,
    ),
    // The CUDA checker: PTX text in, bytes out; NVRTC is the engine's.
    (
        "runner/ptx-sim",
        &["libm", "half", "float8", "gpu-hazard"],
        KNOWS_NO_FILES,
    ),
];

/// The core reads no files and the checkers know none; none starts a
/// process or a thread, reads the environment or the clock (the caller
/// gives the clock), or depends on a crate that might.
fn the_core_and_the_checker_touch_nothing_outside() {
    let mut found = Vec::new();
    for (folder, allowed, forbidden) in CONTAINED {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        let table: toml::Table = manifest.parse().unwrap();
        let deps = table.get("dependencies").and_then(|d| d.as_table());
        for dep in deps.into_iter().flat_map(|d| d.keys()) {
            if !allowed.contains(&dep.as_str()) {
                found.push(format!("{folder} depends on `{dep}`"));
            }
        }
        for f in files(&root().join(folder).join("src")) {
            // The sim's system clock is the one default a caller may replace.
            let code = f.code.replace("std::time::Instant::now", "");
            for word in *forbidden {
                if code.contains(word) {
                    found.push(format!("{folder}/src/{} uses `{word}`", show(&f.module)));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The test's own parser, on the forms the crates use.
fn paths_are_read_as_written() {
    let m = |s: &[&str]| s.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    let cases: [(&[&str], &str, Vec<Vec<String>>); 5] = [
        (
            &["a", "b"],
            "use crate::x::y::Z;",
            vec![m(&["x", "y", "Z"])],
        ),
        (&["a", "b"], "use super::c;", vec![m(&["a", "c"])]),
        (
            &["a"],
            "use crate::{p::Q, r::{s, t::U}};",
            vec![m(&["p", "Q"]), m(&["r", "s"]), m(&["r", "t", "U"])],
        ),
        (&["a", "b"], "let x = crate::k::f(1);", vec![m(&["k", "f"])]),
        (&["a"], "use super::super::x;", vec![m(&["x"])]),
    ];
    for (module, code, want) in cases {
        assert_eq!(paths(&m(module), code), want, "{code}");
    }
}

/// A crate's `[dependencies]` table, by name.
fn dependencies(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).expect("the manifest");
    let table: toml::Table = text.parse().expect("TOML");
    table
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

/// The crates table of docs/ARCHITECTURE.md: where a crate's list of
/// dependencies is whole (no "…", no prose), it is its `Cargo.toml`'s.
fn the_crates_table_lists_each_crates_dependencies() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("the doc");
    let mut checked = 0;
    for row in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        let [_, folder, _, deps] = cells[..] else {
            continue;
        };
        let whole = !deps.contains('…') && !deps.contains(';') && !deps.contains(" the ");
        if !whole {
            continue;
        }
        let folder = folder.trim_matches('`');
        let listed: BTreeSet<String> = deps
            .split(", ")
            .map(|d| d.trim_matches('`').to_string())
            .collect();
        let real = dependencies(&root().join(folder).join("Cargo.toml"));
        assert_eq!(listed, real, "the crates table's row for {folder}");
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} rows were checked");
}

/// Each package's features, as `cargo tree` resolves them for `selection`.
fn features(selection: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "tree",
            "--quiet",
            "--offline",
            "--locked",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}|{f}"])
        .args(selection)
        .current_dir(root())
        .output()
        .expect("running cargo tree");
    assert!(
        output.status.success(),
        "cargo tree {selection:?} (offline: every crate of the workspace must be fetched \
         first, which `cargo fetch --locked` and `bash .ci/setup` do): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut packages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some((package, list)) = line.split_once('|') else {
            continue;
        };
        // "name v1.2.3 (/path)" for the workspace's own: the name and version name it.
        let package: String = package.split(' ').take(2).collect::<Vec<_>>().join(" ");
        let list = list.trim_end_matches(" (*)");
        packages
            .entry(package)
            .or_default()
            .extend(list.split(',').filter(|f| !f.is_empty()).map(String::from));
    }
    packages
}

/// `cargo test -p runner` (the README's command), `cargo run -p runner-cli`,
/// the preprocessor's own build and the workspace's tests all build the
/// shared dependencies with the same features, so CI and a learner compile
/// them once (runner/engine/Cargo.toml's "feature parity" lines). A dependency
/// whose features differ between two of these commands is listed.
fn every_build_of_the_workspace_shares_its_dependencies() {
    let workspace = features(&["--workspace"]);
    assert!(
        workspace.len() > 100,
        "cargo tree listed {} packages",
        workspace.len()
    );
    let mut problems = Vec::new();
    for selection in [
        &["-p", "runner"][..],
        &["-p", "runner-cli", "-e", "normal,build"],
        &["-p", "mdbook-puzzles", "-e", "normal,build"],
        &["--workspace", "--exclude", "runner"],
    ] {
        for (package, features) in features(selection) {
            let all = &workspace[&package];
            if &features != all {
                let missing: Vec<_> = all.difference(&features).collect();
                problems.push(format!("{selection:?}: {package} lacks {missing:?}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "builds that would compile a dependency a second time, with other features \
         (add the features to runner/engine/Cargo.toml's feature parity lines):\n{}",
        problems.join("\n")
    );
}

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("architecture":
        no_module_imports_another_that_imports_it_back,
        no_folder_imports_another_that_imports_it_back,
        no_source_file_is_over_700_lines,
        the_size_rule_counts_every_library_line,
        the_core_and_the_checker_touch_nothing_outside,
        paths_are_read_as_written,
        the_code_map_names_every_module_and_nothing_else,
        every_rust_file_has_a_place_in_the_code_map,
        the_doc_names_every_string_error,
        the_crates_table_lists_each_crates_dependencies,
        every_build_of_the_workspace_shares_its_dependencies,
        the_engine_is_reached_through_its_facades_alone,
    )
}
