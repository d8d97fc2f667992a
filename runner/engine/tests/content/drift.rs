//! Drift checks: the book's parts agree with one another. Part of the
//! `content` group; the engine runs none of this, so it lives with the tests.
//!
//! The chapter tests run every kernel; these look at what surrounds them:
//! the table of contents and the chapter files, the tips a learner asks
//! for, and the skeletons the learner's workspace is made of.

use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::kernel::constants as kernel_constants;
use puzzle_core::source::diag::Located;
use runner::book::read_summary;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every disagreement found, each at the line to fix.
pub(super) fn problems(book: &Book) -> Vec<Located> {
    let mut found = Vec::new();
    let entries = match read_summary(&book.src) {
        Ok(entries) => entries,
        Err(e) => return vec![e],
    };
    let summary_file = book.src.join("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = entries.iter().map(|e| canonical(&e.path)).collect();
    for entry in &entries {
        if !entry.path.is_file() {
            found.push(Located::new(
                &summary_file,
                entry.line,
                format!(
                    "`{}` links {}, which does not exist",
                    entry.title,
                    entry.path.display()
                ),
            ));
        }
    }
    let mut orphans = BTreeSet::new();
    for puzzle in &book.puzzles {
        let at = |message: String| {
            Located::new(
                &puzzle.spec.origin.file,
                puzzle.spec.origin.first_line,
                message,
            )
        };
        if !listed.contains(&canonical(&puzzle.chapter)) && orphans.insert(&puzzle.chapter) {
            found.push(Located::new(
                &puzzle.chapter,
                0,
                format!(
                    "this chapter declares puzzles (`{}`…) but src/SUMMARY.md does not list it, \
                     so mdBook never renders it; add it there",
                    puzzle.id()
                ),
            ));
        }
        if puzzle.spec.raw.hints.is_empty() {
            found.push(at(format!(
                "`{}` has no `hints`: `runner hint` would have nothing to say; add a tip or two",
                puzzle.id()
            )));
        }
        // A kernel given whole (measured beside a puzzle) has nothing to fill in, by design.
        for (lang, kernel) in puzzle.kernels.iter().filter(|(_, k)| !k.is_given_whole()) {
            let skeleton = kernel.skeleton().text;
            // A debugging case gives a whole kernel; it must still differ from the fix.
            let gap = kernel.is_given_with_bug() || skeleton.contains("FILL ME IN");
            if skeleton == kernel.solution().text || !gap {
                found.push(kernel.source.locate(
                    1,
                    format!(
                        "the {} skeleton of `{}` gives the learner nothing to fill in",
                        lang.label(),
                        puzzle.id()
                    ),
                ));
            }
            // The page shows the file, so the file must hold the values the teaching run uses.
            // A header it includes (another puzzle's kernel) keeps its own
            // page's values; the run rewrites them all the same.
            let teaching = &puzzle.spec.raw.constants;
            let own_file = kernel.source.lines.first().map(|o| &o.file);
            let own = |line: usize| kernel.source.lines.get(line).map(|o| &o.file) == own_file;
            for d in kernel_constants::definitions(&kernel.source, *lang, teaching)
                .into_iter()
                .filter(|d| own(d.line))
            {
                let spec_value = teaching[&d.name];
                if d.value != spec_value {
                    found.push(kernel.source.locate(
                        d.line + 1,
                        format!(
                            "the {} kernel of `{}` defines {} as {}, but the spec's `const` says {}; \
                             the teaching run uses the spec's value, so write it here too",
                            lang.label(),
                            puzzle.id(),
                            d.name,
                            d.value,
                            spec_value
                        ),
                    ));
                }
            }
            // Kernels written inline in a chapter have no folder of their own.
            let file = kernel
                .source
                .main_file()
                .filter(|f| f.extension().is_some_and(|e| e == lang.extension()));
            if let Some(wrong) = file.and_then(|f| misplaced(puzzle, f)) {
                found.push(kernel.source.locate(
                    1,
                    format!(
                        "the {} kernel of `{}` {wrong}, where AUTHORING.md (\"Names\") puts it",
                        lang.label(),
                        puzzle.id(),
                    ),
                ));
            }
        }
    }
    found
}

/// Where a puzzle's kernel file breaks the naming rule (AUTHORING.md,
/// "Names"), in words: its folder is `kernels/<part>/<id>/`, `<part>` being
/// the chapter's folder under `src/`, and its name is the spec's `kernel`,
/// or for a file of several kernels the id without its number.
fn misplaced(puzzle: &Puzzle, file: &Path) -> Option<String> {
    let folder = file.parent();
    let part = folder.and_then(Path::parent);
    // A chapter at the top of src/ keeps its kernels at the top of kernels/.
    let want_part = match name_of(puzzle.chapter.parent()) {
        Some("src") | None => "kernels",
        Some(part) => part,
    };
    let want_stem = match &puzzle.spec.raw.kernel {
        Some(kernel) => kernel.as_str(),
        None => without_number(puzzle.id()),
    };
    if name_of(folder) != Some(puzzle.id()) || name_of(part) != Some(want_part) {
        let want = match want_part {
            "kernels" => format!("kernels/{}/", puzzle.id()),
            part => format!("kernels/{part}/{}/", puzzle.id()),
        };
        return Some(format!("lives outside {want}"));
    }
    let stem = file.file_stem().and_then(|s| s.to_str());
    (stem != Some(want_stem)).then(|| {
        format!(
            "is `{}`, not named `{want_stem}.{}`",
            name_of(Some(file)).unwrap_or("?"),
            file.extension().and_then(|e| e.to_str()).unwrap_or("")
        )
    })
}

/// The last part of `path`, as text.
fn name_of(path: Option<&Path>) -> Option<&str> {
    path.and_then(Path::file_name).and_then(|n| n.to_str())
}

/// `p30_chain_unfused` without its letter and number: `chain_unfused`.
fn without_number(id: &str) -> &str {
    let mut chars = id
        .char_indices()
        .skip_while(|(_, c)| c.is_ascii_alphabetic());
    match chars.find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, '_')) => &id[at + 1..],
        _ => id,
    }
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// This module's trials, joined to the `content` group's.
pub(super) fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("content":
        ids_without_their_number_table,
        each_kind_of_drift_is_found,
    )
}

