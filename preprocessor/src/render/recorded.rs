//! What `runner record` kept from real GPUs, on a kernel's page: each
//! recorded run labelled with its GPU and date, one that reads like a run
//! shown before it said in a line, a stale one marked, and a time within a
//! few empty launches called launch-bound. Where the page was built without
//! a GPU, a solution's GPU run comes before the page's own run on the CPU.

use super::{Shown, notes, result, verdict};
use puzzle_core::judge::format::escape_html as escape;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::judge::verify::BufferCheck;
use runner::perf::record::schema::{Recorded, Recording};
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
            md.push_str(&recorded_results(&solution.recorded, Some(solution.local)));
            let _ = writeln!(md, "</details>\n");
        }
        return md;
    };
    let gpu = &solution.recorded[first];
    md.push_str(&recorded_results(std::slice::from_ref(gpu), None));
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
    md.push_str(&recorded_results(&others, Some(report)));
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
pub(super) fn recorded_results(recorded: &[Recorded], local: Option<&RunReport>) -> String {
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
                if let Some(note) = launch_note(recording, report) {
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

/// Where "launch-bound" is explained, from a puzzle's chapter (every one
/// sits in a part's folder, one level under `src/`).
const LAUNCH_BOUND_PAGE: &str =
    "../performance/roofline.html#why-the-teaching-sizes-are-launch-bound";

/// Whether a recorded time says anything about the kernel: within a few
/// empty-kernel launches (measured by `runner calibrate` on that GPU) it is
/// the launch that was timed, and the page says so.
fn launch_note(recording: &Recording, report: &RunReport) -> Option<String> {
    let (ceilings, timing) = (recording.ceilings.as_ref()?, report.timing.as_ref()?);
    let elements = report
        .checks
        .iter()
        .map(|c| c.shape.iter().product::<usize>())
        .max()?;
    let elements = puzzle_core::quantity::plural(elements, "element");
    let empty = ceilings.launch_us.value;
    let ratio = runner::perf::roofline::launches(timing.median_ms, ceilings);
    Some(if ratio < runner::perf::roofline::LAUNCH_BOUND_FACTOR {
        // Said in a few words: the roofline chapter explains it once.
        format!(
            "<a href=\"{LAUNCH_BOUND_PAGE}\">Launch-bound</a>: {ratio:.1}× the {empty:.1} µs of an \
             empty kernel on this GPU (an output of {elements})."
        )
    } else {
        format!(
            "{:.1}× the {empty:.1} µs of an empty kernel on this GPU (an output of {elements}).",
            ratio
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded_fixtures::recording;
    use runner::perf::record::schema::Awaiting;

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
            );
            assert!(md.contains(wanted), "{case}: {md}");
            assert!(!md.contains(unwanted), "{case}: {md}");
        }
    }
}
