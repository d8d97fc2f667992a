//! NVIDIA's compute-sanitizer over a CUDA run (`--sanitize`): the hazards a
//! GPU run cannot show, told in the CPU checker's words at the kernel's lines.
//!
//! A CUDA kernel with a race often passes on every run (the H100 happens to
//! interleave its threads kindly), so a learner with an NVIDIA GPU needs the
//! tool that watches every access. After a run that finished, the same launch
//! is made once more for each tool (memcheck, racecheck, synccheck,
//! initcheck), in a child started under `compute-sanitizer`, whose log is
//! read back. The kernel is compiled with line information, so each report
//! names a line of the compiled text, which the [`SourceText`] maps home.

use crate::child::job::{ChildJob, CudaLaunch, DeviceOutcome, Runs};
use crate::child::process::{Answer, Worker};
use puzzle_core::backend_contract::backend::BackendError;
use puzzle_core::source::diag::Located;
use puzzle_core::source::text::SourceText;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The tools, in the order they run, and what each watches.
pub const TOOLS: [(&str, &str); 4] = [
    ("memcheck", "out-of-bounds and misaligned accesses"),
    ("racecheck", "shared-memory races"),
    ("synccheck", "barriers not every thread reaches"),
    ("initcheck", "reads of global memory nothing wrote"),
];

/// Reports kept per tool: the first few say what is wrong; hundreds of
/// copies of one race do not.
const PER_TOOL: usize = 8;

/// compute-sanitizer, found.
#[derive(Debug, Clone)]
pub struct Sanitizer {
    exe: PathBuf,
}

/// `--sanitize` asked for, and no compute-sanitizer where [`Sanitizer::find`] looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "`--sanitize` needs NVIDIA's compute-sanitizer, part of the CUDA toolkit; none \
     was found on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin"
)]
pub struct NoSanitizer;

impl Sanitizer {
    /// compute-sanitizer on PATH, in `$CUDA_HOME/bin`, or in `/usr/local/cuda/bin`.
    pub fn find() -> Result<Sanitizer, NoSanitizer> {
        let name = "compute-sanitizer";
        let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        for var in ["CUDA_HOME", "CUDA_PATH"] {
            if let Some(home) = std::env::var_os(var) {
                dirs.push(Path::new(&home).join("bin"));
            }
        }
        dirs.push(PathBuf::from("/usr/local/cuda/bin"));
        dirs.into_iter()
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .map(|exe| Sanitizer { exe })
            .ok_or(NoSanitizer)
    }

    /// Runs `request` (without timed runs) once under each tool and returns
    /// what they report, at `source`'s lines. `timeout` is the run's own;
    /// the tools slow a kernel down many times, so each gets far longer.
    pub fn check(
        &self,
        request: &CudaLaunch,
        inputs: &[&[u8]],
        source: &SourceText,
        timeout: Duration,
    ) -> Result<Vec<Located>, BackendError> {
        let request = CudaLaunch {
            runs: Runs {
                timing_samples: 0,
                warmup: 0,
                buffer_sets: 1,
            },
            ..request.clone()
        };
        let limit = (timeout * 20).max(Duration::from_secs(60));
        let mut found = Vec::new();
        for (tool, _) in TOOLS {
            let log = tempfile::NamedTempFile::new()
                .map_err(|e| BackendError::Device(format!("compute-sanitizer's log: {e}")))?;
            let wrapper: Vec<OsString> = vec![
                self.exe.clone().into(),
                "--tool".into(),
                tool.into(),
                "--log-file".into(),
                log.path().into(),
                "--print-limit".into(),
                "100".into(),
            ];
            let mut worker = Worker::start_under(&wrapper).map_err(|e| e.into_backend_error())?;
            let ran: Result<Answer<Result<DeviceOutcome, BackendError>>, _> =
                worker.run(&ChildJob::Cuda(request.clone()), inputs, limit);
            if let Err(e) = ran {
                return Err(BackendError::Device(format!(
                    "compute-sanitizer {tool} did not finish the run: {e}"
                )));
            }
            worker.finish(Duration::from_secs(30));
            let text = std::fs::read_to_string(log.path()).unwrap_or_default();
            found.extend(parse(&text, tool, source));
        }
        Ok(found)
    }
}