/// (what is broken, how, phrase of the problem it must cause)
type Case = (&'static str, fn(&Path), &'static str);

fn ids_without_their_number_table() {
    for (id, want) in [
        ("p30_chain_unfused", "chain_unfused"),
        ("d04_halo_off_by_one", "halo_off_by_one"),
        ("p1", "p1"),
        ("fx", "fx"),
    ] {
        assert_eq!(without_number(id), want, "{id}");
    }
}

fn each_kind_of_drift_is_found() {
    let cases: &[Case] = &[
        ("nothing", |_| {}, ""),
        (
            "a listed chapter is missing",
            |d| {
                let s = d.join("src/SUMMARY.md");
                let text = std::fs::read_to_string(&s).unwrap() + "- [Gone](gone.md)\n";
                std::fs::write(s, text).unwrap();
            },
            "links ",
        ),
        (
            "a chapter with puzzles is not listed",
            |d| {
                let s = d.join("src/SUMMARY.md");
                let text = std::fs::read_to_string(&s)
                    .unwrap()
                    .replace("- [One](one.md)\n", "");
                std::fs::write(s, text).unwrap();
            },
            "does not list it",
        ),
        (
            "a puzzle without tips",
            |d| {
                let c = d.join("src/one.md");
                let text = std::fs::read_to_string(&c)
                    .unwrap()
                    .replace("hints:\n  - first\n  - second\n", "");
                std::fs::write(c, text).unwrap();
            },
            "has no `hints`",
        ),
        (
            "a kernel file not named after its kernel",
            |d| {
                let c = d.join("src/one.md");
                let text = std::fs::read_to_string(&c)
                    .unwrap()
                    .replace("/k.cu", "/other.cu");
                std::fs::write(c, text).unwrap();
                std::fs::rename(d.join("kernels/p1/k.cu"), d.join("kernels/p1/other.cu")).unwrap();
            },
            "is `other.cu`, not named `k.cu`",
        ),
        (
            "a kernel in another puzzle's folder",
            |d| {
                let c = d.join("src/one.md");
                let text = std::fs::read_to_string(&c)
                    .unwrap()
                    .replace("p1/k.cu", "p2/k.cu");
                std::fs::write(c, text).unwrap();
                std::fs::create_dir(d.join("kernels/p2")).unwrap();
                std::fs::rename(d.join("kernels/p1/k.cu"), d.join("kernels/p2/k.cu")).unwrap();
            },
            "lives outside kernels/p1/",
        ),
        (
            "a kernel's tile size disagrees with the spec's",
            |d| {
                let c = d.join("src/one.md");
                let text = std::fs::read_to_string(&c)
                    .unwrap()
                    .replace("kernel: k\n", "kernel: k\nconst:\n  TILE: 4\n");
                std::fs::write(c, text).unwrap();
                let k = d.join("kernels/p1/k.cu");
                let text = std::fs::read_to_string(&k).unwrap();
                std::fs::write(k, format!("#define TILE 8\n{text}")).unwrap();
            },
            "defines TILE as 8, but the spec's `const` says 4",
        ),
    ];
    for (name, breakage, phrase) in cases {
        let dir = tempfile::tempdir().unwrap();
        copy(&fixture(), dir.path());
        breakage(dir.path());
        let loaded = runner::book::load(dir.path()).unwrap();
        let found = problems(&loaded);
        if phrase.is_empty() {
            assert!(found.is_empty(), "{name}: {found:?}");
        } else {
            assert_eq!(found.len(), 1, "{name}: {found:?}");
            assert!(found[0].message.contains(phrase), "{name}: {found:?}");
        }
    }
}

/// A book of two puzzles, p1 (WGSL and CUDA, from kernel files) and p2
/// (WGSL written inline in its chapter), with nothing adrift.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/drift_book")
}

/// The folder `from`, copied into `to`.
fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
