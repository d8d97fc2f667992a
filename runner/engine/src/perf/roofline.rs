//! The roofline: where a kernel's measured time puts it under the device's
//! two ceilings, memory bandwidth and arithmetic throughput.
//!
//! Every number is computed: FLOPs from the spec's `flops` expression, the
//! fewest bytes from its buffers (each input read once, each output written
//! once), the time from a device timer, the ceilings from `runner calibrate`.
//! Datasheet peaks (the seeds' worked examples among them) are kept apart and
//! always labelled as such.

use crate::perf::calibrate::{Ceilings, Traffic};
use puzzle_core::spec::math::Math;
use puzzle_core::spec::model::Spec;
use serde::{Deserialize, Serialize};

/// Which roof a kernel sits under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Roof {
    Memory,
    Compute,
}

/// A kernel's figures against measured ceilings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    pub roof: Roof,
    /// The binding ceiling: GB/s (memory) or GFLOP/s (compute).
    pub ceiling: f64,
    /// Achieved as a share of that ceiling, in percent.
    pub percent: f64,
    /// Which stream measured a memory roof: the one whose bytes move like
    /// the kernel's (absent from placements stored before there were three).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<Traffic>,
}

/// One timed kernel placed on the roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub median_ms: f64,
    pub flops: Option<u64>,
    pub min_bytes: u64,
    pub achieved_gb_s: f64,
    pub achieved_gflop_s: Option<f64>,
    /// Against the device's measured ceilings, when calibrated.
    pub binding: Option<Binding>,
    /// The time is within a few launches of an empty kernel's: the size is
    /// too small for the figure to say anything about the kernel.
    pub launch_bound: Option<bool>,
    /// Elements in the largest buffer, for "launch-bound: 8 elements".
    pub elements: usize,
}

/// A kernel taking under this many empty-kernel times is launch-bound.
pub const LAUNCH_BOUND_FACTOR: f64 = 3.0;

/// A time in empty-kernel launches on the same device: below
/// [`LAUNCH_BOUND_FACTOR`], the launch is what was timed.
pub fn launches(median_ms: f64, ceilings: &Ceilings) -> f64 {
    median_ms * 1e3 / ceilings.launch_us.value
}

pub fn intensity(flops: u64, bytes: u64) -> f64 {
    flops as f64 / bytes.max(1) as f64
}

/// How `spec` must move its bytes: each input read once, each output written once.
pub fn traffic(spec: &Spec) -> Traffic {
    let bytes = |b: &puzzle_core::spec::model::Buffer| (b.len() * b.dtype.size()) as u64;
    let (mut read, mut written) = (0, 0);
    for b in spec.buffers().filter(|b| !b.scratch) {
        if b.is_output() {
            written += bytes(b);
        } else {
            read += bytes(b);
        }
    }
    Traffic::of(read, written)
}

/// Places a run of `spec` that took `median_ms` under `ceilings`: below its
/// ridge point under the memory roof its traffic matches, above it under the
/// compute roof of its arithmetic (FP32, or the tensor cores'). Not placed
/// at all when `ceilings` have no roof for its arithmetic.
pub fn place(spec: &Spec, median_ms: f64, ceilings: Option<&Ceilings>) -> Placement {
    let seconds = median_ms * 1e-3;
    // A collective's bytes are those crossing the links between GPUs, by
    // the bus-bandwidth convention NCCL is measured by.
    let min_bytes = spec.bus_bytes.unwrap_or_else(|| spec.min_bytes());
    let achieved_gb_s = min_bytes as f64 / seconds / 1e9;
    let achieved_gflop_s = spec.flops.map(|f| f as f64 / seconds / 1e9);
    let traffic = traffic(spec);
    // One GPU's ceilings (its memory, its FLOP/s) bound no transfer between
    // GPUs: a run on several is measured against NCCL, not placed.
    let binding = ceilings.filter(|_| spec.gpus <= 1).and_then(|c| {
        let compute = c.compute_roof(spec.math)?;
        let ridge = compute / c.memory_roof(traffic).0;
        let compute_bound = spec.flops.is_some_and(|f| intensity(f, min_bytes) >= ridge);
        Some(if compute_bound {
            let ceiling = compute;
            Binding {
                roof: Roof::Compute,
                ceiling,
                percent: 100.0 * achieved_gflop_s.unwrap_or(0.0) / ceiling,
                traffic: None,
            }
        } else {
            let (ceiling, measured) = c.memory_roof(traffic);
            Binding {
                roof: Roof::Memory,
                ceiling,
                percent: 100.0 * achieved_gb_s / ceiling,
                traffic: Some(measured),
            }
        })
    });
    Placement {
        median_ms,
        flops: spec.flops,
        min_bytes,
        achieved_gb_s,
        achieved_gflop_s,
        binding,
        launch_bound: ceilings.map(|c| launches(median_ms, c) < LAUNCH_BOUND_FACTOR),
        elements: spec.buffers().map(|b| b.len()).max().unwrap_or(0),
    }
}

