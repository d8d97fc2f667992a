//! Every command a chapter tells the reader to type works in a fresh clone
//! of the book, and every file a chapter names is there for that reader.
//! Part of the `content` group.
//!
//! A command is a line of a `console` (or `bash`, `sh`, `shell`) block, its
//! `\` continuations joined and its `#` comment dropped. A `runner` command:
//!
//! - parses: the `runner` binary is given its words with `--book` naming a
//!   folder that holds no book, so clap either refuses them (a usage error)
//!   or accepts them and the command stops at loading the book, before it
//!   does anything;
//! - names puzzles of the book, each with a kernel in the language it asks
//!   for (`--lang`, `--backend`, or `show`'s WGSL);
//! - sets (`--set NAME=VALUE`) only constants of its puzzle, to values that
//!   evaluate; times (`bench`) on a GPU, not the CPU checker; and is
//!   preceded only by variables that the runner reads;
//! - reads (`--file`) a file of the checkout, a learner's copy
//!   (`.learner/<puzzle>/<kernel file>`), or one that a command earlier on
//!   the same page wrote (`> file`, `cp … file`, `--out file`).
//!
//! Any other command: each path in it under one of the checkout's top
//! folders exists (`bash .ci/setup`).
//!
//! In the prose (and in the puzzles' specs, whose hints a reader sees),
//! every path under a top folder of the checkout exists, and a kernel file
//! named alone (`tma.cuh`) or by its last folders (`hopper/wgmma_fp8.cuh`)
//! is one of `kernels/`, a learner's copy, or one that a command earlier on
//! the page wrote. No page names the project's test fixtures: a wrong
//! kernel is shown as an edit the reader makes to their own copy.

use super::book;
use puzzle_core::chapter::book::Book;
use puzzle_core::lang::Lang;
use puzzle_core::spec::expr;
use runner::learner;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fences whose lines are commands a reader types.
const SHELLS: [&str; 4] = ["console", "bash", "sh", "shell"];

/// The runner's commands that take a puzzle as their first argument.
const PUZZLE_COMMANDS: [&str; 8] = [
    "bench", "check", "hint", "inputs", "reset", "run", "show", "watch",
];

/// The runner's options that take a value (the word after them).
const VALUED: [&str; 13] = [
    "--backend",
    "--book",
    "--buffer-sets",
    "--case",
    "--file",
    "--lang",
    "--only",
    "--out",
    "--samples",
    "--set",
    "--timeout",
    "--warmup",
    "--workspace",
];

/// Words that name the project's test fixtures, which a reader of the book
/// has no reason to open (issue 60's rule, which the built book's test
/// holds the prose to; here commands are held to it too).
const FIXTURE_WORDS: [&str; 3] = ["fixture", "edits.toml", "races.toml"];

/// The checkout as a reader who cloned it has it.
struct Checkout {
    root: PathBuf,
    book: Book,
    /// Every file under `kernels/`, as a path from the root with `/`.
    kernels: Vec<String>,
    /// The top folders of the checkout (`kernels`, `src`, `.ci` …).
    tops: BTreeSet<String>,
    /// The runner's Rust sources, all in one, for the variables it reads.
    runner_sources: String,
    /// A folder with no book in it, for parsing a command without running it.
    nowhere: tempfile::TempDir,
}

impl Checkout {
    fn new() -> Checkout {
        let book = book();
        let root = book.root.clone();
        let tops = std::fs::read_dir(&root)
            .unwrap()
            .filter_map(|e| {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().to_string();
                let ignored = [".git", "target", ".learner"].contains(&name.as_str());
                (e.path().is_dir() && !ignored).then_some(name)
            })
            .collect();
        let kernels = files_under(&root, "kernels", &|_| true);
        let runner_sources = files_under(&root, "runner", &|p| {
            p.ends_with(".rs") && !p.contains("/tests/") && !p.contains("/fuzz/")
        })
        .iter()
        .map(|p| std::fs::read_to_string(root.join(p)).unwrap_or_default())
        .collect();
        Checkout {
            root,
            book,
            kernels,
            tops,
            runner_sources,
            nowhere: tempfile::tempdir().unwrap(),
        }
    }

    /// Why clap refuses `runner <args>`, or `None` where it accepts them.
    fn parse_error(&self, args: &[String]) -> Option<String> {
        let no_book = self.nowhere.path().join("no-book");
        let out = Command::new(crate::cli::runner_exe())
            .arg("--book")
            .arg(&no_book)
            .args(args)
            .env_remove("GPU_PUZZLES_BOOK")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let loading = stderr.contains("no-book") && !stderr.contains("Usage:");
        if out.status.success() || loading {
            return None;
        }
        Some(stderr.lines().next().unwrap_or("no message").to_string())
    }

