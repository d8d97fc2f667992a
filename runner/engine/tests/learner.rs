//! The learner's loop, end to end on the real book: `runner check` (text and
//! JSON), `hint`, `progress`, `reset`, `list` and `watch`, each in a workspace of
//! its own in a temporary folder.
//!
//! Checks that need WGSL to run are skipped, by name and with the reason,
//! where wgpu finds no adapter.

use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::execute::Settings;
use puzzle_core::assess::learner::{CheckReport, Verdict};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use runner::learner::Workspace;
use runner::run::Runner;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        ..Settings::default()
    })
});

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// The WGSL skeleton of puzzle 3 with its learner's line replaced by `body`.
fn p03_wgsl(book: &Book, body: &str) -> String {
    let kernel = book.find("p03_guard").unwrap().kernel(Lang::Wgsl).unwrap();
    kernel
        .skeleton()
        .text
        .replace("    // FILL ME IN (roughly 2 lines)", body)
}

const NO_GUARD: &str = "    out[i] = a[i] + 10.0;";
const WRONG_INDEX: &str = "    if (i < size) {\n        out[i] = a[0] + 10.0;\n    }";
const HARD_CODED: &str = "    if (i < 4u) {\n        out[i] = a[i] + 10.0;\n    }";
const SOLVED: &str = "    if (i < size) {\n        out[i] = a[i] + 10.0;\n    }";

/// (case, learner's region, verdict, finding kinds in order)
const P03_CASES: &[(&str, &str, Verdict, &[&str])] = &[
    (
        "skeleton",
        "    // FILL ME IN",
        Verdict::Fail,
        &["never_written"],
    ),
    (
        "missing guard",
        NO_GUARD,
        Verdict::Fail,
        &["out_of_bounds", "hazard", "note"],
    ),
    ("wrong index", WRONG_INDEX, Verdict::Fail, &["wrong_values"]),
    (
        "size written as a number",
        HARD_CODED,
        Verdict::Fail,
        &["stress_only", "never_written"],
    ),
    (
        "syntax error",
        "    out[i] = a[i] + 10.0",
        Verdict::CompileError,
        &["compile_error"],
    ),
    ("solution", SOLVED, Verdict::Pass, &[]),
];

/// The learner's check of `file` in WGSL, on the backend that runs WGSL here.
fn check(puzzle: &Puzzle, file: &Path) -> CheckReport {
    let kind = RUNNER.default_backend(Lang::Wgsl);
    let files = runner::book::BookFiles::new(&root());
    runner::learner::check(&RUNNER, puzzle, Lang::Wgsl, kind, file, &files)
}

