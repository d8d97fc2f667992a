//! A vendor library timed on the GPU machine, for the book's kernels to be
//! measured against: cuBLAS's SGEMM beside the book's SGEMM.
//!
//! `.ci/gpu/baseline/cublas.py` writes `results/baselines/<library>-<device>.json`
//! on the GPU machine, in the same session as `runner record`, with the same
//! kind of timer (device events around each call, median of N after warm-up)
//! and checks the library's output against an FP64 product. Each case names
//! the inputs it was timed on ([`BenchInputs`]); a kernel is compared with
//! it only where they are the kernel's own ([`comparable`]). A ```roofline
//! block's `baseline` key puts its rows beside the book's kernels. Nothing on
//! the page is typed in: without a file, the page says that none is recorded.

use crate::perf::inputs::BenchInputs;
use crate::perf::record::store::load_json_files;
use puzzle_core::backend_contract::timing::Timing;
use puzzle_core::spec::expr::Constants;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One library on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// How the pages name it, e.g. "cuBLAS (torch.mm, FP32, TF32 off)".
    pub library: String,
    /// Versions: "PyTorch 2.5.1, CUDA 12.4".
    pub software: String,
    /// The GPU's name as the CUDA driver gives it; recordings match on it.
    pub device: String,
    /// UTC date, YYYY-MM-DD.
    pub date: String,
    pub cases: Vec<BaselineCase>,
}

/// The library at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineCase {
    /// What a roofline block's `baseline` names, e.g. "sgemm".
    pub name: String,
    /// The spec constants this case corresponds to, e.g. SIZE = 4096.
    pub constants: Constants,
    /// Floating-point operations (a matrix product); 0 for a stream.
    #[serde(default)]
    pub flops: u64,
    /// Bytes moved, read plus written (a stream: PyTorch's copy, sum, fill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    pub timing: Timing,
    /// Largest |library − FP64| / max |FP64| over the checked outputs.
    pub max_relative_error: f64,
    /// What the library was timed on: a bench case's inputs as `runner
    /// inputs` wrote them. Absent in cases timed on data of their own,
    /// which no kernel is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<BenchInputs>,
    /// The puzzle whose bench case gave those inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs_of: Option<String>,
}

/// Why a kernel's time and a library's are not put side by side: a ratio is
/// a claim about the kernel only when both sides ran on the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotComparable {
    #[error("the library was timed on data of its own, not the kernel's inputs")]
    LibraryInputsUnknown,
    #[error("the kernel's benchmark does not say what it was timed on")]
    KernelInputsUnknown,
    #[error("the library and the kernel were timed on different inputs")]
    DifferentInputs,
}

/// Whether `case` and a kernel's benchmark `kernel` were timed on the same
/// inputs: the same digest of their bytes. The distribution's words only
/// describe them, and may be worded anew without changing a byte.
pub fn comparable(case: &BaselineCase, kernel: Option<&BenchInputs>) -> Result<(), NotComparable> {
    let library = case
        .inputs
        .as_ref()
        .ok_or(NotComparable::LibraryInputsUnknown)?;
    let kernel = kernel.ok_or(NotComparable::KernelInputsUnknown)?;
    if library.digest == kernel.digest {
        Ok(())
    } else {
        Err(NotComparable::DifferentInputs)
    }
}

impl BaselineCase {
    pub fn gflop_s(&self) -> f64 {
        self.flops as f64 / (self.timing.median_ms * 1e6)
    }

    /// GB/s of a stream, by the bytes it moved.
    pub fn gb_s(&self) -> Option<f64> {
        self.bytes.map(|b| b as f64 / (self.timing.median_ms * 1e6))
    }

    /// Whether a benchmark case with `constants` ran at this case's size:
    /// every constant the baseline names has the same value there.
    pub fn matches(&self, constants: &Constants) -> bool {
        self.constants
            .iter()
            .all(|(name, value)| constants.get(name) == Some(value))
    }
}

/// Where baselines live under a book's root.
pub fn dir(root: &Path) -> PathBuf {
    root.join("results").join("baselines")
}

/// Every baseline under `dir`; a file that does not parse is reported, not fatal.
pub fn load_all(dir: &Path) -> (Vec<Baseline>, Vec<String>) {
    load_json_files(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What cublas.py writes, field for field.
    const FILE: &str = r#"{
      "library": "cuBLAS (torch.mm, FP32, TF32 off)",
      "software": "PyTorch 2.5.1, CUDA 12.4",
      "device": "NVIDIA H100 80GB HBM3",
      "date": "2026-11-22",
      "cases": [{
        "name": "sgemm",
        "constants": {"SIZE": 4096},
        "flops": 137438953472,
        "timing": {"clock": "device", "samples": 20, "median_ms": 2.5, "min_ms": 2.4, "max_ms": 2.7},
        "max_relative_error": 1.2e-7
      }]
    }"#;

    /// (library's inputs, kernel's inputs, the verdict): a ratio is shown
    /// only for the same bytes on both sides.
    #[test]
    fn only_the_same_inputs_are_comparable_table() {
        let inputs = |digest: &str| BenchInputs {
            distribution: "uniform".into(),
            digest: digest.into(),
        };
        // The same bytes, described in other words: still comparable.
        let other_words = BenchInputs {
            distribution: "reworded".into(),
            digest: "d1".into(),
        };
        let cases = [
            (Some(inputs("d1")), Some(inputs("d1")), Ok(())),
            (
                Some(inputs("d1")),
                Some(inputs("d2")),
                Err(NotComparable::DifferentInputs),
            ),
            (Some(inputs("d1")), Some(other_words), Ok(())),
            (
                None,
                Some(inputs("d1")),
                Err(NotComparable::LibraryInputsUnknown),
            ),
            (
                Some(inputs("d1")),
                None,
                Err(NotComparable::KernelInputsUnknown),
            ),
        ];
        let mut case: BaselineCase =
            serde_json::from_str::<Baseline>(FILE).unwrap().cases[0].clone();
        for (library, kernel, want) in cases {
            case.inputs = library.clone();
            assert_eq!(
                comparable(&case, kernel.as_ref()),
                want,
                "{library:?} {kernel:?}"
            );
        }
    }

    #[test]
    fn reads_what_the_script_writes_and_reports_what_it_cannot() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cublas-h100.json"), FILE).unwrap();
        std::fs::write(dir.path().join("broken.json"), "{").unwrap();
        let (found, problems) = load_all(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("broken.json"), "{problems:?}");
        let case = &found[0].cases[0];
        assert!((case.gflop_s() - 54975.6).abs() < 0.1, "{}", case.gflop_s());
        // (a benchmark case's constants, whether it is at the baseline's size)
        let cases = [
            (vec![("SIZE", 4096), ("BM", 128)], true),
            (vec![("SIZE", 2048), ("BM", 128)], false),
            (vec![("BM", 128)], false),
        ];
        for (constants, want) in cases {
            let constants: Constants = constants
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            assert_eq!(case.matches(&constants), want, "{constants:?}");
        }
    }
}
