//! The verdicts under a roofline table, each said once for every GPU: each
//! target met or missed, and the speed-ups of one kernel over another at
//! the sizes both were recorded at.

use crate::roofline::rows::{Row, case_text};
use puzzle_core::backend_contract::timing::format_ms;
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::math::Math;
use runner::perf::roofline::Roof;
use runner::perf::{Checked, Speedup, Target};

/// What one GPU says of a target: the share it achieved (of which roof,
/// and whether its output was wrong), or why it has none.
#[derive(Debug, Clone, PartialEq)]
pub enum Judged {
    Achieved {
        percent: f64,
        wrong: bool,
        /// The roof the share is of, where it can differ between GPUs
        /// ("copy memory"); empty where the target names it (a library).
        roof: String,
    },
    /// Not run on this GPU since the kernel changed on this day.
    Awaiting(String),
    /// No figure, and why, as a phrase that ends before the GPU is named:
    /// "no current recording".
    Missing(String),
    /// Not judged on this GPU, for this reason (the library and the kernel
    /// were not timed on the same inputs).
    Refused(String),
}

/// What one GPU's figure makes of a target (none where it has no figure).
fn met(target: &Target, judged: &Judged) -> Option<bool> {
    match judged {
        Judged::Achieved { percent, wrong, .. } => Some(*percent >= target.percent && !wrong),
        _ => None,
    }
}

/// A target against a recorded GPU's rows: the share of the roof that
/// binds its headline row, or why there is none.
pub fn judge_target(target: &Target, rows: &[Row], math: Math) -> Judged {
    let row = rows.iter().find(|r| r.id == target.puzzle && r.headline);
    let placed = row.and_then(|r| r.placement.as_ref().ok());
    match placed.and_then(|p| p.binding.as_ref()) {
        Some(b) => Judged::Achieved {
            percent: b.percent,
            wrong: row.is_some_and(wrong),
            roof: match (b.roof, b.traffic) {
                (Roof::Memory, Some(t)) => format!("{} memory", t.label()),
                (Roof::Memory, None) => "memory".to_string(),
                (Roof::Compute, _) => format!("compute ({})", math.label()),
            },
        },
        None => match row.and_then(awaiting) {
            Some(changed) => Judged::Awaiting(changed.to_string()),
            None => Judged::Missing("no current recording".into()),
        },
    }
}

/// The day the kernel changed, when `row` has no figure because its GPU has
/// not run the new version.
pub fn awaiting(row: &Row) -> Option<&str> {
    row.placement.as_ref().err().and_then(|why| why.awaiting())
}

/// Whether a row's benchmark output failed its check.
pub fn wrong(row: &Row) -> bool {
    row.bench
        .as_ref()
        .is_some_and(|b| matches!(b.checked, Checked::Failed(_)))
}

