//! Where a learner's kernel stands (`runner bench --file`): beside the
//! book's solution timed in the same run, and against each target the
//! pages set for it — a share of the GPU's measured roof, or of a
//! library's speed recorded on the same GPU model.

use crate::perf::baseline::{Baseline, comparable};
use crate::perf::bench::{BenchReport, Checked};
use crate::perf::roofline::Roof;
use crate::perf::targets::{Goal, PageTarget};
use puzzle_core::backend_contract::timing::format_ms;
use serde::Serialize;

/// The learner's kernel against the solution and the pages' targets.
#[derive(Debug, Clone, Serialize)]
pub struct Standing {
    pub yours_ms: f64,
    pub solution_ms: f64,
    /// The learner's speed as a share of the solution's, in percent.
    pub percent_of_solution: f64,
    pub targets: Vec<Verdict>,
}

/// One target and how the learner's kernel fares against it.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub target: PageTarget,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Measured: `percent` of `against` (a roof or a library, in words).
    Reached {
        percent: f64,
        met: bool,
        against: String,
    },
    /// Not judged here, and why.
    Unknown(String),
}

impl Standing {
    pub fn new(
        yours: &BenchReport,
        solution: &BenchReport,
        targets: &[PageTarget],
        baselines: &[Baseline],
    ) -> Standing {
        let yours_ms = yours.timing.median_ms;
        let solution_ms = solution.timing.median_ms;
        let wrong = matches!(yours.checked, Checked::Failed(_));
        let targets = targets
            .iter()
            .map(|target| Verdict {
                target: target.clone(),
                outcome: outcome(target, yours, baselines, wrong),
            })
            .collect();
        Standing {
            yours_ms,
            solution_ms,
            percent_of_solution: 100.0 * solution_ms / yours_ms.max(f64::MIN_POSITIVE),
            targets,
        }
    }

    /// The lines `runner bench --file` prints after the kernel's own figures.
    pub fn to_text(&self) -> String {
        let mut lines = vec![
            "where it stands:".to_string(),
            format!(
                "  the book's solution, timed in the same run: {} median; yours runs at {:.1} % of its speed",
                format_ms(self.solution_ms),
                self.percent_of_solution
            ),
        ];
        if self.targets.is_empty() {
            lines.push("  the book sets no target for this kernel at its bench size".into());
        }
        for v in &self.targets {
            let goal = match &v.target.of {
                Goal::Roof => "of the binding roof".to_string(),
                Goal::Library { name } => format!("of the library (`{name}`)"),
            };
            let head = format!(
                "  target (src/{}): ≥ {} % {goal}",
                v.target.page.display(),
                v.target.percent
            );
            lines.push(match &v.outcome {
                Outcome::Reached {
                    percent,
                    met,
                    against,
                } => format!(
                    "{head}: yours {percent:.1} % of {against}: {}",
                    if *met { "MET" } else { "missed" }
                ),
                Outcome::Unknown(why) => format!("{head}: not judged ({why})"),
            });
        }
        lines.join("\n") + "\n"
    }
}

fn outcome(
    target: &PageTarget,
    yours: &BenchReport,
    baselines: &[Baseline],
    wrong: bool,
) -> Outcome {
    let met = |percent: f64| percent >= target.percent && !wrong;
    let device = &yours.device.name;
    match &target.of {
        Goal::Roof => match &yours.placement.binding {
            Some(binding) => Outcome::Reached {
                percent: binding.percent,
                met: met(binding.percent),
                against: format!(
                    "the measured {} roof",
                    match binding.roof {
                        Roof::Memory => "memory",
                        Roof::Compute => "compute",
                    }
                ),
            },
            None => Outcome::Unknown(format!(
                "the roofs of {device} are not measured: `runner calibrate --backend {} --save` measures them",
                yours.device.backend
            )),
        },
        Goal::Library { name } => {
            let timed = baselines
                .iter()
                .filter(|b| &b.device == device)
                .find_map(|b| {
                    let case = b
                        .cases
                        .iter()
                        .find(|c| &c.name == name && c.matches(&yours.constants))?;
                    Some((b, case))
                });
            match timed {
                Some((_, case)) if let Err(why) = comparable(case, yours.inputs.as_ref()) => {
                    Outcome::Unknown(format!("not compared with `{name}`: {why}"))
                }
                Some((baseline, case)) => {
                    let percent = 100.0 * case.timing.median_ms / yours.timing.median_ms;
                    Outcome::Reached {
                        percent,
                        met: met(percent),
                        against: format!(
                            "{} ({} median on this GPU model, recorded {})",
                            baseline.library,
                            format_ms(case.timing.median_ms),
                            baseline.date
                        ),
                    }
                }
                None => Outcome::Unknown(format!(
                    "no `{name}` time at these sizes is recorded for {device} in results/baselines/; \
                     the PyTorch scripts in .ci/gpu/baseline/ record one"
                )),
            }
        }
    }
    .with_wrong(wrong)
}

