//! Markdown for the page: the configuration table, the code to complete with
//! its real output, and the collapsed solution with its verdict.
//!
//! Pure functions of a spec and reports, so fixture tests can check them
//! without a GPU.

mod recorded;
mod values;
mod verdict_line;

use recorded::{outcome, recorded_dates, recorded_devices};
use verdict_line::verdict;

use puzzle_core::backend_contract::access_map::AccessMap;
use puzzle_core::chapter::extract::BlockKind;
use puzzle_core::judge::format::{escape_html as escape, format_values};
use puzzle_core::judge::report::{PRINTED_KEPT, RunReport, printed_head};
use puzzle_core::lang::Lang;
use puzzle_core::quantity::{si, thousands};
use puzzle_core::spec::finding::Finding;
use puzzle_core::spec::model::{Arg, Spec};
use puzzle_core::spec::raw::AccessBound;
use runner::perf::record::Recorded;
use std::fmt::Write;

fn dims(d: [u32; 3]) -> String {
    format!("{} × {} × {}", d[0], d[1], d[2])
}

/// How outputs are judged, said once on each page that judges any (from
/// its first puzzle's outputs: the book keeps one kind of output per page).
pub fn tolerance_note(spec: &puzzle_core::spec::model::Spec) -> String {
    let narrow: Vec<_> = spec
        .outputs()
        .map(|b| b.dtype)
        .filter(|d| d.is_narrow())
        .collect();
    if let Some(dtype) = narrow.first() {
        let exponent = -dtype.tolerance().log2();
        return format!(
            "<p class=\"puzzle-tolerance\">How outputs are judged on this page: an output stored \
             as {} passes when it is within 2<sup>−{exponent:.0}</sup> × (1 + |expected|) of the \
             expected value (the tolerance is {}), twice the most that rounding to {} can move a \
             value. <a href=\"../tensor/p33_precision.html#how-a-bf16-result-is-judged\">Puzzle 33</a> \
             derives the rule. The expected value is the CPU reference's, in FP64, from the \
             same rounded inputs.</p>\n",
            dtype.name(),
            dtype.tolerance(),
            dtype.name(),
        );
    }
    // Outputs whose spec gives them their own tolerance, said by name.
    let own: Vec<String> = spec
        .outputs()
        .filter_map(|b| {
            b.tolerance
                .map(|t| format!("<code>{}</code> within {t} × (1 + |expected|)", b.name))
        })
        .collect();
    let exceptions = if own.is_empty() {
        String::new()
    } else {
        format!(
            " Its spec judges {} instead; the page says why.",
            own.join(", ")
        )
    };
    format!(
        "<p class=\"puzzle-tolerance\">How outputs are judged on this page: an element passes \
         when it is within 10<sup>−5</sup> × (1 + |expected|) of the expected value, that is \
         to about five significant digits (the tolerance is {}). Floating-point additions done \
         in another order round differently, so a sum of millions of terms may differ from the \
         CPU's in its last digits and still be right; an element never written, or written \
         with a wrong value, is far outside it.{exceptions}</p>\n",
        puzzle_core::judge::verify::TOLERANCE
    )
}

/// A count in a spec table: `1,024`, or `137.4 G (137,438,953,472)` past a million.
fn count(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{} ({})", si(n as f64), thousands(n))
    } else {
        thousands(n)
    }
}