/// "Target: `x` at ≥ 90 % of the measured copy memory roof: 93.1 % on the
/// H200 (1.03× the target), 85.0 % on the H100 (0.94×): met on the H200,
/// missed on the H100.", one line for every GPU of `judged` (its name and
/// what it says, in the table's order). `of` names what the percentage is
/// of ("the measured roof", a library); the roof the GPUs' shares are of
/// joins it where they agree. Its class: `met` where every GPU met it,
/// `missed` where one missed or has no figure, `puzzle-awaiting` where one
/// awaits a run of the changed kernel.
pub fn joint_verdict(target: &Target, of: &str, judged: &[(&str, Judged)]) -> String {
    let roofs: Vec<&str> = judged
        .iter()
        .filter_map(|(_, j)| match j {
            Judged::Achieved { roof, .. } => Some(roof.as_str()),
            _ => None,
        })
        .collect();
    let shared = roofs.windows(2).all(|w| w[0] == w[1]);
    let of = match roofs.first() {
        Some(roof) if shared && !roof.is_empty() => format!("the measured {roof} roof"),
        _ => of.to_string(),
    };
    let mut first = true;
    let parts: Vec<String> = judged
        .iter()
        .map(|(gpu, j)| match j {
            Judged::Achieved {
                percent,
                wrong,
                roof,
            } => {
                let of_roof = match shared || roof.is_empty() {
                    true => String::new(),
                    false => format!(" of its {roof} roof"),
                };
                let times = percent / target.percent;
                let times = match std::mem::take(&mut first) {
                    true => format!("{times:.2}× the target"),
                    false => format!("{times:.2}×"),
                };
                let wrong = if *wrong { ", its output wrong" } else { "" };
                format!("{percent:.1} %{of_roof} on the {gpu} ({times}{wrong})")
            }
            Judged::Awaiting(changed) => {
                format!("not run on the {gpu} since the kernel changed on {changed}")
            }
            Judged::Missing(why) => format!("{why} on the {gpu}"),
            Judged::Refused(why) => format!("not judged on the {gpu}, for {why}"),
        })
        .collect();
    let said: Vec<(&str, bool)> = judged
        .iter()
        .filter_map(|(gpu, j)| Some((*gpu, met(target, j)?)))
        .collect();
    let outcome = |want: bool| -> Option<String> {
        let gpus: Vec<String> = said
            .iter()
            .filter(|s| s.1 == want)
            .map(|s| format!("the {}", s.0))
            .collect();
        let word = if want { "met" } else { "missed" };
        match gpus.len() {
            0 => None,
            _ if judged.len() == 1 => Some(word.to_string()),
            2 if judged.len() == 2 => Some(format!("{word} on both")),
            n if n == judged.len() => Some(format!("{word} on all {n}")),
            _ => Some(format!("{word} on {}", and(&gpus))),
        }
    };
    let summary: Vec<String> = [outcome(true), outcome(false)]
        .into_iter()
        .flatten()
        .collect();
    let summary = match summary.is_empty() {
        true => String::new(),
        false => format!(": <strong>{}</strong>", summary.join(", ")),
    };
    let mut class = Vec::new();
    if !said.is_empty() && said.iter().all(|s| s.1) && said.len() == judged.len() {
        class.push("met");
    }
    let no_figure = |j: &Judged| matches!(j, Judged::Missing(_) | Judged::Refused(_));
    if said.iter().any(|s| !s.1) || judged.iter().any(|(_, j)| no_figure(j)) {
        class.push("missed");
    }
    if judged.iter().any(|(_, j)| matches!(j, Judged::Awaiting(_))) {
        class.push("puzzle-awaiting");
    }
    format!(
        "<p class=\"puzzle-target {}\">Target: <code>{}</code> at ≥ {} % of {of}: {}{summary}.</p>",
        class.join(" "),
        target.puzzle,
        target.percent,
        parts.join(", ")
    )
}

/// "the H200", "the H200 and the H100", "a, b and c".
pub fn and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether two rows solved the same problem: two benchmarks whose buffers
/// (scratch aside) have the same shapes, whatever their tile constants
/// (BK = 32 in one kernel and 64 in another does not keep them apart, while
/// 8,192 × 4,096 and 32,768 × 1,024 elements are different problems).
/// Teaching rows match teaching rows.
fn same_sizes(a: &Row, b: &Row) -> bool {
    match (&a.case, &b.case) {
        (Some(_), Some(_)) => a.shapes == b.shapes,
        (None, None) => true,
        _ => false,
    }
}

/// One GPU's ratios of a speed-up, each with the sizes it was taken at
/// (" at SIZE=2^26", empty at the teaching size) and its figures ("1.83×
/// on the H200 (x against y)"), a part for each size both kernels were
/// recorded at.
fn ratios(speedup: &Speedup, gpu: &str, rows: &[Row]) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let cases: Vec<&Constants> = rows
        .iter()
        .filter(|r| r.id == speedup.of)
        .filter_map(|r| r.case.as_ref())
        .collect();
    for fast in rows.iter().filter(|r| r.id == speedup.of) {
        let slow = rows
            .iter()
            .find(|r| r.id == speedup.over && same_sizes(r, fast));
        let (Some(slow), Ok(f)) = (slow, &fast.placement) else {
            continue;
        };
        let Ok(s) = &slow.placement else { continue };
        let at = match &fast.case {
            Some(case) => telling(case, &cases),
            None => String::new(),
        };
        parts.push((
            at,
            format!(
                "{:.2}× on the {gpu} ({} against {})",
                s.median_ms / f.median_ms,
                format_ms(f.median_ms),
                format_ms(s.median_ms)
            ),
        ));
    }
    parts
}

