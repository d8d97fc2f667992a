//! The result of checking one kernel: what every front end (CLI, tests,
//! preprocessor, JSON) shows, built once from a backend's outcome.

use crate::backend_contract::access_map::AccessMap;
use crate::backend_contract::backend::{BackendError, BackendKind, DeviceInfo};
use crate::backend_contract::outcome::{AccessCount, GlobalAccess, Outcome};
use crate::backend_contract::timing::Timing;
use crate::judge::verify::{self, BufferCheck};
use crate::kernel::cut::Variant;
use crate::lang::Lang;
use crate::source::diag::Located;
use crate::spec::model::Spec;
use crate::spec::raw::AccessBound;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Ran, and every output matched.
    Pass,
    /// Ran, and some output did not match (wrong, unwritten or out of bounds).
    Fail,
    /// The kernel did not compile.
    CompileError,
    /// Compiled, not run (no device for this backend).
    Compiled,
    /// The backend is not present on this machine.
    Unavailable,
    /// The launch was impossible or the device failed (limits, hang, device loss).
    Error,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::CompileError => "COMPILE ERROR",
            Status::Compiled => "COMPILED",
            Status::Unavailable => "UNAVAILABLE",
            Status::Error => "ERROR",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub puzzle: String,
    pub lang: Lang,
    pub variant: Variant,
    pub backend: BackendKind,
    pub device: Option<DeviceInfo>,
    pub status: Status,
    /// Compiler messages, or hazards a checking backend saw while the kernel
    /// ran (races, out-of-bounds indices), at the kernel file's lines.
    pub diagnostics: Vec<Located>,
    /// Why it was not run, or what went wrong with the tool or device.
    pub message: Option<String>,
    /// The tool's or device's failure, kept whole so front ends can tell a
    /// hang from an impossible launch without reading the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<BackendError>,
    pub checks: Vec<BufferCheck>,
    pub timing: Option<Timing>,
    /// Global-memory accesses per thread, as the CPU checker counted them,
    /// and the puzzle's bound on them where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<AccessSummary>,
    /// Who touched which element, where the run was traced for a diagram.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accesses: Option<Box<AccessMap>>,
    /// What the kernel's `printf`s printed (CUDA C).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub printed: String,
}

/// What [`RunReport::access`] holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessSummary {
    pub counts: GlobalAccess,
    pub bound: Option<AccessBound>,
}

impl AccessSummary {
    /// The line under a verdict: "Global memory per thread (counted by the
    /// CPU checker): at most 2 reads, 1 write; bound 2 reads, 1 write."
    pub fn describe(&self) -> String {
        let c = &self.counts;
        let mut text = format!(
            "Global memory per thread (counted by the CPU checker): at most {}, {} \
             (mean {:.2} reads, {:.2} writes)",
            plural(c.reads.max, "read"),
            plural(c.writes.max, "write"),
            c.reads.mean,
            c.writes.mean,
        );
        if let Some(b) = self.bound {
            text += &format!(
                "; bound {}, {}",
                plural(b.reads, "read"),
                plural(b.writes, "write")
            );
        }
        text + "."
    }

    /// A sentence per kind of access over the bound, at the kernel line of
    /// the first access too many.
    pub fn excess(&self) -> Vec<Located> {
        let Some(bound) = self.bound else {
            return vec![];
        };
        let kinds = [
            (&self.counts.reads, bound.reads, "read", "read"),
            (&self.counts.writes, bound.writes, "write", "wrote to"),
        ];
        kinds
            .into_iter()
            .filter(|(count, allowed, ..)| count.max > *allowed)
            .map(|(count, allowed, noun, verb)| excess_message(count, allowed, noun, verb))
            .collect()
    }
}

/// How an over-the-bound sentence begins (what [`RunReport::findings`] looks for).
pub(crate) const TOO_MUCH_TRAFFIC: &str = "too much global memory traffic";

