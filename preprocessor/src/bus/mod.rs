//! A ```bus block: collectives between GPUs (Part VII's all-reduce, peer
//! copy) measured the way NCCL is, by bus bandwidth against message size,
//! beside NCCL's own figures on the same host.
//!
//! ```yaml
//! title: All-reduce, by hand and by NCCL
//! puzzles: [p38_all_reduce_one_shot, p39_all_reduce_ring]
//! baseline: all_reduce   # the case name in results/baselines/*.json of the same device
//! targets:               # optional; each bound optional
//!   - { puzzle: p39_all_reduce_ring, percent: 90, from_bytes: 268435456 }
//!   - { puzzle: p38_all_reduce_one_shot, percent: 100, to_bytes: 262144 }
//! ```
//!
//! A ```roofline block places a kernel under its GPU's memory and compute
//! roofs; traffic between GPUs has neither, so this block has its own
//! measure. nccl-tests defines a collective's *bus bandwidth* (its bus
//! bytes over its time; for an all-reduce 2 (n − 1) / n of the message per
//! GPU) so that one figure compares across collectives and GPU counts and
//! against the link's speed; the specs give the same count as `bus_bytes:`.
//!
//! Nothing is typed in. For every recording of CUDA runs
//! (`results/cuda-<n>-<gpu>.json`) that holds benchmarks of the block's
//! puzzles, one section: the puzzles' `bench` cases that run on that
//! host's number of GPUs, one table row per message size (the bytes of one
//! rank's output), each kernel's median time and bus GB/s, NCCL's at the
//! same constants from `results/baselines/nccl-<n>-<gpu>.json`, the best
//! kernel as a share of NCCL, the targets' verdicts, and the chart
//! ([`chart`]). Benchmarks are found as the roofline's rows find theirs
//! (`runner::perf::record::lookup_bench`: current spec and kernel
//! only), and a stale or missing one says so in its cell in the roofline's
//! own words, which the book's CI build looks for.
//!
//! - [`block`]: the block's YAML;
//! - [`chart`]: the SVG.

pub mod block;
pub mod chart;
#[cfg(test)]
mod chart_tests;
#[cfg(test)]
mod tests;
mod topology;
mod verdicts;

use crate::roofline::rows::Unplaced;
use crate::roofline::table::rate;
use block::{BusBlock, BusBlockError, block_name};
use chart::{Series, size_label};
use puzzle_core::backend_contract::timing::Timing;
use puzzle_core::chapter::book::{Book, NoSuchPuzzle};
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::model::Spec;
use runner::perf::chart::Layout;
use runner::perf::record::{self, Recording};
use runner::perf::{Baseline, BaselineCase, BenchReport, Checked};
use std::collections::BTreeSet;
use std::fmt::Write;
use verdicts::verdict;

/// What is wrong with a ```bus block, or with the puzzles it names.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    #[error(transparent)]
    Block(#[from] BusBlockError),
    #[error("{}: {source}", block_name(Some(title)))]
    NoSuchPuzzle { title: String, source: NoSuchPuzzle },
    #[error(
        "{}: `{id}` has no CUDA kernel; the collectives are timed on NVIDIA GPUs only",
        block_name(Some(title))
    )]
    NoCuda { title: String, id: String },
    #[error(
        "{}: `{id}` has no `bench` size in its spec; add the message sizes to time",
        block_name(Some(title))
    )]
    NoBenchSize { title: String, id: String },
    /// A `bench` case the spec does not resolve at.
    #[error("{}: {source}", block_name(Some(title)))]
    Spec { title: String, source: Located },
}

/// The block's Markdown/HTML, or what is wrong with it in words (the page
/// chains it after `Session::book`, whose error is words).
pub fn render(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
    baselines: &[Baseline],
) -> Result<String, String> {
    render_block(yaml, book, recordings, baselines).map_err(|e| e.to_string())
}

/// One `bench` case of one puzzle, sized.
struct Case<'a> {
    puzzle: &'a Puzzle,
    /// The puzzle's place in the block's `puzzles`: its column.
    column: usize,
    /// The overrides, as the recording keys the benchmark by them.
    case: Constants,
    spec: Spec,
    /// Bytes of one rank's largest output: the message each GPU holds.
    message: u64,
}

/// The message a collective's spec moves per GPU: the bytes of its largest
/// output that is not scratch, of one rank (rank copies `out@0`, `out@1`…
/// are all the same size, so the largest of them is one rank's).
pub fn message_bytes(spec: &Spec) -> u64 {
    spec.outputs()
        .map(|b| (b.len() * b.dtype.size()) as u64)
        .max()
        .unwrap_or(0)
}