fn diagnoses_puzzle_3() -> Result<(), Failed> {
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let puzzle = book.find("p03_guard")?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("add_10_guard.wgsl");
    for (name, body, verdict, kinds) in P03_CASES {
        std::fs::write(&file, p03_wgsl(&book, body))?;
        let report = check(puzzle, &file);
        let json = serde_json::to_value(&report)?;
        // The checker's own findings (a hazard at its line, a note) come on
        // a CPU adapter, where the checker vouches for lavapipe; a GPU's
        // report has only its own.
        let on_cpu = RUNNER
            .backend(BackendKind::Wgpu)
            .is_ok_and(|b| b.device().kind == "CPU");
        let shown = |kind: &&str| on_cpu || !matches!(*kind, "hazard" | "note");
        let got: Vec<&str> = json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .filter(shown)
            .collect();
        let kinds: Vec<&str> = kinds.iter().copied().filter(shown).collect();
        if report.verdict != *verdict || got != kinds {
            return Err(format!(
                "{name}: expected {verdict:?} with {kinds:?}, got {:?} with {got:?}:\n{}",
                report.verdict,
                runner::learner::render(&report, 100)
            )
            .into());
        }
    }
    // The details a learner acts on.
    std::fs::write(&file, p03_wgsl(&book, WRONG_INDEX))?;
    let json = serde_json::to_value(check(puzzle, &file))?;
    let wrong = &json["findings"][0];
    assert_eq!(wrong["elements"][0]["index"], serde_json::json!([1]));
    assert_eq!(wrong["elements"][0]["got"], 10.0);
    assert_eq!(wrong["elements"][0]["expected"], 11.0);
    std::fs::write(&file, p03_wgsl(&book, HARD_CODED))?;
    let json = serde_json::to_value(check(puzzle, &file))?;
    assert_eq!(json["runs"][1]["stage"], "stress");
    assert_eq!(json["runs"][1]["constants"]["SIZE"], 7);
    assert_eq!(
        json["runs"][1]["outputs"][0]["got"][6],
        serde_json::Value::Null
    );
    // A compile error names the learner's file and line.
    std::fs::write(&file, p03_wgsl(&book, "    out[i] = b[i] + 10.0;"))?;
    let json = serde_json::to_value(check(puzzle, &file))?;
    assert_eq!(json["findings"][0]["line"], 9, "{json}");
    assert!(
        json["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains('b'),
        "{json}"
    );
    assert_eq!(json["findings"][0]["file"], file.to_str().unwrap());
    Ok(())
}

/// Runs the CLI with a workspace in `ws`; returns (exit code, stdout, stderr).
fn cli(ws: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(crate::cli::runner_exe());
    command
        .arg("--book")
        .arg(root())
        .arg("--workspace")
        .arg(ws)
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env_remove("CLICOLOR_FORCE")
        .env_remove("NO_COLOR");
    for (k, v) in env {
        command.env(k, v);
    }
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("running runner");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

fn check_cli_text_and_json() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join(".learner");
    // A fresh workspace: the skeleton, never written.
    let (code, out, err) = cli(&ws, &["check", "p03_guard"], &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("created "),
        "a fresh workspace is announced: {err}"
    );
    assert!(!out.contains('\x1b'), "piped output must be plain: {out:?}");
    let order = [
        "out:",
        "expected:",
        "✘ FAIL: p03_guard (WGSL)",
        "Nothing was written to `out`",
        "→ ",
    ];
    let mut at = 0;
    for part in order {
        let found = out[at..]
            .find(part)
            .ok_or_else(|| format!("{part:?} missing or out of order in:\n{out}"))?;
        at += found;
    }
    // Colour when forced (as on a terminal): the unwritten elements are highlighted.
    let (_, coloured, _) = cli(&ws, &["check", "p03_guard"], &[("CLICOLOR_FORCE", "1")]);
    assert!(coloured.contains("\x1b[1m\x1b[33m"), "{coloured:?}");
    // JSON: the documented shape.
    let (code, out, _) = cli(&ws, &["check", "p03_guard", "--json"], &[]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(json["schema"], 1);
    assert_eq!(json["verdict"], "fail");
    assert_eq!(json["lang"], "wgsl");
    assert_eq!(json["findings"][0]["kind"], "never_written");
    assert_eq!(json["findings"][0]["count"], 4);
    // Solve it in the learner's file; the book's sources stay untouched.
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let kernel_file = root().join("kernels/fundamentals/p03_guard/add_10_guard.wgsl");
    let before = std::fs::read(&kernel_file)?;
    std::fs::write(
        ws.join("p03_guard/add_10_guard.wgsl"),
        p03_wgsl(&book, SOLVED),
    )?;
    let (code, out, err) = cli(&ws, &["check", "p03_guard"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("✔ PASS"), "{out}");
    assert!(out.contains("at every stress size (SIZE=7)"), "{out}");
    assert!(out.contains("Next: p04_map_2d (2D Map)"), "{out}");
    assert_eq!(std::fs::read(&kernel_file)?, before);
    let (_, progress, _) = cli(&ws, &["progress"], &[]);
    let line = progress
        .lines()
        .find(|l| l.starts_with("p03_guard"))
        .unwrap_or_default();
    assert!(line.contains("✔ passes"), "{progress}");
    assert!(progress.contains("WGSL: 1 of"), "{progress}");
    Ok(())
}

fn hint_reset_and_bad_input() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join(".learner");
    let (_, first, _) = cli(&ws, &["hint", "p03_guard"], &[]);
    let (_, second, _) = cli(&ws, &["hint", "p03_guard"], &[]);
    assert!(
        first.contains("1 of 3") && !first.contains("  2. "),
        "{first}"
    );
    assert!(
        second.contains("2 of 3") && second.contains("  2. Compare"),
        "{second}"
    );
    let file = ws.join("p01_map/add_10.wgsl");
    for (bytes, phrase) in [
        (&b""[..], "is empty"),
        (&b"\x00\x01\x02"[..], "is not a text file"),
        (&b"fn other() {}\n"[..], "does not define `add_10`"),
    ] {
        std::fs::write(&file, bytes)?;
        let (code, out, _) = cli(&ws, &["check", "p01_map", "--lang", "wgsl"], &[]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(phrase), "{out}");
        assert!(out.contains("runner reset p01_map --lang wgsl"), "{out}");
    }
    let (code, out, _) = cli(&ws, &["reset", "p01_map", "--lang", "wgsl"], &[]);
    assert_eq!(code, 0);
    assert!(out.contains("your version is in"), "{out}");
    assert!(std::fs::read_to_string(&file)?.contains("FILL ME IN"));
    // Deleting the workspace and running again recreates it.
    std::fs::remove_dir_all(&ws)?;
    let (_, _, err) = cli(&ws, &["progress"], &[]);
    assert!(err.contains("created"), "{err}");
    assert!(file.is_file());
    Ok(())
}

/// CUDA C: run where a GPU is, run on the CUDA checker where only NVRTC is
/// (and only compiled, and said so, where `--backend cuda` asks for the
/// GPU), and a sentence where neither is.
fn cuda_says_what_it_can_do_here() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join(".learner");
    let (code, out, err) = cli(&ws, &["check", "p03_guard", "--lang", "cuda"], &[]);
    let text = format!("{out}{err}");
    match RUNNER.backend(BackendKind::Cuda) {
        Ok(_) => assert_eq!(code, 1, "the skeleton fails: {text}"),
        Err(_) => {
            assert_eq!(code, 2, "{text}");
            assert!(text.contains("cuda unavailable"), "{text}");
        }
    }
    if let Ok(b) = RUNNER.backend(BackendKind::Cuda)
        && !b.runs_kernels()
    {
        let args = ["check", "p03_guard", "--lang", "cuda", "--backend", "cuda"];
        let (code, out, err) = cli(&ws, &args, &[]);
        let text = format!("{out}{err}");
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("– COMPILES"), "{text}");
        assert!(
            text.contains("CUDA C can only be compiled on this machine"),
            "{text}"
        );
        assert!(
            text.contains("runner check p03_guard --lang wgsl"),
            "{text}"
        );
    }
    Ok(())
}