impl Placement {
    /// Plain-text lines for `runner bench` and the page.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut achieved = format!("achieved: {:.3} GB/s", self.achieved_gb_s);
        if let Some(g) = self.achieved_gflop_s {
            achieved.push_str(&format!(", {g:.3} GFLOP/s"));
        }
        achieved.push_str(&format!(
            " (fewest bytes: {}{})",
            self.min_bytes,
            self.flops
                .map(|f| format!(", {f} FLOPs, {:.3} FLOP/byte", intensity(f, self.min_bytes)))
                .unwrap_or_default()
        ));
        lines.push(achieved);
        if let Some(b) = &self.binding {
            let (roof, unit) = match b.roof {
                Roof::Memory => ("memory", "GB/s"),
                Roof::Compute => ("compute", "GFLOP/s"),
            };
            let of = b
                .traffic
                .map(|t| format!(" ({} stream)", t.label()))
                .unwrap_or_default();
            lines.push(format!(
                "{roof}-bound: {:.1}% of the measured {:.1} {unit}{of}",
                b.percent, b.ceiling
            ));
        } else {
            lines.push("no measured ceilings for this device (run `runner calibrate`)".into());
        }
        if self.launch_bound == Some(true) {
            lines.push(format!(
                "launch-bound: {}; the time is mostly the cost of a launch",
                puzzle_core::quantity::plural(self.elements, "element")
            ));
        }
        lines
    }
}

/// Peak figures from a datasheet, never measured here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Datasheet {
    pub name: &'static str,
    pub fp32_gflop_s: f64,
    /// Dense BF16 on the tensor cores (without sparsity), where the table has it.
    pub bf16_tensor_gflop_s: Option<f64>,
    /// Dense FP8 on the tensor cores, where the GPU has them and the table has it.
    pub fp8_tensor_gflop_s: Option<f64>,
    pub bandwidth_gb_s: f64,
    /// Where the figures come from.
    pub source: &'static str,
    /// A fragment of the device name that `runner` reports for this part.
    pub matches: &'static str,
}

impl Datasheet {
    pub fn ridge_point(&self) -> f64 {
        self.fp32_gflop_s / self.bandwidth_gb_s
    }

    /// The peak rate for arithmetic of kind `math`, where the table has it.
    pub fn peak(&self, math: Math) -> Option<f64> {
        match math {
            Math::Fp32 => Some(self.fp32_gflop_s),
            Math::Bf16Tensor => self.bf16_tensor_gflop_s,
            Math::Fp8Tensor => self.fp8_tensor_gflop_s,
        }
    }

    /// What the roofline allows a kernel of this intensity and arithmetic, in GFLOP/s.
    pub fn attainable(&self, math: Math, intensity: f64) -> Option<f64> {
        Some(self.peak(math)?.min(intensity * self.bandwidth_gb_s))
    }
}

