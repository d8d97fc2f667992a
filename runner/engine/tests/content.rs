//! Drift checks on the real book: its table of contents, chapters, tips and
//! skeletons agree, and the learner's workspace can be made from it.
//! (The chapter tests run the kernels; `drift` holds the checks.)

use puzzle_core::chapter::book::Book;
use puzzle_core::lang::Lang;
use runner::learner::Workspace;
use std::path::Path;

/// The book's parts against one another: table of contents, tips,
/// skeletons, kernel constants and folders.
mod drift;

/// No chapter uses an idea before the chapter that teaches it.
mod concepts;

/// First hints and gap markers against the truth.
mod teaching;

/// The commands a page shows, and the files it names, against a fresh clone.
mod commands;

fn book() -> Book {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap();
    runner::book::load(root).unwrap_or_else(|errors| panic!("the book does not load: {errors:?}"))
}

fn the_book_has_no_drift() {
    let book = book();
    let problems = drift::problems(&book);
    let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(list.is_empty(), "{}", list.join("\n"));
}

fn every_chapter_of_the_summary_exists_and_has_a_title() {
    let book = book();
    let entries = runner::book::read_summary(&book.src).unwrap();
    assert!(entries.len() >= 15, "SUMMARY.md lists only {entries:?}");
    for e in entries {
        assert!(e.path.is_file(), "{}", e.path.display());
        assert!(!e.title.trim().is_empty(), "{e:?}");
    }
}

fn every_puzzle_has_tips_and_a_kernel_or_a_reason_in_each_language() {
    for puzzle in &book().puzzles {
        assert!(
            !puzzle.spec.raw.hints.is_empty(),
            "{} has no hints",
            puzzle.id()
        );
        for lang in Lang::ALL {
            let reason = puzzle.spec.raw.why_no_kernel.get(&lang);
            assert!(
                puzzle.kernel(lang).is_some() || reason.is_some_and(|r| !r.trim().is_empty()),
                "{} has neither a {} kernel nor a why_no_kernel reason",
                puzzle.id(),
                lang.label()
            );
        }
    }
}

fn the_workspace_holds_every_skeleton_in_reading_order() {
    let book = book();
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(&book, Some(dir.path().join(".learner")));
    let created = ws.ensure(&book).unwrap();
    let kernels: usize = book.puzzles.iter().map(|p| p.kernels.len()).sum();
    assert_eq!(created.files.len(), kernels);
    for puzzle in &book.puzzles {
        for (&lang, kernel) in &puzzle.kernels {
            let file = ws.file(puzzle, lang);
            assert_eq!(
                std::fs::read_to_string(&file).unwrap(),
                kernel.skeleton().text,
                "{}",
                file.display()
            );
            assert_eq!(
                ws.locate(&book, &file).map(|(p, l)| (p.id(), l)),
                Some((puzzle.id(), lang))
            );
        }
    }
    // Reading order follows SUMMARY.md: puzzle 1 first, the views chapter before puzzle 9.
    let order: Vec<&str> = runner::learner::learning_order(&book)
        .iter()
        .map(|p| p.id())
        .collect();
    assert_eq!(order.first(), Some(&"p01_map"));
    let at = |id: &str| order.iter().position(|p| *p == id).unwrap();
    assert!(at("p08_shared") < at("p04_map_2d_view"), "{order:?}");
    assert!(at("p04_map_2d_view") < at("p09_pooling"), "{order:?}");
    assert!(at("p13_row_sum") < at("p14_matmul_naive"), "{order:?}");
}