/// `runner bench --file`: a learner's copy of Puzzle 19's kernel, timed
/// beside the book's solution and held against the page's target; a wrong
/// kernel exits 1; `runner run --file --set` runs at the size asked for.
/// On a GPU (`gpu`), at the bench size, where the library's time is recorded.
fn bench_file(lang: Lang, gpu: bool) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join(".learner");
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let (id, backend) = match lang {
        Lang::Wgsl => ("p19_sgemm_named", "wgpu"),
        Lang::Cuda => ("p19_sgemm_warptile", "cuda"),
    };
    let solution = book.find(id)?.kernel(lang).ok_or("no kernel")?.solution();
    let mine = dir.path().join(format!("mine.{}", lang.extension()));
    std::fs::write(&mine, &solution.text)?;
    let mut args = vec!["bench", id, "--file", mine.to_str().unwrap()];
    args.extend(["--backend", backend, "--samples", "3", "--warmup", "1"]);
    if !gpu {
        // A CPU adapter: a small size (the library's time is not recorded there).
        args.extend(["--set", "SIZE=256"]);
    }
    let (code, out, err) = cli(&ws, &args, &[]);
    let text = format!("{out}{err}");
    assert_eq!(code, 0, "{text}");
    for part in [
        "your kernel, ",
        "output: ✔ matches the CPU reference",
        // What it was timed on, as a library beside it must be.
        "inputs: values spread uniformly over [-4, 4)",
        "the book's solution, timed in the same run: ",
        "% of its speed",
        "target (src/performance/p19_sgemm.md): ≥ ",
    ] {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }
    if gpu {
        assert!(
            text.contains("of cuBLAS"),
            "the library's time is used:\n{text}"
        );
    } else {
        assert!(
            text.contains("not judged (no `sgemm` time at these sizes"),
            "{text}"
        );
    }
    // JSON: both reports and the verdicts.
    args.push("--json");
    let (code, out, err) = cli(&ws, &args, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let json: serde_json::Value = serde_json::from_str(&out)?;
    assert!(
        json["standing"]["percent_of_solution"]
            .as_f64()
            .unwrap_or(0.0)
            > 0.0,
        "{json}"
    );
    assert_eq!(json["yours"]["checked"], "passed", "{json}");
    // A wrong kernel: its output is checked, and the exit status says so.
    let (right, bug) = match lang {
        Lang::Wgsl => (
            "fma(vec4<f32>(a0.x), b0, c00)",
            "fma(vec4<f32>(a0.x), b0, 2.0 * c00)",
        ),
        Lang::Cuda => (
            "acc[i][j] += a_reg[i] * b_reg[j]",
            "acc[i][j] -= a_reg[i] * b_reg[j]",
        ),
    };
    assert!(
        solution.text.contains(right),
        "the test's anchor is gone: {right}"
    );
    std::fs::write(&mine, solution.text.replacen(right, bug, 1))?;
    args.pop();
    let (code, out, err) = cli(&ws, &args, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("✘ WRONG"), "{out}");
    // The file's language and the backend must agree.
    let other = if lang == Lang::Wgsl { "cuda" } else { "wgpu" };
    let (code, _, err) = cli(
        &ws,
        &[
            "bench",
            id,
            "--file",
            mine.to_str().unwrap(),
            "--backend",
            other,
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("kernels, not"), "{err}");
    // `runner run --file --set`: the size asked for, random inputs.
    let blocks = book
        .find("p06_blocks")?
        .kernel(lang)
        .ok_or("no kernel")?
        .solution();
    std::fs::write(&mine, &blocks.text)?;
    let args = [
        "run",
        "p06_blocks",
        "--file",
        mine.to_str().unwrap(),
        "--set",
        "SIZE=1001",
    ];
    let (code, out, err) = cli(&ws, &args, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("-- run: SIZE=1001 (random inputs, CPU reference)"),
        "{out}"
    );
    Ok(())
}

/// `runner list` and `runner progress` show the puzzles in one order, the
/// book's (chapters as SUMMARY.md lists them, puzzles as their chapter
/// declares them; not by id, which puts p11_conv_2d first), and `progress`
/// explains its marks under the table.
fn list_and_progress_follow_the_book() -> Result<(), Failed> {
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let reading: Vec<&str> = runner::learner::learning_order(&book)
        .iter()
        .map(|p| p.id())
        .collect();
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join(".learner");
    let (code, list, err) = cli(&ws, &["list"], &[]);
    assert_eq!(code, 0, "{err}");
    let listed: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(listed, reading, "{list}");
    let at = |id: &str| listed.iter().position(|&l| l == id);
    assert!(
        at("p11_conv_simple") < at("p11_conv_2d") && at("p11_conv_2d").is_some(),
        "the chapter's order, not the ids': {list}"
    );
    let (code, progress, err) = cli(&ws, &["progress"], &[]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = progress
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| book.find(id).is_ok())
        .collect();
    assert_eq!(rows, reading, "{progress}");
    let last_row = progress
        .lines()
        .position(|l| l.starts_with(reading[reading.len() - 1]));
    // The legend: the lines under the table (the last title may wrap onto a
    // line of its own, which starts with spaces) up to the counts.
    let legend: Vec<&str> = progress
        .lines()
        .skip(last_row.unwrap_or(0) + 1)
        .skip_while(|l| l.starts_with(' '))
        .take_while(|l| !l.starts_with("WGSL:"))
        .collect();
    let legend = legend.join(" ");
    for mark in ["✔ passes", "✘ fails", "compiles", "· ", "– ", "tips"] {
        assert!(
            legend.contains(mark),
            "{mark:?} not in the legend under the table:\n{progress}"
        );
    }
    Ok(())
}

/// `check`, `hint` and `progress` in an 80-column terminal: no line runs past
/// the edge, but for a path or a piece of code that has no space to break at.
fn the_cli_fits_80_columns() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let ws = dir.path().join(".learner");
    let columns = [("COLUMNS", "80")];
    let mut seen = String::new();
    // A fresh skeleton (nothing written), then one with a compile error.
    let (_, out, _) = cli(&ws, &["check", "p12_scan_simple"], &columns);
    seen.push_str(&out);
    let file = ws.join("p12_scan_simple/prefix_sum_simple.wgsl");
    let text = std::fs::read_to_string(&file)?;
    std::fs::write(
        &file,
        text.replacen("FILL ME IN", "FILL ME IN\n    let broken = ;", 1),
    )?;
    let (_, out, _) = cli(&ws, &["check", "p12_scan_simple"], &columns);
    seen.push_str(&out);
    for _ in 0..4 {
        let (code, out, err) = cli(&ws, &["hint", "p12_scan_simple"], &columns);
        assert_eq!(code, 0, "{err}");
        seen.push_str(&out);
    }
    for command in ["progress", "list"] {
        let (code, out, err) = cli(&ws, &[command], &columns);
        assert_eq!(code, 0, "{err}");
        seen.push_str(&out);
    }
    let long: Vec<&str> = seen
        .lines()
        .filter(|l| l.chars().count() > 80 && l.trim().contains(' '))
        .filter(|l| !l.trim_start().starts_with(|c: char| c.is_ascii_digit()) || !l.contains(" | "))
        .collect();
    assert!(
        long.is_empty(),
        "lines past 80 columns:\n{}",
        long.join("\n")
    );
    assert!(seen.contains("Tips for p12_scan_simple"), "{seen}");
    assert!(seen.contains("puzzle") && seen.contains("tips"), "{seen}");
    Ok(())
}