/// One report of a tool: its first line and the indented lines under it.
struct Report<'t> {
    head: &'t str,
    rest: Vec<&'t str>,
}

/// compute-sanitizer's lines start with `========= `; a report's details
/// are indented under its first line. Summaries and host backtraces are
/// not reports.
fn reports(log: &str) -> Vec<Report<'_>> {
    let mut out: Vec<Report> = Vec::new();
    for line in log.lines() {
        let Some(body) = line.strip_prefix("=========") else {
            continue;
        };
        let indented = body.starts_with("  ");
        let body = body.trim();
        if body.is_empty() {
            continue;
        }
        if indented {
            if let Some(last) = out.last_mut() {
                last.rest.push(body);
            }
            continue;
        }
        let skip = [
            "COMPUTE-SANITIZER",
            "ERROR SUMMARY",
            "RACECHECK SUMMARY",
            "Target application returned",
            "Program hit",
            "Saved host backtrace",
            "Host Frame",
        ];
        if !skip.iter().any(|s| body.starts_with(s)) {
            out.push(Report {
                head: body,
                rest: Vec::new(),
            });
        }
    }
    out
}

/// The compiled text's line in `… in file.cu:12` (the last `:<digits>` of
/// a line that names a place), where the file is the kernel's own.
fn place(line: &str, file: &str) -> Option<usize> {
    let (_, after) = line.rsplit_once(" in ")?;
    let after = after.trim_end_matches(|c: char| c == ']' || c.is_whitespace());
    let after = after.split(" [").next().unwrap_or(after);
    let (path, number) = after.rsplit_once(':')?;
    let ours = Path::new(path).file_name() == Path::new(file).file_name();
    ours.then(|| number.trim().parse().ok()).flatten()
}

/// `by thread (4,0,0) in block (1,0,0)` as `thread (4, 0, 0) of block (1, 0, 0)`.
fn who(lines: &[&str]) -> Option<String> {
    let line = lines.iter().find(|l| l.starts_with("by thread"))?;
    let spaced = |t: &str| t.replace(',', ", ");
    let rest = line.strip_prefix("by ")?;
    let (thread, block) = rest.split_once(" in ")?;
    Some(format!("{} of {}", spaced(thread), spaced(block)))
}

/// A report in the CPU checker's words, with the line it belongs to (of
/// the compiled text; `source` maps it, and the message's other line, to
/// the learner's file or a header's).
fn words(report: &Report, tool: &str, file: &str, source: &SourceText) -> (Option<usize>, String) {
    let head = report.head;
    let all: Vec<&str> = std::iter::once(head)
        .chain(report.rest.iter().copied())
        .collect();
    let line = all.iter().find_map(|l| place(l, file));
    let thread = who(&report.rest);
    let by = thread.map_or_else(|| "a thread ".to_string(), |t| format!("{t} "));
    let message = if head.contains("Race reported between") {
        let kinds: Vec<&str> = all
            .iter()
            .filter_map(|l| {
                if l.contains("Write access") {
                    Some("writes")
                } else if l.contains("Read access") {
                    Some("reads")
                } else {
                    None
                }
            })
            .collect();
        let other = all.iter().skip(1).find_map(|l| place(l, file));
        let first = kinds.first().copied().unwrap_or("touches");
        let second = kinds.get(1).copied().unwrap_or("touches");
        let there = match other.map(|l| source.locate(l, String::new())) {
            Some(at) if at.file.display().to_string() == file => format!("at line {}", at.line),
            Some(at) => {
                let name = at.file.file_name().unwrap_or_default().to_string_lossy();
                format!("at line {} of {name}", at.line)
            }
            None => "elsewhere".into(),
        };
        format!(
            "data race: a thread {first} shared memory here, and another thread {second} the \
             same element {there}; no barrier lies between the two accesses (__syncthreads() for \
             the block, __syncwarp() within a warp), so either may come first \
             (compute-sanitizer racecheck)"
        )
    } else if head.starts_with("Invalid") {
        let lower = head.to_lowercase();
        let action = if lower.contains("write") {
            "writes"
        } else if lower.contains("read") {
            "reads"
        } else {
            "touches"
        };
        let space = if lower.contains("__shared__") {
            "shared memory"
        } else if lower.contains("__local__") {
            "local memory"
        } else {
            "global memory"
        };
        format!(
            "out-of-bounds access: {by}{action} {space} outside anything allocated \
             (compute-sanitizer memcheck: {head})"
        )
    } else if head.starts_with("Uninitialized") {
        format!(
            "uninitialized read: {by}reads global memory nothing wrote ({}; compute-sanitizer \
             initcheck)",
            head.to_lowercase()
        )
    } else if head.starts_with("Barrier error") || head.contains("Divergent") {
        format!(
            "barrier in non-uniform control flow: {by}reaches this barrier while other threads \
             of its block or warp do not ({head}; compute-sanitizer synccheck). Every thread of a \
             block must reach each __syncthreads(), the same number of times"
        )
    } else {
        format!("compute-sanitizer {tool}: {head}")
    };
    (line, message)
}

