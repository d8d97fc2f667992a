//! A ```overlap block: how much of a multi-GPU kernel's communication its
//! computation hides (Part VII's tensor-parallel MLP), from four puzzles
//! timed at the same `bench` cases.
//!
//! ```yaml
//! title: A tensor-parallel MLP on NVLink
//! compute: p40_tp_mlp_compute          # the computation alone, no communication
//! communication: p40_tp_mlp_comm       # the communication alone
//! serial: p40_tp_mlp_serial            # one, then the other
//! overlapped: p40_tp_mlp_overlapped    # the two overlapped
//! within_percent: 10                   # optional target
//! ```
//!
//! Overlap cannot beat the slower of its two parts: max(compute,
//! communication), the *bound*, is what a perfect overlap takes, and the
//! serial time is what no overlap takes. So the overlapped time is read
//! against both: as a share of the bound (how close to perfect) and as a
//! speed-up over serial (what overlapping won). The target, where given, is
//! met when the overlapped time is at most `within_percent` over the bound
//! and below the serial time, at the first `bench` case of the host's
//! number of GPUs (the headline, as a roofline's targets use the first).
//!
//! Nothing is typed in. For every recording of CUDA runs
//! (`results/cuda-<n>-<gpu>.json`) that holds benchmarks of the four, one
//! section: a table row per `bench` case that runs on that host's number of
//! GPUs, and the target's verdict. Benchmarks are found as the ```bus
//! block finds them (`runner::perf::record::lookup_bench`: current
//! spec and kernel only), and a stale or missing one says so in its cell in
//! the same words, which the book's CI build looks for.
//!
//! - [`block`]: the block's YAML.

pub mod block;
#[cfg(test)]
mod tests;

use crate::bus::{percent_text, spread_text, time_text, unusable_text};
use crate::roofline::rows::Unplaced;
use crate::roofline::table::rate;
use block::{OverlapBlock, OverlapBlockError, ROLES, block_name};
use puzzle_core::chapter::book::{Book, NoSuchPuzzle};
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use puzzle_core::spec::expr::Constants;
use runner::perf::record::{self, Recording};
use runner::perf::{BenchReport, Checked};
use std::collections::BTreeSet;
use std::fmt::Write;

/// What is wrong with a ```overlap block, or with the puzzles it names.
#[derive(Debug, thiserror::Error)]
pub enum OverlapError {
    #[error(transparent)]
    Block(#[from] OverlapBlockError),
    #[error("{}: {source}", block_name(Some(title)))]
    NoSuchPuzzle { title: String, source: NoSuchPuzzle },
    #[error(
        "{}: `{id}` has no CUDA kernel; the overlap is timed on NVIDIA GPUs only",
        block_name(Some(title))
    )]
    NoCuda { title: String, id: String },
    #[error(
        "{}: `{id}` has no `bench` case in its spec; add the sizes to time",
        block_name(Some(title))
    )]
    NoBenchSize { title: String, id: String },
    /// The four are compared case by case, so their cases must be one list.
    #[error(
        "{}: `{id}` ({role}) does not have the `bench` cases of `{compute}` (compute): {how}; \
         give the four puzzles the same cases in the same order",
        block_name(Some(title))
    )]
    BenchDiffers {
        title: String,
        id: String,
        role: &'static str,
        compute: String,
        how: String,
    },
    /// A case's row goes to one host: all four must run it on as many GPUs.
    #[error(
        "{}: `{id}` ({role}) runs `bench` case {case} on {theirs} GPUs, `{compute}` (compute) \
         on {ours}",
        block_name(Some(title))
    )]
    GpusDiffer {
        title: String,
        id: String,
        role: &'static str,
        compute: String,
        case: String,
        theirs: u32,
        ours: u32,
    },
}

/// The block's Markdown/HTML, or what is wrong with it in words (the page
/// chains it after `Session::book`, whose error is words).
pub fn render(yaml: &str, book: &Book, recordings: &[Recording]) -> Result<String, String> {
    render_block(yaml, book, recordings).map_err(|e| e.to_string())
}

/// One `bench` case, the same in all four specs.
struct Case {
    /// The overrides, as the recording keys the benchmark by them.
    constants: Constants,
    gpus: u32,
}