    /// Whether the checkout holds `path` (a file or a folder; a path with
    /// a `*` or `…` in it, the folder before it).
    fn holds(&self, path: &str) -> bool {
        let cut = path.find(['*', '…']).map_or(path, |at| &path[..at]);
        let cut = if cut.len() < path.len() {
            cut.rsplit_once('/').map_or("", |(dir, _)| dir)
        } else {
            cut
        };
        self.root.join(cut).exists()
    }

    /// Whether `path` starts with a top folder of the checkout.
    fn rooted(&self, path: &str) -> bool {
        path.split_once('/')
            .is_some_and(|(top, _)| self.tops.contains(top))
    }

    /// Whether `path` is a learner's copy of a puzzle's kernel:
    /// `.learner/<puzzle>/<its kernel file>`, or the folder itself.
    fn learner_copy(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        match parts[..] {
            [".learner"] => true,
            [".learner", id] => self.book.find(id).is_ok(),
            [".learner", id, file] => self.book.find(id).is_ok_and(|p| {
                Lang::ALL
                    .iter()
                    .any(|&l| p.kernel(l).is_some() && learner::file_name(p, l) == file)
            }),
            _ => false,
        }
    }

    /// Whether a kernel file named `name` (alone, or by its last folders) is one
    /// of `kernels/`.
    fn kernel_named(&self, name: &str) -> bool {
        self.kernels
            .iter()
            .any(|k| k.ends_with(&format!("/{name}")))
    }
}

/// The files under `dir` of `root` that `keep` accepts, as paths from `root`.
fn files_under(root: &Path, dir: &str, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![root.join(dir)];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                let rel = rel.replace('\\', "/");
                if keep(&rel) {
                    found.push(rel);
                }
            }
        }
    }
    found.sort();
    found
}

/// A line of a page, as a reader meets it: a command, or words to read.
#[derive(Debug, PartialEq)]
enum Line {
    Command(String),
    Prose(String),
}

/// The commands and the prose of a chapter, each with its line number.
/// Code other than a shell's is left out (its file names are the
/// compiler's business), and so are mdBook's `{{#include}}` lines; a
/// `puzzle` block is prose, since its hints are read.
fn lines_of(text: &str) -> Vec<(usize, Line)> {
    let mut out = Vec::new();
    // The open fence: its marker, and whether its lines are commands or prose.
    let mut fence: Option<(String, Option<bool>)> = None;
    // A command continued with `\`: its first line and its words so far.
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        if let Some((open, kind)) = &fence {
            if marker.len() >= 3 && marker.starts_with(&open[..1]) && marker.len() >= open.len() {
                fence = None;
                continue;
            }
            match kind {
                Some(true) => {
                    let text = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
                    let (first, mut so_far) = pending.take().unwrap_or((n, String::new()));
                    match text.trim_end().strip_suffix('\\') {
                        Some(head) => {
                            so_far.push_str(head);
                            so_far.push(' ');
                            pending = Some((first, so_far));
                        }
                        None => {
                            so_far.push_str(text);
                            if !so_far.trim().is_empty() {
                                out.push((first, Line::Command(so_far)));
                            }
                        }
                    }
                }
                Some(false) => out.push((n, Line::Prose(line.to_string()))),
                None => {}
            }
            continue;
        }
        if marker.len() >= 3 {
            let info = trimmed[marker.len()..].trim();
            let lang = info.split([',', ' ']).next().unwrap_or("");
            let kind = if SHELLS.contains(&lang) {
                Some(true)
            } else {
                (info == "puzzle").then_some(false)
            };
            fence = Some((marker, kind));
            continue;
        }
        if !trimmed.starts_with("{{#include") {
            out.push((n, Line::Prose(line.to_string())));
        }
    }
    out
}