fn excess_message(count: &AccessCount, allowed: u32, noun: &str, verb: &str) -> Located {
    let first = count.nth.get(allowed as usize);
    // One thread per sentence: the busiest one, then (where another thread
    // went past the bound first) the one this line is about.
    let same = first.is_some_and(|site| site.thread == count.max_thread);
    let mut message = format!(
        "{TOO_MUCH_TRAFFIC}: {} {verb} global memory {} times{}; this puzzle allows {} per thread",
        thread(count.max_thread),
        count.max,
        if same || first.is_none() {
            ""
        } else {
            ", the most of any thread"
        },
        plural(allowed, noun),
    );
    if let Some(site) = first {
        if same {
            message += &format!(". This line is its {} {noun}", ordinal(allowed + 1));
        } else {
            message += &format!(
                ". The first {noun} past the bound is on this line: {}'s {}",
                thread(site.thread),
                ordinal(allowed + 1)
            );
        }
    }
    message += ". Load each element a thread needs from global memory once, into a variable or \
                workgroup memory, and reuse it from there; let each thread load its share of \
                what the workgroup needs";
    match first {
        Some(site) => Located::new(&site.at.file, site.at.line, message),
        None => Located::new("kernel", 0, message),
    }
}

/// "thread 3" for a 1D launch, "thread (3, 1, 0)" otherwise (global ids).
fn thread(id: [u32; 3]) -> String {
    if id[1] == 0 && id[2] == 0 {
        format!("thread {}", id[0])
    } else {
        format!("thread ({}, {}, {})", id[0], id[1], id[2])
    }
}

fn plural(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The first `lines` lines of what a kernel printed, and a line that counts
/// the rest: what a page, the cache and a recording keep.
pub fn printed_head(printed: &str, lines: usize) -> String {
    let total = printed.lines().count();
    if total <= lines {
        return printed.to_string();
    }
    let mut head: String = printed
        .lines()
        .take(lines)
        .flat_map(|l| [l, "\n"])
        .collect();
    head.push_str(&format!("… and {} more line(s)\n", total - lines));
    head
}

/// Lines of printf output a page, the cache and a recording keep.
pub const PRINTED_KEPT: usize = 64;

/// A kernel's printf output as shown above a report: the text, then a rule
/// that says where it came from; nothing where it printed nothing.
pub fn printed_block(printed: &str) -> String {
    if printed.is_empty() {
        return String::new();
    }
    let lines = printed.lines().count();
    let mut text = printed.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!(
        "── {lines} line(s) printed by the kernel (printf), in the order they reached the host ──\n"
    ));
    text
}

/// What a run of a spec with no expected outputs says of itself.
pub const HAZARDS_ONLY: &str = "checked for hazards only: the spec gives no `expect`, so no output \
     was compared with expected values";

/// What a PASS of such a run means.
const HAZARDS_ONLY_PASS: &str = "; the PASS says that no race, out-of-bounds access, \
     uninitialized read, divergent barrier or deadlock was seen in this run";

impl RunReport {
    pub fn new(
        spec: &Spec,
        lang: Lang,
        variant: Variant,
        backend: BackendKind,
        device: Option<DeviceInfo>,
        outcome: Result<Outcome, BackendError>,
    ) -> RunReport {
        let mut report = RunReport {
            puzzle: spec.id.clone(),
            lang,
            variant,
            backend,
            device,
            status: Status::Error,
            diagnostics: vec![],
            message: None,
            error: None,
            checks: vec![],
            timing: None,
            access: None,
            accesses: None,
            printed: String::new(),
        };
        match outcome {
            Ok(Outcome::CompileFailed(diagnostics)) => {
                report.status = Status::CompileError;
                report.diagnostics = diagnostics;
            }
            Ok(Outcome::CompiledOnly(reason)) => {
                report.status = Status::Compiled;
                report.message = Some(reason);
            }
            Ok(Outcome::Ran(execution)) => {
                report.checks = verify::check(spec, &execution.outputs);
                report.timing = execution.timing;
                report.accesses = execution.accesses;
                report.printed = execution.printed;
                report.access = execution.access.map(|counts| AccessSummary {
                    counts: *counts,
                    bound: None,
                });
                // A hazard fails the run even where the outputs came out right:
                // another GPU, or another day, would not be so lucky.
                report.diagnostics = execution.hazards;
                report.status = if report.diagnostics.is_empty()
                    && report.checks.iter().all(BufferCheck::passed)
                {
                    Status::Pass
                } else {
                    Status::Fail
                };
                if spec.hazards_only {
                    let pass = if report.status == Status::Pass {
                        HAZARDS_ONLY_PASS
                    } else {
                        ""
                    };
                    report.message = Some(format!("{HAZARDS_ONLY}{pass}"));
                }
            }
            Err(error) => {
                report.status = match error {
                    BackendError::Unavailable { .. } => Status::Unavailable,
                    _ => Status::Error,
                };
                report.message = Some(error.to_string());
                // Where a checker stopped an endless kernel, at the kernel's line.
                if let BackendError::TimeoutAt { at, .. } = &error {
                    report.diagnostics = vec![at.clone()];
                }
                report.error = Some(error);
            }
        }
        report
    }