/// The bytes a run is credited with: the spec's bus bytes (the convention
/// NCCL's figures follow), else its fewest bytes.
fn bus_bytes(spec: &Spec) -> u64 {
    spec.bus_bytes.unwrap_or_else(|| spec.min_bytes())
}

/// GB/s of `bytes` moved in `ms`.
fn gb_s(bytes: u64, ms: f64) -> f64 {
    if ms > 0.0 {
        bytes as f64 / (ms * 1e6)
    } else {
        0.0
    }
}

/// A kernel's current benchmark at one message size on one host.
pub(super) struct Timed<'a> {
    case: &'a Case<'a>,
    report: &'a BenchReport,
    gb_s: f64,
    /// The day it was taken, where the recording kept it.
    date: Option<&'a str>,
    /// NCCL's time over the kernel's at the same constants, in percent.
    percent: Option<f64>,
}

impl Timed<'_> {
    pub(super) fn wrong(&self) -> bool {
        matches!(self.report.checked, Checked::Failed(_))
    }
}

/// What a kernel's cell holds: a benchmark, why there is none, or nothing
/// (the puzzle has no `bench` case at this size on this many GPUs).
pub(super) enum Cell<'a> {
    Timed(Timed<'a>),
    Unusable(Unplaced),
    NoCase,
}

/// NCCL at one message size.
struct Nccl<'a> {
    case: &'a BaselineCase,
    gb_s: f64,
}

/// One message size on one host.
pub(super) struct Line<'a> {
    message: u64,
    /// One per puzzle of the block, in its order.
    cells: Vec<Cell<'a>>,
    nccl: Option<Nccl<'a>>,
}

/// NCCL's case at `spec`'s constants: every constant NCCL names (SIZE,
/// RANKS) has the same value in the sized spec, defaults included.
fn nccl_case<'b>(cases: &[&'b BaselineCase], spec: &Spec) -> Option<&'b BaselineCase> {
    cases.iter().copied().find(|c| c.matches(&spec.constants))
}

/// NCCL's bus GB/s: by its own bus bytes, else by the kernel's (the same
/// constants, so the same count).
fn nccl_gb_s(case: &BaselineCase, spec: &Spec) -> f64 {
    case.gb_s()
        .unwrap_or_else(|| gb_s(bus_bytes(spec), case.timing.median_ms))
}

/// The kernel's cell at one size: among its cases there (usually one), a
/// stale or missing benchmark first, so that it is never hidden behind a
/// current one; else the fastest.
fn cell<'a>(
    cases: &[&'a Case<'a>],
    recording: &'a Recording,
    nccl: &[&'a BaselineCase],
) -> Cell<'a> {
    let mut best: Option<Timed<'a>> = None;
    for &case in cases {
        let report = match record::lookup_bench(recording, case.puzzle, Lang::Cuda, &case.case) {
            None => return Cell::Unusable(Unplaced::NotBenchmarked),
            Some(Err(why)) => return Cell::Unusable(Unplaced::Bench(why)),
            Some(Ok(report)) => report,
        };
        let median = report.timing.median_ms;
        let timed = Timed {
            case,
            report,
            gb_s: gb_s(bus_bytes(&case.spec), median),
            date: record::bench_date(recording, case.puzzle, Lang::Cuda, &case.case),
            percent: nccl_case(nccl, &case.spec)
                .filter(|_| median > 0.0)
                .map(|n| 100.0 * n.timing.median_ms / median),
        };
        if best
            .as_ref()
            .is_none_or(|b| median < b.report.timing.median_ms)
        {
            best = Some(timed);
        }
    }
    best.map_or(Cell::NoCase, Cell::Timed)
}