/// A shell line's words: quotes group, and a `#` that starts a word starts
/// a comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// What is wrong with the commands and the file names of one page (named
/// `page` in the findings), in reading order.
fn page_problems(co: &Checkout, page: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    // The files the page's commands have written so far.
    let mut written: BTreeSet<String> = BTreeSet::new();
    for (n, line) in lines_of(text) {
        let (Line::Command(words) | Line::Prose(words)) = &line;
        let lower = words.to_lowercase();
        if let Some(w) = FIXTURE_WORDS.iter().find(|w| lower.contains(*w)) {
            problems.push(format!(
                "{page}:{n}: names the project's test fixtures (`{w}`): show the wrong kernel as an edit the reader makes to a copy"
            ));
        }
        let found = match &line {
            Line::Command(command) => command_problems(co, command, &mut written),
            Line::Prose(prose) => prose_problems(co, prose, &written),
        };
        problems.extend(found.into_iter().map(|p| format!("{page}:{n}: {p}")));
    }
    problems
}

/// What is wrong with one command line; the files it writes join `written`.
fn command_problems(co: &Checkout, line: &str, written: &mut BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let words = shell_words(line);
    for segment in words.split(|w| ["&&", "||", ";", "|"].contains(&w.as_str())) {
        // Variables set for the command, and what it writes by redirection.
        let mut vars = Vec::new();
        let mut args: Vec<String> = Vec::new();
        let mut targets = Vec::new();
        let mut words = segment.iter();
        while let Some(w) = words.next() {
            let var = w.split_once('=').filter(|(name, _)| {
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            });
            match var {
                Some((name, _)) if args.is_empty() => vars.push(name.to_string()),
                _ if w == ">" || w == ">>" => targets.extend(words.next().cloned()),
                _ if w.starts_with('>') => targets.push(w.trim_start_matches('>').to_string()),
                _ if w.starts_with("2>") => {}
                _ => args.push(w.clone()),
            }
        }
        let runner_args = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["runner", ..] => Some(&args[1..]),
            ["sh" | "bash", launcher, ..] if launcher.ends_with("bin/runner") => Some(&args[2..]),
            [launcher, ..] if launcher.ends_with("bin/runner") => Some(&args[1..]),
            ["cargo", "run", ..] => args
                .iter()
                .position(|w| w == "--")
                .filter(|_| args.iter().any(|w| w == "runner"))
                .map(|at| &args[at + 1..]),
            _ => None,
        };
        match runner_args {
            Some(rest) => {
                for var in &vars {
                    if !co.runner_sources.contains(&format!("\"{var}\"")) {
                        problems.push(format!("`{var}` is no variable the runner reads"));
                    }
                }
                problems.extend(runner_problems(co, rest, written));
            }
            None => {
                let (reads, writes) = match args.first().map(String::as_str) {
                    Some("cp" | "mv") if args.len() >= 3 => {
                        let (last, first) = args[1..].split_last().unwrap();
                        (first.to_vec(), vec![last.clone()])
                    }
                    _ => (args[1.min(args.len())..].to_vec(), Vec::new()),
                };
                for path in reads.iter().filter(|p| !p.starts_with('-')) {
                    let copied = args.first().is_some_and(|c| c == "cp" || c == "mv");
                    let needed = co.rooted(path) || (copied && !co.learner_copy(path));
                    if needed && !co.holds(path) && !written.contains(path.as_str()) {
                        problems.push(format!("`{path}` is not in the checkout"));
                    }
                }
                written.extend(writes);
            }
        }
        written.extend(targets);
    }
    problems
}

