//! The result of checking one kernel: what every front end (CLI, tests,
//! preprocessor, JSON) shows, built once from a backend's outcome.

use crate::backend::{BackendError, BackendKind, DeviceInfo, Outcome};
use crate::diag::Located;
use crate::kernel::{Lang, Variant};
use crate::spec::Spec;
use crate::timing::Timing;
use crate::verify::{self, BufferCheck};
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
}

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
            }
            Err(error) => {
                report.status = match error {
                    BackendError::Unavailable { .. } => Status::Unavailable,
                    _ => Status::Error,
                };
                report.message = Some(error.to_string());
                report.error = Some(error);
            }
        }
        report
    }

    pub fn passed(&self) -> bool {
        self.status == Status::Pass
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
        let mut text = String::new();
        for check in self.checks.iter().filter(|c| c.judged) {
            let label = format!("{}:", check.name);
            let width = label.len().max("expected:".len());
            let _ = writeln!(
                text,
                "{label:width$} {}",
                verify::format_values_short(&check.got)
            );
            let expected: Vec<Option<f64>> = check.expected.iter().copied().map(Some).collect();
            let _ = writeln!(
                text,
                "{:width$} {}",
                "expected:",
                verify::format_values_short(&expected)
            );
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
        text
    }
}