/// The fused attention never allocates the SEQ x SEQ scores. At 16,384 tokens
/// and DIM 128, one head: q, k, v and the output are 8 MiB each; the three
/// kernels add 1 GiB of scores, the fused kernel nothing. Sizes only, as the
/// runner resolves them before a benchmark allocates anything.
fn attention_allocates_the_scores_only_unfused() {
    let book = book();
    let bytes = |id: &str| -> u64 {
        let puzzle = book.find(id).unwrap();
        let size = [("HEADS", 1), ("SEQ", 16_384), ("DIM", 128)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let spec = puzzle.spec.sized(&size).unwrap();
        spec.buffers()
            .map(|b| (b.len() * b.dtype.size()) as u64)
            .sum()
    };
    let tensors = 4 * 16_384 * 128 * 4;
    assert_eq!(bytes("p31_attention_fused"), tensors);
    assert_eq!(bytes("p31_attention_naive"), tensors + 16_384 * 16_384 * 4);
    // Puzzle 36's q, k, v and output are BF16: half the bytes, and nothing else.
    assert_eq!(bytes("p36_attention_bf16"), tensors / 2);
}

/// A line of a solution, as the leak check compares it: the comment after
/// `//` dropped, then every whitespace character. `None` where the line is
/// too slight to give anything away: blank, only braces, a comment, or
/// shorter than [`SLIGHT`] characters once its spaces are gone.
fn solution_line(line: &str) -> Option<String> {
    let code = line.split("//").next().unwrap_or_default();
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let only_braces = squeezed.chars().all(|c| "{}();".contains(c));
    (!only_braces && squeezed.chars().count() >= SLIGHT).then_some(squeezed)
}

/// Lines shorter than this, spaces removed (`} else {`, `i += 1u;`), are not
/// counted as a give-away.
const SLIGHT: usize = 12;

/// The lines of `region` (a learner's gap in the solution) that `hint`
/// spells out whole: both are compared with their whitespace removed, so a
/// hint that spaces a line differently, or leaves off its semicolon or its
/// opening brace, still counts.
fn leaked_lines(region: &str, hint: &str) -> Vec<String> {
    let squeezed: String = hint.chars().filter(|c| !c.is_whitespace()).collect();
    let mut leaked: Vec<String> = Vec::new();
    for line in region.lines() {
        let Some(code) = solution_line(line) else {
            continue;
        };
        let bare = code.trim_end_matches([';', '{']);
        // A line the region repeats (a second barrier) is named once.
        if squeezed.contains(bare) && !leaked.iter().any(|l| l == line.trim()) {
            leaked.push(line.trim().to_string());
        }
    }
    leaked
}

/// The lines between a kernel's `BEGIN PUZZLE` and `END PUZZLE` markers.
fn learner_region(source: &str) -> String {
    source
        .lines()
        .skip_while(|l| !l.contains("BEGIN PUZZLE"))
        .skip(1)
        .take_while(|l| !l.contains("END PUZZLE"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn leaked_lines_table() {
    let region = "    // add ten\n    if (i < size && j < 4u) {\n        out[i] = a[i] + 10.0f;\n    }\n    i += 1u;\n";
    let cases: [(&str, &[&str]); 8] = [
        // The idea, with no line of the answer.
        (
            "Compare the thread index with `size` before touching memory.",
            &[],
        ),
        // The line, spaced as in the file.
        (
            "Write `out[i] = a[i] + 10.0f;` inside the guard.",
            &["out[i] = a[i] + 10.0f;"],
        ),
        // Spaced otherwise, or without its semicolon: still the line.
        ("`out[i]=a[i] + 10.0f`", &["out[i] = a[i] + 10.0f;"]),
        ("`out[i] =\n a[i] + 10.0f;`", &["out[i] = a[i] + 10.0f;"]),
        // Two lines of the answer, each named.
        (
            "`if (i < size && j < 4u) out[i] = a[i] + 10.0f;`",
            &["if (i < size && j < 4u) {", "out[i] = a[i] + 10.0f;"],
        ),
        // A short line (`i += 1u;`), a brace and a comment give nothing away.
        ("Then `i += 1u;` and close with `}`; add ten.", &[]),
        // Part of a line is not the line.
        ("Read `a[i] + 10.0f` and store it.", &[]),
        // Another variable is another line.
        ("`out[j] = a[j] + 10.0f;`", &[]),
    ];
    // A line the region holds twice is named once.
    let twice = "__syncthreads();\nx = 1;\n__syncthreads();\n";
    assert_eq!(
        leaked_lines(twice, "then `__syncthreads()`"),
        ["__syncthreads();"]
    );
    for (hint, expected) in cases {
        assert_eq!(leaked_lines(region, hint), expected.to_vec(), "{hint:?}");
    }
    assert_eq!(
        learner_region("a\n  // BEGIN PUZZLE (roughly 1 line)\n  b\n  // END PUZZLE\nc\n"),
        "  b\n"
    );
}

/// Hints go from the idea to the formula: every hint but the last leaves
/// each line of the learner's part for the learner to write. (Debugging
/// cases have no part to write.)
fn no_hint_before_the_last_gives_a_line_of_the_solution() {
    let mut problems = Vec::new();
    for puzzle in &book().puzzles {
        let hints = &puzzle.spec.raw.hints;
        for (lang, kernel) in &puzzle.kernels {
            if kernel.is_given_with_bug() || kernel.is_given_whole() {
                continue;
            }
            let region = learner_region(&kernel.source.text);
            for (n, hint) in hints.iter().enumerate().take(hints.len().saturating_sub(1)) {
                for line in leaked_lines(&region, hint) {
                    problems.push(format!(
                        "{} hint {} of {} gives a line of the {} solution: {line}",
                        puzzle.id(),
                        n + 1,
                        hints.len(),
                        lang.label()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// No chapter uses an idea (concepts.toml) before the chapter that teaches it.
fn no_chapter_uses_a_concept_before_it_is_taught() {
    let book = book();
    let concepts = concepts::load(&book.root).unwrap_or_else(|e| panic!("{e}"));
    assert!(concepts.len() >= 10, "{concepts:?}");
    let early = concepts::early_uses(&book.root, &book.src, &concepts);
    let list: Vec<String> = early.iter().map(ToString::to_string).collect();
    assert!(
        list.is_empty(),
        "{} early use(s):\n{}",
        list.len(),
        list.join("\n")
    );
}

/// Part VI's helpers live in `kernels/tensor/hopper/` (AUTHORING.md, "CUDA
/// conventions"), Part VII's in `kernels/multigpu/*.cuh`: no `__device__`
/// function of `kernels/tensor/` or `kernels/multigpu/` is written,
/// word for word, in two files. Copies that differ on purpose differ in text.
fn no_hopper_or_multi_gpu_helper_is_written_twice() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap();
    let mut files = Vec::new();
    let mut folders = vec![root.join("kernels/tensor"), root.join("kernels/multigpu")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("cu" | "cuh")
            ) {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 15, "found only {files:?}");
    let mut seen: std::collections::BTreeMap<String, std::path::PathBuf> = Default::default();
    let mut twice = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for helper in device_functions(&text) {
            if let Some(first) = seen.get(&helper) {
                let name = helper.lines().next().unwrap_or("");
                twice.push(format!(
                    "{} and {}: {name}",
                    first.display(),
                    file.display()
                ));
            } else {
                seen.insert(helper, file.clone());
            }
        }
    }
    assert!(
        twice.is_empty(),
        "helpers written twice:\n{}",
        twice.join("\n")
    );
}

/// Each top-level `__device__` function of a CUDA file, from its first line
/// to the `}` that closes it at the start of a line.
fn device_functions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        if current.is_none() && line.starts_with("__device__") && line.contains('(') {
            current = Some(Vec::new());
        }
        if let Some(lines) = current.as_mut() {
            lines.push(line);
            if line == "}" {
                out.push(lines.join("\n"));
                current = None;
            }
        }
    }
    out
}

/// This group's trials, for the suite's `main`.
/// The naming rule of AUTHORING.md ("Names"): an id is `p` or `d`, two
/// digits, and a name; a debugging case's page is its id. (Kernel folders and
/// file names are checked by `drift`.)
fn names() {
    let book = book();
    let mut wrong = Vec::new();
    for puzzle in &book.puzzles {
        let id = puzzle.id();
        let bytes = id.as_bytes();
        let shaped = bytes.len() > 4
            && matches!(bytes[0], b'p' | b'd')
            && bytes[1..3].iter().all(u8::is_ascii_digit)
            && bytes[3] == b'_'
            && id[4..]
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !shaped {
            wrong.push(format!("`{id}` is not a letter, two digits and a name"));
        }
        let page = puzzle
            .chapter
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("");
        if id.starts_with('d') && page != id {
            wrong.push(format!("debugging case `{id}` is on page `{page}`"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every puzzle of the book compares its outputs: a spec with neither
/// `expect` nor `reference` is a learner's own kernel, checked for hazards
/// alone, and a puzzle that forgot both would pass any kernel without races.
fn every_puzzle_compares_its_outputs() {
    let book = book();
    let unjudged: Vec<&str> = book
        .puzzles
        .iter()
        .filter(|p| p.spec.hazards_only())
        .map(|p| p.id())
        .collect();
    assert!(
        unjudged.is_empty(),
        "no `expect` and no `reference`: {unjudged:?}"
    );
}

/// Every part of the book draws at least one of its ideas, and every figure
/// is shown somewhere and speaks to a screen reader: a figure is an SVG of
/// `src/figures/` with `role="img"`, an `aria-label` and a `<title>`,
/// included by a page. The count per part is printed for the record.
fn every_part_has_a_figure_and_every_figure_is_named() {
    let book = book();
    let summary = std::fs::read_to_string(book.src.join("SUMMARY.md")).unwrap();
    let mut parts: Vec<(String, usize)> = Vec::new();
    let mut included = std::collections::BTreeSet::new();
    // The part whose pages are being read (none before the first, or in an interlude).
    let mut current = None;
    for line in summary.lines() {
        let line = line.trim();
        if let Some(heading) = line.strip_prefix("# ") {
            current = heading.strip_prefix("Part ").map(|title| {
                parts.push((title.to_string(), 0));
                parts.len() - 1
            });
            continue;
        }
        let Some(path) = line.split("](").nth(1).and_then(|r| r.strip_suffix(')')) else {
            continue;
        };
        let page = std::fs::read_to_string(book.src.join(path)).unwrap_or_default();
        for include in page.split("{{#include ").skip(1) {
            let path = include.split("}}").next().unwrap_or("").trim();
            let Some((_, name)) = path.rsplit_once("figures/") else {
                continue;
            };
            let name = name.to_string();
            included.insert(name);
            if let Some(part) = current {
                parts[part].1 += 1;
            }
        }
    }
    assert!(parts.len() >= 8, "the summary's parts: {parts:?}");
    eprintln!("figures per part: {parts:?}");
    let bare: Vec<&str> = parts
        .iter()
        .filter(|(_, n)| *n == 0)
        .map(|(title, _)| title.as_str())
        .collect();
    assert!(bare.is_empty(), "parts with no figure: {bare:?}");
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(book.src.join("figures")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let svg = std::fs::read_to_string(&path).unwrap();
        if !included.contains(&name) {
            wrong.push(format!("{name} is on no page of the summary"));
        }
        for needed in ["role=\"img\"", "aria-label=\"", "<title>"] {
            if !svg.contains(needed) {
                wrong.push(format!("{name} lacks {needed}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each puzzle `results/awaiting.toml` excuses on a GPU exists and is
/// still stale there: once it is recorded again, its entry must go, so the
/// list never hides a result that could be shown.
fn every_awaited_puzzle_is_still_stale_on_its_gpu() {
    use puzzle_core::kernel::cut::Variant;
    use runner::perf::record::{self, Recorded};
    let book = book();
    let (recordings, problems) = record::load_all(&book.root.join(record::RESULTS_DIR));
    assert!(problems.is_empty(), "{problems:?}");
    let mut wrong = Vec::new();
    // A GPU has a recording per backend (and per count of GPUs): the
    // puzzle must be stale in at least one of them.
    let mut pairs: Vec<(&str, &str)> = recordings
        .iter()
        .flat_map(|r| {
            r.awaiting
                .iter()
                .map(|a| (r.device.name.as_str(), a.puzzle.as_str()))
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    for (device, id) in pairs {
        let Ok(puzzle) = book.find(id) else {
            wrong.push(format!("`{id}` is no puzzle of the book"));
            continue;
        };
        let of_device: Vec<_> = recordings
            .iter()
            .filter(|r| r.device.name == device)
            .cloned()
            .collect();
        // Stale somewhere: a solution or a skeleton, in either language.
        let stale = Lang::ALL.iter().any(|&lang| {
            [Variant::Solution, Variant::Skeleton]
                .into_iter()
                .any(|variant| {
                    record::lookup(&of_device, puzzle, lang, variant)
                        .iter()
                        .any(|r| matches!(r, Recorded::Stale { .. }))
                })
        });
        if !stale {
            wrong.push(format!(
                "`{id}` is all current on the {device} again: remove it from results/{}",
                record::AWAITING_FILE
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Puzzle 46's page promises a model that learns: its losses, as the CPU
/// reference computes them for the page's inputs and as every GPU that ran
/// the current kernel recorded them, fall round after round, to well
/// under the first.
fn the_training_step_lowers_its_loss_on_the_cpu_and_on_gpus() {
    use puzzle_core::kernel::cut::Variant;
    use runner::perf::record::{self, Recorded};
    let book = book();
    let puzzle = book.find("p46_training_step").unwrap();
    let spec = puzzle.spec.resolve(&Default::default()).unwrap();
    let losses = |values: &[Option<f64>]| -> Vec<f64> {
        values
            .iter()
            .map(|v| v.expect("every round's loss is written"))
            .collect()
    };
    let falls = |what: &str, losses: &[f64]| {
        assert!(losses.len() >= 10, "{what}: {losses:?}");
        assert!(
            losses.windows(2).all(|p| p[1] < p[0]),
            "{what}: a round's loss is not below the last: {losses:?}"
        );
        let (first, last) = (losses[0], losses[losses.len() - 1]);
        assert!(last < 0.5 * first, "{what}: from {first} only to {last}");
    };
    let expected = spec.outputs().find(|b| b.name == "losses").unwrap();
    falls("the CPU reference", expected.expect.as_ref().unwrap());

    let (recordings, problems) = record::load_all(&book.root.join(record::RESULTS_DIR));
    assert!(problems.is_empty(), "{problems:?}");
    let mut gpus = 0;
    for found in record::lookup(&recordings, puzzle, Lang::Cuda, Variant::Solution) {
        if let Recorded::Current { recording, report } = found {
            let check = report.checks.iter().find(|c| c.name == "losses").unwrap();
            falls(&recording.device.name, &losses(&check.got));
            gpus += 1;
        }
    }
    assert!(
        gpus >= 1,
        "no GPU has a current recording of the training step"
    );
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut trials = crate::panicking_trials!("content":
        every_puzzle_compares_its_outputs,
        the_book_has_no_drift,
        every_chapter_of_the_summary_exists_and_has_a_title,
        every_puzzle_has_tips_and_a_kernel_or_a_reason_in_each_language,
        the_workspace_holds_every_skeleton_in_reading_order,
        attention_allocates_the_scores_only_unfused,
        leaked_lines_table,
        no_hint_before_the_last_gives_a_line_of_the_solution,
        no_chapter_uses_a_concept_before_it_is_taught,
        names,
        no_hopper_or_multi_gpu_helper_is_written_twice,
        every_part_has_a_figure_and_every_figure_is_named,
        every_awaited_puzzle_is_still_stale_on_its_gpu,
        the_training_step_lowers_its_loss_on_the_cpu_and_on_gpus,
    );
    trials.extend(drift::trials());
    trials.extend(concepts::trials());
    trials.extend(teaching::trials());
    trials.extend(commands::trials());
    trials
}
