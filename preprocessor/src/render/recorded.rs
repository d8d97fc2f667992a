//! What `runner record` kept from real GPUs, on a kernel's page: each
//! recorded run labelled with its GPU and date, one that reads like a run
//! shown before it said in a line, a stale one marked, and a time within a
//! few empty launches called launch-bound. Where the page was built without
//! a GPU, a solution's GPU run comes before the page's own run on the CPU.

use super::{Shown, notes, result, verdict};
use puzzle_core::judge::format::escape_html as escape;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::judge::verify::BufferCheck;
use runner::perf::record::{Recorded, Recording};
use std::fmt::Write;

/// A solution's runs at its teaching size. Where the page was built
/// without a GPU and a GPU's recording is current, that GPU's run comes
/// first, and the build's own run (the CPU's, labelled so by its report)
/// is folded below it with the other GPUs'; else the build's run comes
/// first, the GPUs' folded. At these sizes the GPUs confirm the output;
/// their times are the launch's.
pub(super) fn solution_runs(solution: &Shown) -> String {
    let mut md = String::new();
    let on_cpu = solution
        .local
        .device
        .as_ref()
        .is_none_or(|d| d.kind != "GPU");
    let first_gpu = solution
        .recorded
        .iter()
        .enumerate()
        .find_map(|(i, r)| match r {
            Recorded::Current { report, .. } => Some((i, *report)),
            Recorded::Stale { .. } => None,
        })
        .filter(|_| on_cpu);
    let Some((first, report)) = first_gpu else {
        md.push_str(&result(solution.local));
        if !solution.recorded.is_empty() {
            let _ = writeln!(
                md,
                "<details class=\"puzzle-recorded-runs\">\n<summary>The same solution on {}</summary>\n",
                recorded_devices(&solution.recorded)
            );
            md.push_str(&recorded_results(
                &solution.recorded,
                Some(solution.local),
                solution.launches,
            ));
            let _ = writeln!(md, "</details>\n");
        }
        return md;
    };
    let gpu = &solution.recorded[first];
    md.push_str(&recorded_results(
        std::slice::from_ref(gpu),
        None,
        solution.launches,
    ));
    let others: Vec<Recorded> = solution
        .recorded
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != first)
        .map(|(_, r)| r.clone())
        .collect();
    let where_else = if others.is_empty() {
        String::new()
    } else {
        format!("on {} and ", recorded_devices(&others))
    };
    // The page's own run is on the CPU (the checker, or a CPU's Vulkan
    // driver), or nowhere: a kernel that could only be compiled.
    let here = if solution
        .local
        .device
        .as_ref()
        .is_some_and(|d| d.kind == "CPU")
    {
        "on the CPU"
    } else {
        "without a GPU"
    };
    let _ = writeln!(
        md,
        "<details class=\"puzzle-recorded-runs\">\n<summary>The same solution {where_else}{here}</summary>\n"
    );
    md.push_str(&recorded_results(&others, Some(report), solution.launches));
    // The page's own run, said in a line where it reads like the GPU's.
    let _ = write!(md, "<p class=\"puzzle-recorded\">{}", capitalized(here));
    if outcome(solution.local) == outcome(report) {
        let _ = writeln!(md, ": the same output as the run above.</p>\n");
        md.push_str(&verdict(solution.local));
    } else {
        let _ = writeln!(md, ":</p>\n");
        md.push_str(&result(solution.local));
    }
    let _ = writeln!(md, "</details>\n");
    md
}

