//! The memory roofs a page draws for one GPU: for each kind of traffic
//! (read-only, write-only, copy), the fastest that traffic was ever measured
//! on that GPU, by `runner calibrate`'s streams or by one of the book's own
//! benchmarks, through either backend.
//!
//! A roof a kernel passes is not a roof. `runner calibrate`'s streams are
//! simple, and a kernel written with more care (more loads in flight, a grid
//! sized to the GPU) can move bytes faster: the H100's CUDA read stream gave
//! 2,940 GB/s while the book's vectorized reduction read 2,945 through
//! Vulkan. So each roof is the best figure measured for that traffic on that
//! GPU, and the page names where it came from: an empirical roofline, the
//! way the Empirical Roofline Toolkit takes the best of many kernels. Memory
//! is the same whichever API reads it, so both backends' figures count. The
//! PyTorch's own copy, sum and fill on the same GPU count too, where
//! `results/baselines/` has them: the roof is the fastest anyone measured. The
//! FP32 roof is taken the same way: Vulkan's FMA chains, as naga compiles
//! them, reach a seventh of what the same GPU's CUDA chains do, and the
//! book's WGSL matrix product runs past them.
//!
//! Part VI's kernels run on the tensor cores (`math: bf16-tensor`), whose
//! rate `runner calibrate` does not measure. Their roof is the fastest BF16
//! product measured on the GPU: cuBLAS's (`results/baselines/`, case
//! `gemm_bf16`) or one of the book's. They never count toward the FP32 roof,
//! which they would pass many times over. FP8 kernels (`math: fp8-tensor`)
//! have a roof of their own the same way, from cuBLAS's FP8 products
//! (`gemm_fp8`, `gemm_fp8_fast_accum`) or the book's: FP8 runs at twice
//! BF16's rate, and would otherwise raise the BF16 roof.

use puzzle_core::chapter::book::Book;
use puzzle_core::spec::math::Math;
use runner::perf::record::{self, Recording};
use runner::perf::{Baseline, Ceilings, Traffic, roofline};
use std::sync::OnceLock;

/// The fastest figure for one kind of traffic, and what gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct Best {
    pub traffic: Traffic,
    pub gb_s: f64,
    /// "runner calibrate's read-only stream (CUDA)", "`p17_reduce_vec4` at SIZE=2^28 (Vulkan)".
    pub from: String,
}

/// The fastest FP32 rate measured on a GPU, and what gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct BestCompute {
    pub gflop_s: f64,
    pub from: String,
}

/// The best tensor-core rates measured on a GPU, one for each input type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TensorRoofs {
    pub bf16: Option<BestCompute>,
    pub fp8: Option<BestCompute>,
}

impl TensorRoofs {
    /// The roof for `math`'s kernels; `None` for FP32, which is not a tensor-core rate.
    pub fn of(&self, math: Math) -> Option<&BestCompute> {
        match math {
            Math::Fp32 => None,
            Math::Bf16Tensor => self.bf16.as_ref(),
            Math::Fp8Tensor => self.fp8.as_ref(),
        }
    }
}

/// A GPU's ceilings with its memory roofs raised to the best measured, what
/// each came from, the best FP32 rate, and the best tensor-core rates where
/// they were measured (also in the ceilings' `bf16_tensor_gflop_s` and
/// `fp8_tensor_gflop_s`).
pub type Empirical = (Ceilings, Vec<Best>, BestCompute, TensorRoofs);

/// Every recording's [`Empirical`] roofs, worked out once for a whole build,
/// on first use: a book has a dozen roofline blocks, and each would otherwise
/// weigh every benchmark of every recording again (a third of a warm
/// build's time).
#[derive(Default)]
pub struct Memo {
    all: OnceLock<Vec<Option<Empirical>>>,
}

impl Memo {
    /// The roofs of `all[index]`; `all` must be the same recordings at every call.
    pub fn get(
        &self,
        index: usize,
        all: &[Recording],
        book: &Book,
        baselines: &[Baseline],
    ) -> Option<&Empirical> {
        self.all
            .get_or_init(|| {
                all.iter()
                    .map(|recording| best_ceilings(recording, all, book, baselines))
                    .collect()
            })
            .get(index)?
            .as_ref()
    }
}