/// Datasheet peaks: the seeds' two worked examples and the GPUs the book is recorded on.
pub const DATASHEETS: &[Datasheet] = &[
    Datasheet {
        name: "NVIDIA A100",
        fp32_gflop_s: 19_500.0,
        bf16_tensor_gflop_s: Some(312_000.0),
        fp8_tensor_gflop_s: None,
        bandwidth_gb_s: 1_555.0,
        source: "the MatMul chapter's worked example (NVIDIA A100 architecture whitepaper; BF16 tensor cores, dense)",
        matches: "A100",
    },
    Datasheet {
        name: "NVIDIA RTX 4000 Ada",
        fp32_gflop_s: 26_700.0,
        bf16_tensor_gflop_s: None,
        fp8_tensor_gflop_s: None,
        bandwidth_gb_s: 360.0,
        source: "the puzzles blog post's worked example (RTX 4000 Ada datasheet)",
        matches: "RTX 4000 Ada",
    },
    Datasheet {
        name: "NVIDIA H100 SXM5",
        fp32_gflop_s: 67_000.0,
        bf16_tensor_gflop_s: Some(989_400.0),
        fp8_tensor_gflop_s: Some(1_978_900.0),
        bandwidth_gb_s: 3_350.0,
        source: "NVIDIA H100 datasheet (FP32 without tensor cores; BF16 and FP8 tensor cores, dense; HBM3)",
        matches: "H100 80GB HBM3",
    },
    Datasheet {
        name: "NVIDIA H200 SXM",
        fp32_gflop_s: 67_000.0,
        bf16_tensor_gflop_s: Some(989_400.0),
        fp8_tensor_gflop_s: Some(1_978_900.0),
        bandwidth_gb_s: 4_800.0,
        source: "NVIDIA H200 datasheet (FP32 without tensor cores; BF16 and FP8 tensor cores, dense; HBM3e)",
        matches: "H200",
    },
];

