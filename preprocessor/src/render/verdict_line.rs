//! A run's verdict line, as a reader would say it: where it ran, then the
//! word ("Checked on the CPU: PASS", "On NVIDIA H200: PASS · kernel time
//! …"), with the device's provenance (its name, toolkit and driver, in one
//! short form) as the words' `title`, and the access counts under it.

use puzzle_core::backend_contract::backend::{BackendKind, DeviceInfo};
use puzzle_core::judge::format::escape_html as escape;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::judge::verify::BufferCheck;
use puzzle_core::kernel::cut::Variant;
use std::fmt::Write;

/// A run's verdict line (mark, place, word, time) and its access counts.
pub(super) fn verdict(report: &RunReport) -> String {
    let mut md = String::new();
    let (mark, after) = match (report.status, report.variant) {
        (Status::Pass, _) => ("✔", ""),
        (Status::Fail, Variant::Skeleton) => ("✘", ", as expected before you solve it"),
        // What stopped an error's run is said under the line.
        (Status::Fail | Status::CompileError | Status::Error, _) => ("✘", ""),
        // Compiled but not run proves nothing about the output: the CLI's
        // neutral mark, not a pass.
        (Status::Compiled | Status::Unavailable, _) => ("–", ", not run"),
    };
    let place = capitalized(&place_words(report));
    let provenance = report.device.as_ref().map(provenance).unwrap_or_default();
    let _ = write!(
        md,
        "<p class=\"puzzle-verdict puzzle-{}\"><span class=\"puzzle-mark\">{mark}</span> <span class=\"puzzle-device\" title=\"{}\">{}</span>: <strong>{}</strong>{after}",
        status_class(report.status),
        escape(&provenance),
        escape(&place),
        report.status.word(),
    );
    if let Some(timing) = &report.timing {
        // lavapipe and the CPU checker time a CPU: said, so that no reader
        // takes the figure for a GPU's.
        let on_cpu = report.device.as_ref().is_some_and(|d| d.kind == "CPU");
        let whose = if on_cpu { " (a CPU's time)" } else { "" };
        let _ = write!(md, " · kernel time {}{whose}", escape(&timing.describe()));
    }
    let rounded: usize = report
        .checks
        .iter()
        .filter(|c| c.judged)
        .map(BufferCheck::within_tolerance_count)
        .sum();
    if rounded > 0 && report.status == Status::Pass {
        let _ = write!(
            md,
            " · {} from the expected value in the last digits, within the tolerance",
            if rounded == 1 {
                "1 element differs".to_string()
            } else {
                format!("{rounded} elements differ")
            }
        );
    }
    // Why it was not run (or what failed around it) reads as a sentence, not as output.
    // The engine's words are a terminal's ("on this machine"); a reader of
    // the page is on another, so the page says "here", where it ran.
    if let Some(message) = &report.message {
        let message = message.replace("on this machine", "here");
        let _ = write!(md, "<br><em>{}</em>", escape(&message));
    }
    let _ = writeln!(md, "</p>\n");
    // Counts are shown where the puzzle bounds them, and not for a skeleton,
    // which does next to nothing yet: elsewhere they are noise.
    let shown = report.access.as_ref().filter(|a| a.bound.is_some());
    if let Some(access) = shown.filter(|_| report.variant != Variant::Skeleton) {
        let _ = writeln!(
            md,
            "<p class=\"puzzle-access\">{}</p>\n",
            escape(&access.describe())
        );
    }
    md
}

/// Where a run ran, in the words a reader would use ("checked on the CPU",
/// "on NVIDIA H200", "on NVIDIA H200, through Vulkan").
fn place_words(report: &RunReport) -> String {
    let Some(device) = &report.device else {
        // Not run: where it would have run.
        return match report.backend {
            BackendKind::Cuda => "on an NVIDIA GPU",
            BackendKind::Wgpu => "on a GPU, through wgpu",
            BackendKind::Sim | BackendKind::PtxSim => "on the CPU checker",
        }
        .to_string();
    };
    let through = |words: String| match device.backend {
        BackendKind::Wgpu if !device.api.is_empty() => format!("{words}, through {}", device.api),
        _ => words,
    };
    if device.backend.is_simulator() {
        "checked on the CPU".to_string()
    } else if device.kind == "CPU" {
        through("on the CPU".to_string())
    } else if device.kind == "GPU" {
        through(format!("on {}", device.name))
    } else {
        // Compiled, not run: the target and the compiler.
        format!("for {}, by {}", device.name, device.api)
    }
}

/// The device's provenance, for the pointer: its name, then each setting,
/// toolkit and driver once ("NVIDIA H200, CUDA 13.0, sm_90, NVIDIA driver
/// 580.159.04, NVRTC 13.0"). Not the engine's own words: no backend name,
/// no version of the checker (its `driver`), no default interleaving.
fn provenance(device: &DeviceInfo) -> String {
    let driver = if device.backend.is_simulator() {
        ""
    } else {
        device.driver.trim()
    };
    // A driver that does not say it is one ("NVIDIA 580.159.04") is named so.
    let driver = if driver.is_empty() || driver.contains("driver") {
        driver.to_string()
    } else {
        format!("driver {driver}")
    };
    let mut parts: Vec<&str> = vec![device.name.trim()];
    for part in device.api.split(", ").chain(driver.split(", ")) {
        let part = part.trim();
        if !part.is_empty() && part != "interleaving 0" && !parts.contains(&part) {
            parts.push(part);
        }
    }
    parts.join(", ")
}

