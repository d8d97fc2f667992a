//! `runner calibrate`: the ceilings of the device at hand, measured with the
//! same backends and timers as the book's kernels.
//!
//! - streaming bandwidth, three ways, because a kernel that only reads can
//!   go faster than a copy: a large copy (bytes read plus bytes written), a
//!   large read (a sum per thread) and a large write (one value stored
//!   everywhere); each kernel is then placed under the one its traffic matches;
//! - FP32 rate: independent chains of fused multiply-adds (2 FLOPs each);
//! - launch overhead: an empty kernel, device-timed like any other.
//!
//! The kernels live in `ceilings/ceilings.{cu,wgsl}`. Sizes follow the
//! device: a CPU (lavapipe) gets smaller problems, and its figures are those
//! of a CPU, which the label says.

use crate::perf::date::today;
use puzzle_core::assess::execute::{Settings, execute};
use puzzle_core::backend_contract::backend::{Backend, BackendError};
use puzzle_core::backend_contract::outcome::GUARD_ELEMENTS;
use puzzle_core::backend_contract::timing::Timing;
use puzzle_core::judge::report::Status;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;
use puzzle_core::spec::data::Dtype;
use puzzle_core::spec::math::Math;
use puzzle_core::spec::model::{Arg, Buffer, Launch, Spec};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

const CUDA_SOURCE: &str = include_str!("ceilings/ceilings.cu");
const WGSL_SOURCE: &str = include_str!("ceilings/ceilings.wgsl");

/// One measured ceiling: the figure and the timing it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub value: f64,
    pub timing: Timing,
}

/// What `runner calibrate` measured on one device (stored with its recorded results).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    /// A copy's bytes read plus bytes written per second, in GB/s (10⁹ bytes).
    pub bandwidth_gb_s: Measured,
    /// A read-only stream's bytes per second (absent from older recordings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_gb_s: Option<Measured>,
    /// A write-only stream's bytes per second (absent from older recordings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_gb_s: Option<Measured>,
    /// FP32 operations per second, in GFLOP/s (an FMA counts as 2).
    pub fp32_gflop_s: Measured,
    /// BF16 tensor-core operations per second, in GFLOP/s. `runner
    /// calibrate` has no tensor-core kernel and leaves it out; a page fills
    /// it with the fastest BF16 product measured on the GPU (cuBLAS's, or a
    /// kernel of the book's), the roof Part VI's kernels are placed under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bf16_tensor_gflop_s: Option<Measured>,
    /// FP8 (e4m3) tensor-core operations per second, in GFLOP/s: like
    /// `bf16_tensor_gflop_s`, filled by a page from the fastest FP8 product
    /// measured (cuBLAS's through `torch._scaled_mm`, or the book's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp8_tensor_gflop_s: Option<Measured>,
    /// Device time of an empty kernel, in µs: the floor under every launch.
    pub launch_us: Measured,
    /// Bytes one streaming launch moves (read + write).
    pub stream_bytes: u64,
    /// UTC date, YYYY-MM-DD.
    pub date: String,
}

/// How a kernel moves its bytes, by the fewest it must read and write: the
/// memory roof it sits under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Traffic {
    /// Under a tenth of the bytes are written (a reduction, a dot product).
    Read,
    /// Under a tenth of the bytes are read (a fill).
    Write,
    /// Both in earnest (a copy, a scan, a transpose, a matrix product).
    ReadWrite,
}

impl Traffic {
    /// The traffic of a kernel that must read `read` and write `written` bytes.
    pub fn of(read: u64, written: u64) -> Traffic {
        let total = (read + written).max(1);
        if written * 10 < total {
            Traffic::Read
        } else if read * 10 < total {
            Traffic::Write
        } else {
            Traffic::ReadWrite
        }
    }

    /// "read-only", as the pages name the roof.
    pub fn label(self) -> &'static str {
        match self {
            Traffic::Read => "read-only",
            Traffic::Write => "write-only",
            Traffic::ReadWrite => "copy",
        }
    }
}

impl Ceilings {
    /// The memory roof for `traffic`, in GB/s, and the traffic it was
    /// measured with: a recording from before the read and write streams were
    /// measured has the copy's alone.
    pub fn memory_roof(&self, traffic: Traffic) -> (f64, Traffic) {
        let measured = match traffic {
            Traffic::Read => self.read_gb_s.as_ref(),
            Traffic::Write => self.write_gb_s.as_ref(),
            Traffic::ReadWrite => None,
        };
        match measured {
            Some(m) => (m.value, traffic),
            None => (self.bandwidth_gb_s.value, Traffic::ReadWrite),
        }
    }

    /// Arithmetic intensity (FLOP/byte) where the FP32 roof meets the
    /// memory roof for `traffic`.
    pub fn ridge_point(&self, traffic: Traffic) -> f64 {
        self.fp32_gflop_s.value / self.memory_roof(traffic).0
    }

    /// The compute roof for arithmetic of kind `math`, in GFLOP/s; `None`
    /// where nothing measured it on this GPU.
    pub fn compute_roof(&self, math: Math) -> Option<f64> {
        match math {
            Math::Fp32 => Some(self.fp32_gflop_s.value),
            Math::Bf16Tensor => self.bf16_tensor_gflop_s.as_ref().map(|m| m.value),
            Math::Fp8Tensor => self.fp8_tensor_gflop_s.as_ref().map(|m| m.value),
        }
    }
}

/// How big each calibration problem is on this device.
struct Sizes {
    stream_floats: usize,
    fma_threads: usize,
    fma_iterations: u32,
}

