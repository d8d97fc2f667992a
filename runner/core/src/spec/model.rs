//! A spec with every size evaluated: the buffers, scalars and launches a
//! backend runs, and what the run is judged against.

use crate::spec::data::Dtype;
use crate::spec::expr::Constants;
use crate::spec::math::Math;
use serde::{Deserialize, Serialize};

/// One buffer, with its size evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    /// Inputs' initial contents; outputs and scratch start poisoned.
    pub init: Option<Vec<f64>>,
    pub expect: Option<Vec<f64>>,
    /// Working storage between launches: guarded, never compared.
    #[serde(default)]
    pub scratch: bool,
    /// CUDA only: passed as a TMA tensor map rather than a pointer.
    #[serde(default)]
    pub tensor_map: Option<TensorMap>,
    /// The GPU that holds it, in a spec that runs on several (`gpus:`): rank
    /// r's copy of a per-GPU buffer (named `a@r`, see [`rank_name`]), or a
    /// buffer placed on one GPU for all. `None` on one GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// An output's own tolerance (`tolerance:` in the spec), where its type's
    /// ([`Dtype::tolerance`]) is too strict for what it computes: a sum of
    /// thousands of rounded terms that cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
}

/// A buffer as the Tensor Memory Accelerator copies it: tiles of `tile`
/// elements (outermost dimension first, as `Buffer::shape`), stored in
/// shared memory with a `swizzle`-byte swizzle (0: none). The engine encodes
/// it with the buffer's device address and shape, so a copy can never reach
/// outside the buffer: the TMA fills what lies beyond with zeros.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorMap {
    pub tile: Vec<u32>,
    pub swizzle: u32,
}

/// A tensor map the TMA would refuse for its buffer; the words follow "the
/// tensor map of `NAME`: " at the spec's line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TensorMapError {
    #[error("a tensor map has 1 to 5 dimensions; this buffer has {0}")]
    Rank(usize),
    #[error("`box` has {sizes} sizes; the buffer's shape has {rank}")]
    BoxRank { sizes: usize, rank: usize },
    #[error("`box` size {0}: each must be 1 to 256")]
    BoxSize(u32),
    #[error("`swizzle: {0}`: the TMA swizzles 32, 64 or 128 bytes (0 for none)")]
    Swizzle(u32),
    /// The box's innermost extent in bytes is not a multiple of 16.
    #[error("the box's rows are {0} bytes; the TMA moves rows of a multiple of 16")]
    RowBytes(usize),
    #[error("the box's rows are {bytes} bytes, longer than the {swizzle}-byte swizzle")]
    RowPastSwizzle { bytes: usize, swizzle: u32 },
    /// An outer dimension's stride in bytes is not a multiple of 16.
    #[error(
        "dimension {dimension} of the buffer steps {stride} bytes; the TMA needs a multiple of 16"
    )]
    Stride { dimension: usize, stride: usize },
}

impl TensorMap {
    /// `cuTensorMapEncodeTiled`'s dimensions, innermost first (a spec's
    /// shape is outermost first): sizes, the byte strides of every
    /// dimension but the innermost, and the box; `element` bytes each.
    pub fn driver_dimensions(
        &self,
        shape: &[usize],
        element: usize,
    ) -> (Vec<u64>, Vec<u64>, Vec<u32>) {
        let sizes: Vec<u64> = shape.iter().rev().map(|&d| d as u64).collect();
        let strides = sizes
            .iter()
            .scan(element as u64, |stride, &d| {
                *stride *= d;
                Some(*stride)
            })
            .take(sizes.len().saturating_sub(1))
            .collect();
        let tile = self.tile.iter().rev().copied().collect();
        (sizes, strides, tile)
    }

    /// The TMA's own limits (those `cuTensorMapEncodeTiled` refuses with a
    /// bare CUDA_ERROR_INVALID_VALUE), checked against the buffer's shape
    /// and type so that the spec's line gets a sentence instead.
    pub fn check(&self, shape: &[usize], dtype: Dtype) -> Result<(), TensorMapError> {
        let rank = shape.len();
        if !(1..=5).contains(&rank) {
            return Err(TensorMapError::Rank(rank));
        }
        if self.tile.len() != rank {
            return Err(TensorMapError::BoxRank {
                sizes: self.tile.len(),
                rank,
            });
        }
        if let Some(&t) = self.tile.iter().find(|&&t| !(1..=256).contains(&t)) {
            return Err(TensorMapError::BoxSize(t));
        }
        if ![0, 32, 64, 128].contains(&self.swizzle) {
            return Err(TensorMapError::Swizzle(self.swizzle));
        }
        let size = dtype.size();
        let inner = self.tile[rank - 1] as usize * size;
        if !inner.is_multiple_of(16) {
            return Err(TensorMapError::RowBytes(inner));
        }
        if self.swizzle > 0 && inner > self.swizzle as usize {
            return Err(TensorMapError::RowPastSwizzle {
                bytes: inner,
                swizzle: self.swizzle,
            });
        }
        let mut stride = size;
        for d in (1..rank).rev() {
            stride *= shape[d];
            if !stride.is_multiple_of(16) {
                return Err(TensorMapError::Stride {
                    dimension: d - 1,
                    stride,
                });
            }
        }
        Ok(())
    }
}