/// `words` with a capital first letter, to open a sentence.
fn capitalized(words: &str) -> String {
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// "NVIDIA H100 80GB HBM3 and NVIDIA H200".
pub(super) fn recorded_devices(recorded: &[Recorded]) -> String {
    let names: Vec<String> = recorded
        .iter()
        .map(|r| match r {
            Recorded::Current { recording, .. } | Recorded::Stale { recording, .. } => {
                escape(&recording.device.name)
            }
        })
        .collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "2026-11-24", or each device's date where they differ.
pub(super) fn recorded_dates(recorded: &[Recorded]) -> String {
    let dates: Vec<(String, String)> = recorded
        .iter()
        .map(|r| match r {
            Recorded::Current { recording, .. } | Recorded::Stale { recording, .. } => {
                (escape(&recording.device.name), recording.date.clone())
            }
        })
        .collect();
    match dates.as_slice() {
        [(_, first), rest @ ..] if rest.iter().all(|(_, d)| d == first) => first.clone(),
        _ => dates
            .iter()
            .map(|(device, date)| format!("{date} on {device}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// What a reader compares between two runs of one kernel: the verdict, the
/// values shown and the sentences under them, not the device or the time.
pub(super) type Outcome = (Status, Vec<(String, String)>, Vec<String>);

pub(super) fn outcome(report: &RunReport) -> Outcome {
    let shown = report
        .checks
        .iter()
        .filter(|c| c.judged)
        .map(BufferCheck::shown_values)
        .collect();
    let mut notes = notes(report);
    notes.extend(report.message.clone());
    (report.status, shown, notes)
}

/// Results kept from real GPUs, labelled as recorded; stale ones say so
/// instead of showing numbers. A recording whose output and problems read
/// exactly like a run shown before it (the local run, `local`, where it
/// ran, or another GPU's) says so in a line instead of repeating them; its
/// verdict, device and time stay.
pub(super) fn recorded_results(
    recorded: &[Recorded],
    local: Option<&RunReport>,
    launches: usize,
) -> String {
    let mut md = String::new();
    // What each run shown so far reads like, and where it is.
    let mut shown: Vec<(Outcome, String)> = Vec::new();
    if let Some(local) = local.filter(|l| matches!(l.status, Status::Pass | Status::Fail)) {
        shown.push((outcome(local), "the run above".to_string()));
    }
    for r in recorded {
        match r {
            Recorded::Current { recording, report } => {
                let this = outcome(report);
                let before = shown
                    .iter()
                    .find(|(s, _)| *s == this)
                    .map(|(_, place)| place.clone());
                let _ = write!(
                    md,
                    "<p class=\"puzzle-recorded\">Recorded on {}, {}",
                    escape(&recording.device.name),
                    recording.date
                );
                match before {
                    Some(place) => {
                        let _ = writeln!(md, ": the same output as {place}.</p>\n");
                        md.push_str(&verdict(report));
                    }
                    None => {
                        let _ = writeln!(md, ":</p>\n");
                        md.push_str(&result(report));
                        shown.push((this, format!("on {}", escape(&recording.device.name))));
                    }
                }
                if let Some(note) = launch_note(recording, report, launches) {
                    let _ = writeln!(md, "<p class=\"puzzle-roofline-note\">{note}</p>\n");
                }
            }
            Recorded::Stale {
                recording,
                awaiting: Some(awaiting),
            } => {
                // Not the class CI's build refuses: the GPU could not run the
                // new version, and the page says so instead of old numbers.
                let _ = writeln!(
                    md,
                    "<p class=\"puzzle-recorded puzzle-awaiting\">Not yet run on the {} since the \
                     kernel or its spec changed on {}: the result it gave on {} was of the \
                     earlier version, so it is not shown.</p>\n",
                    escape(&recording.device.name),
                    awaiting.changed,
                    recording.date
                );
            }
            Recorded::Stale {
                recording,
                awaiting: None,
            } => {
                let _ = writeln!(
                    md,
                    "<p class=\"puzzle-recorded puzzle-stale\">A result recorded on {}, {} is stale: the kernel or its spec \
                     changed since, so its numbers are not shown.</p>\n",
                    escape(&recording.device.name),
                    recording.date
                );
            }
        }
    }
    md
}

/// Whether a recorded time says anything about the kernel: within a few
/// empty-kernel launches (measured by `runner calibrate` on that GPU) it is
/// the launch that was timed, and the page says so. A run of several
/// launches in a row (`launches`) is held to as many empty kernels.
fn launch_note(recording: &Recording, report: &RunReport, launches: usize) -> Option<String> {
    let (ceilings, timing) = (recording.ceilings.as_ref()?, report.timing.as_ref()?);
    let elements = report
        .checks
        .iter()
        .map(|c| c.shape.iter().product::<usize>())
        .max()?;
    let elements = puzzle_core::quantity::plural(elements, "element");
    let empty = ceilings.launch_us.value;
    let launches = launches.max(1);
    let ratio = runner::perf::roofline::launches(timing.median_ms, ceilings) / launches as f64;
    let measure = match launches {
        1 => format!("{ratio:.1}× the {empty:.1} µs of an empty kernel on this GPU"),
        n => format!(
            "{n} launches in a row, each {ratio:.1}× the {empty:.1} µs of an empty kernel on \
             this GPU"
        ),
    };
    Some(if ratio < runner::perf::roofline::LAUNCH_BOUND_FACTOR {
        // Said in a few words: the page explains it once, after the first
        // such note (`prose::launch_bound_once`).
        format!(
            "{}: {measure} (an output of {elements}).",
            crate::prose::launch_bound_mark(runner::perf::roofline::LAUNCH_BOUND_FACTOR)
        )
    } else {
        format!("{} (an output of {elements}).", capitalized(&measure))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded_fixtures::recording;
    use runner::perf::record::Awaiting;

    /// A run of several launches in a row is held to as many empty kernels:
    /// 100 launches taking 94 empty kernels' time are each launch-bound,
    /// and one launch that long is not. (launches, median ms, launch-bound,
    /// words the note holds)
    #[test]
    fn launch_note_counts_the_launches_in_a_row_table() {
        let timing = |ms: f64| {
            serde_json::json!({"clock": "device", "samples": 20, "median_ms": ms,
                "min_ms": ms, "max_ms": ms, "wall_median_ms": ms})
        };
        let roof = |value: f64, ms: f64| serde_json::json!({"value": value, "timing": timing(ms)});
        let mut gpu = recording("NVIDIA Imaginary 9000", vec![]);
        gpu.ceilings = Some(
            serde_json::from_value(serde_json::json!({
                "bandwidth_gb_s": roof(4000.0, 0.25), "read_gb_s": roof(4000.0, 0.125),
                "write_gb_s": roof(4000.0, 0.125), "fp32_gflop_s": roof(60000.0, 1.0),
                "launch_us": roof(2.5, 0.0025), "stream_bytes": 1073741824,
                "date": "2026-12-03"
            }))
            .unwrap(),
        );
        let cases = [
            (
                100,
                0.235,
                true,
                "100 launches in a row, each 0.9× the 2.5 µs of an empty kernel",
            ),
            (
                1,
                0.235,
                false,
                "94.0× the 2.5 µs of an empty kernel on this GPU",
            ),
            (2, 0.004, true, "2 launches in a row, each 0.8× the 2.5 µs"),
            (
                1,
                0.004,
                true,
                "1.6× the 2.5 µs of an empty kernel on this GPU",
            ),
        ];
        for (launches, ms, bound, words) in cases {
            let report: RunReport = serde_json::from_value(serde_json::json!({
                "puzzle": "p1", "lang": "cuda", "variant": "solution", "backend": "cuda",
                "status": "pass", "diagnostics": [], "message": null,
                "checks": [{"name": "out", "shape": [20], "got": [], "expected": [],
                    "wrong": [], "unwritten": [], "out_of_bounds": [], "judged": true}],
                "timing": timing(ms)
            }))
            .unwrap();
            let note = launch_note(&gpu, &report, launches).unwrap();
            assert!(note.contains(words), "{launches} × {ms} ms: {note}");
            assert_eq!(note.contains("aunch-bound"), bound, "{note}");
            assert!(note.ends_with("(an output of 20 elements)."), "{note}");
        }
    }

    /// A stale result says so in the class CI's build refuses; one whose GPU
    /// could not run the new kernel says that instead, in a class it accepts.
    /// (case, awaiting, words the paragraph holds, words it must not)
    #[test]
    fn stale_and_awaiting_results_table() {
        let awaiting = Awaiting {
            puzzle: "p1".into(),
            changed: "2026-12-03".into(),
        };
        let cases = [
            (
                "stale",
                None,
                "puzzle-stale\">A result recorded on NVIDIA Imaginary 9000",
                "puzzle-awaiting",
            ),
            (
                "awaiting",
                Some(&awaiting),
                "puzzle-awaiting\">Not yet run on the NVIDIA Imaginary 9000 since the kernel or \
                 its spec changed on 2026-12-03",
                "puzzle-stale",
            ),
        ];
        let gpu = recording("NVIDIA Imaginary 9000", vec![]);
        for (case, awaiting, wanted, unwanted) in cases {
            let md = recorded_results(
                &[Recorded::Stale {
                    recording: &gpu,
                    awaiting,
                }],
                None,
                1,
            );
            assert!(md.contains(wanted), "{case}: {md}");
            assert!(!md.contains(unwanted), "{case}: {md}");
        }
    }
}