/// A benchmark of one puzzle at one case on one host, or why there is none.
enum Cell<'a> {
    Timed {
        report: &'a BenchReport,
        /// The day it was taken, where the recording kept it.
        date: Option<&'a str>,
    },
    Unusable(Unplaced),
}

impl Cell<'_> {
    /// The median time of a current benchmark with a right output: the only
    /// kind a ratio is taken of.
    fn ms(&self) -> Option<f64> {
        match self {
            Cell::Timed { report, .. } if !wrong(report) => Some(report.timing.median_ms),
            _ => None,
        }
    }
}

fn wrong(report: &BenchReport) -> bool {
    matches!(report.checked, Checked::Failed(_))
}

/// One case on one host: its label, and a cell per role in [`ROLES`]' order.
struct Row<'a> {
    label: String,
    cells: [Cell<'a>; 4],
}

/// What the row's times come to, where the figures it needs are current
/// and right.
impl Row<'_> {
    /// max(compute, communication), and which of the two it is.
    fn bound(&self) -> Option<(f64, &'static str)> {
        let compute = self.cells[0].ms()?;
        let communication = self.cells[1].ms()?;
        Some(if communication > compute {
            (communication, ROLES[1])
        } else {
            (compute, ROLES[0])
        })
    }

    /// The overlapped time over the bound, in percent.
    fn of_bound(&self) -> Option<f64> {
        let (bound, _) = self.bound().filter(|(b, _)| *b > 0.0)?;
        Some(100.0 * self.cells[3].ms()? / bound)
    }

    /// The serial time over the overlapped one: the speed-up.
    fn speed_up(&self) -> Option<f64> {
        let overlapped = self.cells[3].ms().filter(|ms| *ms > 0.0)?;
        Some(self.cells[2].ms()? / overlapped)
    }
}

/// The block's Markdown/HTML, or what is wrong with it.
pub fn render_block(
    yaml: &str,
    book: &Book,
    recordings: &[Recording],
) -> Result<String, OverlapError> {
    let block = OverlapBlock::parse(yaml)?;
    let (puzzles, cases) = check(&block, book)?;
    let mut md = String::from("<div class=\"puzzle-overlap\">\n\n");
    let ids = block.puzzles();
    // Only hosts that timed these puzzles: a one-GPU recording, or one made
    // before the chapter existed, gets no section.
    let ours = |r: &&Recording| {
        r.device.backend.lang() == Lang::Cuda
            && r.benches
                .iter()
                .any(|b| b.lang == Lang::Cuda && ids.contains(&b.puzzle.as_str()))
    };
    let mut shown = 0;
    for recording in recordings.iter().filter(ours) {
        shown += 1;
        md.push_str(&section(&block, &puzzles, &cases, recording));
    }
    if shown == 0 {
        // "No recorded … results": the words the CI build looks for, as the
        // bus block says them.
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">No recorded CUDA results of these puzzles yet: \
             they take a host of several GPUs.</p>\n"
        );
    }
    md.push_str("</div>\n");
    Ok(md)
}