/// The block's Markdown/HTML, or what is wrong with it.
pub fn render_block(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
    baselines: &[Baseline],
) -> Result<String, BusError> {
    let block = BusBlock::parse(yaml)?;
    let title = || block.title.clone();
    let mut puzzles = Vec::new();
    for id in &block.puzzles {
        let puzzle = book.find(id).map_err(|source| BusError::NoSuchPuzzle {
            title: title(),
            source,
        })?;
        if puzzle.kernel(Lang::Cuda).is_none() {
            return Err(BusError::NoCuda {
                title: title(),
                id: id.clone(),
            });
        }
        puzzles.push(puzzle);
    }
    let mut cases = Vec::new();
    for (column, puzzle) in puzzles.iter().enumerate() {
        let bench = puzzle.spec.bench_cases();
        if bench.is_empty() {
            return Err(BusError::NoBenchSize {
                title: title(),
                id: puzzle.id().to_string(),
            });
        }
        for case in bench {
            let spec = puzzle.spec.sized(&case).map_err(|source| BusError::Spec {
                title: title(),
                source,
            })?;
            cases.push(Case {
                puzzle,
                column,
                message: message_bytes(&spec),
                case,
                spec,
            });
        }
    }

    let mut md = String::from("<div class=\"puzzle-bus\">\n\n");
    let mut shown = 0;
    // Only hosts that timed these collectives: a one-GPU recording, or one
    // of several GPUs made before the chapter existed, gets no section.
    let ours = |r: &&Recording| {
        r.device.backend.lang() == Lang::Cuda
            && r.benches
                .iter()
                .any(|b| b.lang == Lang::Cuda && block.puzzles.contains(&b.puzzle))
    };
    let mut hosts = BTreeSet::new();
    for recording in recordings.iter().filter(ours) {
        shown += 1;
        md.push_str(&section(&block, &cases, recording, baselines));
        // A host's links once a block, under its first recording.
        if let Some((gpus, links)) = topology::of_host(&book.root, recording)
            && hosts.insert(gpus)
        {
            let _ = writeln!(
                md,
                "<details class=\"puzzle-topology\">\n<summary>The links of the host these runs \
                 were made on ({gpus} GPUs), as <code>nvidia-smi topo -m</code> printed them there\
                 </summary>\n\n```text\n{links}\n```\n\n</details>\n"
            );
        }
    }
    if shown == 0 {
        // "No recorded … results": the words the CI build looks for, as a
        // roofline without recordings says them.
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">No recorded CUDA results of these collectives yet: \
             they take a host of several GPUs.</p>\n"
        );
    }
    md.push_str("</div>\n");
    Ok(md)
}

/// "P38" for `p38_all_reduce_one_shot`: a column narrow enough for the
/// table to fit the text column; the id itself where it has no number.
fn short_name(id: &str) -> String {
    let digits: String = id
        .strip_prefix('p')
        .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect())
        .unwrap_or_default();
    let numbered = !digits.is_empty() && id[1 + digits.len()..].starts_with('_');
    if numbered {
        format!("P{digits}")
    } else {
        id.to_string()
    }
}

/// A time with three significant digits, in µs below a millisecond: "37.6 µs", "1.23 ms".
pub(crate) fn time_text(ms: f64) -> String {
    if ms < 1.0 {
        format!("{} µs", rate(ms * 1000.0))
    } else {
        format!("{} ms", rate(ms))
    }
}

/// " ±1.1%": how far apart the samples were, (max − min) over the median.
pub(crate) fn spread_text(timing: &Timing) -> String {
    let spread = timing.spread_pct();
    if spread >= 10.0 {
        format!(" ±{spread:.0}%")
    } else {
        format!(" ±{spread:.1}%")
    }
}

/// "96 %", "7.5 %": whole above 10.
pub(crate) fn percent_text(percent: f64) -> String {
    if percent >= 10.0 {
        format!("{percent:.0} %")
    } else {
        format!("{percent:.1} %")
    }
}

/// A time and a bus bandwidth, on two lines of one cell.
fn figures(timing: &Timing, gb: f64) -> String {
    format!(
        "{}{}<br>{} GB/s",
        time_text(timing.median_ms),
        spread_text(timing),
        rate(gb)
    )
}

/// The words a missing or stale benchmark's cell holds: the roofline's,
/// which CI's build fails on; a stale one also carries the class that
/// marks stale results on every page. Either may wrap in its nowrap cell.
pub(crate) fn unusable_text(why: &Unplaced) -> String {
    let class = match why {
        Unplaced::Bench(record::BenchUnusable::Stale(_)) => "puzzle-stale",
        why if why.awaiting().is_some() => "puzzle-awaiting",
        _ => "puzzle-unrecorded",
    };
    format!("<span class=\"{class}\" style=\"white-space:normal\">{why}</span>")
}

