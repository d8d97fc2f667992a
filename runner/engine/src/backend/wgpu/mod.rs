//! The wgpu backend: WGSL on any Vulkan, Metal or DX12 device, including
//! Mesa's lavapipe on a CPU, run in a child process.
//!
//! - [`adapter`]: the adapter, its description and its limits;
//! - [`backend`]: the [`puzzle_core::backend_contract::backend::Backend`] the engine opens;
//! - [`device`]: the child's side: the device, and each kernel run on it.
//!
//! The kernel goes through the shared WGSL front end
//! ([`puzzle_core::wgsl::front`]), so a mistake comes back as naga's message
//! at the kernel file's line, with its bindings and workgroup size checked
//! against the spec. Buffers get a poisoned guard band past their end
//! ([`puzzle_core::backend_contract::outcome::device_bytes`]), and runs are timed with
//! timestamp queries when the adapter has them.

pub(crate) mod adapter;
pub(crate) mod backend;
pub(crate) mod device;