/// `runner watch`, piped: every save is checked, and a pass moves on.
fn watch_follows_saves() -> Result<(), Failed> {
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let dir = tempfile::tempdir()?;
    let ws_dir = dir.path().join(".learner");
    let ws = Workspace::new(&book, Some(ws_dir.clone()));
    ws.ensure(&book)?;
    let file = ws.file(book.find("p03_guard")?, Lang::Wgsl);
    let mut child = Command::new(crate::cli::runner_exe())
        .arg("--book")
        .arg(root())
        .arg("--workspace")
        .arg(&ws_dir)
        .args(["watch", "p03_guard", "--draw"])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    // Reads output until a line contains `until`; false after the deadline.
    let mut read_until = |until: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(line) => {
                    seen.push_str(&line);
                    seen.push('\n');
                    if line.contains(until) {
                        return true;
                    }
                }
                Err(_) => return false,
            }
        }
        false
    };
    let mut steps = vec![read_until("Ctrl-C stops")];
    // `--draw` keeps the diagram beside the file fresh: the missing guard's
    // write past the end is drawn, and gone once the guard is back.
    let diagram = runner::learner::diagram_path(&file);
    let mut past_end = Vec::new();
    for body in [NO_GUARD, WRONG_INDEX, SOLVED] {
        std::fs::write(&file, p03_wgsl(&book, body))?;
        steps.push(read_until("Ctrl-C stops"));
        let drawn = std::fs::read_to_string(&diagram).unwrap_or_default();
        past_end.push(drawn.contains("past end"));
    }
    if past_end != [true, false, false] {
        return Err(format!("watch --draw: writes past the end drawn {past_end:?}\n{seen}").into());
    }
    // Deletions are said, not ignored: the file, its folder, the workspace
    // (after which there is nothing to watch, and the watch ends).
    std::fs::remove_file(&file)?;
    steps.push(read_until("was deleted. `runner reset p03_guard`"));
    std::fs::remove_dir_all(file.parent().unwrap())?;
    steps.push(read_until("The folder"));
    std::fs::remove_dir_all(&ws_dir)?;
    steps.push(read_until("nothing left to watch"));
    let ended = (0..100).find_map(|_| {
        std::thread::sleep(Duration::from_millis(100));
        child.try_wait().ok().flatten()
    });
    let _ = child.kill();
    let _ = child.wait();
    if steps.iter().any(|ok| !ok) {
        return Err(format!("watch stopped answering ({steps:?}):\n{seen}").into());
    }
    if ended.and_then(|s| s.code()) != Some(1) {
        return Err(format!("watch went on without its workspace ({ended:?}):\n{seen}").into());
    }
    let checks: Vec<&str> = seen.split("── check ").skip(1).collect();
    assert_eq!(
        checks.len(),
        4,
        "one check at the start and one per save:\n{seen}"
    );
    assert!(
        checks[0].contains("Nothing was written to `out`"),
        "{}",
        checks[0]
    );
    assert!(checks[1].contains("out-of-bounds write"), "{}", checks[1]);
    assert!(
        checks[2].contains("are wrong: out[1], out[2], out[3]"),
        "{}",
        checks[2]
    );
    assert!(checks[3].contains("✔ PASS"), "{}", checks[3]);
    assert!(checks[3].contains("now on p04_map_2d"), "{}", checks[3]);
    assert!(!seen.contains('\x1b'), "piped watch output must be plain");
    Ok(())
}