impl Outcome {
    /// A wrong output meets no target, whatever its speed.
    fn with_wrong(self, wrong: bool) -> Outcome {
        match self {
            Outcome::Reached {
                percent, against, ..
            } if wrong => Outcome::Reached {
                percent,
                met: false,
                against: format!("{against}; the output is WRONG"),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::baseline::BaselineCase;
    use crate::perf::inputs::BenchInputs;
    use crate::perf::roofline::{Binding, Placement};
    use puzzle_core::backend_contract::backend::{BackendKind, DeviceInfo};
    use puzzle_core::backend_contract::timing::{Clock, Timing};
    use puzzle_core::spec::expr::Constants;
    use std::path::PathBuf;

    const GPU: &str = "NVIDIA H100 80GB HBM3";

    fn timing(ms: f64) -> Timing {
        Timing {
            clock: Clock::Device,
            samples: 20,
            median_ms: ms,
            min_ms: ms,
            max_ms: ms,
            wall_median_ms: None,
        }
    }

    fn report(ms: f64, roof_percent: Option<f64>, checked: Checked) -> BenchReport {
        let constants: Constants = [("SIZE".to_string(), 4096)].into_iter().collect();
        BenchReport {
            puzzle: "p".into(),
            device: DeviceInfo {
                backend: BackendKind::Cuda,
                name: GPU.into(),
                kind: "GPU".into(),
                api: String::new(),
                driver: String::new(),
            },
            constants,
            timing: timing(ms),
            buffer_sets: 1,
            footprint_bytes: 0,
            placement: Placement {
                median_ms: ms,
                flops: None,
                min_bytes: 0,
                achieved_gb_s: 0.0,
                achieved_gflop_s: None,
                binding: roof_percent.map(|percent| Binding {
                    roof: Roof::Compute,
                    ceiling: 1.0,
                    percent,
                    traffic: None,
                }),
                launch_bound: None,
                elements: 0,
            },
            checked,
            inputs: Some(inputs("the kernel's")),
        }
    }

    fn inputs(digest: &str) -> BenchInputs {
        BenchInputs {
            distribution: "uniform".into(),
            digest: digest.into(),
        }
    }

    fn library(device: &str, size: i64, ms: f64) -> Baseline {
        library_on(device, size, ms, "the kernel's")
    }

    fn library_on(device: &str, size: i64, ms: f64, digest: &str) -> Baseline {
        Baseline {
            library: "cuBLAS".into(),
            software: String::new(),
            device: device.into(),
            date: "2026-11-20".into(),
            cases: vec![BaselineCase {
                name: "sgemm".into(),
                constants: [("SIZE".to_string(), size)].into_iter().collect(),
                flops: 1,
                bytes: None,
                timing: timing(ms),
                max_relative_error: 0.0,
                inputs: Some(inputs(digest)),
                inputs_of: None,
            }],
        }
    }

    fn target(percent: f64, of: Goal) -> PageTarget {
        PageTarget {
            page: PathBuf::from("performance/p19_sgemm.md"),
            percent,
            of,
        }
    }

    /// (case, your time, your roof %, your output, the target, the baselines,
    /// the outcome: Some((percent, met)) or None with words of the reason)
    #[test]
    fn verdicts_table() {
        let sgemm = || Goal::Library {
            name: "sgemm".into(),
        };
        let wrong = || Checked::Failed(vec!["out[3]".into()]);
        type Want = Result<(f64, bool), &'static str>;
        let cases: [(
            &str,
            f64,
            Option<f64>,
            Checked,
            PageTarget,
            Vec<Baseline>,
            Want,
        ); 8] = [
            (
                "library met",
                2.0,
                None,
                Checked::Passed,
                target(90.0, sgemm()),
                vec![library(GPU, 4096, 1.9)],
                Ok((95.0, true)),
            ),
            (
                "library missed",
                2.0,
                None,
                Checked::Passed,
                target(90.0, sgemm()),
                vec![library(GPU, 4096, 1.0)],
                Ok((50.0, false)),
            ),
            (
                "fast but wrong meets nothing",
                1.0,
                None,
                wrong(),
                target(90.0, sgemm()),
                vec![library(GPU, 4096, 1.0)],
                Ok((100.0, false)),
            ),
            (
                "another GPU's library time is not used",
                2.0,
                None,
                Checked::Passed,
                target(90.0, sgemm()),
                vec![library("NVIDIA H200", 4096, 1.9)],
                Err("no `sgemm` time at these sizes is recorded for NVIDIA H100"),
            ),
            (
                "another size's library time is not used",
                2.0,
                None,
                Checked::Passed,
                target(90.0, sgemm()),
                vec![library(GPU, 2048, 0.3)],
                Err("no `sgemm` time"),
            ),
            (
                "a library timed on other inputs is not compared",
                2.0,
                None,
                Checked::Passed,
                target(90.0, sgemm()),
                vec![library_on(GPU, 4096, 1.9, "other")],
                Err(
                    "not compared with `sgemm`: the library and the kernel were timed on different inputs",
                ),
            ),
            (
                "roof met",
                2.0,
                Some(85.0),
                Checked::Passed,
                target(80.0, Goal::Roof),
                vec![],
                Ok((85.0, true)),
            ),
            (
                "roofs not measured",
                2.0,
                None,
                Checked::Passed,
                target(80.0, Goal::Roof),
                vec![],
                Err("runner calibrate --backend cuda --save"),
            ),
        ];
        for (name, ms, roof, checked, target, baselines, want) in cases {
            let yours = report(ms, roof, checked);
            let solution = report(1.0, None, Checked::Passed);
            let standing = Standing::new(&yours, &solution, &[target], &baselines);
            assert!(
                (standing.percent_of_solution - 100.0 / ms).abs() < 1e-9,
                "{name}"
            );
            let outcome = &standing.targets[0].outcome;
            match (outcome, want) {
                (Outcome::Reached { percent, met, .. }, Ok((p, m))) => {
                    assert!((percent - p).abs() < 1e-9, "{name}: {percent}");
                    assert_eq!(*met, m, "{name}");
                }
                (Outcome::Unknown(why), Err(words)) => {
                    assert!(why.contains(words), "{name}: {why}")
                }
                (got, want) => panic!("{name}: {got:?}, not {want:?}"),
            }
            let text = standing.to_text();
            assert!(
                text.contains("target (src/performance/p19_sgemm.md)"),
                "{name}: {text}"
            );
        }
    }
}
