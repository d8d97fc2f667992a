//! Checking the learner's kernel: the teaching size first, then (once that
//! passes) every stress size of the spec, and a diagnosis in words.
//!
//! The result, [`CheckReport`], is what `runner check` prints, what the
//! browser's playground shows, and, as JSON, their machine-readable form.
//! Its shape is versioned by [`SCHEMA`] and documented in `docs/LEARNER.md`;
//! it is built here from the engine's own reports, so it does not change
//! when they do.

use crate::assess::cases::{self, Case, Stage, Until};
use crate::assess::input::BadInput;
use crate::backend_contract::backend::{BackendError, BackendKind};
use crate::chapter::puzzle::Puzzle;
use crate::judge::report::{RunReport, Status};
use crate::judge::verify::BufferCheck;
use crate::lang::Lang;
use crate::quantity::thousands;
use crate::source::diag::{Located, display_path};
use crate::source::text::SourceText;
use crate::spec::data::Values;
use crate::spec::expr::Constants;
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};

/// The version of the JSON shape; raised when a field changes meaning or goes away.
pub const SCHEMA: u32 = 1;

/// The outcome of checking a learner's file, as a learner would put it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Right at the teaching size and at every stress size.
    Pass,
    /// Ran, and some output is wrong, never written, or written out of bounds.
    Fail,
    CompileError,
    /// Did not finish in time.
    Hang,
    /// The file is empty, binary, or lacks the kernel.
    BadInput,
    /// Compiles, but nothing here can run it (CUDA without an NVIDIA GPU).
    CompiledOnly,
    /// The backend is not installed here.
    Unavailable,
    /// The launch was impossible or the device failed.
    Error,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::CompileError => "COMPILE ERROR",
            Verdict::Hang => "HANG",
            Verdict::BadInput => "CANNOT CHECK",
            Verdict::CompiledOnly => "COMPILES",
            Verdict::Unavailable => "UNAVAILABLE",
            Verdict::Error => "ERROR",
        }
    }

    /// Exit status: 0 solved, 1 the learner's kernel (or file) is wrong,
    /// 2 it could not be judged here.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::Fail | Verdict::CompileError | Verdict::Hang | Verdict::BadInput => 1,
            Verdict::CompiledOnly | Verdict::Unavailable | Verdict::Error => 2,
        }
    }
}

/// One value read back. In JSON: a number, `null` when never written (still
/// poisoned), or the string `"nan"`, `"inf"` or `"-inf"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Element {
    Value(f64),
    Unwritten,
}

impl Serialize for Element {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Element::Unwritten => s.serialize_none(),
            Element::Value(v) if v.is_nan() => s.serialize_str("nan"),
            Element::Value(v) if v.is_infinite() => {
                s.serialize_str(if v > 0.0 { "inf" } else { "-inf" })
            }
            Element::Value(v) => s.serialize_f64(v),
        }
    }
}

/// An output buffer of one run, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Output {
    pub name: String,
    pub shape: Vec<usize>,
    pub got: Vec<Element>,
    pub expected: Vec<f64>,
    /// Flat indices of wrong elements.
    pub wrong: Vec<usize>,
    /// Flat indices of elements never written.
    pub unwritten: Vec<usize>,
    /// Indices written outside the buffer (negative: before its start).
    pub out_of_bounds: Vec<i64>,
}

/// One run of the learner's kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    pub stage: Stage,
    /// Every constant of the spec as this run set it (`SIZE`, `TPB`, …).
    pub constants: Constants,
    pub status: Status,
    pub outputs: Vec<Output>,
    /// What the kernel's `printf`s printed in this run (CUDA C).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub printed: String,
}

/// One wrong element, by its coordinates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WrongElement {
    pub index: Vec<usize>,
    pub got: Element,
    pub expected: f64,
}

/// How many elements a finding lists by coordinates; `runs[].outputs` has them all.
pub const LISTED: usize = 8;

