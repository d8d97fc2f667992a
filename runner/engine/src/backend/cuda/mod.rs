//! The CUDA backend: CUDA C compiled with NVRTC through cudarc, and, where
//! an NVIDIA GPU is present, launched on it in a child process; or, on the
//! CPU checker, interpreted by `ptx-sim`.
//!
//! - [`nvrtc`]: finding, loading and calling the compiler;
//! - [`ptx`]: what the compiled code says, checked before any launch;
//! - [`gpu`]: the GPU at hand, probed without launching;
//! - [`backend`]: the [`puzzle_core::backend_contract::backend::Backend`] the engine opens;
//! - [`checker`]: the same kernels on the CPU, through `ptx-sim` (no GPU needed);
//! - [`launch`]: the child's side: the kernel on the GPU (or GPUs);
//! - [`devices`]: the GPUs one run takes, with peer access between them;
//! - [`sanitize`]: compute-sanitizer over a run, its reports in the checker's words;
//! - [`tensor_map`]: TMA tensor maps, encoded for the kernels that take them.

pub(crate) mod backend;
pub(crate) mod checker;
pub(crate) mod devices;
pub(crate) mod gpu;
pub(crate) mod launch;
pub(crate) mod nvrtc;
pub(crate) mod ptx;
pub(crate) mod sanitize;
pub(crate) mod tensor_map;