/// What is wrong with `runner <args>`; `--out` files join `written`.
fn runner_problems(co: &Checkout, args: &[String], written: &mut BTreeSet<String>) -> Vec<String> {
    let shown = format!("`runner {}`", args.join(" "));
    if let Some(error) = co.parse_error(args) {
        return vec![format!("{shown} does not parse: {error}")];
    }
    let mut problems = Vec::new();
    let command = args.first().map_or("", String::as_str);
    // The options, each with its value, and the first positional word.
    let mut options: Vec<(&str, &str)> = Vec::new();
    let mut positional = None;
    let mut i = 1;
    while i < args.len() {
        let w = args[i].as_str();
        if let Some((flag, value)) = w.split_once('=').filter(|_| w.starts_with("--")) {
            options.push((flag, value));
        } else if VALUED.contains(&w) {
            options.push((w, args.get(i + 1).map_or("", String::as_str)));
            i += 1;
        } else if w.starts_with('-') {
            options.push((w, ""));
        } else if positional.is_none() {
            positional = Some(w);
        }
        i += 1;
    }
    let value = |flag: &str| options.iter().find(|(f, _)| *f == flag).map(|(_, v)| *v);
    let file = value("--file");
    let puzzle = match positional.filter(|_| PUZZLE_COMMANDS.contains(&command)) {
        Some(id) => match co.book.find_as_meant(id) {
            Ok(p) => Some(p),
            Err(_) => {
                problems.push(format!("{shown}: the book has no puzzle `{id}`"));
                None
            }
        },
        None => None,
    };
    // The language it asks of the puzzle's own kernel (a file brings its own).
    let lang = match (value("--lang"), value("--backend"), file) {
        (_, _, Some(_)) => None,
        (Some(l), _, _) => Lang::from_extension(if l == "cuda" { "cu" } else { l }),
        (None, Some("wgpu"), _) => Some(Lang::Wgsl),
        (None, Some("cuda"), _) => Some(Lang::Cuda),
        (None, _, _) if command == "show" => Some(Lang::Wgsl),
        _ => None,
    };
    if let (Some(p), Some(lang)) = (puzzle, lang)
        && p.kernel(lang).is_none()
    {
        problems.push(format!(
            "{shown}: `{}` has no {} kernel",
            p.id(),
            lang.label()
        ));
    }
    for (flag, pair) in options.iter().filter(|(f, _)| *f == "--set") {
        let Some(p) = puzzle else { break };
        let constants = &p.spec.raw.constants;
        match pair.split_once('=') {
            Some((name, _)) if !constants.contains_key(name) => {
                problems.push(format!("{shown}: `{}` has no constant `{name}`", p.id()))
            }
            Some((_, v)) if expr::eval(v, constants).is_err() => {
                problems.push(format!("{shown}: {flag} {pair} does not evaluate"));
            }
            None => problems.push(format!("{shown}: {flag} {pair} is not NAME=VALUE")),
            _ => {}
        }
    }
    if ["bench", "calibrate", "record"].contains(&command) && value("--backend") == Some("sim") {
        problems.push(format!("{shown}: the CPU checker times nothing"));
    }
    if let Some(path) = file
        && !(co.root.join(path).is_file() || written.contains(path) || co.learner_copy(path))
    {
        problems.push(format!(
            "{shown} reads `{path}`, which is not in the checkout, and no command before it on the page writes it"
        ));
    }
    written.extend(value("--out").map(str::to_string));
    problems
}

/// The characters a path in prose is made of.
fn path_char(c: char) -> bool {
    c.is_alphanumeric() || "_./*…-".contains(c)
}

/// The paths and file names a line of prose mentions: the longest runs of
/// [`path_char`]s, without the full stop or comma that ends a sentence.
fn mentioned(line: &str) -> Vec<&str> {
    line.split(|c: char| !path_char(c))
        .map(|w| w.trim_end_matches(['.', ',']))
        .filter(|w| !w.is_empty())
        .collect()
}

/// What is wrong with the files a line of prose names.
fn prose_problems(co: &Checkout, line: &str, written: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for path in mentioned(line) {
        let kernel = [".cu", ".cuh", ".wgsl"].iter().any(|e| path.ends_with(e))
            && !path.contains('*')
            && !path.starts_with('.')
            && !path.starts_with('/');
        let fine = if co.rooted(path) {
            co.holds(path)
        } else if path.starts_with(".learner") {
            co.learner_copy(path)
        } else if kernel {
            co.kernel_named(path) || written.contains(path)
        } else {
            true
        };
        if !fine {
            problems.push(format!(
                "names `{path}`, which is not in the checkout, and no command before it on the page writes it"
            ));
        }
    }
    problems
}