/// What is wrong, in a form a program can act on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    /// A compiler message at a line of the learner's file.
    CompileError {
        file: PathBuf,
        line: usize,
    },
    /// What the CPU checker saw go wrong at a line while the kernel ran: a
    /// data race, an out-of-bounds index, an uninitialized read, a barrier
    /// or subgroup operation not every invocation reaches, too many
    /// global-memory accesses.
    Hazard {
        file: PathBuf,
        line: usize,
    },
    NeverWritten {
        buffer: String,
        count: usize,
        of: usize,
        elements: Vec<Vec<usize>>,
    },
    WrongValues {
        buffer: String,
        count: usize,
        of: usize,
        elements: Vec<WrongElement>,
    },
    OutOfBounds {
        buffer: String,
        len: usize,
        indices: Vec<i64>,
    },
    /// Right at the teaching size, wrong at the stress size `constants`.
    StressOnly {
        constants: Constants,
    },
    Hang {
        seconds: f64,
    },
    /// Something to know about how the run was judged.
    Note,
    BadInput {
        problem: &'static str,
    },
    CompiledOnly,
    Unavailable,
    Error,
}

/// One thing wrong (or one thing to know), in words and as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    #[serde(flatten)]
    pub what: What,
    /// The run it was seen in (index into `runs`), if any.
    pub run: Option<usize>,
    pub message: String,
}

/// Everything `runner check` says about one learner's file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    pub schema: u32,
    pub puzzle: String,
    pub title: String,
    pub lang: Lang,
    pub file: PathBuf,
    pub backend: BackendKind,
    /// What ran it ("wgpu · llvmpipe (…) (CPU, Vulkan)"), when the backend opened.
    pub device: Option<String>,
    pub verdict: Verdict,
    /// The verdict in a few words.
    pub summary: String,
    /// The teaching size first, then stress runs (until one fails).
    pub runs: Vec<Run>,
    pub findings: Vec<Finding>,
    /// What to do now.
    pub next: String,
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Pass
    }
}

/// What a check is about: which kernel file, and where it runs.
pub struct Subject<'a> {
    pub puzzle: &'a Puzzle,
    pub lang: Lang,
    /// The learner's file (the browser names the puzzle's kernel file).
    pub file: &'a Path,
    pub backend: BackendKind,
    /// What runs it ("wgpu · llvmpipe (…) (CPU, Vulkan)"), when the backend opened.
    pub device: Option<String>,
    /// Through the stress sizes (a check); without, the teaching size
    /// alone (the browser's first, quicker verdict, before the full one).
    pub stress: bool,
}

/// Checks the learner's kernel, `input` (its text, or why there is none),
/// running each case through `run`: the teaching size, then every stress
/// case until one fails.
pub fn check(
    subject: Subject,
    input: Result<SourceText, BadInput>,
    mut run: impl FnMut(&Case, &SourceText) -> Result<RunReport, Located>,
) -> CheckReport {
    let Subject {
        puzzle,
        lang,
        file,
        backend,
        device,
        stress,
    } = subject;
    let report = CheckReport {
        schema: SCHEMA,
        puzzle: puzzle.id().to_string(),
        title: puzzle.title().to_string(),
        lang,
        file: file.to_path_buf(),
        backend,
        device,
        verdict: Verdict::Error,
        summary: String::new(),
        runs: vec![],
        findings: vec![],
        next: String::new(),
    };
    let source = match input {
        Ok(source) => source,
        Err(bad) => {
            let (what, next) = bad.describe(file, puzzle.id(), lang);
            return report.finish(Verdict::BadInput, bad_input(&bad), what, next);
        }
    };
    // The CPU checker leaves sizes past its reach to a GPU, and says so.
    let (cases, beyond) = match (stress, backend) {
        (false, _) => (cases::cases(&puzzle.spec, false), vec![]),
        (true, kind) if kind.is_simulator() => cases::for_checker(&puzzle.spec),
        (true, _) => (cases::cases(&puzzle.spec, true), vec![]),
    };
    let ran = cases::run_cases(cases, Until::FirstFailure, |case| run(case, &source));
    let ran = match ran {
        Ok(ran) => ran,
        Err(located) => {
            let message = located.to_string();
            return report.finish(Verdict::Error, What::Error, message.clone(), message);
        }
    };
    report
        .judge_runs(puzzle, ran)
        .left_to_a_gpu(puzzle, &beyond)
}