/// The four puzzles, in [`ROLES`]' order, and their common `bench` cases;
/// or why the block cannot compare them.
fn check<'b>(
    block: &OverlapBlock,
    book: &'b Book,
) -> Result<([&'b Puzzle; 4], Vec<Case>), OverlapError> {
    let title = || block.title.clone();
    let mut found = Vec::new();
    for id in block.puzzles() {
        let puzzle = book.find(id).map_err(|source| OverlapError::NoSuchPuzzle {
            title: title(),
            source,
        })?;
        if puzzle.kernel(Lang::Cuda).is_none() {
            return Err(OverlapError::NoCuda {
                title: title(),
                id: id.to_string(),
            });
        }
        if puzzle.spec.bench_cases().is_empty() {
            return Err(OverlapError::NoBenchSize {
                title: title(),
                id: id.to_string(),
            });
        }
        found.push(puzzle);
    }
    let puzzles: [&Puzzle; 4] = [found[0], found[1], found[2], found[3]];
    let compute = puzzles[0];
    let ours = compute.spec.bench_cases();
    for (role, puzzle) in ROLES.iter().zip(puzzles).skip(1) {
        let theirs = puzzle.spec.bench_cases();
        if let Some(how) = difference(&ours, &theirs) {
            return Err(OverlapError::BenchDiffers {
                title: title(),
                id: puzzle.id().to_string(),
                role,
                compute: compute.id().to_string(),
                how,
            });
        }
    }
    let mut cases = Vec::new();
    for constants in ours {
        let gpus = compute.spec.gpus(&constants);
        for (role, puzzle) in ROLES.iter().zip(puzzles).skip(1) {
            let theirs = puzzle.spec.gpus(&constants);
            if theirs != gpus {
                return Err(OverlapError::GpusDiffer {
                    title: title(),
                    id: puzzle.id().to_string(),
                    role,
                    compute: compute.id().to_string(),
                    case: constants_text(&constants),
                    theirs,
                    ours: gpus,
                });
            }
        }
        cases.push(Case { constants, gpus });
    }
    Ok((puzzles, cases))
}

/// Where two lists of `bench` cases part, in words; `None` if they are one.
fn difference(ours: &[Constants], theirs: &[Constants]) -> Option<String> {
    if let Some(i) = (0..ours.len().min(theirs.len())).find(|&i| ours[i] != theirs[i]) {
        return Some(format!(
            "its case {} is {}, compute's is {}",
            i + 1,
            constants_text(&theirs[i]),
            constants_text(&ours[i])
        ));
    }
    let count = |n: usize| match n {
        1 => "1 case".to_string(),
        n => format!("{n} cases"),
    };
    (ours.len() != theirs.len())
        .then(|| format!("it has {}, compute {}", count(theirs.len()), ours.len()))
}

/// "{ RANKS: 4, ROWS: 8192 }", as a spec writes a case.
fn constants_text(constants: &Constants) -> String {
    let pairs: Vec<String> = constants.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{ {} }}", pairs.join(", "))
}

/// The names a GEMM's sizes go by in Part VII's specs.
const SHAPE: [&str; 3] = ["ROWS", "DIM", "HID"];

/// A case's label: "8192 × 2048, hidden 64" where the spec has ROWS and DIM
/// (and HID), read from the case over the spec's `const:` `defaults`; else
/// the case's own constants, "SIZE = 16384, TPB = 16". RANKS is left out:
/// the section's device says how many GPUs. `whole` adds the case's other
/// constants to a shape, for two cases of one shape to be told apart.
fn size_label(defaults: &Constants, case: &Constants, whole: bool) -> String {
    let value = |name: &str| case.get(name).or_else(|| defaults.get(name)).copied();
    let named = |skip: &[&str]| -> Vec<String> {
        case.iter()
            .filter(|(k, _)| k.as_str() != "RANKS" && !skip.contains(&k.as_str()))
            .map(|(k, v)| format!("{k} = {v}"))
            .collect()
    };
    let (Some(rows), Some(dim)) = (value("ROWS"), value("DIM")) else {
        let all = named(&[]);
        return if all.is_empty() {
            "the spec's sizes".to_string()
        } else {
            all.join(", ")
        };
    };
    let mut label = format!("{rows} × {dim}");
    if let Some(hidden) = value("HID") {
        let _ = write!(label, ", hidden {hidden}");
    }
    let rest = named(&SHAPE);
    if whole && !rest.is_empty() {
        let _ = write!(label, ", {}", rest.join(", "));
    }
    label
}

/// The cell of `puzzle` at `case`: its current benchmark, or why none.
fn cell<'a>(recording: &'a Recording, puzzle: &Puzzle, case: &Constants) -> Cell<'a> {
    match record::lookup_bench(recording, puzzle, Lang::Cuda, case) {
        None => Cell::Unusable(Unplaced::NotBenchmarked),
        Some(Err(why)) => Cell::Unusable(Unplaced::Bench(why)),
        Some(Ok(report)) => Cell::Timed {
            report,
            date: record::bench_date(recording, puzzle, Lang::Cuda, case),
        },
    }
}