/// Every command of every chapter runs from a fresh clone, and every file a
/// chapter names is there: the findings, page by page.
fn every_command_a_page_shows_runs_and_every_file_it_names_exists() {
    let co = Checkout::new();
    let mut problems = Vec::new();
    let mut commands = 0;
    let pages = files_under(&co.root, "src", &|p| p.ends_with(".md"));
    for page in &pages {
        let text = std::fs::read_to_string(co.root.join(page)).unwrap();
        commands += lines_of(&text)
            .iter()
            .filter(|(_, l)| matches!(l, Line::Command(_)))
            .count();
        problems.extend(page_problems(&co, page, &text));
    }
    assert!(
        pages.len() > 60 && commands > 40,
        "only {commands} commands on {} pages",
        pages.len()
    );
    eprintln!("{commands} commands on {} pages checked", pages.len());
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The control for the check above: Puzzle 20's page as it was (a fixture
/// a reader cannot open), and one of each other fault, found; the same
/// lesson done as the pages do it now, a copy the reader makes and edits,
/// found fine.
fn the_command_check_finds_what_it_is_for() {
    let co = Checkout::new();
    let faulty = "\
The CPU checker reports it:

```console
runner run p20_warp_lanes --backend sim \\
    --file runner/engine/tests/fixtures/kernels/p20_shuffle_in_branch.wgsl
```

The fixture `p20_shuffle_inactive_lane.cu` keeps the CUDA twin.

```console
runner run p20_warp_lanes --backnd sim
runner run p20_lanes --backend sim
runner bench p19_sgemm_warptile --backend sim
runner bench p19_sgemm_warptile --set SIZ=4096
runner show p39_all_reduce_ring --solution
GPU_PUZZLES_SUBGROUP=8 runner run p20_warp_lanes --backend sim
runner run p01_map --file my_add_10.wgsl
bash .ci/set-up
```

  ```puzzle
  hints:
    - Read `kernels/multigpu/no_such_header.cuh`, and `hopper/no_such.cuh`.
  ```
";
    let found = page_problems(&co, "old.md", faulty).join("\n");
    for expected in [
        "old.md:4: names the project's test fixtures",
        "old.md:4: `runner run p20_warp_lanes --backend sim --file runner/engine/tests/fixtures/kernels/p20_shuffle_in_branch.wgsl` reads",
        "old.md:8: names the project's test fixtures",
        "old.md:8: names `p20_shuffle_inactive_lane.cu`",
        "--backnd sim` does not parse",
        "no puzzle `p20_lanes`",
        "the CPU checker times nothing",
        "has no constant `SIZ`",
        "`p39_all_reduce_ring` has no WGSL kernel",
        "`GPU_PUZZLES_SUBGROUP` is no variable",
        "reads `my_add_10.wgsl`",
        "`.ci/set-up` is not in the checkout",
        "names `kernels/multigpu/no_such_header.cuh`",
        "names `hopper/no_such.cuh`",
    ] {
        assert!(
            found.contains(expected),
            "the check missed {expected:?}; it found:\n{found}"
        );
    }
    let fine = "\
Copy the solution, and move the shuffle into the branch:

```console
runner show p20_warp_lanes --solution > in_branch.wgsl
```

Then run `in_branch.wgsl` on the CPU checker, at subgroups of 8 too:

```console
runner run p20_warp_lanes --backend sim --file in_branch.wgsl
GPU_PUZZLES_SIM_SUBGROUP=8 runner run p20_warp_lanes --backend sim --stress
runner check p20_warp_lanes --lang cuda   # .learner/p20_warp_lanes/warp_lanes.cu
cp .learner/p01_map/add_10.wgsl mine.wgsl && runner run p01_map --file mine.wgsl
runner bench p19_sgemm_warptile --backend cuda --set 'SIZE=64 * 64' --set BM=128
bash .ci/setup
```

The helpers are in `kernels/multigpu/peers.cuh`, `hopper/wgmma_fp8.cuh`
and `tma.cuh`; your copy is `.learner/p01_map/add_10.cu`.
";
    let found = page_problems(&co, "fine.md", fine);
    assert!(
        found.is_empty(),
        "the check found faults in fine words: {found:#?}"
    );
}

/// How a page's lines are read: fences (indented in a list too), `\`
/// continuations, prompts, comments and `{{#include}}` lines.
fn lines_are_read_as_a_reader_reads_them() {
    let text = "a `x`\n  ```console\n  $ runner run p01_map \\\n      --stress # all sizes\n  ```\n```cuda\nnot.cu\n```\n{{#include a.cu}}\n```puzzle\nhints: [b]\n```\n";
    assert_eq!(
        lines_of(text),
        [
            (1, Line::Prose("a `x`".into())),
            (
                3,
                Line::Command("runner run p01_map  --stress # all sizes".into())
            ),
            (11, Line::Prose("hints: [b]".into())),
        ]
    );
    assert_eq!(
        shell_words("A=1 runner run 'my file.wgsl' \"x\" # note"),
        ["A=1", "runner", "run", "my file.wgsl", "x"]
    );
    assert_eq!(
        mentioned("In `kernels/multigpu/peers.cuh`, see ../../kernels/a.cu."),
        [
            "In",
            "kernels/multigpu/peers.cuh",
            "see",
            "../../kernels/a.cu"
        ]
    );
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("content":
        lines_are_read_as_a_reader_reads_them,
        the_command_check_finds_what_it_is_for,
        every_command_a_page_shows_runs_and_every_file_it_names_exists,
    )
}
