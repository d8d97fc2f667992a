//! PTX text to a program: the [`module::Module`] the rest of the checker
//! runs, and which of its instructions the checker lacks, found before
//! anything runs.
//!
//! - `module`: the module's variables and kernels, registers numbered,
//!   labels resolved, each instruction's CUDA line from `.loc`;
//! - `inst`: one instruction's text decoded (its opcode, modifiers and
//!   operands);
//! - `call`: the one `call` NVRTC leaves in a kernel, printf's `vprintf`;
//! - `support`: which instructions the interpreter implements.

pub(crate) mod call;
pub(crate) mod inst;
pub(crate) mod module;
pub(crate) mod support;