/// The access diagram's facts, as data: what each element of each buffer
/// saw in a traced run of a kernel on the CPU checker, against what the
/// spec implies.
fn diagrams_show_what_the_kernel_did() -> Result<(), Failed> {
    use puzzle_core::draw::diagram::Picture;
    use puzzle_core::kernel::cut::Variant;
    use puzzle_core::source::text::SourceText;
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    let pictures = |id: &str, source: &SourceText| -> Result<Vec<Picture>, Failed> {
        let puzzle = book.find(id)?;
        let report = RUNNER
            .traced(puzzle, Lang::Wgsl, Variant::File, source)
            .map_err(|e| e.to_string())?;
        let map = report
            .accesses
            .ok_or("a traced run came back without its trace")?;
        // The diagram's counts per invocation agree with the checker's own.
        let counts = puzzle_core::draw::diagram::per_invocation(&map);
        let most = |pick: fn(&(u32, u32)) -> u32| counts.values().map(pick).max().unwrap_or(0);
        let checker = report.access.as_ref().ok_or("no access counts")?;
        let theirs = (checker.counts.reads.max, checker.counts.writes.max);
        let ours = (most(|c| c.0), most(|c| c.1));
        if ours != theirs {
            return Err(format!(
                "{id}: the diagram counts at most {ours:?} reads and writes per invocation, \
                 the checker {theirs:?}"
            )
            .into());
        }
        Ok(map.variables.iter().map(Picture::of).collect())
    };
    let find = |pictures: &[Picture], name: &str| -> Result<Picture, Failed> {
        Ok(pictures
            .iter()
            .find(|p| p.name == name)
            .ok_or(format!("no `{name}` in the diagram"))?
            .clone())
    };
    let fixture = |name: &str| -> Result<SourceText, Failed> {
        let path = root()
            .join("runner/engine/tests/fixtures/kernels")
            .join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        Ok(SourceText::new(text, &path, 1))
    };
    // Puzzle 9's solution stages its inputs: each element of `a` is read
    // once from global memory, each output written once, and nothing races.
    let solution = book
        .find("p09_pooling")?
        .kernel(Lang::Wgsl)
        .unwrap()
        .solution();
    let solved = pictures("p09_pooling", &solution)?;
    let a = find(&solved, "a")?;
    if a.cells.iter().any(|c| c.reads != 1 || c.writes != 0) {
        return Err(format!(
            "p09's solution: `a` read other than once each: {:?}",
            a.cells
        )
        .into());
    }
    let out = find(&solved, "out")?;
    if out.cells.iter().any(|c| c.writes != 1) || !out.past_end.is_empty() {
        return Err(format!("p09's solution: `out` not written once each: {out:?}").into());
    }
    if solved.iter().flat_map(|p| &p.cells).any(|c| c.race) {
        return Err("p09's solution drawn with a race".into());
    }
    // Reading the neighbours from global memory instead reads elements of
    // `a` up to three times: the diagram shows it.
    let global = pictures(
        "p09_pooling",
        &fixture("p09_pooling_global_neighbours.wgsl")?,
    )?;
    let most = find(&global, "a")?.cells.iter().map(|c| c.reads).max();
    if most != Some(3) {
        return Err(format!("global neighbours: most reads of an element {most:?}, not 3").into());
    }
    // Puzzle 3 without its guard writes past the end of `out`, and the
    // diagram says where and who.
    let unguarded = pictures("p03_guard", &fixture("p03_no_guard.wgsl")?)?;
    let past = find(&unguarded, "out")?.past_end;
    if past.is_empty() {
        return Err("p03 without a guard: no write past the end drawn".into());
    }
    Ok(())
}