/// The rows of one host: its cases, labelled, with a shape's other
/// constants only where two rows would read alike.
fn rows<'a>(puzzles: &[&Puzzle; 4], cases: &[&Case], recording: &'a Recording) -> Vec<Row<'a>> {
    let defaults = &puzzles[0].spec.raw.constants;
    let short: Vec<String> = cases
        .iter()
        .map(|c| size_label(defaults, &c.constants, false))
        .collect();
    cases
        .iter()
        .zip(&short)
        .map(|(case, label)| {
            let alike = short.iter().filter(|l| *l == label).count() > 1;
            Row {
                label: size_label(defaults, &case.constants, alike),
                cells: puzzles.map(|p| cell(recording, p, &case.constants)),
            }
        })
        .collect()
}

/// One host's section: its heading, table, wrong outputs and verdict.
fn section(
    block: &OverlapBlock,
    puzzles: &[&Puzzle; 4],
    cases: &[Case],
    recording: &Recording,
) -> String {
    let device = &recording.device.name;
    let gpus = recording.device.gpus();
    let here: Vec<&Case> = cases.iter().filter(|c| c.gpus == gpus).collect();
    let rows = rows(puzzles, &here, recording);
    let mut md = format!(
        "**{} on {device}**{}\n\n",
        block.title,
        sources(recording, &rows)
    );
    if rows.is_empty() {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">None of these puzzles' <code>bench</code> cases runs on \
             {gpus} GPUs, the number this host has.</p>\n"
        );
        return md;
    }
    md.push_str(&table(&rows));
    md.push_str(&key(block));
    for row in &rows {
        for (id, cell) in block.puzzles().iter().zip(&row.cells) {
            if let Cell::Timed { report, .. } = cell
                && let Checked::Failed(problems) = &report.checked
            {
                let _ = writeln!(
                    md,
                    "`{id}` at {}: WRONG: {}\n",
                    row.label,
                    problems.join("; ")
                );
            }
        }
    }
    if let Some(within) = block.within_percent {
        let _ = writeln!(md, "{}\n", verdict(within, &rows[0]));
    }
    md
}

/// ", timed 2026-11-27. Each time is …": the days of the
/// current benchmarks, and how a time is summarised.
fn sources(recording: &Recording, rows: &[Row]) -> String {
    let timed: Vec<(&BenchReport, Option<&str>)> = rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter_map(|c| match c {
            Cell::Timed { report, date } => Some((*report, *date)),
            Cell::Unusable(_) => None,
        })
        .collect();
    // A benchmark without its own day was taken by the file's `runner record`.
    let days: BTreeSet<&str> = timed
        .iter()
        .map(|(_, date)| date.unwrap_or(&recording.date))
        .collect();
    if days.is_empty() {
        return format!(
            ". No benchmark of these puzzles here is current (recorded {}).",
            recording.date
        );
    }
    let days: Vec<&str> = days.into_iter().collect();
    let samples = timed
        .iter()
        .map(|(r, _)| r.timing.samples)
        .max()
        .unwrap_or(0);
    format!(
        ", timed {}. Each time is the median of {samples} device-timed runs \
         after warm-up, ± the spread (max − min, over the median).",
        days.join(", ")
    )
}

/// A cell's style: narrow padding (mdBook's is 20 px a side), for eight
/// columns to fit a 750 px text column; figures right-aligned.
const TD: &str = "style=\"padding:3px 7px;text-align:right\"";
const TD_LEFT: &str = "style=\"padding:3px 7px\"";