/// One host's section: its heading, table, verdicts and chart.
fn section(
    block: &BusBlock,
    cases: &[Case],
    recording: &Recording,
    baselines: &[Baseline],
) -> String {
    let device = &recording.device.name;
    let gpus = recording.device.gpus();
    let here: Vec<&Case> = cases.iter().filter(|c| c.spec.gpus == gpus).collect();
    let baseline = baselines
        .iter()
        .find(|b| b.device == *device && b.cases.iter().any(|c| c.name == block.baseline));
    let nccl: Vec<&BaselineCase> = baseline
        .iter()
        .flat_map(|b| &b.cases)
        .filter(|c| c.name == block.baseline)
        .collect();
    let sizes: BTreeSet<u64> = here.iter().map(|c| c.message).collect();
    let lines: Vec<Line> = sizes
        .iter()
        .map(|&message| {
            let at: Vec<&Case> = here
                .iter()
                .copied()
                .filter(|c| c.message == message)
                .collect();
            let cells = (0..block.puzzles.len())
                .map(|column| {
                    let mine: Vec<&Case> =
                        at.iter().copied().filter(|c| c.column == column).collect();
                    cell(&mine, recording, &nccl)
                })
                .collect();
            let nccl = at.iter().find_map(|c| {
                let case = nccl_case(&nccl, &c.spec)?;
                Some(Nccl {
                    case,
                    gb_s: nccl_gb_s(case, &c.spec),
                })
            });
            Line {
                message,
                cells,
                nccl,
            }
        })
        .collect();

    let mut md = format!(
        "**{} on {device}**. {}\n\n",
        block.title,
        sources(recording, baseline, &lines)
    );
    if lines.is_empty() {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">None of these puzzles' <code>bench</code> cases runs on \
             {gpus} GPUs, the number this host has.</p>\n"
        );
        return md;
    }
    md.push_str(&table(block, &lines));
    for line in &lines {
        for (id, cell) in block.puzzles.iter().zip(&line.cells) {
            if let Cell::Timed(t) = cell
                && let Checked::Failed(problems) = &t.report.checked
            {
                let _ = writeln!(
                    md,
                    "\n`{id}` at {}: WRONG: {}",
                    size_label(line.message),
                    problems.join("; ")
                );
            }
        }
    }
    for target in &block.targets {
        let column = block
            .puzzles
            .iter()
            .position(|p| *p == target.puzzle)
            .expect("the block's parser checked that targets name its puzzles");
        let _ = writeln!(md, "\n{}", verdict(target, column, &lines, baseline));
    }
    md.push_str(&figure(block, device, baseline, &lines));
    md
}

/// Where the figures come from and when: the kernels' days, NCCL's, and
/// whether they were one day's; how a time is summarised.
fn sources(recording: &Recording, baseline: Option<&Baseline>, lines: &[Line]) -> String {
    let timed: Vec<&Timed> = lines
        .iter()
        .flat_map(|l| &l.cells)
        .filter_map(|c| match c {
            Cell::Timed(t) => Some(t),
            _ => None,
        })
        .collect();
    // A benchmark without its own day was taken by the file's `runner record`.
    let days: BTreeSet<&str> = timed
        .iter()
        .map(|t| t.date.unwrap_or(&recording.date))
        .collect();
    let kernels = if days.is_empty() {
        format!(
            "No benchmark of the book's kernels here is current (recorded {})",
            recording.date
        )
    } else {
        let days: Vec<&str> = days.iter().copied().collect();
        format!("The book's kernels timed {}", days.join(", "))
    };
    let samples = timed
        .iter()
        .map(|t| t.report.timing.samples)
        .chain(
            lines
                .iter()
                .filter_map(|l| l.nccl.as_ref().map(|n| n.case.timing.samples)),
        )
        .max()
        .unwrap_or(0);
    let mut text = format!("{kernels}; ");
    match baseline {
        Some(b) => {
            let _ = write!(text, "{}, {}, timed {}.", b.library, b.software, b.date);
            if !days.is_empty() && (days.len() > 1 || !days.contains(b.date.as_str())) {
                text.push_str(
                    " Not all of them were timed on one day: GPU clocks, driver and load may \
                     differ between them.",
                );
            }
        }
        None => text.push_str("NCCL not timed on this host."),
    }
    let _ = write!(
        text,
        " Each time is the median of {samples} device-timed runs after warm-up, ± the spread \
         (max − min, over the median); bus GB/s is nccl-tests' bus bytes over that time, and a \
         percentage is NCCL's time over the kernel's at the same sizes."
    );
    text
}