/// Replaces a ```puzzle block: what is launched, on what data, and the tips;
/// the first on a page also says how its outputs are judged.
pub fn puzzle_block(spec: &Spec, hints: &[String], first_on_page: bool) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "<div class=\"puzzle-config\">\n");
    let _ = writeln!(md, "| {} | |\n| --- | --- |", spec.title);
    // A spec run in rounds (`repeat:`) lists every round's launches; the
    // table shows the setup steps and one round, and says how many.
    let setup = spec.launches.iter().filter(|l| l.setup).count();
    let rounds = spec.rounds.max(1) as usize;
    let shown = setup + (spec.launches.len() - setup) / rounds;
    let launches = &spec.launches[..shown];
    let several = launches.len() > 1;
    // On several GPUs each step is launched once per rank, ranks in order.
    let ranks = spec.gpus.max(1) as usize;
    for (index, launch) in launches.iter().enumerate() {
        let prefix = match (several, ranks) {
            (false, _) => String::new(),
            (true, 1) => format!("step {}: ", index + 1),
            (true, _) if launches.len() == ranks => format!("rank {}: ", launch.rank),
            (true, _) => format!("step {}, rank {}: ", index / ranks + 1, launch.rank),
        };
        let _ = writeln!(md, "| {prefix}kernel | `{}` |", launch.kernel);
        let _ = writeln!(md, "| {prefix}grid (blocks) | {} |", dims(launch.grid));
        let _ = writeln!(md, "| {prefix}block (threads) | {} |", dims(launch.block));
        let _ = writeln!(
            md,
            "| {prefix}threads in all | {} |",
            launch.total_threads()
        );
        if several {
            let names: Vec<String> = spec
                .launch_args(launch)
                .map(|a| format!("`{}`", a.name()))
                .collect();
            let _ = writeln!(md, "| {prefix}args | {} |", names.join(", "));
        }
    }
    if rounds > 1 {
        let _ = writeln!(
            md,
            "| rounds | {rounds}: the steps above, in order, {rounds} times in a row |"
        );
    }
    for (i, arg) in spec.args.iter().enumerate() {
        let what = match arg {
            Arg::Buffer(b) => {
                let shape: Vec<String> = b.shape.iter().map(usize::to_string).collect();
                let role = if b.is_output() {
                    "output, starts poisoned".to_string()
                } else if b.scratch {
                    "scratch between steps, starts poisoned".to_string()
                } else {
                    "input".to_string()
                };
                let values = b.init.as_ref().or(b.expect.as_ref()).map(|v| {
                    let shown: Vec<Option<f64>> = v.iter().take(16).copied().map(Some).collect();
                    let more = if v.len() > 16 { " …" } else { "" };
                    format!("{}{more}", format_values(&shown))
                });
                let values = match (b.is_output(), values) {
                    (false, Some(v)) => format!(": `{v}`"),
                    _ => String::new(),
                };
                format!("{} [{}], {role}{values}", b.dtype.name(), shape.join(" × "))
            }
            Arg::Scalar { dtype, value, .. } => format!("{} = {value}", dtype.name()),
            Arg::Peers { of, .. } => {
                let names: Vec<String> = of
                    .iter()
                    .map(|&a| format!("`{}`", spec.args[a].name()))
                    .collect();
                format!("the addresses of {} (one per GPU)", names.join(", "))
            }
        };
        let _ = writeln!(md, "| arg {i}: `{}` | {what} |", arg.name());
    }
    for b in spec.outputs() {
        if let Some(expect) = &b.expect {
            const SHOWN: usize = 16;
            let shown: Vec<Option<f64>> = expect.iter().take(SHOWN).copied().map(Some).collect();
            let more = if expect.len() > SHOWN {
                format!(" … ({} values)", expect.len())
            } else {
                String::new()
            };
            let _ = writeln!(
                md,
                "| expected `{}` | `{}{more}` |",
                b.name,
                format_values(&shown)
            );
        }
    }
    if let Some(flops) = spec.flops {
        // Computed from the spec, never typed in: the FLOPs expression and the buffers' sizes.
        let bytes = spec.min_bytes();
        let _ = writeln!(md, "| floating-point operations | {} |", count(flops));
        let _ = writeln!(
            md,
            "| fewest bytes moved (inputs read once, outputs written once) | {} |",
            count(bytes)
        );
        let _ = writeln!(
            md,
            "| arithmetic intensity | {:.3} FLOP/byte |",
            flops as f64 / bytes.max(1) as f64
        );
    }
    let _ = writeln!(md, "\n</div>\n");
    if first_on_page && spec.outputs().next().is_some() {
        md.push_str(&tolerance_note(spec));
    }
    if !hints.is_empty() {
        let _ = writeln!(
            md,
            "<details class=\"puzzle-tips\">\n<summary>Tips</summary>\n"
        );
        for (i, hint) in hints.iter().enumerate() {
            let _ = writeln!(md, "{}. {hint}", i + 1);
        }
        let _ = writeln!(md, "\n</details>\n");
    }
    md
}

/// One variant of a kernel as the page shows it: its code, the run made while
/// building, and what `runner record` kept from real GPUs.
pub struct Shown<'a> {
    pub code: &'a str,
    pub local: &'a RunReport,
    pub recorded: Vec<Recorded<'a>>,
    /// Its access diagram (see [`diagram`]), or a sentence saying why there
    /// is none; WGSL solutions and kernels given with a bug have one.
    pub diagram: Option<String>,
    /// Launches a timed run makes one after another
    /// ([`puzzle_core::spec::model::Spec::launches_in_a_row`]).
    pub launches: usize,
}