/// The constants that tell `case` from the kernel's other `cases`
/// ("SIZE=2^13" where its tiles are the same at every size): the table
/// gives the rest. All of them where nothing tells it apart.
fn telling(case: &Constants, cases: &[&Constants]) -> String {
    let differ = |key: &String| cases.iter().any(|c| c.get(key) != case.get(key));
    let told: Constants = case
        .iter()
        .filter(|(key, _)| differ(key))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    case_text(if told.is_empty() { case } else { &told })
}

/// "Speed-up of `a` over `b` (the ratio of their median times): at
/// SIZE=2^26, 1.83× on the H200 (…) and 1.75× on the H100 (…)", from each
/// GPU's rows (its name and its rows, in the table's order): each size
/// said once, with every GPU's ratio there.
pub fn speedup_line(speedup: &Speedup, gpus: &[(&str, &[Row])]) -> String {
    let mut sizes: Vec<(String, Vec<String>)> = Vec::new();
    let mut without = Vec::new();
    for &(gpu, rows) in gpus {
        let parts = ratios(speedup, gpu, rows);
        if parts.is_empty() {
            without.push(format!("the {gpu}"));
        }
        for (at, part) in parts {
            match sizes.iter_mut().find(|(a, _)| *a == at) {
                Some((_, each)) => each.push(part),
                None => sizes.push((at, vec![part])),
            }
        }
    }
    if sizes.is_empty() {
        let on = match gpus {
            [(gpu, _)] => format!("the {gpu}"),
            _ => "any GPU".to_string(),
        };
        return format!(
            "<p class=\"puzzle-speedup\"><code>{}</code> against <code>{}</code>: no sizes recorded for both on {on}.</p>",
            speedup.of, speedup.over
        );
    }
    // A size's constants part by commas, so the sizes part by semicolons.
    let mut said: Vec<String> = sizes
        .iter()
        .map(|(at, each)| match at.is_empty() {
            true => and(each),
            false => format!("at {at}, {}", and(each)),
        })
        .collect();
    if !without.is_empty() {
        said.push(format!("no sizes recorded for both on {}", and(&without)));
    }
    format!(
        "<p class=\"puzzle-speedup\">Speed-up of <code>{}</code> over <code>{}</code> (the ratio of their median times): {}.</p>",
        speedup.of,
        speedup.over,
        said.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner::perf::roofline::Placement;

    fn row(case: Option<&[(&str, i64)]>, shapes: &[&[usize]]) -> Row {
        Row {
            id: "p".into(),
            sizes: None,
            case: case.map(|c| c.iter().map(|(k, v)| (k.to_string(), *v)).collect()),
            headline: false,
            flops: None,
            bytes: 0,
            shapes: shapes.iter().map(|s| s.to_vec()).collect(),
            placement: Err(crate::roofline::rows::Unplaced::NoRecording),
            bench: None,
            recorded_on: None,
        }
    }

    #[test]
    fn rows_pair_on_the_shapes_of_their_buffers() {
        let size = |n| vec![("SIZE", n)];
        let tiled = |n, bk| vec![("SIZE", n), ("BK", bk), ("BM", 128)];
        let square = |n: usize| vec![vec![n, n]; 3];
        // (one case and its shapes, the other, whether they are the same problem)
        type Case<'a> = (Option<Vec<(&'a str, i64)>>, Vec<Vec<usize>>);
        let cases: [(Case, Case, bool); 7] = [
            ((None, square(4)), (None, square(8)), true),
            (
                (Some(size(4096)), square(4096)),
                (None, square(4096)),
                false,
            ),
            (
                (Some(size(4096)), square(4096)),
                (Some(size(4096)), square(4096)),
                true,
            ),
            (
                (Some(size(4096)), square(4096)),
                (Some(size(2048)), square(2048)),
                false,
            ),
            (
                (Some(size(4096)), square(4096)),
                (Some(tiled(4096, 8)), square(4096)),
                true,
            ),
            // Tile constants that differ do not keep the same problem apart.
            (
                (Some(tiled(4096, 16)), square(4096)),
                (Some(tiled(4096, 8)), square(4096)),
                true,
            ),
            // As many elements, in another shape: another problem.
            (
                (
                    Some(vec![("ROWS", 8192), ("COLS", 4096)]),
                    vec![vec![8192, 4096]; 2],
                ),
                (
                    Some(vec![("ROWS", 32768), ("COLS", 1024)]),
                    vec![vec![32768, 1024]; 2],
                ),
                false,
            ),
        ];
        for ((a, sa), (b, sb), want) in cases {
            let sa: Vec<&[usize]> = sa.iter().map(Vec::as_slice).collect();
            let sb: Vec<&[usize]> = sb.iter().map(Vec::as_slice).collect();
            let (a, b) = (row(a.as_deref(), &sa), row(b.as_deref(), &sb));
            assert_eq!(same_sizes(&a, &b), want, "{:?} {:?}", a.case, b.case);
            assert_eq!(same_sizes(&b, &a), want, "{:?} {:?}", b.case, a.case);
        }
    }

    /// A target said once for every GPU: each GPU's figure (or why it has
    /// none) in the table's order, the outcome by GPU, and the class the
    /// page colours it by.
    #[test]
    fn one_line_for_every_gpu_table() {
        let target = Target {
            puzzle: "k".into(),
            percent: 80.0,
        };
        let achieved = |percent, roof: &str| Judged::Achieved {
            percent,
            wrong: false,
            roof: roof.into(),
        };
        let copy = "copy memory";
        type Case<'a> = (&'a str, Vec<(&'a str, Judged)>, &'a str);
        let cases: [Case; 7] = [
            (
                "one GPU, met",
                vec![("H200", achieved(85.0, copy))],
                "<p class=\"puzzle-target met\">Target: <code>k</code> at ≥ 80 % of the measured \
                 copy memory roof: 85.0 % on the H200 (1.06× the target): <strong>met</strong>.</p>",
            ),
            (
                "two GPUs, both met",
                vec![
                    ("H200", achieved(85.0, copy)),
                    ("H100", achieved(81.0, copy)),
                ],
                "<p class=\"puzzle-target met\">Target: <code>k</code> at ≥ 80 % of the measured \
                 copy memory roof: 85.0 % on the H200 (1.06× the target), 81.0 % on the H100 \
                 (1.01×): <strong>met on both</strong>.</p>",
            ),
            (
                "met on one, missed on the other",
                vec![
                    ("H200", achieved(85.0, copy)),
                    ("H100", achieved(78.0, copy)),
                ],
                "<p class=\"puzzle-target missed\">Target: <code>k</code> at ≥ 80 % of the \
                 measured copy memory roof: 85.0 % on the H200 (1.06× the target), 78.0 % on the \
                 H100 (0.97×): <strong>met on the H200, missed on the H100</strong>.</p>",
            ),
            (
                "a wrong output misses whatever its time",
                vec![(
                    "H200",
                    Judged::Achieved {
                        percent: 90.0,
                        wrong: true,
                        roof: copy.into(),
                    },
                )],
                "<p class=\"puzzle-target missed\">Target: <code>k</code> at ≥ 80 % of the \
                 measured copy memory roof: 90.0 % on the H200 (1.12× the target, its output \
                 wrong): <strong>missed</strong>.</p>",
            ),
            (
                "different roofs are named by GPU",
                vec![
                    ("H200", achieved(85.0, copy)),
                    ("H100", achieved(82.0, "compute (FP32)")),
                ],
                "<p class=\"puzzle-target met\">Target: <code>k</code> at ≥ 80 % of the measured \
                 roof: 85.0 % of its copy memory roof on the H200 (1.06× the target), 82.0 % of its \
                 compute (FP32) roof on the H100 (1.02×): <strong>met on both</strong>.</p>",
            ),
            (
                "one awaiting the changed kernel",
                vec![
                    ("H200", achieved(85.0, copy)),
                    ("H100", Judged::Awaiting("2026-12-03".into())),
                ],
                "<p class=\"puzzle-target puzzle-awaiting\">Target: <code>k</code> at ≥ 80 % of \
                 the measured copy memory roof: 85.0 % on the H200 (1.06× the target), not run on \
                 the H100 since the kernel changed on 2026-12-03: <strong>met on the H200</strong>.</p>",
            ),
            (
                "none recorded",
                vec![
                    ("H200", Judged::Missing("no current recording".into())),
                    ("H100", Judged::Refused("other inputs".into())),
                ],
                "<p class=\"puzzle-target missed\">Target: <code>k</code> at ≥ 80 % of the \
                 measured roof: no current recording on the H200, not judged on the H100, for \
                 other inputs.</p>",
            ),
        ];
        for (name, judged, want) in cases {
            assert_eq!(
                joint_verdict(&target, "the measured roof", &judged),
                want,
                "{name}"
            );
        }
    }

    /// A speed-up said once: each size once, with every GPU's ratio there,
    /// and the GPUs without both kernels named.
    #[test]
    fn speedups_by_size_table() {
        let placed = |ms: f64| Placement {
            median_ms: ms,
            flops: None,
            min_bytes: 0,
            achieved_gb_s: 0.0,
            achieved_gflop_s: None,
            binding: None,
            launch_bound: None,
            elements: 0,
        };
        let at = |id: &str, size: i64, ms: Option<f64>| Row {
            id: id.into(),
            sizes: Some(format!("SIZE={size}")),
            case: Some([("SIZE".to_string(), size)].into()),
            headline: false,
            flops: None,
            bytes: 0,
            shapes: vec![vec![size as usize]],
            placement: ms
                .map(placed)
                .ok_or(crate::roofline::rows::Unplaced::NotBenchmarked),
            bench: None,
            recorded_on: None,
        };
        let speedup = Speedup {
            of: "fast".into(),
            over: "slow".into(),
        };
        let h200 = [
            at("slow", 4, Some(2.0)),
            at("fast", 4, Some(1.0)),
            at("slow", 8, Some(4.0)),
            at("fast", 8, Some(1.0)),
        ];
        let h100 = [
            at("slow", 4, Some(3.0)),
            at("fast", 4, Some(2.0)),
            at("slow", 8, None),
            at("fast", 8, None),
        ];
        let none = [at("slow", 4, None), at("fast", 4, Some(1.0))];
        let cases: [(&str, Vec<(&str, &[Row])>, &str); 3] = [
            (
                "two GPUs, one without the second size",
                vec![("H200", &h200), ("H100", &h100)],
                "(the ratio of their median times): at SIZE=4, 2.00× on the H200 (1.000 ms \
                 against 2.000 ms) and 1.50× on the H100 (2.000 ms against 3.000 ms); at SIZE=8, \
                 4.00× on the H200 (1.000 ms against 4.000 ms).</p>",
            ),
            (
                "a GPU without both kernels",
                vec![("H200", &h200[..2]), ("H100", &none)],
                "at SIZE=4, 2.00× on the H200 (1.000 ms against 2.000 ms); no sizes recorded for \
                 both on the H100.</p>",
            ),
            (
                "nothing on any GPU",
                vec![("H200", &none), ("H100", &none)],
                "<code>fast</code> against <code>slow</code>: no sizes recorded for both on any GPU.</p>",
            ),
        ];
        for (name, gpus, want) in cases {
            let line = speedup_line(&speedup, &gpus);
            assert!(line.ends_with(want), "{name}: {line}");
        }
    }

    /// A speed-up names a size by what tells it from the kernel's other
    /// sizes; a kernel of one size, by all its constants.
    #[test]
    fn sizes_are_told_apart_by_what_differs_table() {
        let case = |pairs: &[(&str, i64)]| -> Constants {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let small = case(&[("BK", 64), ("SIZE", 4096), ("STAGES", 4)]);
        let large = case(&[("BK", 64), ("SIZE", 8192), ("STAGES", 4)]);
        let other = case(&[("BK", 32), ("SIZE", 8192), ("STAGES", 4)]);
        for (of, cases, told) in [
            (&small, vec![&small, &large], "SIZE=2^12"),
            (&large, vec![&small, &large], "SIZE=2^13"),
            (&large, vec![&small, &large, &other], "BK=64, SIZE=2^13"),
            (&small, vec![&small], "BK=64, SIZE=2^12, STAGES=4"),
        ] {
            assert_eq!(telling(of, &cases), told, "{of:?} among {cases:?}");
        }
    }
}
