//! One thread's instructions, run: the interpreter, and what each kind of
//! instruction does to registers and memory, every access going through
//! the checked loads and stores of `world`.
//!
//! - `interpreter`: a thread's instructions until it must wait or ends;
//! - `world`: what a launch and a block share (memory, mbarriers, the
//!   checks and reports) and every load and store, checked;
//! - `atomic`: `atom` and `red`, read-modify-writes with their order;
//! - `exit`: a block of a cluster that exits, and its shared memory with it;
//! - `asynchronous`: mbarrier instructions, `cp.async` and the TMA's bulk
//!   and tensor copies;
//! - `warp`: shuffles, votes and warp syncs; `matrix`: ldmatrix, mma, WMMA
//!   and wgmma;
//! - `printf`: CUDA's `printf`, formatted as the device formats it;
//! - `value`: integer and float arithmetic as PTX types say.

pub(crate) mod asynchronous;
pub(crate) mod atomic;
pub(crate) mod exit;
pub(crate) mod interpreter;
pub(crate) mod matrix;
pub(crate) mod printf;
pub(crate) mod value;
pub(crate) mod warp;
pub(crate) mod world;
