//! The puzzle spec: what a ```puzzle block declares (launches, buffers,
//! expected outputs, stress and benchmark sizes), from YAML to the values a
//! backend runs and a run is judged against.
//!
//! - [`raw`]: the YAML as written, parsed strictly;
//! - [`expr`]: integer size expressions over the spec's constants;
//! - [`data`]: element types, generated inputs, poison and guard-band words;
//! - [`finding`]: the kinds of mistake a run can show (a debugging case's `bug:`);
//! - [`math`]: which units a spec's arithmetic runs on (FP32, the tensor cores);
//! - [`model`]: the resolved spec (every size a number);
//! - `ranks`: a spec on several GPUs (`gpus:`) laid out as one, a buffer a rank;
//! - [`reference`]: CPU references, the expected outputs at any size;
//! - [`resolve`]: from the one to the other, every error at its line;
//! - [`steps`]: a multi-kernel puzzle's launches, setup steps first.

pub mod data;
pub mod expr;
pub mod finding;
pub mod math;
pub mod model;
mod ranks;
pub mod raw;
pub mod reference;
pub mod resolve;
pub mod steps;

#[cfg(test)]
mod ranks_tests;
#[cfg(test)]
mod tests;