impl Buffer {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An output the run is judged on (scratch buffers also start poisoned, but are not judged).
    pub fn is_output(&self) -> bool {
        self.init.is_none() && !self.scratch
    }

    /// The tolerance its values are judged with: its own, else its type's.
    pub fn tolerance(&self) -> f64 {
        self.tolerance.unwrap_or(self.dtype.tolerance())
    }
}

/// A kernel argument, in parameter (CUDA) and binding (WGSL) order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Arg {
    Buffer(Buffer),
    Scalar {
        name: String,
        dtype: Dtype,
        value: f64,
    },
    /// The device addresses of one per-GPU buffer on every rank, passed by
    /// value as a table of [`MAX_GPUS`] pointers (`struct { float* rank[8]; }`
    /// in CUDA C; entries past the spec's `gpus` are null). `of[r]` is the
    /// index in [`Spec::args`] of rank r's buffer.
    Peers {
        name: String,
        of: Vec<usize>,
    },
}

impl Arg {
    pub fn name(&self) -> &str {
        match self {
            Arg::Buffer(b) => &b.name,
            Arg::Scalar { name, .. } | Arg::Peers { name, .. } => name,
        }
    }
}

/// One kernel launch with its sizes evaluated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Launch {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block (CUDA); 0 when unused.
    #[serde(default)]
    pub dynamic_shared_bytes: u32,
    /// The kernel's parameters, in order, as indices into [`Spec::args`].
    pub args: Vec<usize>,
    /// The GPU it runs on (0 on one GPU). A spec on several GPUs lists each
    /// step once per rank, ranks in order: the launches of one step run at
    /// the same time, one on each GPU, and may wait for each other.
    #[serde(default)]
    pub rank: u32,
    /// A setup step: it makes inputs that the timed steps read, as a
    /// forward pass saves what its backward pass needs. It runs before the
    /// checked run's other steps, and once on each set of buffers before
    /// any timed run, outside the timing. Setup steps come first.
    #[serde(default)]
    pub setup: bool,
}

impl Launch {
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    pub fn total_threads(&self) -> u64 {
        self.threads_per_block() * self.grid.iter().map(|&g| g as u64).product::<u64>()
    }
}

/// Host bytes a run holds per buffer element at its peak: the values as
/// f64 (8), the expected values (8), the bytes sent to the device and read
/// back (4 + 4 for 32-bit types, 2 + 2 for bf16 and f16: this bound takes
/// the larger), and the decoded result (16).
pub const HOST_BYTES_PER_ELEMENT: u64 = 40;

/// A spec with every size evaluated: what a backend launches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub id: String,
    pub title: String,
    /// The CPU reference's name (see [`crate::spec::reference`]).
    pub reference: String,
    pub constants: Constants,
    /// One launch, or several in order (a two-kernel scan).
    pub launches: Vec<Launch>,
    /// Every buffer and scalar, in WGSL binding order.
    pub args: Vec<Arg>,
    /// Floating-point operations of one run, when the spec counts them.
    #[serde(default)]
    pub flops: Option<u64>,
    /// What those operations run on: the FP32 cores or the tensor cores.
    #[serde(default)]
    pub math: Math,
    /// How many GPUs the run takes (`gpus:`): 1 unless the spec says more.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub gpus: u32,
    /// Bytes a collective moves by the bus-bandwidth convention of
    /// nccl-tests (`bus_bytes:`), so its GB/s compare with NCCL's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_bytes: Option<u64>,
    /// No `expect` and no `reference`: a kernel of the learner's own,
    /// whose outputs are compared with nothing and which is checked for
    /// hazards (races, bounds, barriers, deadlocks) alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hazards_only: bool,
    /// How many times the timed launches run in a row (`repeat:`); 1 unless
    /// the spec says more. [`Spec::launches`] holds every round's launches.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub rounds: u32,
}

/// The most GPUs a spec may run on: the size of a peer table ([`Arg::Peers`]).
pub const MAX_GPUS: u32 = 8;

/// The most rounds a spec's `repeat` may ask for: a training loop long
/// enough to watch a loss fall, short enough that the CPU checker runs it
/// in seconds.
pub const MAX_REPEAT: i64 = 1000;

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Rank r's copy of a per-GPU buffer `name`: `out@1`.
pub fn rank_name(name: &str, rank: u32) -> String {
    format!("{name}@{rank}")
}