/// `recording`'s ceilings with each memory roof raised to the best figure
/// for its traffic among every recording of the same GPU, and what each came from.
pub fn best_ceilings(
    recording: &Recording,
    all: &[Recording],
    book: &Book,
    baselines: &[Baseline],
) -> Option<Empirical> {
    let mut ceilings = recording.ceilings.clone()?;
    let mut best: Vec<Best> = Vec::new();
    let mut compute = BestCompute {
        gflop_s: 0.0,
        from: String::new(),
    };
    let mut tensor = TensorRoofs::default();
    let mut offer_compute = |math: Math, gflop_s: f64, from: String| {
        let zero = || BestCompute {
            gflop_s: 0.0,
            from: String::new(),
        };
        let best = match math {
            Math::Fp32 => &mut compute,
            Math::Bf16Tensor => tensor.bf16.get_or_insert_with(zero),
            Math::Fp8Tensor => tensor.fp8.get_or_insert_with(zero),
        };
        if gflop_s > best.gflop_s {
            *best = BestCompute { gflop_s, from };
        }
    };
    let mut offer = |traffic: Traffic, gb_s: f64, from: String| match best
        .iter_mut()
        .find(|b| b.traffic == traffic)
    {
        Some(b) if b.gb_s >= gb_s => {}
        Some(b) => {
            *b = Best {
                traffic,
                gb_s,
                from,
            }
        }
        None => best.push(Best {
            traffic,
            gb_s,
            from,
        }),
    };
    for other in all
        .iter()
        .filter(|r| r.device.name == recording.device.name)
    {
        let api = match other.device.backend.lang() {
            puzzle_core::lang::Lang::Cuda => "CUDA",
            puzzle_core::lang::Lang::Wgsl => "WGSL",
        };
        if let Some(c) = &other.ceilings {
            offer_compute(
                Math::Fp32,
                c.fp32_gflop_s.value,
                format!("a kernel of FMA chains, through {api}"),
            );
            let streams = [
                (Traffic::ReadWrite, Some(&c.bandwidth_gb_s)),
                (Traffic::Read, c.read_gb_s.as_ref()),
                (Traffic::Write, c.write_gb_s.as_ref()),
            ];
            for (traffic, measured) in streams {
                if let Some(m) = measured {
                    let from = format!("a {} stream kernel, through {api}", traffic.label());
                    offer(traffic, m.value, from);
                }
            }
        }
        for entry in &other.benches {
            let Ok(puzzle) = book.find(&entry.puzzle) else {
                continue;
            };
            // Only a current benchmark whose output was right sets a roof.
            let Some(Ok(report)) = record::lookup_bench(other, puzzle, entry.lang, &entry.case)
            else {
                continue;
            };
            if matches!(report.checked, runner::perf::Checked::Failed(_)) {
                continue;
            }
            let Ok(spec) = puzzle.spec.sized(&entry.case) else {
                continue;
            };
            let gb_s = spec.min_bytes() as f64 / (report.timing.median_ms * 1e6);
            let from = format!(
                "`{}` at {}, through {api}",
                puzzle.id(),
                crate::roofline::rows::case_text(&entry.case)
            );
            if let Some(flops) = spec.flops {
                offer_compute(
                    spec.math,
                    flops as f64 / (report.timing.median_ms * 1e6),
                    from.clone(),
                );
            }
            offer(roofline::traffic(&spec), gb_s, from);
        }
    }
    for library in baselines
        .iter()
        .filter(|b| b.device == recording.device.name)
    {
        for case in &library.cases {
            let tensor_math = match case.name.as_str() {
                "gemm_bf16" => Some(Math::Bf16Tensor),
                "gemm_fp8" | "gemm_fp8_fast_accum" => Some(Math::Fp8Tensor),
                _ => None,
            };
            if let Some(math) = tensor_math {
                offer_compute(
                    math,
                    case.gflop_s(),
                    format!(
                        "{}: {} at {}",
                        library.library,
                        case.name,
                        crate::roofline::rows::case_text(&case.constants)
                    ),
                );
                continue;
            }
            let traffic = match case.name.as_str() {
                "copy" => Traffic::ReadWrite,
                "read" => Traffic::Read,
                "write" => Traffic::Write,
                _ => continue,
            };
            if let Some(gb_s) = case.gb_s() {
                offer(traffic, gb_s, format!("{}: {}", library.library, case.name));
            }
        }
    }
    for b in &best {
        let slot = match b.traffic {
            Traffic::ReadWrite => Some(&mut ceilings.bandwidth_gb_s),
            Traffic::Read => ceilings.read_gb_s.as_mut(),
            Traffic::Write => ceilings.write_gb_s.as_mut(),
        };
        match slot {
            Some(m) => m.value = b.gb_s,
            None => {
                // An older recording without this stream: the best figure stands in.
                let measured = runner::perf::Measured {
                    value: b.gb_s,
                    timing: ceilings.bandwidth_gb_s.timing.clone(),
                };
                match b.traffic {
                    Traffic::Read => ceilings.read_gb_s = Some(measured),
                    Traffic::Write => ceilings.write_gb_s = Some(measured),
                    Traffic::ReadWrite => {}
                }
            }
        }
    }
    best.sort_by_key(|b| match b.traffic {
        Traffic::ReadWrite => 0,
        Traffic::Read => 1,
        Traffic::Write => 2,
    });
    ceilings.fp32_gflop_s.value = compute.gflop_s;
    let measured = |t: &BestCompute| runner::perf::Measured {
        value: t.gflop_s,
        timing: ceilings.fp32_gflop_s.timing.clone(),
    };
    ceilings.bf16_tensor_gflop_s = tensor.bf16.as_ref().map(measured);
    ceilings.fp8_tensor_gflop_s = tensor.fp8.as_ref().map(measured);
    Some((ceilings, best, compute, tensor))
}