/// Where a kernel block's code lives, for its heading.
pub struct KernelFiles<'a> {
    /// The book's solution, `kernels/fundamentals/p01_map/add_10.cu`.
    pub solution: &'a str,
    /// The learner's copy, `.learner/p01_map/add_10.cu`.
    pub copy: &'a str,
    pub puzzle: &'a str,
    /// A debugging case's stated bug: the skeleton is then the kernel as
    /// given, a whole kernel with that bug, not one with a gap.
    pub bug: Option<Finding>,
    /// A kernel given whole (`GIVEN WHOLE`): measured beside a puzzle, with
    /// nothing to write.
    pub whole: bool,
}

/// Replaces a kernel block: the skeleton with what it prints here (GPU
/// recordings of it folded away: a skeleton fails the same way everywhere),
/// then the solution, collapsed, with every result.
pub fn kernel_block(
    lang: Lang,
    files: KernelFiles,
    hint: &str,
    skeleton: Shown,
    solution: Shown,
    problem: Option<&str>,
    playground: &str,
) -> String {
    let class = crate::prose::highlight_class(lang);
    let mut md = String::new();
    let _ = writeln!(md, "<div class=\"puzzle-kernel puzzle-{lang}\">\n");
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!(" ({hint})")
    };
    // A debugging case gives a whole kernel with one bug; the page must not
    // say which kind, the report below does.
    let (heading, task, before, name) = match files.bug {
        _ if files.whole => (
            "given whole",
            "nothing to write; it is measured beside the puzzle. Your copy is",
            "What it does:",
            "kernel",
        ),
        Some(_) => (
            "the kernel as given",
            "it has one bug. Your copy is",
            "What it does, as given:",
            "kernel as given",
        ),
        None => (
            "code to complete",
            "your copy is",
            "What you see before solving:",
            "skeleton",
        ),
    };
    let _ = writeln!(
        md,
        "**{} — {heading}**{hint}: {task} `{}`; check it with \
         `runner check {} --lang {lang}`.\n",
        lang.label(),
        files.copy,
        files.puzzle,
    );
    if let Some(problem) = problem {
        md.push_str(&check_failed(problem));
    }
    // The class marks a page's kernel as given (the CI's check of the built
    // book looks for it where other pages have a `FILL ME IN`).
    let (open, close) = match files.bug {
        Some(_) => ("<div class=\"puzzle-given\">\n\n", "</div>\n\n"),
        None if files.whole => ("<div class=\"puzzle-given\">\n\n", "</div>\n\n"),
        None => ("", ""),
    };
    let _ = writeln!(md, "{open}```{class}\n{}```\n\n{close}", skeleton.code);
    let _ = writeln!(md, "{before}\n");
    md.push_str(&result(skeleton.local));
    // A GPU whose skeleton run reads exactly like the one above gets a
    // line, not a second copy of the same box; one that differs (or is
    // stale) is shown in full, folded away.
    let here = outcome(skeleton.local);
    let (alike, unlike): (Vec<Recorded>, Vec<Recorded>) =
        skeleton.recorded.iter().cloned().partition(
            |r| matches!(r, Recorded::Current { report, .. } if outcome(report) == here),
        );
    if !alike.is_empty() {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-recorded\">The same {name} on {}, recorded {}: the same output and \
             the same verdict ({}).</p>\n",
            recorded_devices(&alike),
            recorded_dates(&alike),
            skeleton.local.status.word()
        );
    }
    if !unlike.is_empty() {
        let _ = writeln!(
            md,
            "<details class=\"puzzle-recorded-runs\">\n<summary>The same {name} on {}</summary>\n",
            recorded_devices(&unlike)
        );
        md.push_str(&recorded::recorded_results(
            &unlike,
            Some(skeleton.local),
            skeleton.launches,
        ));
        let _ = writeln!(md, "</details>\n");
    }
    if let Some(diagram) = &skeleton.diagram {
        md.push_str(diagram);
    }
    md.push_str(playground);
    let _ = writeln!(
        md,
        "<details class=\"puzzle-solution\">\n<summary>{} solution (<code>{}</code>)</summary>\n",
        lang.label(),
        escape(files.solution)
    );
    let _ = writeln!(md, "```{class}\n{}```\n", solution.code);
    md.push_str(&recorded::solution_runs(&solution));
    if let Some(diagram) = &solution.diagram {
        md.push_str(diagram);
    }
    let _ = writeln!(md, "</details>\n\n</div>\n");
    md
}