/// The datasheet of a device `runner` reports by this name, if the table has it.
pub fn datasheet_for(device_name: &str) -> Option<&'static Datasheet> {
    DATASHEETS.iter().find(|d| device_name.contains(d.matches))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::calibrate::Measured;
    use puzzle_core::backend_contract::timing::{Clock, Timing};
    use puzzle_core::spec::data::Dtype;
    use puzzle_core::spec::model::{Arg, Buffer};

    fn measured(value: f64) -> Measured {
        Measured {
            value,
            timing: Timing::from_samples(Clock::Device, &[1.0]).unwrap(),
        }
    }

    fn ceilings() -> Ceilings {
        Ceilings {
            bandwidth_gb_s: measured(1000.0),
            read_gb_s: Some(measured(1250.0)),
            write_gb_s: Some(measured(800.0)),
            fp32_gflop_s: measured(10_000.0),
            bf16_tensor_gflop_s: None,
            fp8_tensor_gflop_s: None,
            launch_us: measured(3.0),
            stream_bytes: 0,
            date: String::new(),
        }
    }

    fn spec(n: usize, flops: Option<u64>) -> Spec {
        let buffer = |name: &str, init| {
            Arg::Buffer(Buffer {
                name: name.into(),
                dtype: Dtype::F32,
                shape: vec![n],
                init,
                expect: None,
                scratch: false,
                tensor_map: None,
                rank: None,
                tolerance: None,
            })
        };
        Spec {
            id: "t".into(),
            title: String::new(),
            reference: String::new(),
            constants: Default::default(),
            launches: vec![],
            args: vec![buffer("out", None), buffer("a", Some(vec![0.0; n]))],
            flops,
            math: Default::default(),
            gpus: 1,
            bus_bytes: None,
            hazards_only: false,
            rounds: 1,
        }
    }

    /// 2^20 floats in and out (8 MiB): memory-bound below the ridge (10 FLOP/byte).
    #[test]
    fn placement_table() {
        let n = 1 << 20;
        let cases = [
            // (flops, median ms, roof, percent, launch-bound)
            (None, 0.0167772, Roof::Memory, 50.0, false),
            (Some(2 * n as u64), 0.0104858, Roof::Memory, 80.0, false),
            (Some(200 * n as u64), 0.0838861, Roof::Compute, 25.0, false),
            (None, 0.005, Roof::Memory, 167.8, true),
        ];
        for (flops, ms, roof, percent, launch_bound) in cases {
            let p = place(&spec(n, flops), ms, Some(&ceilings()));
            let b = p.binding.clone().unwrap();
            assert_eq!(b.roof, roof, "{flops:?}");
            assert!(
                (b.percent - percent).abs() < 0.1,
                "{flops:?}: {}",
                b.percent
            );
            assert_eq!(p.launch_bound, Some(launch_bound), "{flops:?}");
        }
        assert_eq!(place(&spec(4, None), 1.0, None).binding, None);
    }

    /// A collective on several GPUs: its GB/s are its bus bytes' (NCCL's
    /// measure), and no roof of one GPU is put over it.
    #[test]
    fn runs_on_several_gpus_are_measured_by_their_bus_bytes_table() {
        let n = 1 << 20;
        // (gpus, bus bytes, GB/s at 1 ms, placed under a roof)
        let cases = [
            (1, None, 8.0 * n as f64 / 1e6, true),
            (2, Some(4 * n as u64), 4.0 * n as f64 / 1e6, false),
            (4, Some(6 * n as u64), 6.0 * n as f64 / 1e6, false),
        ];
        for (gpus, bus_bytes, gb_s, placed) in cases {
            let spec = Spec {
                gpus,
                bus_bytes,
                ..spec(n, None)
            };
            let p = place(&spec, 1.0, Some(&ceilings()));
            assert!((p.achieved_gb_s - gb_s).abs() < 1e-9, "{gpus} GPUs");
            assert_eq!(p.binding.is_some(), placed, "{gpus} GPUs");
        }
    }

    /// Each kernel is measured against the stream that moves bytes like it.
    #[test]
    fn memory_roof_follows_traffic() {
        let cases = [
            // (bytes read, bytes written, traffic, roof in GB/s)
            (1 << 20, 4, Traffic::Read, 1250.0),
            (4, 1 << 20, Traffic::Write, 800.0),
            (1 << 20, 1 << 20, Traffic::ReadWrite, 1000.0),
            (2 << 20, 1 << 20, Traffic::ReadWrite, 1000.0),
            (10 << 20, 1 << 20, Traffic::Read, 1250.0),
        ];
        for (read, written, traffic, roof) in cases {
            let t = Traffic::of(read, written);
            assert_eq!(t, traffic, "{read} read, {written} written");
            assert_eq!(ceilings().memory_roof(t), (roof, traffic));
        }
        // A recording from before the three streams: the copy stands in, and says so.
        let old = Ceilings {
            read_gb_s: None,
            ..ceilings()
        };
        assert_eq!(old.memory_roof(Traffic::Read), (1000.0, Traffic::ReadWrite));
    }

    /// The seeds' worked examples, recomputed from their stated peaks.
    #[test]
    fn seed_examples() {
        let a100 = datasheet_for("NVIDIA A100-SXM4-40GB").unwrap();
        assert!(
            (a100.ridge_point() - 12.54).abs() < 0.01,
            "seed 002: I* ≈ 12.5"
        );
        let ada = datasheet_for("NVIDIA RTX 4000 Ada Generation").unwrap();
        assert!(
            (ada.ridge_point() - 74.17).abs() < 0.01,
            "seed 000: 74.2 FLOP/byte"
        );
        // Seed 000's naive 3×3 matmul at 0.25 FLOP/byte: 90 GFLOP/s.
        assert!((ada.attainable(Math::Fp32, 0.25).unwrap() - 90.0).abs() < 1e-9);
        assert_eq!(ada.attainable(Math::Bf16Tensor, 0.25), None);
        assert!(datasheet_for("llvmpipe").is_none());
    }
}