impl CheckReport {
    /// The verdict on the runs made: the first that did not pass, or a pass.
    fn judge_runs(mut self, puzzle: &Puzzle, ran: Vec<(Case, RunReport)>) -> Self {
        for (index, (case, run)) in ran.iter().enumerate() {
            self.runs.push(Run {
                stage: case.stage,
                constants: case.constants(&puzzle.spec),
                status: run.status,
                outputs: outputs(run),
                printed: run.printed.clone(),
            });
            if run.status != Status::Pass {
                return self.judge(puzzle, run, index, case.overrides.as_ref());
            }
        }
        let sizes: Vec<String> = self.runs[1..]
            .iter()
            .map(|r| changed(&r.constants, &puzzle.spec.raw.constants))
            .collect();
        self.verdict = Verdict::Pass;
        self.summary = if sizes.is_empty() {
            "passes".into()
        } else {
            format!(
                "passes at the teaching size and at every stress size ({})",
                sizes.join("; ")
            )
        };
        self.next = "Solved. Move on to the next puzzle (`runner watch` does that for you).".into();
        self
    }
}

impl CheckReport {
    /// Names the stress sizes the CPU checker did not run, on a pass (a
    /// failure stops before them anyway).
    fn left_to_a_gpu(mut self, puzzle: &Puzzle, beyond: &[Case]) -> Self {
        if beyond.is_empty() || self.verdict != Verdict::Pass {
            return self;
        }
        let sizes: Vec<String> = beyond
            .iter()
            .map(|case| {
                let count = cases::invocations(&puzzle.spec, case).unwrap_or(0);
                format!("{} ({} invocations)", case.label(), thousands(count))
            })
            .collect();
        let ran = match self.summary.as_str() {
            "passes" => "passes at the teaching size".to_string(),
            said => said.replace(
                "at every stress size",
                "at the stress sizes the CPU checker runs",
            ),
        };
        let labels: Vec<String> = beyond.iter().map(Case::label).collect();
        self.summary = format!("{ran}; left to a GPU: {}", labels.join("; "));
        self.findings.push(Finding {
            what: What::Note,
            run: None,
            message: format!(
                "The CPU checker runs launches of up to {} invocations, so it left {} to a \
                 GPU: {}",
                thousands(cases::CHECKER_INVOCATIONS),
                sizes.join(", "),
                match self.lang {
                    Lang::Wgsl => format!(
                        "`runner check {} --lang wgsl` runs it on one (or on lavapipe).",
                        puzzle.id()
                    ),
                    Lang::Cuda => format!(
                        "`runner check {} --lang cuda` runs it on an NVIDIA GPU.",
                        puzzle.id()
                    ),
                }
            ),
        });
        self
    }

    /// Ends a check with one finding.
    fn finish(mut self, verdict: Verdict, what: What, message: String, next: String) -> Self {
        self.verdict = verdict;
        self.summary = match verdict {
            Verdict::BadInput => "cannot be checked".into(),
            _ => "could not be checked here".into(),
        };
        self.findings.push(Finding {
            what,
            run: None,
            message,
        });
        self.next = next;
        self
    }