    /// Judges the run's global-memory traffic against the puzzle's bound:
    /// `counts` where this backend did not count them itself (a wgpu run
    /// takes the CPU checker's counts for the same kernel). A run that
    /// passed fails when some thread goes over; a failed run gets the
    /// reason added.
    pub fn judge_access(&mut self, bound: AccessBound, counts: Option<GlobalAccess>) {
        if !matches!(self.status, Status::Pass | Status::Fail) {
            return;
        }
        let Some(counts) = counts.or_else(|| self.access.take().map(|a| a.counts)) else {
            return;
        };
        let summary = AccessSummary {
            counts,
            bound: Some(bound),
        };
        let excess = summary.excess();
        if !excess.is_empty() {
            self.status = Status::Fail;
            self.diagnostics.extend(excess);
        }
        self.access = Some(summary);
    }

    pub fn passed(&self) -> bool {
        self.status == Status::Pass
    }

    /// Whether the verdict agrees with the report's own data: every check
    /// holds up against its values, and the report passed exactly when
    /// every check passed and nothing went wrong on the way. A stored report
    /// (the result cache) that fails this was edited or damaged.
    pub fn holds_up(&self) -> bool {
        if !self.checks.iter().all(BufferCheck::holds_up) {
            return false;
        }
        let clean = self.checks.iter().all(BufferCheck::passed) && self.diagnostics.is_empty();
        match self.status {
            Status::Pass => clean,
            Status::Fail => !clean,
            _ => true,
        }
    }

    /// "wgpu · llvmpipe (…) (CPU, Vulkan)", or the backend alone when it never opened.
    pub fn device_label(&self) -> String {
        self.device
            .as_ref()
            .map(DeviceInfo::label)
            .unwrap_or_else(|| self.backend.to_string())
    }

