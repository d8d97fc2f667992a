//! The backends the engine opens: real GPUs (and lavapipe) through wgpu,
//! NVIDIA GPUs through CUDA, and the CPU checker from the core. A facade:
//! its folders are private to the crate; the run itself goes through
//! [`crate::run::Runner`], and what else other crates use is re-exported here.
//!
//! - `open`: a backend by kind, or why it is not here
//!   ([`cuda_checker_from_env`]: the CUDA checker, for the chapter tests;
//!   [`ranks_on_one_gpu_from_env`]: whether a reader asked for every rank
//!   on one GPU);
//! - `wgpu`: WGSL on any Vulkan, Metal or DX12 device, lavapipe included;
//! - `cuda`: CUDA C compiled with NVRTC, launched in a child process
//!   ([`CudaBackend`]; [`too_few_gpus`]: why a run cannot have its GPUs;
//!   [`RANKS_ON_ONE_GPU`]: every rank of a puzzle of several GPUs on one;
//!   [`compile_only_arch`]: the architecture NVRTC compiles for where no GPU
//!   is), or run on the CPU checker ([`CudaCheckerBackend`]), or under
//!   compute-sanitizer ([`Sanitizer`]).
//!
//! Their contract (job, outcome, errors) is the core's
//! ([`puzzle_core::backend_contract::backend`]).

pub(crate) mod cuda;
pub(crate) mod open;
pub(crate) mod wgpu;

pub use cuda::backend::{CudaBackend, RANKS_ON_ONE_GPU, compile_only_arch, too_few_gpus};
pub use cuda::checker::CudaCheckerBackend;
pub use cuda::sanitize::Sanitizer;
pub use open::{cuda_checker_from_env, ranks_on_one_gpu_from_env};

/// For the CUDA checker's benchmark (`runner/engine/examples/cuda_sim_bench.rs`):
/// NVRTC loaded ([`load_nvrtc`]) and a kernel compiled once a process
/// ([`compile_cached`]), and a spec's launches and buffers as the checker
/// takes them ([`checker_launches`], [`checker_buffers`]).
pub use cuda::checker::{buffers as checker_buffers, launches as checker_launches};
pub use cuda::nvrtc::{compile_cached, load as load_nvrtc};