    /// Judges a run that did not pass (run number `index`; `case`: its stress constants).
    fn judge(
        mut self,
        puzzle: &Puzzle,
        run: &RunReport,
        index: usize,
        case: Option<&Constants>,
    ) -> Self {
        let file = display_path(&self.file);
        let hint = format!("`runner hint {}` gives a tip", puzzle.id());
        let at = |message: String| Finding {
            what: What::Error,
            run: Some(index),
            message,
        };
        match run.status {
            Status::Pass => unreachable!("judge is called on runs that did not pass"),
            Status::Fail => {
                self.verdict = Verdict::Fail;
                if let Some(case) = case {
                    let sizes = changed(case, &Constants::new());
                    self.summary = format!("passes at the teaching size, fails at {sizes}");
                    self.findings.push(Finding {
                        what: What::StressOnly {
                            constants: case.clone(),
                        },
                        run: Some(index),
                        message: stress_only_advice(puzzle, &sizes),
                    });
                } else {
                    self.summary = "fails at the teaching size".into();
                }
                for check in run.checks.iter() {
                    self.findings.extend(buffer_findings(check, index));
                }
                self.findings
                    .extend(run.diagnostics.iter().map(|d| Finding {
                        what: What::Hazard {
                            file: d.file.clone(),
                            line: d.line,
                        },
                        run: Some(index),
                        message: d.message.clone(),
                    }));
                if let Some(note) = &run.message {
                    self.findings.push(Finding {
                        what: What::Note,
                        run: Some(index),
                        message: note.clone(),
                    });
                }
                self.next = format!("Fix the kernel in {file} and save; {hint}.");
            }
            Status::CompileError => {
                self.verdict = Verdict::CompileError;
                self.summary = "does not compile".into();
                for d in &run.diagnostics {
                    self.findings.push(compile_finding(d, index));
                }
                self.next = format!("Fix the line named above in {file} and save.");
            }
            Status::Compiled => {
                self.verdict = Verdict::CompiledOnly;
                self.summary = "compiles; cannot be run here".into();
                let why = run.message.clone().unwrap_or_default();
                self.findings.push(Finding {
                    what: What::CompiledOnly,
                    run: Some(index),
                    message: format!(
                        "CUDA C can only be compiled on this machine, not run ({why}). Your kernel compiles."
                    ),
                });
                let id = puzzle.id();
                self.next = if puzzle.kernel(Lang::Wgsl).is_some() {
                    format!(
                        "Run it on the CPU checker here (`runner check {id} --lang cuda --backend \
                         sim`), solve the WGSL version (`runner check {id} --lang wgsl`), or run \
                         this one on a machine with an NVIDIA GPU."
                    )
                } else {
                    format!(
                        "Run it on the CPU checker here (`runner check {id} --lang cuda --backend \
                         sim`), or on a machine with an NVIDIA GPU to see its output."
                    )
                };
            }
            Status::Unavailable => {
                self.verdict = Verdict::Unavailable;
                self.summary = format!("{} is not available here", self.backend);
                let mut finding = at(run.message.clone().unwrap_or_default());
                finding.what = What::Unavailable;
                self.findings.push(finding);
                self.next = match self.lang {
                    // No NVRTC, or an instruction the CUDA checker lacks.
                    Lang::Cuda if self.backend == BackendKind::PtxSim => format!(
                        "Install NVRTC if the message above asks for it; else run this kernel on \
                         a machine with an NVIDIA GPU, or solve the WGSL version: `runner check {} \
                         --lang wgsl`.",
                        puzzle.id()
                    ),
                    Lang::Cuda => format!(
                        "Install NVRTC (see the README), or solve the WGSL version: `runner check {} --lang wgsl`.",
                        puzzle.id()
                    ),
                    Lang::Wgsl => "Install what the message above names, then check again.".into(),
                };
            }
            Status::Error => match run.error.as_ref().and_then(BackendError::hang_limit) {
                Some(limit) => {
                    self.verdict = Verdict::Hang;
                    self.summary = format!("did not finish within {} s", limit.as_secs_f64());
                    self.findings.push(Finding {
                        what: What::Hang {
                            seconds: limit.as_secs_f64(),
                        },
                        run: Some(index),
                        message: run.message.clone().unwrap_or_default(),
                    });
                    self.next = format!(
                        "Look for a loop whose condition never becomes false, or a barrier inside \
                         an `if` that some threads skip; fix {file} and save."
                    );
                }
                _ => {
                    self.verdict = Verdict::Error;
                    self.summary = "could not run".into();
                    self.findings
                        .push(at(run.message.clone().unwrap_or_default()));
                    self.next = format!(
                        "Check the launch sizes your kernel declares against the puzzle's, fix {file} and save."
                    );
                }
            },
        }
        self
    }
}

