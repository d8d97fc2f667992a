//! Hostile and careless input, end to end through the `runner` command: the
//! faults listed in issue 15, each a book in a temporary folder and a
//! command with a wall-clock limit. Every case asserts what the user would
//! see: the command ends within its limit plus a few seconds, exits with the
//! code its help promises, says what is wrong at the right line, never says
//! PASS or Solved for a kernel that is wrong, never panics, and loses no file.
//!
//! Cases that need a GPU adapter (lavapipe in CI) are skipped by name, with
//! the reason, where wgpu finds none, and those about a CPU adapter's runs
//! where the adapter is a GPU; the CPU checker (sim) cases always run.

mod cases;

use cases::cases;
use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use runner::run::Runner;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The puzzle every case starts from: eight threads, four elements, a guard.
const CHAPTER: &str = r#"# Hostile

```puzzle
id: h
title: Guard
kernel: add_ten
reference: p03_guard
grid: [1]
block: [8]
buffers:
  out: { len: 4, output: true }
  a: { len: 4, init: arange }
args: [out, a]
expect:
  out: [10, 11, 12, 13]
```

```wgsl,puzzle=h
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@compute @workgroup_size(8)
fn add_ten(@builtin(local_invocation_id) lid: vec3<u32>) {
    // BEGIN PUZZLE
    if (lid.x < 4u) {
        out[lid.x] = a[lid.x] + 10.0;
    }
    // END PUZZLE
}
```
"#;

#[derive(Clone, Copy, PartialEq)]
enum Needs {
    /// The CPU checker only: runs everywhere.
    Nothing,
    /// A wgpu adapter (lavapipe in CI).
    Wgpu,
    /// A CPU adapter (lavapipe), whose runs the checker must vouch for;
    /// a GPU adapter runs these kernels for real.
    CpuAdapter,
}

