//! The backends the engine opens: real GPUs (and lavapipe) through wgpu,
//! NVIDIA GPUs through CUDA, and the CPU checker from the core.
//!
//! - [`open`]: a backend by kind, or why it is not here;
//! - [`wgpu`]: WGSL on any Vulkan, Metal or DX12 device, lavapipe included;
//! - [`cuda`]: CUDA C compiled with NVRTC, launched in a child process.
//!
//! Their contract (job, outcome, errors) is the core's
//! ([`puzzle_core::backend_contract::backend`]).

pub mod cuda;
pub mod open;
pub mod wgpu;