fn bad_input(bad: &BadInput) -> What {
    What::BadInput {
        problem: bad.code(),
    }
}

fn compile_finding(d: &Located, run: usize) -> Finding {
    Finding {
        what: What::CompileError {
            file: d.file.clone(),
            line: d.line,
        },
        run: Some(run),
        message: d.message.clone(),
    }
}

/// One finding per kind of problem in a buffer.
fn buffer_findings(check: &BufferCheck, run: usize) -> Vec<Finding> {
    let of = check.shape.iter().product();
    let mut findings = Vec::new();
    let mut push = |what: What, message: Option<String>| {
        if let Some(message) = message {
            findings.push(Finding {
                what,
                run: Some(run),
                message,
            });
        }
    };
    push(
        What::NeverWritten {
            buffer: check.name.clone(),
            count: check.unwritten.len(),
            of,
            elements: check
                .unwritten
                .iter()
                .take(LISTED)
                .map(|&i| check.coordinates(i))
                .collect(),
        },
        check.unwritten_problem(),
    );
    push(
        What::WrongValues {
            buffer: check.name.clone(),
            count: check.wrong.len(),
            of,
            elements: check
                .wrong
                .iter()
                .take(LISTED)
                .map(|&i| WrongElement {
                    index: check.coordinates(i),
                    got: element(check.got.get(i).copied().flatten()),
                    expected: check.expected.get(i).copied().unwrap_or(f64::NAN),
                })
                .collect(),
        },
        check.wrong_problem(),
    );
    push(
        What::OutOfBounds {
            buffer: check.name.clone(),
            len: of,
            indices: check.out_of_bounds.iter().take(LISTED).copied().collect(),
        },
        check.out_of_bounds_problem(),
    );
    findings
}

fn element(value: Option<f64>) -> Element {
    value.map_or(Element::Unwritten, Element::Value)
}

fn outputs(run: &RunReport) -> Vec<Output> {
    run.checks
        .iter()
        .filter(|c| c.judged)
        .map(|c| Output {
            name: c.name.clone(),
            shape: c.shape.clone(),
            got: c.got.iter().map(|&v| element(v)).collect(),
            expected: c.expected.clone(),
            wrong: c.wrong.clone(),
            unwritten: c.unwritten.clone(),
            out_of_bounds: c.out_of_bounds.clone(),
        })
        .collect()
}

