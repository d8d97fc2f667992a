//! WGSL without a GPU: the front end every WGSL backend shares, and the CPU
//! checker, which runs a kernel on the `wgsl-sim` interpreter and reports
//! what no GPU does (races, out-of-bounds indices, uninitialized reads,
//! divergent barriers, global-memory access counts).
//!
//! - [`front`]: parse, validate, and check entry points and bindings against the spec;
//! - [`checker`]: the checker as a [`crate::backend_contract::backend::Backend`].

pub mod checker;
pub mod front;
