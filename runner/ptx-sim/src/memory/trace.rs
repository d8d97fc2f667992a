//! Who touched which element: every load and store of a global buffer or of
//! shared memory in a traced run. The types, the limit and the collector
//! are `gpu-hazard`'s, shared with the WGSL checker, so the same access
//! diagrams are drawn for CUDA kernels.

pub use gpu_hazard::{AccessTrace, Touch, Tracer, VariableTrace};