/// The table: the message size, each kernel, NCCL, and the best kernel as
/// a share of NCCL. Kernels are headed by their short names, the names
/// given under the table, so that the table fits a 750 px column.
fn table(block: &BusBlock, lines: &[Line]) -> String {
    let names: Vec<String> = block.puzzles.iter().map(|id| short_name(id)).collect();
    let single = block.puzzles.len() == 1;
    let best_header = if single { "vs NCCL" } else { "best vs NCCL" };
    let mut md = String::from("<div class=\"puzzle-table\">\n\n| message |");
    for name in &names {
        let _ = write!(md, " {name} |");
    }
    let _ = writeln!(md, " NCCL | {best_header} |");
    md.push_str("| ---: |");
    md.push_str(&" ---: |".repeat(names.len()));
    md.push_str(" ---: | ---: |\n");
    for line in lines {
        let _ = write!(md, "| {} |", size_label(line.message));
        for cell in &line.cells {
            let text = match cell {
                Cell::Timed(t) => {
                    let wrong = if t.wrong() {
                        "<br>✘ wrong output"
                    } else {
                        ""
                    };
                    format!("{}{wrong}", figures(&t.report.timing, t.gb_s))
                }
                Cell::Unusable(why) => unusable_text(why),
                Cell::NoCase => "–".to_string(),
            };
            let _ = write!(md, " {text} |");
        }
        let nccl = match &line.nccl {
            Some(n) => figures(&n.case.timing, n.gb_s),
            None => "not timed on this host".to_string(),
        };
        // A wrong output is no result to be proud of.
        let best = line
            .cells
            .iter()
            .zip(&names)
            .filter_map(|(c, name)| match c {
                Cell::Timed(t) if !t.wrong() => Some((t.percent?, name)),
                _ => None,
            })
            // The first of equals: the block's order decides a tie.
            .reduce(|a, b| if b.0 > a.0 { b } else { a });
        let best = match best {
            Some((percent, _)) if single => percent_text(percent),
            Some((percent, name)) => format!("{} {name}", percent_text(percent)),
            None => "–".to_string(),
        };
        let _ = writeln!(md, " {nccl} | {best} |");
    }
    md.push_str("\n</div>\n\n");
    let key: Vec<String> = block
        .puzzles
        .iter()
        .zip(&names)
        .filter(|(id, name)| id != name)
        .map(|(id, name)| format!("{name} is <code>{id}</code>"))
        .collect();
    if !key.is_empty() {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-bus-key\"><small>{}.</small></p>\n",
            key.join(", ")
        );
    }
    md
}

/// The chart with its caption: one line per kernel, NCCL's dashed.
fn figure(block: &BusBlock, device: &str, baseline: Option<&Baseline>, lines: &[Line]) -> String {
    let mut series: Vec<Series> = block
        .puzzles
        .iter()
        .enumerate()
        .map(|(column, id)| {
            let name = match short_name(id) {
                short if short == *id => id.clone(),
                short => {
                    // The puzzle's title, where a case is at hand to read it from.
                    let title = lines.iter().flat_map(|l| &l.cells).find_map(|c| match c {
                        Cell::Timed(t) if t.case.column == column => {
                            Some(t.case.spec.title.clone())
                        }
                        _ => None,
                    });
                    match title {
                        Some(title) => format!("{short} {title}"),
                        None => short,
                    }
                }
            };
            let points = lines
                .iter()
                .filter_map(|l| match &l.cells[column] {
                    Cell::Timed(t) => Some((l.message, t.gb_s)),
                    _ => None,
                })
                .collect();
            Series {
                name,
                points,
                reference: false,
            }
        })
        .collect();
    if let Some(b) = baseline {
        // "NCCL 2.28.9" of "NCCL 2.28.9 (torch.distributed, NVLS off)": the
        // legend's row stays short; the sentence above names it whole.
        let name = b
            .library
            .split(" (")
            .next()
            .unwrap_or(&b.library)
            .to_string();
        series.push(Series {
            name,
            points: lines
                .iter()
                .filter_map(|l| Some((l.message, l.nccl.as_ref()?.gb_s)))
                .collect(),
            reference: true,
        });
    }
    series.retain(|s| !s.points.is_empty());
    if series.iter().all(|s| s.reference) {
        return "\n<p class=\"puzzle-roofline-note puzzle-no-chart\">No chart: no current \
                benchmark of these kernels on this host.</p>\n\n"
            .to_string();
    }
    // For a laptop's column and for a phone's; the page shows the one that fits.
    let title = format!("{} — {device}", block.title);
    let svg = Layout::BOTH
        .map(|layout| chart::bus_svg(&title, &series, layout))
        .join("\n");
    format!(
        "\n<figure class=\"puzzle-chart\">\n{svg}\n<figcaption>Bus bandwidth against the \
         message each GPU holds, on {device}; NCCL's line is dashed. The table above gives \
         each point's time and bandwidth.</figcaption>\n</figure>\n\n"
    )
}