/// `words` with a capital first letter, to open a sentence.
fn capitalized(words: &str) -> String {
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::CompileError => "compile-error",
        Status::Compiled => "compiled",
        Status::Unavailable => "unavailable",
        Status::Error => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(backend: BackendKind, name: &str, kind: &str, api: &str, driver: &str) -> DeviceInfo {
        DeviceInfo {
            backend,
            name: name.into(),
            kind: kind.into(),
            api: api.into(),
            driver: driver.into(),
        }
    }

    /// (device, the place a reader reads, the provenance under the pointer),
    /// with the engine's labels as they are written into results.
    #[test]
    fn place_and_provenance_table() {
        use BackendKind::*;
        let cases = [
            (
                device(
                    PtxSim,
                    "CPU checker (PTX from NVRTC 12.9)",
                    "CPU",
                    "PTX for compute_90a, interleaving 0",
                    "0.1.0",
                ),
                "checked on the CPU",
                "CPU checker (PTX from NVRTC 12.9), PTX for compute_90a",
            ),
            (
                device(
                    Sim,
                    "CPU checker (naga IR interpreter with race, bounds and barrier checks)",
                    "CPU",
                    "naga, interleaving 3, subgroups of 8",
                    "0.1.0",
                ),
                "checked on the CPU",
                "CPU checker (naga IR interpreter with race, bounds and barrier checks), \
                 naga, interleaving 3, subgroups of 8",
            ),
            (
                device(
                    Cuda,
                    "NVIDIA H200",
                    "GPU",
                    "CUDA 13.0, sm_90",
                    "NVIDIA driver 580.159.04, CUDA 13.0, NVRTC 13.0",
                ),
                "on NVIDIA H200",
                "NVIDIA H200, CUDA 13.0, sm_90, NVIDIA driver 580.159.04, NVRTC 13.0",
            ),
            (
                device(Wgpu, "NVIDIA H200", "GPU", "Vulkan", "NVIDIA 580.159.04"),
                "on NVIDIA H200, through Vulkan",
                "NVIDIA H200, Vulkan, driver NVIDIA 580.159.04",
            ),
            (
                device(
                    Wgpu,
                    "llvmpipe (LLVM 15.0.6, 256 bits)",
                    "CPU",
                    "Vulkan",
                    " ",
                ),
                "on the CPU, through Vulkan",
                "llvmpipe (LLVM 15.0.6, 256 bits), Vulkan",
            ),
            (
                device(Cuda, "sm_90", "compile only", "NVRTC 12.9", ""),
                "for sm_90, by NVRTC 12.9",
                "sm_90, NVRTC 12.9",
            ),
        ];
        for (device, place, shown) in cases {
            let mut report = super::super::tests::report(1);
            report.backend = device.backend;
            report.device = Some(device.clone());
            assert_eq!(place_words(&report), place, "{device:?}");
            assert_eq!(provenance(&device), shown, "{device:?}");
        }
    }

    /// (status, variant, device, what the line must say, what it must not):
    /// the place first, then the word, and none of the engine's labels.
    #[test]
    fn verdict_line_table() {
        use Status::*;
        let checker = device(
            BackendKind::Sim,
            "CPU checker (naga IR interpreter with race, bounds and barrier checks)",
            "CPU",
            "naga, interleaving 0, subgroups of 8",
            "0.1.0",
        );
        let h200 = device(
            BackendKind::Wgpu,
            "NVIDIA H200",
            "GPU",
            "Vulkan",
            "NVIDIA 580.159.04",
        );
        let compiler = device(BackendKind::Cuda, "sm_90", "compile only", "NVRTC 12.9", "");
        let cases: [(Status, Variant, Option<&DeviceInfo>, &str, &[&str]); 7] = [
            (
                Pass,
                Variant::Solution,
                Some(&checker),
                ">Checked on the CPU</span>: <strong>PASS</strong></p>",
                &["sim · ", "interleaving 0", "0.1.0", "passes"],
            ),
            (
                Fail,
                Variant::Skeleton,
                Some(&checker),
                ">Checked on the CPU</span>: <strong>FAIL</strong>, as expected before you solve it</p>",
                &["fails"],
            ),
            (
                Fail,
                Variant::Solution,
                Some(&h200),
                "<span class=\"puzzle-mark\">✘</span> <span class=\"puzzle-device\" \
                 title=\"NVIDIA H200, Vulkan, driver NVIDIA 580.159.04\">On NVIDIA H200, \
                 through Vulkan</span>: <strong>FAIL</strong></p>",
                &["wgpu · ", "expected"],
            ),
            (
                CompileError,
                Variant::Solution,
                Some(&h200),
                ": <strong>COMPILE ERROR</strong></p>",
                &["does not compile"],
            ),
            (
                Compiled,
                Variant::Solution,
                Some(&compiler),
                ">For sm_90, by NVRTC 12.9</span>: <strong>COMPILED</strong>, not run</p>",
                &["compiles"],
            ),
            (
                Unavailable,
                Variant::Solution,
                None,
                "title=\"\">On a GPU, through wgpu</span>: <strong>UNAVAILABLE</strong>, not run</p>",
                &[],
            ),
            (
                Error,
                Variant::Solution,
                Some(&h200),
                ": <strong>ERROR</strong></p>",
                &["could not run"],
            ),
        ];
        for (status, variant, device, present, absent) in cases {
            let mut report = super::super::tests::report(1);
            report.backend = device.map_or(BackendKind::Wgpu, |d| d.backend);
            report.device = device.cloned();
            report.status = status;
            report.variant = variant;
            let line = verdict(&report);
            assert!(
                line.contains(present),
                "{status:?}: lacks {present:?}:\n{line}"
            );
            for a in absent {
                assert!(!line.contains(a), "{status:?}: has {a:?}:\n{line}");
            }
        }
    }
}