/// `runner check --draw` writes the diagram beside the learner's file and says where.
fn check_draw_writes_the_diagram_beside_the_file() -> Result<(), Failed> {
    let ws = tempfile::tempdir()?;
    let (_, _, stderr) = cli(
        ws.path(),
        &[
            "check",
            "p09_pooling",
            "--lang",
            "wgsl",
            "--backend",
            "sim",
            "--draw",
        ],
        &[],
    );
    let drawn = ws.path().join("p09_pooling/pooling.wgsl.svg");
    let svg = std::fs::read_to_string(&drawn)
        .map_err(|e| format!("no diagram at {}: {e}\n{stderr}", drawn.display()))?;
    if !svg.starts_with("<svg") || !stderr.contains("pooling.wgsl.svg") {
        return Err(format!("--draw: {stderr}\n{svg}").into());
    }
    Ok(())
}

/// This group's trials, for the suite's `main`.
/// A learner's copies under names the book used before (a renamed puzzle,
/// a renamed kernel file) move to today's names, their text kept, and their
/// progress follows; every rename in the table names a puzzle of the book.
fn former_names_keep_the_learners_work() -> Result<(), Failed> {
    use runner::learner::{FORMER_FILES as FILES, FORMER_IDS as IDS, ProgressFile};
    let book = runner::book::load(&root()).map_err(|e| format!("{e:?}"))?;
    for (old, new) in IDS {
        assert!(
            book.find(new).is_ok() && book.find(old).is_err(),
            "{old} → {new}"
        );
    }
    for (id, _, stem) in FILES {
        let puzzle = book.find(id).map_err(|e| format!("{e:?}"))?;
        let names: Vec<String> = puzzle
            .kernels
            .values()
            .map(|k| k.copy_name.clone())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with(&format!("{stem}."))),
            "{id}: {names:?}"
        );
    }
    let dir = tempfile::tempdir()?;
    let ws = Workspace::new(&book, Some(dir.path().to_path_buf()));
    let old_view = dir.path().join("v04_map_2d_view/add_10_2d_view.cu");
    let old_file = dir.path().join("p30_chain_fused/chain.wgsl");
    for old in [&old_view, &old_file] {
        std::fs::create_dir_all(old.parent().unwrap())?;
        std::fs::write(old, "// the learner's own work\n")?;
    }
    std::fs::write(
        dir.path().join("progress.json"),
        r#"{"puzzles": {"v04_map_2d_view": {"langs": {"cuda": "pass"}}}}"#,
    )?;
    let created = ws.ensure(&book)?;
    assert_eq!(created.moved.len(), 2, "{:?}", created.moved);
    for new in [
        "p04_map_2d_view/add_10_2d_view.cu",
        "p30_chain_fused/bias_gelu_scale.wgsl",
    ] {
        let text = std::fs::read_to_string(dir.path().join(new))?;
        assert_eq!(text, "// the learner's own work\n", "{new}");
    }
    assert!(!old_view.exists() && !old_file.exists());
    let progress = ProgressFile::in_workspace(dir.path()).load()?;
    assert!(
        progress.solved("p04_map_2d_view", Lang::Cuda),
        "{progress:?}"
    );
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    let wgpu = RUNNER
        .backend(BackendKind::Wgpu)
        .map(|_| ())
        .map_err(|e| e.to_string());
    let needs_wgsl: [(&str, fn() -> Result<(), Failed>); 5] = [
        ("check::diagnoses_puzzle_3", diagnoses_puzzle_3),
        ("cli::check_text_and_json", check_cli_text_and_json),
        ("cli::hint_reset_and_bad_input", hint_reset_and_bad_input),
        ("cli::watch_follows_saves", watch_follows_saves),
        ("cli::the_cli_fits_80_columns", the_cli_fits_80_columns),
    ];
    let mut trials: Vec<Trial> = needs_wgsl
        .into_iter()
        .map(|(name, test)| match &wgpu {
            Ok(()) => Trial::test(name, test),
            Err(reason) => Trial::test(name, || Ok(()))
                .with_kind(format!("skipped: {reason}"))
                .with_ignored_flag(true),
        })
        .collect();
    trials.push(match &wgpu {
        Ok(()) => Trial::test("cli::bench_file_wgsl", || bench_file(Lang::Wgsl, false)),
        Err(reason) => Trial::test("cli::bench_file_wgsl", || Ok(()))
            .with_kind(format!("skipped: {reason}"))
            .with_ignored_flag(true),
    });
    let cuda_gpu = match RUNNER.backend(BackendKind::Cuda) {
        Ok(b) if b.runs_kernels() => Ok(()),
        Ok(_) => Err("no NVIDIA GPU runs kernels here".to_string()),
        Err(e) => Err(e.to_string()),
    };
    trials.push(match cuda_gpu {
        Ok(()) => Trial::test("cli::bench_file_cuda", || bench_file(Lang::Cuda, true)),
        Err(reason) => Trial::test("cli::bench_file_cuda", || Ok(()))
            .with_kind(format!("skipped: {reason}"))
            .with_ignored_flag(true),
    });
    trials.push(Trial::test(
        "cli::list_and_progress_follow_the_book",
        list_and_progress_follow_the_book,
    ));
    trials.push(Trial::test(
        "draw::diagrams_show_what_the_kernel_did",
        diagrams_show_what_the_kernel_did,
    ));
    trials.push(Trial::test(
        "cli::check_draw_writes_the_diagram_beside_the_file",
        check_draw_writes_the_diagram_beside_the_file,
    ));
    trials.push(Trial::test(
        "workspace::former_names_keep_the_learners_work",
        former_names_keep_the_learners_work,
    ));
    trials.push(Trial::test(
        "cli::cuda_says_what_it_can_do_here",
        cuda_says_what_it_can_do_here,
    ));
    trials
}