/// The table, in HTML: a Markdown table cannot narrow its cells' padding.
/// Long labels break at their commas, a time's spread goes under it.
fn table(rows: &[Row]) -> String {
    let mut html = String::from("<div class=\"puzzle-table\">\n<table>\n<thead><tr>");
    let _ = write!(html, "<th {TD_LEFT}>size</th>");
    for header in [
        "compute",
        "comm.",
        "serial",
        "overlapped",
        "bound",
        "overlapped<br>/ bound",
        "serial /<br>overlapped",
    ] {
        let _ = write!(html, "<th {TD}>{header}</th>");
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        let _ = write!(
            html,
            "<tr><td {TD_LEFT}>{}</td>",
            row.label.replace(", ", ",<br>")
        );
        for cell in &row.cells {
            let text = match cell {
                Cell::Timed { report, .. } => {
                    let mark = if wrong(report) {
                        "<br>✘ wrong output"
                    } else {
                        ""
                    };
                    format!(
                        "{}<br>{}{mark}",
                        time_text(report.timing.median_ms),
                        spread_text(&report.timing).trim_start()
                    )
                }
                Cell::Unusable(why) => unusable_text(why),
            };
            let _ = write!(html, "<td {TD}>{text}</td>");
        }
        let bound = match row.bound() {
            Some((ms, role)) => format!("{}<br>{}", time_text(ms), short_role(role)),
            None => "–".to_string(),
        };
        let of_bound = row.of_bound().map_or("–".to_string(), percent_text);
        let speed_up = row
            .speed_up()
            .map_or("–".to_string(), |x| format!("{}×", rate(x)));
        let _ = writeln!(
            html,
            "<td {TD}>{bound}</td><td {TD}>{of_bound}</td><td {TD}>{speed_up}</td></tr>"
        );
    }
    html.push_str("</tbody>\n</table>\n</div>\n\n");
    html
}

/// "comm." for communication: the table's header and bound cells say it short.
fn short_role(role: &str) -> &str {
    if role == ROLES[1] { "comm." } else { role }
}

/// Under the table: which puzzle each column is, and what the last three say.
fn key(block: &OverlapBlock) -> String {
    let named: Vec<String> = ROLES
        .iter()
        .zip(block.puzzles())
        .map(|(role, id)| format!("{} is <code>{id}</code>", short_role(role)))
        .collect();
    format!(
        "<p class=\"puzzle-overlap-key\"><small>{}. <em>Bound</em> is the slower of compute and \
         communication alone, the time a perfect overlap would take; <em>overlapped / bound</em> \
         how near the overlapped kernel came to it, and <em>serial / overlapped</em> its \
         speed-up over the two one after the other.</small></p>\n\n",
        named.join(", ")
    )
}

/// "Target: overlapped within 10 % of max(compute, communication) and faster
/// than serial, at 8192 × 2048, hidden 64. …: met." Met where all four were
/// timed current and right at the headline case, the overlapped time is at
/// most (1 + w/100) × the bound, and below the serial time.
fn verdict(within: f64, row: &Row) -> String {
    let of = format!(
        "Target: overlapped within {within} % of max(compute, communication) and faster than \
         serial, at {}",
        row.label
    );
    let missed = |why: String| {
        format!("<p class=\"puzzle-target missed\">{of}. {why}: <strong>missed</strong>.</p>")
    };
    let mut gaps = Vec::new();
    for (role, cell) in ROLES.iter().zip(&row.cells) {
        match cell {
            Cell::Unusable(why) => gaps.push(format!("{role} ({why})")),
            Cell::Timed { report, .. } if wrong(report) => {
                gaps.push(format!("{role} (wrong output)"));
            }
            Cell::Timed { .. } => {}
        }
    }
    if !gaps.is_empty() {
        return missed(format!("No figure for {}", gaps.join(", ")));
    }
    let (Some((bound, slower)), Some(percent), Some(speed_up)) =
        (row.bound(), row.of_bound(), row.speed_up())
    else {
        return missed("A time of 0 was recorded".to_string());
    };
    let overlapped = row.cells[3].ms().unwrap_or_default();
    let serial = row.cells[2].ms().unwrap_or_default();
    let near = overlapped <= (1.0 + within / 100.0) * bound;
    let faster = overlapped < serial;
    let against = if faster {
        format!(
            "{}× faster than serial ({})",
            rate(speed_up),
            time_text(serial)
        )
    } else {
        format!("no faster than serial ({})", time_text(serial))
    };
    let (class, word) = if near && faster {
        ("met", "met")
    } else {
        ("missed", "missed")
    };
    format!(
        "<p class=\"puzzle-target {class}\">{of}. Overlapped took {}, {percent:.1} % of the \
         bound ({slower} alone, {}; at most {} % asked), and was {against}: \
         <strong>{word}</strong>.</p>",
        time_text(overlapped),
        time_text(bound),
        100.0 + within
    )
}
