//! The engine's API boundary (docs/ARCHITECTURE.md, "API boundaries"): the
//! `runner` library's modules are private to it, but for the facades listed
//! there and here, so the preprocessor, the command line, the tests and the
//! examples reach the engine only through what those facades re-export.

use super::{files, root};
use std::collections::BTreeSet;

/// The public modules of `runner`, as paths from its root: the five facades
/// its `lib.rs` declares, and the three surfaces `perf` keeps whole.
const RUNNER_FACADES: &[&str] = &[
    "backend",
    "book",
    "learner",
    "perf",
    "perf::chart",
    "perf::record",
    "perf::roofline",
    "run",
];

/// Every module declared `pub mod` (not `pub(crate)`, not private) under
/// `src`, as a path from the crate's root (`perf::record`). Inline test
/// modules are cut before the rule reads a file.
fn public_modules(src: &std::path::Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for file in files(src) {
        for line in file.code.lines() {
            let Some(rest) = line.trim().strip_prefix("pub mod ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let mut path = file.module.clone();
            path.push(name);
            found.insert(path.join("::"));
        }
    }
    found
}

/// `runner` declares no `pub mod` but its facades, each of which the
/// architecture document names as `runner::<path>` in its API boundaries.
pub(super) fn the_engine_is_reached_through_its_facades_alone() {
    let public = public_modules(&root().join("runner/engine/src"));
    let listed: BTreeSet<String> = RUNNER_FACADES.iter().map(|s| s.to_string()).collect();
    let extra: Vec<&String> = public.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&public).collect();
    assert!(
        extra.is_empty() && gone.is_empty(),
        "runner's public modules are not its facades: declared `pub mod` but no \
         facade: {extra:?} (make them `pub(crate) mod`, and re-export what \
         another crate needs from a facade); listed but not public: {gone:?}"
    );
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let section = doc
        .split("### API boundaries")
        .nth(1)
        .and_then(|rest| rest.split("\nWhy this cut:").next())
        .unwrap_or_default();
    let unnamed: Vec<&&str> = RUNNER_FACADES
        .iter()
        .filter(|f| !section.contains(&format!("`runner::{f}`")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "docs/ARCHITECTURE.md's API boundaries do not name runner's facades {unnamed:?}"
    );
}