/// The reports in `log`, located in `source`, each said once.
pub fn parse(log: &str, tool: &str, source: &SourceText) -> Vec<Located> {
    let file = source
        .main_file()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let mut out: Vec<Located> = Vec::new();
    for report in reports(log) {
        let (line, message) = words(&report, tool, &file, source);
        let located = match line {
            Some(l) => source.locate(l, message),
            None => Located::new(&file, 0, message),
        };
        if !out.contains(&located) {
            out.push(located);
        }
        if out.len() == PER_TOOL {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> SourceText {
        SourceText::new("a\nb\nc\nd\ne\n", Path::new("/book/kernels/k.cu"), 10)
    }

    /// (tool, log, the line the finding is at, a phrase of it)
    #[test]
    fn reports_in_the_checkers_words_table() {
        let cases = [
            (
                "racecheck",
                "========= COMPUTE-SANITIZER\n\
                 ========= Error: Race reported between Write access at k+0x1f0 in /book/kernels/k.cu:2\n\
                 =========     and Read access at k+0x210 in /book/kernels/k.cu:4 [16 hazards]\n\
                 =========\n\
                 ========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n",
                11,
                "a thread writes shared memory here, and another thread reads the same element at line 13",
            ),
            (
                "memcheck",
                "========= Invalid __global__ write of size 4 bytes\n\
                 =========     at k+0x90 in k.cu:3\n\
                 =========     by thread (4,0,0) in block (0,0,0)\n\
                 =========     Address 0x7f00 is out of bounds\n\
                 ========= ERROR SUMMARY: 1 error\n",
                12,
                "thread (4, 0, 0) of block (0, 0, 0) writes global memory outside anything allocated",
            ),
            (
                "synccheck",
                "========= Barrier error detected. Divergent thread(s) in warp\n\
                 =========     at k+0x50 in /book/kernels/k.cu:5\n\
                 =========     by thread (0,0,0) in block (0,0,0)\n",
                14,
                "barrier in non-uniform control flow",
            ),
            (
                "initcheck",
                "========= Uninitialized __global__ memory read of size 4 bytes\n\
                 =========     at k+0x40 in /book/kernels/k.cu:1\n\
                 =========     by thread (1,0,0) in block (0,0,0)\n",
                10,
                "uninitialized read: thread (1, 0, 0) of block (0, 0, 0)",
            ),
            (
                "memcheck",
                "========= Program hit cudaErrorLaunchFailure\n\
                 =========     Saved host backtrace up to driver entry point\n\
                 ========= ERROR SUMMARY: 0 errors\n",
                0,
                "",
            ),
        ];
        for (tool, log, line, phrase) in cases {
            let found = parse(log, tool, &source());
            if phrase.is_empty() {
                assert!(found.is_empty(), "{tool}: {found:?}");
                continue;
            }
            assert_eq!(found.len(), 1, "{tool}: {found:?}");
            assert_eq!(found[0].line, line, "{tool}: {found:?}");
            assert!(
                found[0].message.contains(phrase),
                "{tool}: {}",
                found[0].message
            );
        }
    }
}