struct Case {
    /// `NN_what`: NN is the item's number in issue 15.
    name: &'static str,
    needs: Needs,
    /// The chapter, as (text to find in [`CHAPTER`], its replacement).
    edits: Vec<(&'static str, String)>,
    /// Other files of the book (relative to its folder) or of the workspace
    /// (under `.learner/`).
    files: Vec<(&'static str, String)>,
    /// Arguments after `runner --book B --workspace W`; `{book}` and
    /// `{workspace}` are replaced by the folders.
    args: Vec<&'static str>,
    /// Seconds the command may take; a few more are allowed for start-up.
    limit: u64,
    /// The exit code the command's help promises.
    code: i32,
    /// Phrases the output must contain.
    says: Vec<&'static str>,
    /// Phrases it must not contain.
    never: Vec<&'static str>,
    /// A check of the files afterwards (nothing lost).
    after: Option<fn(&Path) -> Result<(), String>>,
    /// The answer a GPU adapter may give instead, where its speed decides
    /// (chosen by its exit code); a CPU adapter and the checker give the
    /// case's own answer.
    or_on_a_gpu: Option<Answer>,
    /// The whole output, its words as one line each separated by a space:
    /// what the user reads, with nothing beside it.
    output: Option<&'static str>,
}

/// What a command answers: its exit code and what its output must and
/// must not say.
struct Answer {
    code: i32,
    says: Vec<&'static str>,
    never: Vec<&'static str>,
}

impl Default for Case {
    fn default() -> Self {
        Case {
            name: "",
            needs: Needs::Nothing,
            edits: vec![],
            files: vec![],
            args: vec![],
            limit: 10,
            code: 0,
            says: vec![],
            never: vec![],
            after: None,
            or_on_a_gpu: None,
            output: None,
        }
    }
}

/// What no output may ever contain: a panic, or an allocation that
/// aborted the process. (Each case names the verdicts it must not show.)
const NEVER_ANYWHERE: [&str; 3] = ["panicked", "RUST_BACKTRACE", "memory allocation"];

/// Seconds allowed past a case's limit: process start, adapter discovery,
/// a child killed and reaped.
const SLACK: u64 = 15;
/// Writes the case's book into `dir`.
fn write_book(case: &Case, dir: &Path) -> Result<(), Failed> {
    let mut chapter = CHAPTER.to_string();
    for (find, replace) in &case.edits {
        if !chapter.contains(find) {
            return Err(format!("{}: the chapter has no `{find}` to edit", case.name).into());
        }
        chapter = chapter.replacen(find, replace, 1);
    }
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("book.toml"), "[book]\ntitle = \"hostile\"\n")?;
    std::fs::write(
        dir.join("src/SUMMARY.md"),
        "# Summary\n\n- [Hostile](ch.md)\n",
    )?;
    std::fs::write(dir.join("src/ch.md"), chapter)?;
    for (path, text) in &case.files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap())?;
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// Runs the command, killing it past its limit; (exit code, stdout + stderr).
fn run_limited(case: &Case, book: &Path) -> Result<(i32, String), Failed> {
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{book}", &book.display().to_string()))
        .collect();
    let mut child = Command::new(crate::cli::runner_exe())
        .arg("--book")
        .arg(book)
        .arg("--workspace")
        .arg(book.join(".learner"))
        .args(&args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(case.limit + SLACK);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "`runner {}` was still running after {} s (its limit is {} s)",
                args.join(" "),
                case.limit + SLACK,
                case.limit
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    Ok((status.code().unwrap_or(-1), text))
}

/// Runs `case` and holds its output to the answer it must give; `gpu`:
/// whether the wgpu adapter is a GPU's.
fn trial(case: Case, gpu: bool) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let book = dir.path().join("book");
    write_book(&case, &book)?;
    let (code, text) = run_limited(&case, &book)?;
    let command = format!("runner {}", case.args.join(" "));
    let (want, says, never) = match &case.or_on_a_gpu {
        Some(other) if gpu && code == other.code => (other.code, &other.says, &other.never),
        _ => (case.code, &case.says, &case.never),
    };
    if code != want {
        return Err(format!("`{command}` exited {code}, not {want}:\n{text}").into());
    }
    for phrase in says {
        if !text.contains(phrase) {
            return Err(format!("`{command}` did not say {phrase:?}:\n{text}").into());
        }
    }
    if let Some(output) = case.output {
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if words != output {
            return Err(format!("`{command}` printed other than {output:?}:\n{text}").into());
        }
    }
    for phrase in never.iter().chain(NEVER_ANYWHERE.iter()) {
        if text.contains(phrase) {
            return Err(format!("`{command}` said {phrase:?}:\n{text}").into());
        }
    }
    if let Some(after) = case.after {
        after(&book).map_err(|e| format!("`{command}`: {e}"))?;
    }
    Ok(())
}

/// Whether the stress run's `--json` output is JSON alone (issue 15, item 14).
fn stress_json_is_json_alone() -> Result<(), Failed> {
    // GPU_PUZZLES_BOOK: where the book is when this binary runs away from
    // its checkout (the GPU machine).
    let root = std::env::var_os("GPU_PUZZLES_BOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."));
    let output = Command::new(crate::cli::runner_exe())
        .args(["--book"])
        .arg(&root)
        .args(["run", "p03_guard", "--stress", "--json", "--backend", "sim"])
        .stdin(Stdio::null())
        .output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let reports: serde_json::Value = serde_json::from_str(&stdout)
        .map_err(|e| format!("stdout is not one JSON value ({e}):\n{stdout}"))?;
    let count = reports.as_array().map_or(0, Vec::len);
    if count < 2 {
        return Err(
            format!("expected the teaching run and a stress run, got {count}:\n{stdout}").into(),
        );
    }
    Ok(())
}

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<Trial> {
    let runner = Runner::new(Settings::default());
    let wgpu = runner
        .backend(BackendKind::Wgpu)
        .map(|b| b.device().kind == "CPU")
        .map_err(|e| e.to_string());
    let mut trials: Vec<Trial> = cases()
        .into_iter()
        .map(|case| {
            let name = format!("hostile::{}", case.name);
            let skip = match (case.needs, &wgpu) {
                (Needs::Nothing, _) | (Needs::Wgpu, Ok(_)) | (Needs::CpuAdapter, Ok(true)) => None,
                (_, Err(reason)) => Some(reason.clone()),
                (Needs::CpuAdapter, Ok(false)) => {
                    Some("the adapter is a GPU, which runs this for real".into())
                }
            };
            match skip {
                Some(reason) => Trial::test(name, || Ok(()))
                    .with_kind(format!("skipped: {reason}"))
                    .with_ignored_flag(true),
                None => {
                    let gpu = wgpu == Ok(false);
                    Trial::test(name, move || trial(case, gpu))
                }
            }
        })
        .collect();
    trials.push(Trial::test(
        "hostile::14_stress_json_is_json_alone",
        stress_json_is_json_alone,
    ));
    trials
}
