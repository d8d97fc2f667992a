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
}

impl Arg {
    pub fn name(&self) -> &str {
        match self {
            Arg::Buffer(b) => &b.name,
            Arg::Scalar { name, .. } => name,
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
}

impl Spec {
    /// The arguments one launch passes, in parameter order.
    pub fn launch_args<'a>(&'a self, launch: &'a Launch) -> impl Iterator<Item = &'a Arg> + 'a {
        launch.args.iter().map(|&i| &self.args[i])
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
            Arg::Scalar { .. } => None,
        })
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Buffer> {
        self.buffers().filter(|b| b.is_output())
    }
}