/// Where the published book checks a reader's WGSL kernel in the page:
/// the puzzle packed for the checker (`bundle`, JSON), which
/// `theme/playground.js` turns into an editor when the reader asks, and
/// only then loads the checker (WebAssembly). Without JavaScript, or in a
/// build without the checker, the box says how to check it instead.
pub fn playground(bundle: &str, puzzle: &str) -> String {
    // `</` would end the script element early; `<\/` is the same JSON string.
    let bundle = bundle.replace("</", "<\\/");
    format!(
        "<div class=\"puzzle-playground\" data-puzzle=\"{id}\">\n\
         <script type=\"application/json\" class=\"puzzle-bundle\">{bundle}</script>\n\
         <p class=\"puzzle-playground-off\">Check your WGSL kernel in this page: the published \
         book runs the checker here (it needs JavaScript). On your machine: \
         <code>runner check {id} --lang wgsl</code>.</p>\n\
         </div>\n\n",
        id = escape(puzzle),
    )
}

/// A traced run's access diagram, under a line that says what it shows.
/// `what` names the kernel traced: "this solution", "the kernel as given".
pub fn diagram(
    accesses: &AccessMap,
    what: &str,
    puzzle: &str,
    bound: Option<&AccessBound>,
) -> String {
    let mut html = format!(
        "<p class=\"puzzle-diagram-note\">Who read and wrote which element, as the CPU checker \
         traced {what} at the teaching size (invocations numbered in their launch; \
         <code>runner check {puzzle} --lang wgsl --draw</code> draws your own):</p>\n\
         <div class=\"puzzle-diagram\">\n{}</div>\n\n",
        puzzle_core::draw::diagram::svg(accesses, bound)
    );
    // Where a barrier divides the block's memory: the same trace, one
    // interval between barriers a row.
    if let Some(phases) = puzzle_core::draw::intervals::svg(accesses) {
        html.push_str(&format!(
            "<p class=\"puzzle-diagram-note\">The same run, one row for each stretch between two \
             barriers, in the first workgroup: what was written and read before each barrier \
             let the next row begin.</p>\n<div class=\"puzzle-diagram\">\n{phases}</div>\n\n"
        ));
    }
    html
}

/// A run's outputs, verdict, device and time.
pub fn result(report: &RunReport) -> String {
    let mut md = String::new();
    if !report.printed.is_empty() {
        // What the kernel printed comes first, as a program's output would.
        let printed = printed_head(&report.printed, PRINTED_KEPT);
        let _ = writeln!(
            md,
            "<p class=\"puzzle-printed\">Printed by the kernel (<code>printf</code>), in the order the lines reached the host:</p>\n\n```text\n{}```\n",
            printed
        );
    }
    if !report.checks.is_empty() {
        // The div lets the page keep these rows unwrapped (theme/puzzles.css).
        let _ = writeln!(md, "<div class=\"puzzle-values\">\n\n```text");
        for check in report.checks.iter().filter(|c| c.judged) {
            let label = format!("{}:", check.name);
            let width = label.len().max(9);
            // Long buffers (Part III's 16,384 elements) show their head and
            // tail, whether run here or recorded; the verdict below names any
            // wrong index.
            let (got, expected) = check.shown_values();
            let (got, expected) = values::line_up(&got, &expected);
            let _ = writeln!(md, "{label:width$} {got}");
            let _ = writeln!(md, "{:width$} {expected}", "expected:");
        }
        let _ = writeln!(md, "```\n\n</div>\n");
    }
    md.push_str(&verdict(report));
    md.push_str(&crate::prose::notes_html(&notes(report)));
    md
}

/// The sentences under a run's verdict: each buffer's problems, then the
/// diagnostics (compiler messages, hazards).
fn notes(report: &RunReport) -> Vec<String> {
    let mut notes: Vec<String> = report.checks.iter().flat_map(|c| c.problems()).collect();
    notes.extend(report.diagnostics.iter().map(|d| d.to_string()));
    notes
}

/// Shown in place of a block when `on-failure = "continue"` (or under
/// `mdbook serve`) and the block could not be processed: a spec that does not
/// resolve, a roofline block that names no puzzle.
pub fn failure(message: &str) -> String {
    failure_box("This block could not be processed", message)
}

/// A kernel that was run and judged wrong (a solution that fails, a
/// skeleton that passes), shown inside its language's section.
pub fn check_failed(message: &str) -> String {
    failure_box("This kernel failed the book's check", message)
}

fn failure_box(heading: &str, message: &str) -> String {
    format!("<div class=\"puzzle-error\">\n\n**{heading}:**\n\n```text\n{message}\n```\n\n</div>\n")
}

/// On top of a page with a failure: the reader may be looking anywhere on it.
pub fn page_banner(failures: usize) -> String {
    let what = if failures == 1 {
        "a problem".to_string()
    } else {
        format!("{failures} problems")
    };
    format!(
        "<div class=\"puzzle-error puzzle-banner\">\n\n**The book's check found {what} on \
         this page**, shown in a red box below. `mdbook build` fails until it is fixed.\n\n</div>\n\n"
    )
}