    /// The plain-text report `runner run` prints: `out:` and `expected:` as the
    /// seed book prints them, then the verdict, the device and the problems.
    pub fn to_text(&self) -> String {
        // What the kernel printed comes first, as a program's output would.
        let mut text = printed_block(&self.printed);
        for check in self.checks.iter().filter(|c| c.judged) {
            let label = format!("{}:", check.name);
            let width = label.len().max("expected:".len());
            let (got, expected) = check.shown_values();
            let _ = writeln!(text, "{label:width$} {got}");
            let _ = writeln!(text, "{:width$} {expected}", "expected:");
        }
        let _ = writeln!(
            text,
            "{}: {} {} ({}) on {}",
            self.status.word(),
            self.puzzle,
            self.lang.label(),
            self.variant,
            self.device_label()
        );
        for check in &self.checks {
            for problem in check.problems() {
                let _ = writeln!(text, "  - {problem}");
            }
        }
        if self.checks.iter().any(|c| !c.unwritten.is_empty()) {
            let _ = writeln!(
                text,
                "  (· marks an element that still holds its poison value: nothing wrote it)"
            );
        }
        for d in &self.diagnostics {
            let _ = writeln!(text, "{d}");
        }
        if let Some(message) = &self.message {
            let _ = writeln!(text, "{message}");
        }
        if let Some(timing) = &self.timing {
            let _ = writeln!(text, "kernel time: {}", timing.describe());
        }
        if let Some(access) = self.access.as_ref().filter(|a| a.bound.is_some()) {
            let _ = writeln!(text, "{}", access.describe());
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (case, printed, lines kept, what is kept)
    #[test]
    fn printed_head_table() {
        let cases = [
            ("nothing", "", 2, ""),
            ("fits", "a\nb\n", 2, "a\nb\n"),
            ("cut", "a\nb\nc\nd\n", 2, "a\nb\n… and 2 more line(s)\n"),
        ];
        for (name, printed, lines, want) in cases {
            assert_eq!(printed_head(printed, lines), want, "{name}");
        }
        assert!(printed_block("").is_empty());
        assert!(
            printed_block("x").ends_with(
                "printed by the kernel (printf), in the order they reached the host ──\n"
            )
        );
    }
    use crate::backend_contract::outcome::AccessSite;

    /// An access count whose first n-th accesses were made by threads 0, 1, 2, …, on lines 10, 11, 12, ….
    fn count(max: u32, by: u32) -> AccessCount {
        AccessCount {
            max,
            max_thread: [by, 0, 0],
            mean: f64::from(max) / 2.0,
            nth: (0..max)
                .map(|k| AccessSite {
                    thread: [k, 0, 0],
                    at: Located::new("k.wgsl", 10 + k as usize, ""),
                })
                .collect(),
        }
    }

    fn summary(reads: u32, writes: u32, bound: Option<(u32, u32)>) -> AccessSummary {
        AccessSummary {
            counts: GlobalAccess {
                invocations: 8,
                reads: count(reads, 3),
                writes: count(writes, 5),
            },
            bound: bound.map(|(reads, writes)| AccessBound { reads, writes }),
        }
    }

    /// (reads, writes, bound, the messages' lines and a phrase of the first).
    #[test]
    fn excess_table() {
        type Case = (u32, u32, Option<(u32, u32)>, &'static [usize], &'static str);
        let cases: &[Case] = &[
            (2, 1, Some((2, 1)), &[], ""),
            (1, 0, Some((2, 1)), &[], ""),
            (
                4,
                1,
                Some((2, 1)),
                &[12],
                "thread 3 read global memory 4 times, the most of any thread; this puzzle allows \
                 2 reads per thread. The first read past the bound is on this line: thread 2's 3rd",
            ),
            (
                1,
                2,
                Some((1, 1)),
                &[11],
                "thread 5 wrote to global memory 2 times, the most of any thread; this puzzle \
                 allows 1 write",
            ),
            (3, 3, Some((0, 0)), &[10, 10], "allows 0 reads per thread"),
            (9, 9, None, &[], ""),
        ];
        for (reads, writes, bound, lines, phrase) in cases {
            let got = summary(*reads, *writes, *bound).excess();
            let got_lines: Vec<usize> = got.iter().map(|l| l.line).collect();
            assert_eq!(&got_lines, lines, "{reads} {writes} {bound:?}");
            if let Some(first) = got.first() {
                assert!(first.message.contains(phrase), "{}", first.message);
            }
        }
    }

    /// Where the busiest thread is also the first past the bound, one thread is named.
    #[test]
    fn one_thread_one_sentence() {
        let message = excess_message(&count(4, 2), 2, "read", "read").message;
        assert!(
            message.contains(
                "thread 2 read global memory 4 times; this puzzle allows 2 reads per thread. \
                 This line is its 3rd read."
            ),
            "{message}"
        );
    }

    #[test]
    fn describe_table() {
        let cases = [
            (
                summary(2, 1, Some((2, 1))),
                "at most 2 reads, 1 write (mean 1.00 reads, 0.50 writes); bound 2 reads, 1 write.",
            ),
            (
                summary(1, 0, None),
                "at most 1 read, 0 writes (mean 0.50 reads, 0.00 writes).",
            ),
        ];
        for (summary, tail) in cases {
            let text = summary.describe();
            assert!(
                text.starts_with("Global memory per thread (counted by the CPU checker): "),
                "{text}"
            );
            assert!(text.ends_with(tail), "{text}");
        }
    }

    #[test]
    fn ordinals() {
        let cases = [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (11, "11th"),
            (12, "12th"),
            (21, "21st"),
            (113, "113th"),
        ];
        for (n, want) in cases {
            assert_eq!(ordinal(n), want);
        }
    }
}