fn sizes(backend: &dyn Backend) -> Sizes {
    let max_binding_bytes = backend.max_buffer_bytes();
    let gpu = backend.device().kind == "GPU";
    let wanted: usize = if gpu { 1 << 27 } else { 1 << 24 };
    // Leave room for the guard band; keep a whole number of 16-byte vectors.
    let fits = (max_binding_bytes / 4) as usize - GUARD_ELEMENTS - 4;
    Sizes {
        stream_floats: wanted.min(fits) / 4 * 4,
        fma_threads: if gpu { 4096 * 256 } else { 64 * 256 },
        fma_iterations: if gpu { 1024 } else { 256 },
    }
}

/// Threads of each streaming launch: 4,096 blocks of 256.
const STREAM_THREADS: usize = 4096 * 256;

fn buffer(name: &str, len: usize, init: Option<f64>) -> Arg {
    Arg::Buffer(Buffer {
        name: name.into(),
        dtype: Dtype::F32,
        shape: vec![len],
        init: init.map(|v| vec![v; len]),
        expect: None,
        // Nothing is judged: these kernels are instruments, not puzzles.
        scratch: true,
        tensor_map: None,
        rank: None,
        tolerance: None,
    })
}

fn spec(kernel: &str, grid: u32, block: u32, args: Vec<Arg>, launch_args: Vec<usize>) -> Spec {
    Spec {
        id: format!("calibrate_{kernel}"),
        title: kernel.into(),
        reference: String::new(),
        constants: Default::default(),
        launches: vec![Launch {
            kernel: kernel.into(),
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_shared_bytes: 0,
            args: launch_args,
            rank: 0,
            setup: false,
        }],
        args,
        flops: None,
        math: Default::default(),
        gpus: 1,
        bus_bytes: None,
        hazards_only: false,
        rounds: 1,
    }
}

fn scalar(value: u32) -> Arg {
    Arg::Scalar {
        name: "count".into(),
        dtype: Dtype::U32,
        value: value as f64,
    }
}

/// Measures the three ceilings with `samples` timed runs each.
pub fn calibrate(backend: &dyn Backend, samples: usize) -> Result<Ceilings, BackendError> {
    let source = match backend.kind().lang() {
        Lang::Cuda => CUDA_SOURCE,
        Lang::Wgsl => WGSL_SOURCE,
    };
    let source = SourceText::new(source, Path::new("calibrate/ceilings"), 1);
    let size = sizes(backend);
    let settings = Settings {
        timing_samples: samples,
        warmup: 3,
        buffer_sets: 1,
        timeout: Duration::from_secs(60),
        memory: None,
    };
    let timed = |spec: &Spec| -> Result<Timing, BackendError> {
        let report = execute(backend, spec, Variant::Solution, &source, &settings);
        match report.status {
            Status::Pass | Status::Fail => report.timing.ok_or_else(|| {
                BackendError::Device("the calibration kernel produced no timing".into())
            }),
            Status::CompileError => Err(BackendError::Launch(format!(
                "calibration kernel did not compile: {}",
                report
                    .diagnostics
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ))),
            _ => Err(report
                .error
                .unwrap_or_else(|| BackendError::Launch(report.message.unwrap_or_default()))),
        }
    };

    let vectors = (size.stream_floats / 4) as u32;
    let stream = spec(
        "stream_copy",
        (STREAM_THREADS / 256) as u32,
        256,
        vec![
            buffer("out", size.stream_floats, None),
            buffer("src", size.stream_floats, Some(1.0)),
            scalar(vectors),
        ],
        vec![0, 1, 2],
    );
    let stream_bytes = 2 * 4 * size.stream_floats as u64;
    let copy = timed(&stream)?;
    let mut stream = stream;
    stream.launches[0].kernel = "stream_read".into();
    let read = timed(&stream)?;
    // Every thread stores one float.
    let read_bytes = 4 * (size.stream_floats + STREAM_THREADS) as u64;
    stream.launches[0].kernel = "stream_write".into();
    let write = timed(&stream)?;
    let write_bytes = 4 * size.stream_floats as u64;
    let gb_s = |bytes: u64, timing: Timing| Measured {
        value: bytes as f64 / (timing.median_ms * 1e-3) / 1e9,
        timing,
    };

    let fma = spec(
        "fma_chains",
        (size.fma_threads / 256) as u32,
        256,
        vec![
            buffer("out", size.fma_threads, None),
            buffer("src", 4, Some(0.5)),
            scalar(size.fma_iterations),
        ],
        vec![0, 1, 2],
    );
    // 8 chains × 4 steps per iteration, 2 FLOPs per FMA.
    let fma_flops = 2.0 * 32.0 * size.fma_iterations as f64 * size.fma_threads as f64;
    let arithmetic = timed(&fma)?;

    // WGSL binds every arg of the spec; CUDA's `empty` takes only `out`.
    let empty = spec(
        "empty",
        1,
        32,
        vec![
            buffer("out", 4, None),
            buffer("src", 4, Some(0.0)),
            scalar(0),
        ],
        vec![0],
    );
    let launch = timed(&empty)?;

    Ok(Ceilings {
        bandwidth_gb_s: gb_s(stream_bytes, copy),
        read_gb_s: Some(gb_s(read_bytes, read)),
        write_gb_s: Some(gb_s(write_bytes, write)),
        fp32_gflop_s: Measured {
            value: fma_flops / (arithmetic.median_ms * 1e-3) / 1e9,
            timing: arithmetic,
        },
        bf16_tensor_gflop_s: None,
        fp8_tensor_gflop_s: None,
        launch_us: Measured {
            value: launch.median_ms * 1e3,
            timing: launch,
        },
        stream_bytes,
        date: today(),
    })
}