/// What stands in for a block of a chapter that could not be read: a
/// kernel block holds its solution and its markers, so none is shown raw.
pub fn withheld(kind: &BlockKind) -> String {
    let what = match kind {
        BlockKind::Puzzle => "The puzzle's specification".to_string(),
        BlockKind::Kernel { lang, puzzle } => format!("The {} kernel of `{puzzle}`", lang.label()),
        BlockKind::Roofline => "A roofline chart".to_string(),
        BlockKind::Precision => "A table of measured rounding errors".to_string(),
        BlockKind::Bus => "A chart of bus bandwidth against NCCL's".to_string(),
        BlockKind::Overlap => "A table of communication overlapped with computation".to_string(),
    };
    format!("\n*{what} is not shown until the problem at the top of this page is fixed.*\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    use puzzle_core::backend_contract::backend::BackendKind;
    use puzzle_core::backend_contract::outcome::{
        AccessCount, Execution, GlobalAccess, Outcome, OutputData,
    };
    use puzzle_core::kernel::cut::Variant;
    use puzzle_core::spec::raw::AccessBound;
    use puzzle_core::spec::resolve::PuzzleSpec;

    /// A passing run of a one-output puzzle whose threads made at most `reads` global reads.
    pub(super) fn report(reads: u32) -> RunReport {
        let yaml = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [2]\n\
                    buffers:\n  out: { len: 2, output: true }\nargs: [out]\nexpect:\n  out: [1, 2]\n";
        let spec = PuzzleSpec::parse(yaml, std::path::Path::new("ch.md"), 1)
            .and_then(|s| s.resolve(&Default::default()))
            .expect("the test spec resolves");
        let count = |max| AccessCount {
            max,
            max_thread: [1, 0, 0],
            mean: f64::from(max),
            nth: vec![],
        };
        let execution = Execution {
            outputs: vec![OutputData {
                name: "out".into(),
                values: vec![Some(1.0), Some(2.0)],
                out_of_bounds: vec![],
                poison_written: None,
            }],
            timing: None,
            hazards: vec![],
            access: Some(Box::new(GlobalAccess {
                invocations: 2,
                reads: count(reads),
                writes: count(1),
            })),
            accesses: None,
            printed: String::new(),
        };
        RunReport::new(
            &spec,
            Lang::Wgsl,
            Variant::Solution,
            BackendKind::Sim,
            None,
            Ok(Outcome::Ran(execution)),
        )
    }

    /// A kernel's text may hold `</script>`: the bundle must not end early.
    #[test]
    fn the_playground_box_keeps_its_bundle_whole() {
        let bundle = r#"{"markdown":"// </script><script>alert(1)</script>"}"#;
        let html = playground(bundle, "p<1>");
        assert_eq!(html.matches("</script>").count(), 1, "{html}");
        assert!(html.contains(r#"data-puzzle="p&lt;1&gt;""#), "{html}");
        let json = &html[html.find("\">{").unwrap() + 2..html.find("</script>").unwrap()];
        let back: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(back["markdown"], "// </script><script>alert(1)</script>");
    }

    /// (reads, bound, what the page must say, what it must not).
    #[test]
    fn access_line_table() {
        let two_one = AccessBound {
            reads: 2,
            writes: 1,
        };
        let bound = Some(two_one);
        let cases: [(u32, Option<AccessBound>, &[&str], &[&str]); 3] = [
            (
                2,
                bound,
                &[
                    "<p class=\"puzzle-access\">Global memory per thread (counted by the CPU checker): at most 2 reads, 1 write",
                    "bound 2 reads, 1 write.",
                ],
                &["too much global memory traffic"],
            ),
            (
                3,
                bound,
                &[
                    "FAIL",
                    "at most 3 reads",
                    "thread 1 read global memory 3 times; this puzzle allows 2 reads per thread",
                ],
                &[],
            ),
            (9, None, &["PASS"], &["puzzle-access"]),
        ];
        for (reads, bound, present, absent) in cases {
            let mut r = report(reads);
            if let Some(b) = bound {
                r.judge_access(b, None);
            }
            let page = result(&r);
            for p in present {
                assert!(page.contains(p), "{reads} {bound:?}: lacks {p:?}:\n{page}");
            }
            for a in absent {
                assert!(!page.contains(a), "{reads} {bound:?}: has {a:?}:\n{page}");
            }
        }
        // A skeleton's counts (next to nothing) are not shown.
        let mut skeleton = report(0);
        skeleton.variant = Variant::Skeleton;
        skeleton.judge_access(two_one, None);
        assert!(!result(&skeleton).contains("puzzle-access"));
    }
}