/// "SIZE=7": the constants of `case` that differ from `base`.
fn changed(case: &Constants, base: &Constants) -> String {
    let parts: Vec<String> = case
        .iter()
        .filter(|(k, v)| base.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    parts.join(", ")
}

/// Why a kernel can be right at the teaching size and wrong at a stress
/// size. Where a teaching input holds one value in every element (`ones`,
/// `fill 11`), reading the wrong element of it still gives the right answer,
/// so an index mistake hides there: that is said first.
fn stress_only_advice(puzzle: &Puzzle, sizes: &str) -> String {
    let uniform: Vec<&str> = puzzle
        .spec
        .raw
        .buffers
        .iter()
        .filter(|(_, b)| !b.value.output && matches!(b.value.init, Some(Values::Fill(_))))
        .map(|(name, _)| name.as_str())
        .collect();
    let head = format!(
        "Right at the teaching size, wrong at {sizes} (random inputs, checked against a CPU \
         reference)."
    );
    let sizes_advice = "a size, a thread count or a block count written as a number where the \
                        kernel should use `size` or the block's dimensions, or a guard that only \
                        holds at the teaching size";
    match uniform.as_slice() {
        [] => format!("{head} Look for {sizes_advice}."),
        names => format!(
            "{head} At the teaching size every element of {} holds the same value, so reading \
             the wrong element still gives the right answer there: check each index first (a \
             local index where the global one belongs, or the other way round), then look for \
             {sizes_advice}.",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend_contract::outcome::Outcome;
    use crate::kernel::cut::Variant;
    use std::time::Duration;

    /// A report of a run that ended with `outcome`, for the judge.
    fn judged(outcome: Result<Outcome, BackendError>) -> CheckReport {
        let book = crate::test_book::book();
        let puzzle = book.find("p1").unwrap();
        let spec = puzzle.spec.resolve(&Constants::new()).unwrap();
        let run = RunReport::new(
            &spec,
            Lang::Cuda,
            Variant::File,
            BackendKind::Cuda,
            None,
            outcome,
        );
        let report = CheckReport {
            schema: SCHEMA,
            puzzle: "p1".into(),
            title: "T".into(),
            lang: Lang::Cuda,
            file: "k.cu".into(),
            backend: BackendKind::Cuda,
            device: None,
            verdict: Verdict::Error,
            summary: String::new(),
            runs: vec![],
            findings: vec![],
            next: String::new(),
        };
        report.judge(puzzle, &run, 0, None)
    }

    #[test]
    fn failures_of_the_machine_are_told_apart_table() {
        let cases = [
            (
                Err(BackendError::Timeout(Duration::from_secs(5))),
                Verdict::Hang,
                "hang",
                "did not finish within 5 s",
            ),
            (
                Err(BackendError::Launch("a block of 2048 threads".into())),
                Verdict::Error,
                "error",
                "could not run",
            ),
            (
                Ok(Outcome::CompiledOnly("no NVIDIA driver".into())),
                Verdict::CompiledOnly,
                "compiled_only",
                "compiles; cannot be run here",
            ),
            (
                Err(BackendError::Unavailable {
                    backend: BackendKind::Cuda,
                    reason: "no NVRTC".into(),
                }),
                Verdict::Unavailable,
                "unavailable",
                "cuda is not available here",
            ),
        ];
        for (outcome, verdict, kind, summary) in cases {
            let report = judged(outcome);
            assert_eq!(report.verdict, verdict, "{summary}");
            assert_eq!(report.summary, summary);
            let json = serde_json::to_value(&report).unwrap();
            assert_eq!(json["findings"][0]["kind"], kind, "{json}");
            assert!(!report.next.is_empty(), "{summary}: no next step");
        }
        // p1 has a WGSL kernel, so a CUDA learner without a GPU is pointed to it.
        let compiled = judged(Ok(Outcome::CompiledOnly("x".into())));
        assert!(compiled.next.contains("--lang wgsl"), "{}", compiled.next);
    }

    #[test]
    fn elements_serialise_as_numbers_null_or_words() {
        let got = [
            Element::Value(1.5),
            Element::Unwritten,
            Element::Value(f64::NAN),
            Element::Value(f64::NEG_INFINITY),
        ];
        assert_eq!(
            serde_json::to_string(&got).unwrap(),
            r#"[1.5,null,"nan","-inf"]"#
        );
    }

    #[test]
    fn stress_only_advice_suspects_indices_where_teaching_inputs_are_uniform() {
        let book = crate::test_book::book();
        let mut puzzle = book.find("p1").unwrap().clone();
        let plain = stress_only_advice(&puzzle, "SIZE=1001");
        assert!(plain.contains("written as a number"), "{plain}");
        assert!(!plain.contains("index"), "{plain}");
        let mut ones = puzzle.spec.raw.buffers["out"].clone();
        ones.value.output = false;
        ones.value.init = Some(Values::Fill(1.0));
        puzzle.spec.raw.buffers.insert("a".into(), ones);
        let uniform = stress_only_advice(&puzzle, "SIZE=1001");
        assert!(
            uniform.contains("every element of `a` holds the same value"),
            "{uniform}"
        );
        assert!(uniform.contains("a local index where the global one belongs"));
    }
}