impl Spec {
    /// The arguments one launch passes, in parameter order.
    pub fn launch_args<'a>(&'a self, launch: &'a Launch) -> impl Iterator<Item = &'a Arg> + 'a {
        launch.args.iter().map(|&i| &self.args[i])
    }

    /// How many launches a timed run makes one after another: its steps
    /// other than setup, every round of them, counted once however many
    /// GPUs run each at the same time. A timed run lasts at least that many
    /// empty kernels.
    pub fn launches_in_a_row(&self) -> usize {
        let timed = self.launches.iter().filter(|l| !l.setup).count();
        (timed / self.gpus.max(1) as usize).max(1)
    }

    /// The fewest bytes a run must move: each input read once, each output
    /// written once (scratch buffers are the kernel's business, not the problem's).
    pub fn min_bytes(&self) -> u64 {
        self.buffers()
            .filter(|b| !b.scratch)
            .map(|b| (b.len() * b.dtype.size()) as u64)
            .sum()
    }

    /// About how much host memory a run takes to set up and judge its
    /// buffers: inputs and expected values as f64, the device bytes, and
    /// what comes back, per element (see [`HOST_BYTES_PER_ELEMENT`]).
    pub fn host_bytes(&self) -> u64 {
        self.buffers()
            .map(|b| b.len() as u64)
            .fold(0u64, |sum, n| sum.saturating_add(n))
            .saturating_mul(HOST_BYTES_PER_ELEMENT)
    }

    /// Elements of every buffer together: what a diagram of the run would draw.
    pub fn elements(&self) -> usize {
        self.buffers().map(Buffer::len).sum()
    }

    pub fn buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.args.iter().filter_map(|a| match a {
            Arg::Buffer(b) => Some(b),
            Arg::Scalar { .. } | Arg::Peers { .. } => None,
        })
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Buffer> {
        self.buffers().filter(|b| b.is_output())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (shape, box, element bytes) and the driver's (sizes, strides, box).
    type Case<'a> = (
        &'a [usize],
        &'a [u32],
        usize,
        (&'a [u64], &'a [u64], &'a [u32]),
    );

    #[test]
    fn dimensions_are_innermost_first() {
        let cases: &[Case] = &[
            (
                &[256, 512],
                &[128, 64],
                2,
                (&[512, 256], &[1024], &[64, 128]),
            ),
            (
                &[4, 8, 16],
                &[1, 2, 4],
                4,
                (&[16, 8, 4], &[64, 512], &[4, 2, 1]),
            ),
            (&[1024], &[256], 4, (&[1024], &[], &[256])),
        ];
        for (shape, tile, element, (sizes, strides, boxes)) in cases {
            let map = TensorMap {
                tile: tile.to_vec(),
                swizzle: 0,
            };
            let got = map.driver_dimensions(shape, *element);
            assert_eq!(
                got,
                (sizes.to_vec(), strides.to_vec(), boxes.to_vec()),
                "{shape:?}"
            );
        }
    }

    #[test]
    fn tensor_map_limits() {
        let map = |tile: &[u32], swizzle| TensorMap {
            tile: tile.to_vec(),
            swizzle,
        };
        let cases: &[(TensorMap, &[usize], Dtype, Option<&str>)] = &[
            (map(&[128, 64], 128), &[256, 256], Dtype::Bf16, None),
            (map(&[64, 64], 0), &[64, 64], Dtype::F32, None),
            (
                map(&[128, 64], 128),
                &[256, 256],
                Dtype::F32,
                Some("longer than the 128-byte swizzle"),
            ),
            (
                map(&[64], 128),
                &[256, 256],
                Dtype::Bf16,
                Some("`box` has 1 sizes"),
            ),
            (
                map(&[512, 64], 128),
                &[1024, 256],
                Dtype::Bf16,
                Some("each must be 1 to 256"),
            ),
            (
                map(&[8, 64], 96),
                &[256, 256],
                Dtype::Bf16,
                Some("`swizzle: 96`"),
            ),
            (
                map(&[8, 4], 0),
                &[256, 256],
                Dtype::Bf16,
                Some("rows are 8 bytes"),
            ),
            (
                map(&[8, 8], 0),
                &[256, 100],
                Dtype::Bf16,
                Some("steps 200 bytes"),
            ),
            (
                map(&[1; 6], 0),
                &[8; 6],
                Dtype::F32,
                Some("1 to 5 dimensions"),
            ),
        ];
        for (map, shape, dtype, want) in cases {
            let got = map.check(shape, *dtype);
            match want {
                None => assert_eq!(got, Ok(()), "{map:?} {shape:?}"),
                Some(text) => {
                    let message = got.expect_err(text).to_string();
                    assert!(message.contains(text), "{message}");
                }
            }
        }
    }
}
